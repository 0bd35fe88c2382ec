"""Events accepted by the API for a stream, in acceptance order: the hand-over to the media side."""

from __future__ import annotations

from dataclasses import dataclass, field

from simulator.world.wire import CueEventSet, Id3EventSet


@dataclass(frozen=True)
class AcceptedEvent:
    seq: int
    """Order of acceptance across the whole server."""
    accepted_ms: int
    """World clock time at which the API accepted the event."""
    event_set: CueEventSet | Id3EventSet
    """The validated, normalised event set the media side applies."""
    body: object
    """The element exactly as the client sent it (after JSON parsing)."""


@dataclass
class EventLog:
    """A stream's accepted events. Append-only: the media side reads it as a pure input."""

    events: list[AcceptedEvent] = field(default_factory=list)

    def append(self, event: AcceptedEvent) -> None:
        self.events.append(event)
