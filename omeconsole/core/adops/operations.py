"""Sending ad operations (cue-out, cue-in, ID3) once, recording them, and confirming them.

The one place every send goes through, for the TUI and the command line alike, so the rules hold
everywhere: read-only sends nothing; one send per stream at a time (a second press is refused and
said so); each send is in the audit log, synced, before its result is shown; an answer that never
came is "outcome unknown" and is never retried; the stream's playlist watcher confirms what the
API accepted, and that confirmation is appended to the audit log too.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from omeconsole.api.client import OmeClient, event_body
from omeconsole.api.emsg import DecodedFrame
from omeconsole.api.errors import OmeError, OutcomeUnknown, UnreachableError
from omeconsole.api.publisher import PublisherReader
from omeconsole.api.wire import CueEvent, CueEventSet, Id3EventSet, Id3EventType, Id3Frame
from omeconsole.core.adops.ad_break import OUTCOME_UNKNOWN, AdBreak
from omeconsole.core.adops.audit import AuditLog, Status, new_send_id
from omeconsole.core.adops.watcher import (
    ExpectKind,
    PlaylistRead,
    PlaylistUnavailable,
    PlaylistWatcher,
    Sighting,
    WatcherEvent,
)
from omeconsole.core.clock import Clock
from omeconsole.model.paths import NodePath

Action = Literal["cue-out", "cue-in", "id3"]
OutcomeStatus = Literal["sent", "refused", "failed", "unknown"]
READ_ONLY_MESSAGE = "read-only mode: nothing is sent"


@dataclass(frozen=True)
class ActionOutcome:
    """What happened to one key press, in words the operator can act on."""

    action: Action
    status: OutcomeStatus
    message: str
    send_id: str | None = None
    http_status: int | None = None
    body: object | None = None
    sighting: asyncio.Future[Sighting] | None = field(default=None, repr=False)
    """Resolves when the playlist (or media) shows the send, or says it did not in time."""


@dataclass
class StreamAdOps:
    """Everything ad-ops keeps for one stream: its break state and its playlist watcher."""

    path: NodePath
    ad_break: AdBreak
    watcher: PlaylistWatcher
    task: asyncio.Task[None] | None = None


def id3_expected_frames(frames: Sequence[Id3Frame]) -> tuple[DecodedFrame, ...]:
    """What the media should give back for the frames sent (frame ids are upper-cased by servers)."""
    return tuple(DecodedFrame(f.frameType.upper(), f.info, f.data) for f in frames)


class AdOps:
    """Sends ad operations for any stream of one server and follows their confirmation."""

    def __init__(
        self,
        client: OmeClient,
        audit: AuditLog,
        clock: Clock,
        *,
        publisher_url: str,
        read_only: bool = False,
        confirm_timeout_s: float = 15.0,
        watcher_factory: Callable[[NodePath], PlaylistWatcher] | None = None,
        follow_playlists: bool = True,
    ) -> None:
        self.client = client
        self.audit = audit
        self.clock = clock
        self.publisher_url = publisher_url
        self.read_only = read_only
        self.confirm_timeout_s = confirm_timeout_s
        self._watcher_factory = watcher_factory or self._default_watcher
        self._follow = follow_playlists
        self._streams: dict[NodePath, StreamAdOps] = {}
        self._recorded: set[str] = set()
        self._viewed: set[NodePath] = set()
        self._early_sightings: dict[str, list[Sighting]] = {}
        self._listeners: list[Callable[[NodePath, WatcherEvent | ActionOutcome], None]] = []

    def add_listener(self, callback: Callable[[NodePath, WatcherEvent | ActionOutcome], None]) -> None:
        """Called with every watcher report and every action outcome (to redraw a panel)."""
        self._listeners.append(callback)

    def stream(self, path: NodePath) -> StreamAdOps:
        """The stream's state, created on first use (its watcher is not started until `watch`)."""
        if path.level != "stream":
            raise ValueError(f"ad operations need a stream, not {path}")
        if path not in self._streams:
            ad_break = AdBreak(self.clock)
            watcher = self._watcher_factory(path)
            entry = StreamAdOps(path, ad_break, watcher)
            watcher.add_listener(functools.partial(self._on_watcher, entry))
            self._streams[path] = entry
        return self._streams[path]

    def watch(self, path: NodePath, *, viewer: bool = True) -> StreamAdOps:
        """Start following the stream's playlist in the background (idempotent).

        `viewer=True` (a panel shows it) keeps it followed until `unwatch`; a send alone keeps it
        followed only while something it sent still waits for confirmation. With
        `follow_playlists=False` nothing starts: the caller drives `watcher.poll_once()`."""
        entry = self.stream(path)
        if viewer:
            self._viewed.add(path)
        if self._follow and (entry.task is None or entry.task.done()):
            entry.task = asyncio.create_task(entry.watcher.run(), name=f"playlist-watcher {path}")
        return entry

    def unwatch(self, path: NodePath) -> None:
        """The panel closed: stop reading the playlist unless a send still waits for it."""
        self._viewed.discard(path)
        if path in self._streams:
            self._stop_if_idle(self._streams[path])

    def _stop_if_idle(self, entry: StreamAdOps) -> None:
        if entry.path not in self._viewed and not entry.watcher.pending and entry.task is not None:
            entry.task.cancel()
            entry.task = None

    async def aclose(self) -> None:
        for entry in self._streams.values():
            entry.watcher.stop()
            if entry.task is not None:
                entry.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await entry.task
            await entry.watcher.aclose()

    async def cue_out(self, path: NodePath, duration_ms: int) -> ActionOutcome:
        if duration_ms <= 0:
            raise ValueError("a cue-out needs a positive duration in milliseconds")
        event_set = CueEventSet(events=[CueEvent(cueType="out", duration=duration_ms)])
        return await self._send(path, "cue-out", event_set, planned_s=duration_ms / 1000)

    async def cue_in(self, path: NodePath) -> ActionOutcome:
        return await self._send(path, "cue-in", CueEventSet(events=[CueEvent(cueType="in")]))

    async def id3(
        self, path: NodePath, frames: Sequence[Id3Frame], event_type: Id3EventType = "event"
    ) -> ActionOutcome:
        if not frames:
            raise ValueError("an ID3 event needs at least one frame")
        event_set = Id3EventSet(eventType=event_type, events=list(frames))
        return await self._send(path, "id3", event_set, frames=id3_expected_frames(frames))

    async def _send(
        self,
        path: NodePath,
        action: Action,
        event_set: CueEventSet | Id3EventSet,
        *,
        planned_s: float | None = None,
        frames: tuple[DecodedFrame, ...] = (),
    ) -> ActionOutcome:
        """Read-only and in-flight checks, then one request; audit before anything is shown."""
        if self.read_only:
            return self._tell(path, ActionOutcome(action, "refused", READ_ONLY_MESSAGE))
        entry = self.watch(path, viewer=False)
        refusal = entry.ad_break.try_begin(action)
        if refusal is not None:
            return self._tell(path, ActionOutcome(action, "refused", refusal))
        kind: ExpectKind = action
        send_id = new_send_id()
        expectation = entry.watcher.expect(
            kind, sent_at=self.clock.monotonic(), sent_wall=self.clock.wall(),
            timeout_s=self.confirm_timeout_s, send_id=send_id, frames=frames,
            rendition="audio" if isinstance(event_set, Id3EventSet) and event_set.eventType == "audio" else "video",
        )
        body = event_body(event_set) if action != "id3" else [event_body(event_set)]
        try:
            result = await (self.client.send_events(path, [event_set]) if action == "id3"
                            else self.client.send_event(path, event_set))
        except OutcomeUnknown as error:
            warning = self._record(send_id, path, action, getattr(error, "body", body), "unknown", error.message)
            entry.ad_break.send_unknown(action)
            return self._tell(path, ActionOutcome(action, "unknown", f"{action}: {OUTCOME_UNKNOWN}{warning}",
                                                  send_id, body=body, sighting=expectation.future))
        except OmeError as error:
            status: Status = error.status if error.status is not None else (
                "not-sent" if isinstance(error, UnreachableError) else "unknown")
            entry.watcher.forget(expectation)
            self._stop_if_idle(entry)
            warning = self._record(send_id, path, action, getattr(error, "body", body), status, error.message)
            entry.ad_break.send_failed(action, error.message)
            return self._tell(path, ActionOutcome(action, "failed", f"{action} not sent: {error.message}{warning}",
                                                  send_id, error.status, body))
        except BaseException:
            # Stopped while waiting (the console quits): the request may have gone out, so it is
            # logged as unknown rather than lost.
            self._record(send_id, path, action, body, "unknown", "the console stopped waiting for the answer")
            entry.ad_break.send_unknown(action)
            raise
        warning = self._record(send_id, path, action, result.body, result.status, result.message)
        entry.ad_break.send_accepted(action, planned_s=planned_s)
        return self._tell(path, ActionOutcome(
            action, "sent", f"{action} accepted ({result.status} {result.message}){warning}", send_id,
            result.status, result.body, expectation.future,
        ))

    def _record(
        self, send_id: str, path: NodePath, action: Action, body: object, status: Status, message: str
    ) -> str:
        """The send line first, then any confirmation that arrived while the answer was awaited.

        Returns "" or a warning for the operator: a full disk must not hide that the send happened."""
        assert path.app is not None and path.stream is not None
        try:
            self.audit.record_send(
                server=self.client.api_url, vhost=path.vhost, app=path.app, stream=path.stream,
                action=action, body=body, status=status, message=message, send_id=send_id,
            )
            self._recorded.add(send_id)
            for sighting in self._early_sightings.pop(send_id, []):
                self.audit.record_confirmation(send_id, sighting.seen_after_s, sighting.detail)
        except OSError as error:
            return f" — audit log {self.audit.path} NOT written: {error.strerror or error}"
        return ""

    def _on_watcher(self, entry: StreamAdOps, event: WatcherEvent) -> None:
        if isinstance(event, Sighting):
            entry.ad_break.on_sighting(event)
            if event.send_id in self._recorded:
                with contextlib.suppress(OSError):  # the panel still shows it; the send line is there
                    self.audit.record_confirmation(event.send_id, event.seen_after_s, event.detail)
            elif event.send_id is not None:
                self._early_sightings.setdefault(event.send_id, []).append(event)
        elif isinstance(event, PlaylistRead):
            entry.ad_break.playlist_status(True)
        elif isinstance(event, PlaylistUnavailable):
            entry.ad_break.playlist_status(False)
        for listener in list(self._listeners):
            listener(entry.path, event)
        if isinstance(event, Sighting):
            self._stop_if_idle(entry)

    def _tell(self, path: NodePath, outcome: ActionOutcome) -> ActionOutcome:
        for listener in list(self._listeners):
            listener(path, outcome)
        return outcome

    def _default_watcher(self, path: NodePath) -> PlaylistWatcher:
        assert path.app is not None and path.stream is not None
        return PlaylistWatcher(PublisherReader(self.publisher_url, path.app, path.stream), clock=self.clock)
