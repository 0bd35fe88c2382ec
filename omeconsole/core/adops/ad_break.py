"""The ad break of one stream as the operator should see it: idle, sent, scheduled, on air, ended.

One model that the countdown, the warnings and the send rules all read. Driven by what the API
answered to our sends and by what the playlist showed (our sends' sightings, and any break in it,
whoever sent it). The splice time comes from what was seen: a marker, or on a server that writes no
marker the segment it cut; until then it is the server's rule (the first keyframe at least one
keyframe interval after the request), labelled as estimated — never the moment a wait ran out. The
break ends at its planned end or at an accepted cue-in (on the same rule), whichever comes first.
It also holds the one-send-at-a-time guard: a second key press while a send is in flight is refused
with a reason, never queued, and an answer that never came is "outcome unknown" — nothing here
ever resends.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from omeconsole.core.adops.audit import OUTCOME_UNKNOWN
from omeconsole.core.adops.matcher import PlaylistBreak, Sighting
from omeconsole.core.adops.recall import RecalledBreak
from omeconsole.core.adops.splice_cut import KEYFRAME_INTERVAL_S, estimated_splice, hms
from omeconsole.core.clock import Clock

SpliceSource = Literal["marker", "cut", "estimated"]
"""Where the splice time came from: a marker in the playlist, the segment a no-marker server cut, or the
server's rule applied to the request time."""
BreakOrigin = Literal["sent", "playlist", "audit"]
"""Who the break is known from: a send of this console (this process), the playlist (anyone), or the audit
log (an earlier run of this console, on a server whose playlist cannot show it)."""
SOURCE_WORDS: dict[SpliceSource, str] = {
    "marker": "from the playlist's marker",
    "cut": "from the segment cut in the playlist",
    "estimated": "estimated: one keyframe interval after the request",
}


class BreakState(enum.Enum):
    IDLE = "idle"
    SENT = "sent"
    """The cue-out request is on its way; no answer yet."""
    SCHEDULED = "scheduled"
    """Accepted; the splice point is ahead."""
    ON_AIR = "on air"
    ENDED = "ended"
    UNKNOWN = "unknown"
    """The cue-out's answer never came: it may or may not be on air."""
    FAILED = "failed"
    """The server refused the cue-out, or it never reached the server."""


@dataclass(frozen=True)
class BreakView:
    """A snapshot for drawing and for the rules: everything derived for one instant."""

    state: BreakState
    message: str
    planned_s: float | None
    splice_wall: datetime | None
    remaining_s: float | None
    """Countdown while on air (to the planned end or the accepted cue-in's end); None otherwise."""
    from_playlist: bool
    """True when the splice time was seen in the playlist (a marker or a segment cut)."""
    in_flight: str | None
    confirmations: tuple[str, ...]
    splice_source: SpliceSource | None = None
    origin: BreakOrigin = "sent"
    ends_wall: datetime | None = None
    """When the break ends: its planned end, or earlier the end an accepted cue-in asked for."""

    @property
    def on_air_or_ahead(self) -> bool:
        """A break the server holds (scheduled or on air): a cue-out now is dropped, a cue-in has one to end."""
        return self.state in (BreakState.SCHEDULED, BreakState.ON_AIR)


