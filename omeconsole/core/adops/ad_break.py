"""The ad break of one stream as the operator should see it: idle, sent, scheduled, on air, ended.

Driven by two sources that can disagree: what the API answered to our sends, and what the
playlist showed (our sends' sightings, and any break in it, whoever sent it). The playlist wins when
it can be read (it is what players get); otherwise the machine follows the API answer alone and
says so. It also holds the one-send-at-a-time guard:
a second key press while a send is in flight is refused with a reason, never queued, and an
answer that never came is "outcome unknown" — nothing here ever resends.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timedelta

from omeconsole.core.adops.audit import OUTCOME_UNKNOWN
from omeconsole.core.adops.matcher import PlaylistBreak, Sighting
from omeconsole.core.clock import Clock


class BreakState(enum.Enum):
    IDLE = "idle"
    SENT = "sent"
    """The cue-out request is on its way; no answer yet."""
    SCHEDULED = "scheduled"
    """Accepted; the splice point is ahead (or not yet seen in the playlist)."""
    ON_AIR = "on air"
    ENDED = "ended"
    UNKNOWN = "unknown"
    """The cue-out's answer never came: it may or may not be on air."""
    FAILED = "failed"
    """The server refused the cue-out, or it never reached the server."""


@dataclass(frozen=True)
class BreakView:
    """A snapshot for drawing: everything derived for one instant."""

    state: BreakState
    message: str
    planned_s: float | None
    splice_wall: datetime | None
    remaining_s: float | None
    """Countdown while on air; None otherwise."""
    from_playlist: bool
    """True when the splice time came from the playlist, False when estimated from the API answer."""
    in_flight: str | None
    confirmations: tuple[str, ...]
    sent_here: bool = False
    """True for a break this console sent; False for one it only saw in the playlist (someone else's)."""


