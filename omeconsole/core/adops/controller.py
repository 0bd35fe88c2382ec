"""One stream's ad operations: its break, its plans, its sends, its playlist. The one send path.

The TUI and the CLI both do the same three steps: `plan_*` (what would be sent, with the warnings
to confirm), `send(plan, confirmed=...)` (one request, its outcome returned once), and, if they
care, await `outcome.confirmation` (what the playlist showed). Reading the playlist is explicit:
`watch()` returns a lease, and the stream is read while any lease is held. Every send is written
to the audit log before it leaves; if that fails, nothing leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from omeconsole.api.client import OmeClient, action_path
from omeconsole.api.emsg import DecodedFrame
from omeconsole.api.errors import OmeError, OutcomeUnknown, ProtocolError, UnreachableError
from omeconsole.api.hls import MediaPlaylist
from omeconsole.api.publisher import PublisherReader
from omeconsole.api.wire import Id3EventType, Id3Frame
from omeconsole.core.adops import plan as planning
from omeconsole.core.adops.ad_break import AdBreak, BreakView
from omeconsole.core.adops.audit import OUTCOME_UNKNOWN, AuditLog, Intent, OutcomeKind, Status
from omeconsole.core.adops.follower import FollowerEvent, PlaylistFollower, PlaylistRead, PlaylistUnavailable
from omeconsole.core.adops.matcher import Expectation, Id3Found, Sighting
from omeconsole.core.adops.plan import ApiAction, SendPlan, WarningCode
from omeconsole.core.adops.recall import recalled_break
from omeconsole.core.adops.seen_break import seen_break
from omeconsole.core.adops.splice_cut import CUT_WAIT_S
from omeconsole.core.clock import Clock
from omeconsole.core.context import ServerContext
from omeconsole.model.paths import NodePath
from omeconsole.model.sends import ItemResult, SendResult
from omeconsole.model.server import UNKNOWN_MARKERS, MarkerCapability

OutcomeStatus = Literal["accepted", "rejected", "not-sent", "unknown", "blocked"]
BlockReason = Literal["read-only", "in-flight", "invalid", "needs-confirmation", "audit-unwritable", "already-sent"]
DEFAULT_CONFIRM_TIMEOUT_S = 15.0
_NOT_YET = {"cue-out": "; not yet seen in the playlist", "cue-in": "; not yet seen in the playlist",
            "id3": "; not yet seen in the media"}
"""What a 200 does not say: whether players get it (the confirmation says, later)."""


@dataclass(frozen=True)
class SendOutcome:
    """What became of one plan. `blocked`: the console sent nothing (`blocked_by` says why)."""

    plan: SendPlan
    status: OutcomeStatus
    message: str
    http_status: int | None = None
    server_message: str = ""
    """The server's own message, when it answered (outside text)."""
    items: tuple[ItemResult, ...] = ()
    blocked_by: BlockReason | None = None
    confirmation: asyncio.Future[Sighting] | None = field(default=None, repr=False)
    """Resolves with what the playlist (or media) showed, or that it did not in time."""
    audit_problem: str | None = None
    """Set when the outcome line could not be written (the intent was: the send is on record)."""

    @property
    def action(self) -> str:
        return self.plan.action


@dataclass(frozen=True)
class Shared:
    """What every stream of one server shares: the client, the audit log, the clock, the context."""

    client: OmeClient
    audit: AuditLog
    clock: Clock
    context: ServerContext
    reader: Callable[[NodePath], PublisherReader]
    changed: Callable[[NodePath], None]
    confirm_timeout_s: float = DEFAULT_CONFIRM_TIMEOUT_S


