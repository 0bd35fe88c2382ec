"""A node's life in one line: "ended 3 h ago — peak 812 viewers, 14.2 GiB out, 1 h 52 m live".

Bytes over its life are what the server counted when the console first saw it plus every byte moved
since (across counter resets: they add up). The peak is the larger of what the console saw and the
server's own `maxTotalConnections` (the server saw every moment; the console sampled). Live time is
the sum of the node's lives, each from the server's createdTime (or first sight) to its last sample.
"""

from __future__ import annotations

from dataclasses import dataclass

from omeconsole.model.paths import NodePath

_BYTE_UNITS = (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))


@dataclass(frozen=True, slots=True)
class StreamSummary:
    server: str
    """host:port"""
    profile: str | None
    path: NodePath
    first_seen: float
    last_seen: float
    ended_at: float | None
    """When the server was last seen to stop listing it; None while it was live when last seen."""
    live_seconds: float
    peak_viewers: int | None
    peak_viewers_at: float | None
    peak_rate_in_bps: float | None
    peak_rate_out_bps: float | None
    bytes_in: int
    bytes_out: int
    samples: int
    lives: int
    """More than one: the counters were reset (server restart) or the stream came back as a new one."""

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    def describe(self, now: float) -> str:
        """One line for people; `now` in epoch seconds."""
        if self.ended_at is not None:
            when = f"ended {duration(now - self.ended_at)} ago"
        else:
            when = f"last seen {duration(now - self.last_seen)} ago"
        parts = []
        if self.peak_viewers is not None:
            parts.append(f"peak {self.peak_viewers:,} viewer{'s' if self.peak_viewers != 1 else ''}")
        parts.append(f"{size(self.bytes_out)} out")
        parts.append(f"{duration(self.live_seconds)} live")
        lives = f" over {self.lives} lives (counters reset)" if self.lives > 1 else ""
        return f"{when} — {', '.join(parts)}{lives}"


def duration(seconds: float) -> str:
    """`45 s`, `12 m 05 s`, `1 h 52 m`, `3 d 4 h`: two units at most."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} m {whole % 60:02d} s"
    if whole < 86_400:
        return f"{whole // 3600} h {whole % 3600 // 60:02d} m"
    return f"{whole // 86_400} d {whole % 86_400 // 3600} h"


def size(nbytes: int | float) -> str:
    """Bytes in binary units with one decimal: `14.2 GiB`."""
    for unit, scale in _BYTE_UNITS:
        if abs(nbytes) >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{nbytes:.0f} B"
