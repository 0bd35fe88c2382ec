"""The answer to a send (cue-out, cue-in, ID3, raw event sets), as the server gave it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ItemResult:
    """One element of a multi-status (207) sendEvents reply."""

    status: int
    message: str


@dataclass(frozen=True, slots=True)
class SendResult:
    """The status, the server's message, and the body exactly as sent."""

    status: int
    message: str
    body: object
    items: tuple[ItemResult, ...] = ()

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300 and all(200 <= i.status < 300 for i in self.items)