class WatchLease:
    """Keeps the stream's playlist read until `release()` (or the `with` block ends)."""

    def __init__(self, owner: StreamController) -> None:
        self._owner: StreamController | None = owner

    def release(self) -> None:
        if self._owner is not None:
            owner, self._owner = self._owner, None
            owner._unwatch()

    def __enter__(self) -> WatchLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class StreamController:
    """The ad operations of one stream; get it from `AdOps.stream(path)`."""

    def __init__(self, path: NodePath, shared: Shared) -> None:
        if path.level != "stream":
            raise ValueError(f"ad operations need a stream, not {path}")
        self.path = path
        self._shared = shared
        self.ad_break = AdBreak(shared.clock)
        self.follower = PlaylistFollower(shared.reader(path), shared.clock, self._on_follower)
        self.last_id3: tuple[DecodedFrame, ...] | None = None
        self._leases = 0
        self._task: asyncio.Task[None] | None = None
        self._waiting: dict[str, asyncio.Future[Sighting]] = {}
        self._used: set[str] = set()

    def __repr__(self) -> str:
        return f"StreamController({self.path})"

    # What the screens draw ----------------------------------------------------------------------

    def view(self) -> BreakView:
        return self.ad_break.view()

    @property
    def playlist(self) -> MediaPlaylist | None:
        return self.follower.latest

    @property
    def playlist_problem(self) -> str | None:
        """Why the playlist cannot be read (then the splice is the server's rule, estimated)."""
        return self.follower.unavailable

    @property
    def playlist_url(self) -> str:
        return self.follower.url

    @property
    def read_only(self) -> bool:
        return self._shared.context.read_only

    # Planning -----------------------------------------------------------------------------------

    def plan_cue_out(self, duration_s: float) -> SendPlan:
        return planning.plan_cue_out(self._input(), duration_s)

    def plan_cue_in(self) -> SendPlan:
        return planning.plan_cue_in(self._input())

    def plan_id3(self, frames: Sequence[Id3Frame], event_type: Id3EventType = "event") -> SendPlan:
        return planning.plan_id3(self._input(), frames, event_type)

    def plan_event_sets(self, sets: Sequence[Mapping[str, Any]]) -> SendPlan:
        return planning.plan_event_sets(self._input(), sets)

    def _input(self) -> planning.PlanInput:
        context = self._shared.context
        latest = self.follower.latest
        paths: dict[ApiAction, str] = {a: action_path(self.path, a) for a in ("sendEvent", "sendEvents")}
        return planning.PlanInput(
            send_id=uuid.uuid4().hex, target=self.path, api_path_of=paths, server=context.host,
            profile=context.profile, read_only=context.read_only, view=self.ad_break.view(),
            playlist_known=latest is not None and self.follower.unavailable is None,
            segment_s=latest.target_duration if latest is not None else None, now=self._shared.clock.wall(),
            markers=self.markers, playlist_problem=self.follower.unavailable)

    @property
    def markers(self) -> MarkerCapability:
        """What the server does with a cue, as detected (unknown before detection)."""
        server = self._shared.client.server_info
        return server.markers if server is not None else UNKNOWN_MARKERS

    # Sending ------------------------------------------------------------------------------------

    async def send(self, plan: SendPlan, *, confirmed: Iterable[WarningCode] = (), origin: str | None = None
                   ) -> SendOutcome:
        """One request for the plan, or none with the reason; written ahead to the audit log (with `origin`,
        who sent it, when it is not the operator: `schedule:NAME`)."""
        blocked = self._blocked(plan, frozenset(confirmed))
        if blocked is not None:
            return blocked
        refusal = self.ad_break.try_begin(plan.action)
        if refusal is not None:
            return SendOutcome(plan, "blocked", refusal, blocked_by="in-flight")
        try:
            self._shared.audit.record_intent(self._intent(plan, origin))
        except OSError as error:
            self.ad_break.release()
            return SendOutcome(plan, "blocked", f"{plan.action} NOT sent: the audit log {self._shared.audit.path} "
                               f"cannot be written ({error.strerror or error})", blocked_by="audit-unwritable")
        self._used.add(plan.send_id)
        confirmation = self._expect(plan)
        self.ad_break.started(plan.action)
        self._shared.changed(self.path)
        try:
            result = await self._shared.client.send_prepared(plan.target, plan.api_action, plan.content, plan.body)
        except OmeError as error:
            outcome = self._failed(plan, error, confirmation)
        except BaseException:
            # Stopped while waiting (the console quits, a signal): the request may have gone out.
            self._finish(plan, "unknown", "unknown", "the console stopped waiting for the answer")
            self.ad_break.send_unknown(plan.action)
            raise
        else:
            outcome = self._answered(plan, result, confirmation)
        self._shared.changed(self.path)
        return outcome

    def _blocked(self, plan: SendPlan, confirmed: frozenset[WarningCode]) -> SendOutcome | None:
        if plan.target != self.path:
            raise ValueError(f"a plan for {plan.target} sent through the controller of {self.path}")
        if plan.send_id in self._used:
            return SendOutcome(plan, "blocked", f"{plan.action} was already sent once; plan it again to send again",
                               blocked_by="already-sent")
        if plan.refusal is not None:
            reason: BlockReason = plan.refusal.code if plan.refusal.code in ("read-only", "in-flight") else "invalid"
            return SendOutcome(plan, "blocked", plan.refusal.message, blocked_by=reason)
        unconfirmed = [w.message for w in plan.to_confirm if w.code not in confirmed]
        if unconfirmed:
            return SendOutcome(plan, "blocked", f"{plan.action} not sent without confirmation: "
                               + "; ".join(unconfirmed), blocked_by="needs-confirmation")
        return None

    def _intent(self, plan: SendPlan, origin: str | None) -> Intent:
        assert plan.target.app is not None and plan.target.stream is not None
        return Intent(plan.send_id, plan.server, plan.profile, plan.target.vhost, plan.target.app,
                      plan.target.stream, plan.action, plan.api_path, plan.content, origin)

    def _expect(self, plan: SendPlan) -> asyncio.Future[Sighting] | None:
        """Registered before the request leaves, so a marker faster than the answer is not missed."""
        if plan.expect is None:
            return None
        clock = self._shared.clock
        now = clock.monotonic()
        future: asyncio.Future[Sighting] = asyncio.get_running_loop().create_future()
        self._waiting[plan.send_id] = future
        # A server that writes no marker shows a cue only as the segment it cuts, within seconds: no wait
        # for a tag that cannot come.
        by_cut = plan.expect in ("cue-out", "cue-in") and self.markers.cuts_segment_only
        timeout = min(self._shared.confirm_timeout_s, CUT_WAIT_S) if by_cut else self._shared.confirm_timeout_s
        self.follower.expect(Expectation(
            plan.send_id, plan.expect, now, clock.wall(), now + timeout,
            baseline=self.follower.matcher.reads > 0, frames=plan.frames, rendition=plan.rendition, by_cut=by_cut,
            from_msn=self.follower.latest.next_msn if by_cut and self.follower.latest is not None else None))
        return future

    def _answered(self, plan: SendPlan, result: SendResult, confirmation: asyncio.Future[Sighting] | None
                  ) -> SendOutcome:
        problem = self._finish(plan, "accepted" if result.ok else "rejected", result.status, result.message,
                               result.items)
        if result.ok:
            self.ad_break.send_accepted(plan.action, planned_s=plan.planned_s)
            return SendOutcome(plan, "accepted", f"{plan.action} accepted by the server ({result.status} "
                               f"{result.message}){_NOT_YET.get(plan.expect or '', '')}",
                               result.status, result.message, result.items, confirmation=confirmation,
                               audit_problem=problem)
        self._drop(plan)
        failed = [f"#{i}: {item.status} {item.message}" for i, item in enumerate(result.items)
                  if not 200 <= item.status < 300]
        reason = f"{result.status} {result.message}" + (f" ({'; '.join(failed)})" if failed else "")
        self.ad_break.send_failed(plan.action, reason)
        return SendOutcome(plan, "rejected", f"{plan.action} refused: {reason}", result.status, result.message,
                           result.items, audit_problem=problem)

    def _failed(self, plan: SendPlan, error: OmeError, confirmation: asyncio.Future[Sighting] | None
                ) -> SendOutcome:
        if isinstance(error, OutcomeUnknown | ProtocolError):
            # A garbled answer came from something that took the request: it may have been applied.
            problem = self._finish(plan, "unknown", "unknown", error.message)
            self.ad_break.send_unknown(plan.action)
            return SendOutcome(plan, "unknown", f"{plan.action}: {OUTCOME_UNKNOWN} ({error.message})",
                               confirmation=confirmation, audit_problem=problem)
        self._drop(plan)
        if isinstance(error, UnreachableError):
            problem = self._finish(plan, "not-sent", "not-sent", error.message)
            self.ad_break.send_failed(plan.action, error.message, reached_server=False)
            return SendOutcome(plan, "not-sent", f"{plan.action} not sent: {error.message}", audit_problem=problem)
        problem = self._finish(plan, "rejected", error.status if error.status is not None else "unknown",
                               error.message)
        self.ad_break.send_failed(plan.action, error.message)
        return SendOutcome(plan, "rejected", f"{plan.action} refused: {error.message}", error.status,
                           error.message, audit_problem=problem)

    def _finish(self, plan: SendPlan, kind: OutcomeKind, status: Status, message: str,
                items: Sequence[ItemResult] = ()) -> str | None:
        """The outcome line; a problem writing it is said, never hidden (the intent is on disk)."""
        try:
            self._shared.audit.record_outcome(plan.send_id, kind, status, message,
                                              [(i.status, i.message) for i in items])
        except OSError as error:
            return f"the outcome could not be written to the audit log {self._shared.audit.path}: " \
                   f"{error.strerror or error}"
        return None

    def _drop(self, plan: SendPlan) -> None:
        """Nothing to confirm for a send that was not applied."""
        self.follower.forget(plan.send_id)
        future = self._waiting.pop(plan.send_id, None)
        if future is not None:
            future.cancel()

    # Watching -----------------------------------------------------------------------------------

    def watch(self) -> WatchLease:
        """Read the playlist (blocking reload) while the returned lease is held."""
        if self._leases == 0:
            self.recall()
        self._leases += 1
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.follower.run(), name=f"playlist {self.path}")
        return WatchLease(self)

    def recall(self) -> None:
        """On a server whose playlist cannot show a break, take one this console sent earlier from the audit log."""
        if not self.markers.cuts_segment_only:
            return
        try:
            sends = self._shared.audit.read_all().sends
        except OSError:
            return
        now = self._shared.clock.wall()
        found = recalled_break(sends, self._shared.context.host, self.path, now)
        if found is not None:
            self.ad_break.on_record(found)

    @property
    def watched(self) -> bool:
        return self._leases > 0

    async def baseline(self, timeout_s: float) -> bool:
        """Wait (at most `timeout_s`, on the console clock) for a first read; True if one came."""
        waiter = asyncio.ensure_future(self.follower.first_read.wait())
        timer = asyncio.ensure_future(self._shared.clock.sleep(timeout_s))
        try:
            await asyncio.wait((waiter, timer), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (waiter, timer):
                task.cancel()
        return self.follower.first_read.is_set()

    def _unwatch(self) -> None:
        self._leases = max(0, self._leases - 1)
        if self._leases == 0 and self._task is not None:
            self._task.cancel()
            self._task = None

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        for future in self._waiting.values():
            future.cancel()
        self._waiting.clear()
        await self.follower.aclose()

    def _on_follower(self, event: FollowerEvent) -> None:
        if isinstance(event, Sighting):
            self.ad_break.on_sighting(event)
            with contextlib.suppress(OSError):  # the screen still shows it; the intent is on disk
                self._shared.audit.record_confirmation(event.send_id, event.seen_after_s, event.detail,
                                                       event.splice_wall if event.seen else None)
            future = self._waiting.pop(event.send_id, None)
            if future is not None and not future.done():
                future.set_result(event)
        elif isinstance(event, PlaylistRead):
            self.ad_break.playlist_status(True)
            # The same judgement of a playlist's markers as the watch of streams on screen (hostile tags set aside).
            self.ad_break.on_playlist(seen_break(event.playlist, self._shared.clock.wall()).current)
        elif isinstance(event, PlaylistUnavailable):
            self.ad_break.playlist_status(False)
        elif isinstance(event, Id3Found):
            self.last_id3 = event.frames
        self._shared.changed(self.path)
