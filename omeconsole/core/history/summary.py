"""A node's life in one line: "ended 3 h 00 min ago — peak 812 viewers, 14.16 GiB out, 1 h 52 min live".

Bytes over its life are what the server counted when the console first saw it plus every byte moved
since (across counter resets: they add up). The peak is the larger of what the console saw and the
server's own `maxTotalConnections` (the server saw every moment; the console sampled). Live time is
the sum of the node's lives, each from the server's createdTime (or first sight) to its last sample.
"""

from __future__ import annotations

from dataclasses import dataclass

from omeconsole.core import units
from omeconsole.model.paths import NodePath


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
        parts.append(f"{units.size(self.bytes_out)} out")
        parts.append(f"{duration(self.live_seconds)} live")
        lives = f" over {self.lives} lives (counters reset)" if self.lives > 1 else ""
        return f"{when} — {', '.join(parts)}{lives}"


def duration(seconds: float) -> str:
    """The console's own wording (`12 s`, `3 min 05 s`, `1 h 52 min`), and days past one: `3 d 4 h`."""
    if seconds < 86_400:
        return units.age(seconds)
    whole = round(seconds)
    return f"{whole // 86_400} d {whole % 86_400 // 3600} h"
