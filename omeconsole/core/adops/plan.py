"""A send, planned: the exact bytes that will go on the wire, where, and what the console says first.

Planning is pure and decides everything the operator must see before anything leaves: read-only
(decided here and nowhere else), frame ids, durations, and the warnings a careful operator wants
to read and confirm: the server's own marker rules (`rules`: a cue the server would drop after its
200), an empty ID3 frame, and the note that a server writes no markers. The TUI and the command
line plan with these same functions. The body is serialised
once, here; the request sends these bytes and the audit log records them. A plan is shown as
lazygit shows the command it will run: `describe()` is the request line and the body.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from omeconsole.api.client import event_body
from omeconsole.api.emsg import DecodedFrame
from omeconsole.api.wire import CueEvent, CueEventSet, Id3EventSet, Id3EventType, Id3Frame
from omeconsole.core.adops import rules
from omeconsole.core.adops.ad_break import BreakView
from omeconsole.core.adops.audit import json_bytes
from omeconsole.core.adops.matcher import ExpectKind, Rendition, expected_frames
from omeconsole.core.adops.rules import RuleCode
from omeconsole.model.paths import NodePath
from omeconsole.model.server import UNKNOWN_MARKERS, MarkerCapability

Action = Literal["cue-out", "cue-in", "id3", "send-events"]
ApiAction = Literal["sendEvent", "sendEvents"]
WarningCode = RuleCode | Literal["empty-frame", "no-marker-tags"]
RefusalCode = Literal["read-only", "in-flight", "bad-duration", "no-frames", "bad-frame"]
READ_ONLY_MESSAGE = "read-only mode: nothing is sent"
MAX_DURATION_S = 86_400.0
_FRAME_ID = re.compile(r"[A-Z0-9]{4}")


@dataclass(frozen=True)
class PlanWarning:
    code: WarningCode
    message: str
    needs_confirmation: bool = True
    """False for what is only said (the break's state could not be read); True for what must be confirmed."""


@dataclass(frozen=True)
class PlanRefusal:
    code: RefusalCode
    message: str


@dataclass(frozen=True)
class SendPlan:
    """One request, ready to go: nothing in it changes between the confirmation and the wire."""

    send_id: str
    action: Action
    target: NodePath
    api_action: ApiAction
    api_path: str
    """The request's path on the management API, e.g. `/v1/vhosts/default/apps/app/streams/s:sendEvent`."""
    server: str
    """`host:port` of the management API."""
    profile: str | None
    body: Any
    """The JSON value sent (for showing); `content` is its bytes, serialised once."""
    content: bytes
    warnings: tuple[PlanWarning, ...] = ()
    refusal: PlanRefusal | None = None
    expect: ExpectKind | None = None
    """What the playlist (or media) should show afterwards; None for raw event sets."""
    frames: tuple[DecodedFrame, ...] = field(default=(), repr=False)
    rendition: Rendition = "video"
    planned_s: float | None = None

    @property
    def to_confirm(self) -> tuple[PlanWarning, ...]:
        return tuple(w for w in self.warnings if w.needs_confirmation)

    @property
    def warning_codes(self) -> frozenset[WarningCode]:
        return frozenset(w.code for w in self.to_confirm)

    def describe(self) -> str:
        """What will be sent, exactly: `POST <path> on <server>` and the body, pretty-printed."""
        pretty = json.dumps(self.body, ensure_ascii=False, indent=2)
        return f"POST {self.api_path} on {self.server}\n{pretty}"


@dataclass(frozen=True)
class PlanInput:
    """What planning needs to know about the moment: the stream's break and the server's context."""

    send_id: str
    target: NodePath
    api_path_of: Mapping[ApiAction, str]
    server: str
    profile: str | None
    read_only: bool
    view: BreakView
    playlist_known: bool
    """The playlist was read and its last read succeeded (so "no break" means no break)."""
    segment_s: float | None
    """The playlist's target duration, when read (for the short-break rule)."""
    now: datetime
    """The console clock's wall time (the rules compare it with the splice)."""
    markers: MarkerCapability = UNKNOWN_MARKERS
    """What the server does with a cue (writes tags, only cuts a segment, refuses it)."""
    playlist_problem: str | None = None
    """Why the playlist could not be read, when it could not."""


def plan_cue_out(given: PlanInput, duration_s: float) -> SendPlan:
    duration_ms = round(duration_s * 1000) if 0 < duration_s <= MAX_DURATION_S else 0
    event_set = CueEventSet(events=[CueEvent(cueType="out", duration=max(duration_ms, 1))])
    refusal = _refusal(given)
    if refusal is None and duration_ms <= 0:
        refusal = PlanRefusal("bad-duration", f"a break lasts more than 0 and at most {MAX_DURATION_S:g} s")
    warnings = _judged(given, rules.cue_out_rules(_facts(given), duration_s))
    warnings.extend(_marker_note(given))
    return _plan(given, "cue-out", "sendEvent", event_body(event_set), warnings, refusal, expect="cue-out",
                 planned_s=duration_ms / 1000 if duration_ms > 0 else None)


def plan_cue_in(given: PlanInput) -> SendPlan:
    event_set = CueEventSet(events=[CueEvent(cueType="in")])
    warnings = _judged(given, rules.cue_in_rules(_facts(given)))
    return _plan(given, "cue-in", "sendEvent", event_body(event_set), [*warnings, *_marker_note(given)],
                 _refusal(given), expect="cue-in")


def _judged(given: PlanInput, broken: list[rules.Broken]) -> list[PlanWarning]:
    """The rules as warnings to confirm; none on a server that refuses cue events outright (its 400 says it)."""
    if given.markers.writing == "refused":
        return []
    return [PlanWarning(b.code, b.message) for b in broken]


def _facts(given: PlanInput) -> rules.Facts:
    return rules.Facts(given.view, given.playlist_known, given.playlist_problem, given.segment_s, given.markers,
                       given.now)


def _marker_note(given: PlanInput) -> list[PlanWarning]:
    """Said before every cue on a server that writes no marker tags (nothing to confirm: it is a fact)."""
    if given.markers.cuts_segment_only and given.markers.note is not None:
        return [PlanWarning("no-marker-tags", given.markers.note, needs_confirmation=False)]
    return []


def plan_id3(given: PlanInput, frames: Sequence[Id3Frame], event_type: Id3EventType = "event") -> SendPlan:
    refusal = _refusal(given)
    normalized: list[Id3Frame] = []
    warnings: list[PlanWarning] = []
    for index, frame in enumerate(frames, start=1):
        problem = frame_problem(frame.frameType)
        if problem is not None and refusal is None:
            refusal = PlanRefusal("bad-frame", f"frame {index}: {problem}")
        kind = frame.frameType.upper()
        info = frame.info if kind in ("TXXX", "PRIV") else None
        normalized.append(Id3Frame(frameType=kind, info=info, data=frame.data))
        if not frame.data:
            warnings.append(PlanWarning("empty-frame", f"frame {index} ({kind}) has no value"))
    if not frames and refusal is None:
        refusal = PlanRefusal("no-frames", "an ID3 event needs at least one frame")
    event_set = Id3EventSet(eventType=event_type, events=normalized)
    return _plan(given, "id3", "sendEvents", [event_body(event_set)], warnings, refusal, expect="id3",
                 frames=expected_frames((f.frameType, f.info, f.data) for f in normalized),
                 rendition="audio" if event_type == "audio" else "video")


def plan_event_sets(given: PlanInput, sets: Sequence[Mapping[str, Any]]) -> SendPlan:
    """Raw event sets (a file), sent exactly as written; nothing to confirm in the playlist."""
    return _plan(given, "send-events", "sendEvents", [dict(s) for s in sets], [], _refusal(given))


def frame_problem(frame_type: str) -> str | None:
    """Why the server would refuse this frame id, or None: TXXX, any T*** text frame, or PRIV."""
    kind = frame_type.upper()
    if not frame_type.isascii() or not _FRAME_ID.fullmatch(kind) or not (kind.startswith("T") or kind == "PRIV"):
        return f"{frame_type or '(empty)'!s} is not a frame id servers take (TXXX, T*** or PRIV)"
    return None


def _refusal(given: PlanInput) -> PlanRefusal | None:
    if given.read_only:
        return PlanRefusal("read-only", READ_ONLY_MESSAGE)
    if given.view.in_flight is not None:
        return PlanRefusal("in-flight", f"{given.view.in_flight} is still being sent to {given.target} — nothing "
                                        "else is sent until it is answered")
    return None


def _plan(given: PlanInput, action: Action, api_action: ApiAction, body: Any, warnings: list[PlanWarning],
          refusal: PlanRefusal | None, *, expect: ExpectKind | None = None, frames: tuple[DecodedFrame, ...] = (),
          rendition: Rendition = "video", planned_s: float | None = None) -> SendPlan:
    content = json_bytes(body)
    return SendPlan(given.send_id, action, given.target, api_action, given.api_path_of[api_action], given.server,
                    given.profile, body, content, tuple(warnings), refusal, expect, frames, rendition, planned_s)
