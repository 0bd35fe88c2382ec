"""Validation of sendEvent / sendEvents bodies, with the real server's 400 messages (reference §2.3).

Pure functions: a parsed JSON value in, a validated wire model out, or EventRejected with the
message the server puts after "[HTTP] ". Nothing is applied here.
"""

from __future__ import annotations

import re
from typing import Any

from simulator.world.edition import Edition, ServerProfile
from simulator.world.wire import CueEvent, CueEventSet, Id3EventSet, Id3EventType, Id3Frame

__all__ = ["Edition", "EventRejected", "validate_event_set", "validate_event_sets"]

MAX_CUE_DURATION_MS = 86_400_000
MAX_ID3_TAG_BYTES = 65_535
_FRAME_ID = re.compile(r"[A-Z0-9]{4}")
_EVENT_TYPES: tuple[Id3EventType, ...] = ("video", "audio", "event")


class EventRejected(ValueError):
    """The body breaks a rule; the message is the server's text for it."""


def validate_event_set(value: Any, profile: ServerProfile) -> CueEventSet | Id3EventSet:
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("eventFormat"), str)
        or not isinstance(value.get("events"), list)
        or not value["events"]
    ):
        raise EventRejected("eventFormat(string) and events(array) are required")
    event_format = value["eventFormat"]
    urgent = value.get("urgent")
    if urgent is not None and not isinstance(urgent, bool):
        raise EventRejected("urgent must be boolean")
    match event_format.lower():
        case "cue" if profile.accepts_cue:
            return _cue_event_set(value["events"], urgent, profile)
        case "id3v2":
            frames = tuple(_id3_frame(e) for e in value["events"])
            _check_tag_size(frames)
            return Id3EventSet(eventType=_event_type(value, profile), events=frames, urgent=urgent)
        case _:
            raise EventRejected(f"eventFormat is not supported: [{event_format}]")


def validate_event_sets(value: Any, profile: ServerProfile) -> list[CueEventSet | Id3EventSet]:
    """Every element, before any is applied; the first bad one names its index."""
    if not isinstance(value, list) or not value:
        raise EventRejected("events(array) is required")
    validated = []
    for index, element in enumerate(value):
        try:
            validated.append(validate_event_set(element, profile))
        except EventRejected as error:
            raise EventRejected(f"events[{index}]: {error}") from None
    return validated


def _cue_event_set(events: list[Any], urgent: bool | None, profile: ServerProfile) -> CueEventSet:
    """Enterprise reads every event (the seed); open source reads the first only (reference §2.3)."""
    if profile.is_enterprise:
        return CueEventSet(events=tuple(_cue_event(e, profile) for e in events), urgent=urgent)
    return CueEventSet(events=(_cue_event(events[0], profile),), urgent=urgent)


def _cue_event(value: Any, profile: ServerProfile) -> CueEvent:
    if not isinstance(value, dict) or not isinstance(value.get("cueType"), str):
        raise EventRejected("cueType is required in events")
    cue_type = value["cueType"].lower()
    if cue_type == "in":
        return CueEvent(cueType="in")
    if cue_type != "out":
        raise EventRejected(f"cueType is not supported: [{value['cueType']}]")
    duration = value.get("duration")
    if not profile.cue_out_needs_duration and not _is_unsigned(duration):
        return CueEvent(cueType="out", duration=0)  # open source reads a missing or odd duration as 0: still 200
    if duration is None:
        raise EventRejected("duration(integer, milliseconds) is required for cueType out")
    if isinstance(duration, bool) or not isinstance(duration, int) or not 0 < duration <= MAX_CUE_DURATION_MS:
        raise EventRejected(f"duration must be an integer from 1 to {MAX_CUE_DURATION_MS} milliseconds")
    return CueEvent(cueType="out", duration=duration)


def _is_unsigned(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**32  # jsoncpp isUInt()


def _event_type(value: dict[str, Any], profile: ServerProfile) -> Id3EventType:
    names = ("eventType", "eventTarget") if profile.reads_event_target else ("eventType",)
    given: list[str] = []
    for name in names:
        if name in value:
            if not isinstance(value[name], str):
                raise EventRejected(f"{name} must be string")
            given.append(value[name])
    if len({g.lower() for g in given}) > 1:
        raise EventRejected(f"eventType and eventTarget differ: [{given[0]}] [{given[1]}]")
    if not given:
        return "event"
    for event_type in _EVENT_TYPES:
        if given[0].lower() == event_type:
            return event_type
    raise EventRejected(f"eventType is not supported: [{given[0]}]")


def _id3_frame(value: Any) -> Id3Frame:
    if not isinstance(value, dict) or not isinstance(value.get("frameType"), str):
        raise EventRejected("frameType is required in events")
    frame_type = value["frameType"].upper()
    if (
        not value["frameType"].isascii()  # "tß1".upper() is "TSS1": only ASCII identifiers count
        or not _FRAME_ID.fullmatch(frame_type)
        or not (frame_type.startswith("T") or frame_type == "PRIV")
    ):
        raise EventRejected(f"frameType is not supported: [{value['frameType']}]")
    for name in ("info", "data"):
        if name in value and not isinstance(value[name], str):
            raise EventRejected(f"{name} must be string")
    info = value.get("info")
    if frame_type == "PRIV" and info is not None:
        if "\x00" in info:
            raise EventRejected("info of a PRIV frame must not contain NUL")
        if any(ord(c) > 0xFF for c in info):  # the owner is ISO-8859-1 in ID3
            raise EventRejected("info of a PRIV frame must be Latin-1 text")
    return Id3Frame(frameType=frame_type, info=info, data=value.get("data"))


def _check_tag_size(frames: tuple[Id3Frame, ...]) -> None:
    size = 10 + sum(
        10 + 2 + len((f.info or "").encode("utf-8")) + len((f.data or "").encode("utf-8")) for f in frames
    )
    if size > MAX_ID3_TAG_BYTES:
        raise EventRejected(f"ID3 tag is too large: {size} bytes (limit {MAX_ID3_TAG_BYTES})")
