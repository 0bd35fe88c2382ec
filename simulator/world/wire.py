"""The simulator's own reading of the wire: protocol names and the validated event sets.

Written from the server's side (the seed, reference §1 and §2, the captures of a real 0.19.0), never imported
from the console, so that a shape both sides get wrong cannot hide: tests/support/schemas/ holds the one
description both are checked against (tests/sim/test_wire_contract.py).

Field names are the wire's camelCase: an event set reads like the body that was sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PROVIDER_PROTOCOLS: tuple[str, ...] = (
    "file", "mpegts", "multiplex", "ovt", "rtmp", "rtsp", "rtsppull", "scheduled", "srt", "webrtc",
)
"""Inbound protocols: the keys of the v2 `providers.connections` (seed), in the server's (sorted) order."""

PUBLISHER_PROTOCOLS: tuple[str, ...] = ("file", "hlsv3", "llhls", "ovt", "push", "srt", "thumbnail", "webrtc")
"""Outbound protocols: the keys of the v2 `publishers.connections` and of the v1 `connections` (0.18+)."""

CueType = Literal["out", "in"]
Id3EventType = Literal["video", "audio", "event"]


@dataclass(frozen=True, kw_only=True)
class CueEvent:
    cueType: CueType
    duration: int | None = None
    """Milliseconds; only for a cue-out (open source reads 0 when it is missing)."""


@dataclass(frozen=True, kw_only=True)
class CueEventSet:
    eventFormat: Literal["cue"] = "cue"
    events: tuple[CueEvent, ...]
    urgent: bool | None = None


@dataclass(frozen=True, kw_only=True)
class Id3Frame:
    frameType: str
    """Upper case: TXXX, any T*** text frame, PRIV."""
    info: str | None = None
    data: str | None = None


@dataclass(frozen=True, kw_only=True)
class Id3EventSet:
    eventFormat: Literal["id3v2"] = "id3v2"
    eventType: Id3EventType = "event"
    events: tuple[Id3Frame, ...]
    urgent: bool | None = None


EventSet = CueEventSet | Id3EventSet