class AdBreak:
    """One stream's break. Call `try_begin` / `started` / `send_*` around each request, `on_sighting`
    and `on_playlist` with what the follower read; `view()` advances time (splice reached, break over)."""

    def __init__(self, clock: Clock, keyframe_s: float = KEYFRAME_INTERVAL_S) -> None:
        self._clock = clock
        self._keyframe_s = keyframe_s
        self.state = BreakState.IDLE
        self.message = "no ad break"
        self.in_flight: str | None = None
        self.planned_s: float | None = None
        self.splice_wall: datetime | None = None
        self.splice_source: SpliceSource | None = None
        self.origin: BreakOrigin = "sent"
        self.cue_in_wall: datetime | None = None
        """The end an accepted cue-in asked for (the server's rule applied to its request time)."""
        self.playlist_readable = True
        self._sent_wall: datetime | None = None
        self._confirmations: list[str] = []

    @property
    def from_playlist(self) -> bool:
        return self.splice_source in ("marker", "cut")

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
        """The request is on its way (its time is what the server's rule counts from)."""
        self._sent_wall = self._clock.wall()
        if action == "cue-out":
            self._new_break(BreakState.SENT, "cue-out sent, waiting for the server's answer", origin="sent")

    def send_accepted(self, action: str, *, planned_s: float | None = None) -> None:
        self.in_flight = None
        requested = self._sent_wall or self._clock.wall()
        if action == "cue-out":
            self.planned_s = planned_s
            if not self.from_playlist:  # the playlist may have shown the splice before the answer came
                self.splice_wall = estimated_splice(requested, self._keyframe_s)
                self.splice_source = "estimated"
                self.state = BreakState.SCHEDULED
                self.message = ("accepted by the server; not yet seen in the playlist" if self.playlist_readable
                                else "accepted by the server; the playlist cannot be read")
        elif action == "cue-in" and self.state in _BREAK_OPEN:
            self.cue_in_wall = estimated_splice(requested, self._keyframe_s)
            self.message = f"cue-in accepted: the break ends at {hms(self.cue_in_wall)} (estimated)"

    def send_failed(self, action: str, reason: str, *, reached_server: bool = True) -> None:
        """The server refused it (or, with `reached_server=False`, it never got there)."""
        self.in_flight = None
        what = "refused" if reached_server else "not sent"
        if action == "cue-out":
            self.state = BreakState.FAILED
            self.splice_wall = None
            self.splice_source = None
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
        now = self._clock.wall()
        self._advance(now)  # a break of ours that ended by itself since the last look is ended, not on air
        if self.state in (BreakState.IDLE, BreakState.ENDED, BreakState.FAILED) and not seen.ended:
            if seen.splice_wall is not None and seen.planned_s is not None and (
                    now >= seen.splice_wall + timedelta(seconds=seen.planned_s)):
                return  # over by itself; its cue-in is not written yet
            if self.state is BreakState.ENDED and self.splice_wall == seen.splice_wall:
                return  # the break we saw end
            self._new_break(BreakState.SCHEDULED, "a break is in the playlist", origin="playlist")
            self.splice_wall = seen.splice_wall or now
            self.splice_source = "marker"
            self.planned_s = seen.planned_s
            self._advance(now)
        elif (self.state in _BREAK_OPEN and seen.ended and self.from_playlist
              and seen.splice_wall == self.splice_wall):
            self.state = BreakState.ENDED
            self.message = "ended by a cue-in in the playlist"

    def on_record(self, record: RecalledBreak) -> None:
        """An accepted cue-out from the audit log (an earlier run), on a server whose playlist cannot show it:
        at the splice that run saw (the segment cut) when it saw one, else estimated from the server's rule."""
        self._advance(self._clock.wall())
        if self.state not in (BreakState.IDLE, BreakState.ENDED, BreakState.FAILED) or self.in_flight is not None:
            return
        splice = record.splice or estimated_splice(record.requested, self._keyframe_s)
        cue_in = record.cue_in_splice or (estimated_splice(record.cue_in_requested, self._keyframe_s)
                                          if record.cue_in_requested is not None else None)
        if self.state is BreakState.ENDED and self.splice_wall == splice:
            return
        seen = f", splice seen at {hms(splice)}" if record.splice is not None else ""
        self._new_break(BreakState.SCHEDULED, f"a break this console sent earlier (audit log){seen}", origin="audit")
        self.splice_wall, self.planned_s, self.cue_in_wall = splice, record.planned_s, cue_in
        self.splice_source = "cut" if record.splice is not None else "estimated"
        self._advance(self._clock.wall())

    def on_sighting(self, sighting: Sighting) -> None:
        now = self._clock.wall()
        self._advance(now)
        self._confirmations.append(f"{'ID3' if sighting.kind == 'id3' else sighting.kind}: {sighting.detail}")
        if sighting.kind == "cue-out":
            if sighting.seen:
                self.splice_wall = sighting.splice_wall or now
                self.splice_source = "cut" if sighting.by_cut else "marker"
                if self.state in (BreakState.SENT, BreakState.SCHEDULED, BreakState.UNKNOWN, BreakState.IDLE,
                                  BreakState.ON_AIR):
                    self.state = BreakState.SCHEDULED
                    self.message = f"splice seen at {hms(self.splice_wall)}" + (
                        ", no marker written" if sighting.by_cut else "")
                    self._advance(now)
            elif self.state in (BreakState.SCHEDULED, BreakState.ON_AIR):
                self.message = f"{sighting.detail}; splice estimated from the server's rule"
            elif self.state is BreakState.UNKNOWN:
                self.message = f"{sighting.detail}; whether it is on air is unknown"
        elif sighting.kind == "cue-in" and sighting.seen and self.state in _BREAK_OPEN:
            self.cue_in_wall = sighting.splice_wall or now
            self.message = f"ended by cue-in ({sighting.detail})"
            self._advance(now)

    def view(self) -> BreakView:
        now = self._clock.wall()
        self._advance(now)
        ends = self._ends()
        remaining = None
        if self.state is BreakState.ON_AIR and ends is not None:
            remaining = max(0.0, (ends - now).total_seconds())
        return BreakView(self.state, self.message, self.planned_s, self.splice_wall, remaining,
                         self.from_playlist, self.in_flight, tuple(self._confirmations), self.splice_source,
                         self.origin, ends)

    def _ends(self) -> datetime | None:
        planned = (self.splice_wall + timedelta(seconds=self.planned_s)
                   if self.splice_wall is not None and self.planned_s is not None else None)
        return min((t for t in (planned, self.cue_in_wall) if t is not None), default=None)

    def _advance(self, now: datetime) -> None:
        if self.state is BreakState.SCHEDULED and self.splice_wall is not None and now >= self.splice_wall:
            self.state = BreakState.ON_AIR
            self.message = "on air" + ("" if self.from_playlist else " (splice estimated; not seen in the playlist)")
        ends = self._ends()
        if self.state in (BreakState.ON_AIR, BreakState.SCHEDULED) and ends is not None and now >= ends:
            self.state = BreakState.ENDED
            if self.cue_in_wall is not None and ends == self.cue_in_wall:
                if not self.message.startswith("ended by cue-in"):
                    self.message = f"ended by cue-in at {hms(ends)}"
            else:
                self.message = f"ended by itself after {self.planned_s:g} s"

    def _new_break(self, state: BreakState, message: str, *, origin: BreakOrigin) -> None:
        self.state, self.message, self.origin = state, message, origin
        self.splice_wall = self.splice_source = self.cue_in_wall = None
        self.planned_s = None
        self._confirmations.clear()


_BREAK_OPEN = (BreakState.SCHEDULED, BreakState.ON_AIR, BreakState.UNKNOWN, BreakState.SENT)
