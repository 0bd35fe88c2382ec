"""The polling engine's face over a replay: the screens read it as they read a live engine, and no server is asked.

`ReplayEngine` is a `PollingEngine` whose `listing()` and `node(path)` are the store's answers at the
replay cursor's time (`ReplaySource`), and whose loop does not poll: once a second of console time,
and at once after every move of the cursor (`moved()`), it tells its listeners that what is on screen
changed. What the screens set (`select`, `set_on_screen`) works as on a live engine, so the tree and
the detail ask only for what they show; the selected node is read with an hour of history (its
charts), every other node with a few minutes (its row: the latest reading and its freshness).

Times: the store's are epoch seconds, and so is a replay's clock: `ReplayClock.monotonic()` is the
cursor's position (it goes back when the operator scrubs back), its `wall()` the real time now. The
screens measure ages and draw charts against it, so `view.age(clock.monotonic())` is the age the live
console showed at that moment, and a reading keeps its time (a row drawn for it is not drawn again).

The client it is built with is never used: a replay's session has one only because a session has one,
and `no_network_client` makes it one that cannot reach anything (a test can prove none was tried).
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Mapping, Sequence
from datetime import datetime

from omeconsole.api.client import OmeClient
from omeconsole.api.errors import UnreachableError
from omeconsole.api.http import Cap, Method, Reply, Timeouts
from omeconsole.core.clock import Clock
from omeconsole.core.history.reader import HistoryReader
from omeconsole.core.history.replay import READ_ONLY_REASON, ReplayCursor, ReplaySource
from omeconsole.core.polling.engine import EngineUpdate, PollingEngine, PollSettings, Refresh
from omeconsole.model.nodes import Listing, NodeView, Point, PointwiseSeries, SeriesColumns
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import Sample
from omeconsole.model.server import LinkState

ROW_SECONDS = 300.0
"""History read for a tree row: enough to tell a live node from a stale one."""
CHART_SECONDS = 3600.0
"""History read for the selected node: the longest chart window."""
TICK_S = 1.0


class NoNetwork:
    """A transport that refuses every request: what a replay's client is built on."""

    async def request(self, method: Method, url: str, *, cap: Cap, headers: Mapping[str, str] | None = None,
                      body: bytes | None = None, timeouts: Timeouts | None = None) -> Reply:
        raise UnreachableError(READ_ONLY_REASON)

    async def aclose(self) -> None:
        return None


def no_network_client(api_url: str) -> OmeClient:
    return OmeClient(api_url, "", transport=NoNetwork())


class ReplayClock:
    """The clock of a replay's screens: now is the cursor's moment (epoch seconds); waits and the wall
    time are the console's real clock's."""

    def __init__(self, cursor: ReplayCursor, real: Clock) -> None:
        self.cursor = cursor
        self.real = real

    def monotonic(self) -> float:
        return self.cursor.position

    def wall(self) -> datetime:
        return self.real.wall()

    async def sleep(self, seconds: float) -> None:
        await self.real.sleep(seconds)


class _SampleSeries(PointwiseSeries):
    """A chart's series over replayed samples, bisected by time."""

    __slots__ = ("_samples", "_times")

    def __init__(self, samples: Sequence[Sample]) -> None:
        self._samples = samples
        self._times = [sample.at for sample in samples]

    def __len__(self) -> int:
        return len(self._samples)

    def point(self, index: int) -> Point:
        sample = self._samples[index]
        return Point(self._times[index], sample.rate_in_bps, sample.rate_out_bps, sample.viewers)

    def columns(self, since: float | None = None) -> SeriesColumns:
        first = 0 if since is None else bisect.bisect_left(self._times, since)
        chosen = self._samples[first:]
        return SeriesColumns(self._times[first:], [s.rate_in_bps for s in chosen], [s.rate_out_bps for s in chosen],
                             [s.viewers for s in chosen])


class ReplayEngine(PollingEngine):
    def __init__(self, reader: HistoryReader, server: str, clock: ReplayClock, client: OmeClient,
                 settings: PollSettings | None = None) -> None:
        """`client`: the session's, never used (`no_network_client`)."""
        super().__init__(client, clock, settings)
        self.cursor = cursor = clock.cursor
        self.reader = reader
        self.server_key = server
        self._replay_clock = clock
        now = clock.wall().timestamp()  # which resolutions the store still holds is counted from the console's now
        self._rows = ReplaySource(reader, server, cursor, history_seconds=ROW_SECONDS, now=now)
        self._charts = ReplaySource(reader, server, cursor, history_seconds=CHART_SECONDS, now=now)
        self._announced_at = float("nan")
        self._announced_listing: Listing | None = None
        self._first = True

    # -- what the screens read, at the cursor ----------------------------------------------------------

    @property
    def connection(self) -> LinkState:
        return LinkState(status="connected", message=READ_ONLY_REASON, last_success_at=self.cursor.position)

    def listing(self) -> Listing:
        return self._rows.listing()

    @property
    def listing_complete(self) -> bool:
        return True  # the recorded listing is whole from the start

    def node(self, path: NodePath) -> NodeView:
        source = self._charts if path == self.selected else self._rows
        view = source.node(path)
        return dataclasses.replace(view, series=_SampleSeries(view.history), sampled_every=_spacing(view.history),
                                   last_seen_at=None if view.latest is None else view.latest.at)

    # -- the loop: no polling, only news of the cursor -------------------------------------------------

    def refresh_now(self) -> Refresh:
        self.moved()
        return Refresh.POLLING

    def moved(self) -> None:
        """The cursor moved (or plays): listeners hear that what is on screen changed (and, when it did not,
        that time passed: the status line's "2 h ago" moves on)."""
        position, listing = self.cursor.position, self.listing()
        tree_changed = listing is not self._announced_listing
        screen = self._screen
        watched = frozenset(p for p in (screen.selected, *screen.visible) if p is not None)
        changed = watched if position != self._announced_at or tree_changed else frozenset()
        self._announced_at, self._announced_listing = position, listing
        update = EngineUpdate(changed, tree_changed, self._first)
        self._first = False
        self._listeners.tell(update)

    async def run(self) -> None:
        self._stopped = False
        while not self._stopped:
            self.moved()
            await self._replay_clock.sleep(TICK_S)


def _spacing(samples: Sequence[Sample]) -> float | None:
    if len(samples) < 2:
        return None
    return (samples[-1].at - samples[0].at) / (len(samples) - 1)