class AdBreak:
    """One stream's break. Call `try_begin` / `started` / `send_*` around each request, `on_sighting`
    and `on_playlist` with what the follower read; `view()` advances time (splice reached, break over)."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self.state = BreakState.IDLE
        self.message = "no ad break"
        self.in_flight: str | None = None
        self.planned_s: float | None = None
        self.splice_wall: datetime | None = None
        self.from_playlist = False
        self.playlist_readable = True
        self.sent_here = False
        self._confirmations: list[str] = []

    def try_begin(self, action: str) -> str | None:
        """Claim the stream for one send; returns why not if another send is still in flight."""
        if self.in_flight is not None:
            return f"{self.in_flight} is still being sent — nothing else sent until it is answered"
        self.in_flight = action
        return None

    def release(self) -> None:
        """The claimed send did not leave (its intent could not be recorded): nothing changed."""
        self.in_flight = None

    def started(self, action: str) -> None:
        """The request is on its way."""
        if action == "cue-out":
            self.state = BreakState.SENT
            self.message = "cue-out sent, waiting for the server's answer"
            self.splice_wall = None
            self.from_playlist = False
            self.sent_here = True
            self._confirmations.clear()

    def send_accepted(self, action: str, *, planned_s: float | None = None) -> None:
        self.in_flight = None
        now = self._clock.wall()
        if action == "cue-out":
            self.planned_s = planned_s
            if self.from_playlist:
                pass  # the playlist showed the splice before the answer arrived: it knows better
            elif self.playlist_readable:
                self.state = BreakState.SCHEDULED
                self.message = "accepted; waiting for the splice in the playlist"
            else:
                self._on_air_from_api(now)
        elif action == "cue-in":
            if not self.playlist_readable and self.state in _BREAK_OPEN:
                self.state = BreakState.ENDED
                self.message = "ended by cue-in (API answer only; playlist cannot be read)"
            elif self.state in _BREAK_OPEN:
                self.message = "cue-in accepted; waiting for it in the playlist"

    def send_failed(self, action: str, reason: str, *, reached_server: bool = True) -> None:
        """The server refused it (or, with `reached_server=False`, it never got there)."""
        self.in_flight = None
        what = "refused" if reached_server else "not sent"
        if action == "cue-out":
            self.state = BreakState.FAILED
        self.message = f"{action} {what}: {reason}"

    def send_unknown(self, action: str) -> None:
        """The request may have reached the server; never resend, let the playlist tell."""
        self.in_flight = None
        if action == "cue-out" and not self.from_playlist:
            self.state = BreakState.UNKNOWN
        self.message = f"{action}: {OUTCOME_UNKNOWN}"

    def playlist_status(self, readable: bool) -> None:
        self.playlist_readable = readable

    def on_playlist(self, seen: PlaylistBreak | None) -> None:
        """A break in the playlist that no send of ours is tracking (another operator, an earlier run)."""
        if seen is None or self.in_flight is not None:
            return
        if self.state in (BreakState.IDLE, BreakState.ENDED, BreakState.FAILED) and not seen.ended:
            if seen.splice_wall is not None and seen.planned_s is not None and (
                    self._clock.wall() >= seen.splice_wall + timedelta(seconds=seen.planned_s)):
                return  # over by itself; its cue-in is not written yet
            if self.state is BreakState.ENDED and self.splice_wall == seen.splice_wall:
                return  # the break we saw end
            self.splice_wall = seen.splice_wall or self._clock.wall()
            self.planned_s = seen.planned_s
            self.from_playlist = True
            self.sent_here = False
            self.state = BreakState.SCHEDULED
            self.message = "a break is in the playlist (not sent from this console)"
            self._advance(self._clock.wall())
        elif (self.state in _BREAK_OPEN and seen.ended and self.from_playlist
              and seen.splice_wall == self.splice_wall):
            self.state = BreakState.ENDED
            self.message = "ended by a cue-in in the playlist"

    def on_sighting(self, sighting: Sighting) -> None:
        now = self._clock.wall()
        if sighting.kind == "id3":
            self._confirmations.append(f"ID3: {sighting.detail}")
            return
        self._confirmations.append(f"{sighting.kind}: {sighting.detail}")
        if sighting.kind == "cue-out":
            if sighting.seen:
                self.splice_wall = sighting.splice_wall or now
                self.from_playlist = True
                if self.state in (BreakState.SENT, BreakState.SCHEDULED, BreakState.UNKNOWN, BreakState.IDLE):
                    self.state = BreakState.SCHEDULED
                    self.message = f"splice at {_hms(self.splice_wall)}"
            elif self.state in (BreakState.SCHEDULED, BreakState.UNKNOWN):
                self._on_air_from_api(now)
                self.message = f"{sighting.detail}; relying on the API answer"
        elif sighting.kind == "cue-in" and sighting.seen and self.state in _BREAK_OPEN:
            self.state = BreakState.ENDED
            self.message = f"ended by cue-in ({sighting.detail})"

    def view(self) -> BreakView:
        self._advance(self._clock.wall())
        remaining = None
        if self.state is BreakState.ON_AIR and self.splice_wall is not None and self.planned_s is not None:
            remaining = max(0.0, (self.splice_wall - self._clock.wall()).total_seconds() + self.planned_s)
        return BreakView(self.state, self.message, self.planned_s, self.splice_wall, remaining,
                         self.from_playlist, self.in_flight, tuple(self._confirmations), self.sent_here)

    def _advance(self, now: datetime) -> None:
        if self.state is BreakState.SCHEDULED and self.splice_wall is not None and now >= self.splice_wall:
            self.state = BreakState.ON_AIR
            self.message = "on air" + ("" if self.from_playlist else " (API answer only)")
        if (self.state is BreakState.ON_AIR and self.splice_wall is not None and self.planned_s is not None
                and now >= self.splice_wall + timedelta(seconds=self.planned_s)):
            self.state = BreakState.ENDED
            self.message = f"ended by itself after {self.planned_s:g} s"

    def _on_air_from_api(self, now: datetime) -> None:
        self.splice_wall = now
        self.from_playlist = False
        self.state = BreakState.ON_AIR
        self.message = "on air (API answer only; playlist cannot be read)"


_BREAK_OPEN = (BreakState.SCHEDULED, BreakState.ON_AIR, BreakState.UNKNOWN, BreakState.SENT)


def _hms(when: datetime) -> str:
    return when.strftime("%H:%M:%S.%f")[:-3]
