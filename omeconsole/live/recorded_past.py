"""Charts that start full: a node's recorded past, read from the history store, in front of its live series.

When a chart first shows a node, `StoredPast.joined(view)` asks a worker thread for the node's last
hour from the store (`HistoryReader.window`: samples as taken, or buckets no finer than the node was
sampled, with gaps as gaps) and, until it arrives, hands the view back as it is. Once it has arrived,
the view's `series` is the stored points from before the engine's first live point, then one gap
(the console was not running), then the live series. The stored times are epoch seconds; they are
put on the console clock's scale at the moment they are read (`monotonic = epoch - wall + monotonic`).

Only screens that draw a node's chart and sparklines ask (the detail), one node at a time: the tree's
10,000 rows never touch the store. A store that cannot be read (none yet, locked, corrupt) is treated
as holding nothing for that node, and it is asked again only when the node's live series restarts.
"""

from __future__ import annotations

import asyncio
import bisect
import concurrent.futures
import dataclasses
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from omeconsole.core.clock import Clock
from omeconsole.core.history.settings import HistorySettings
from omeconsole.model.nodes import NodeView, Point, PointwiseSeries, Series, SeriesColumns
from omeconsole.model.paths import NodePath

if TYPE_CHECKING:
    from omeconsole.core.history.reader import HistoryReader

PAST_SECONDS = 3600.0
"""How far back a chart can look (the longest chart window)."""
GAP_AFTER_S = 1e-3
"""Where the gap between the past and the live series is put: just after the last stored point."""
CUT_SLACK_S = 0.01
"""Stored points this close to the live series' first point are that very sample (recorded this run)."""
RESTART_SLACK_S = 5.0
"""A live series that starts this long after the past was read has lost its start: read the past again."""


@dataclass(frozen=True, slots=True)
class _Loaded:
    columns: SeriesColumns
    """On the console clock, oldest first."""
    read_at: float
    """Console monotonic time the store was read: the past covers everything before it."""


class JoinedSeries(PointwiseSeries):
    """Stored points from before `cut`, one gap (the console was not running), then a live series."""

    __slots__ = ("_gap", "_live", "_past", "_upto")

    def __init__(self, past: SeriesColumns, cut: float, live: Series) -> None:
        self._past = past
        self._upto = bisect.bisect_left(past.at, cut)
        self._gap = int(self._upto > 0)
        self._live = live

    def __len__(self) -> int:
        return self._upto + self._gap + len(self._live)

    def point(self, index: int) -> Point:
        past, upto = self._past, self._upto
        if index < upto:
            return Point(past.at[index], past.rate_in_bps[index], past.rate_out_bps[index], past.viewers[index])
        if index < upto + self._gap:
            return Point(past.at[upto - 1] + GAP_AFTER_S, None, None, None)
        return self._live[index - upto - self._gap]

    def columns(self, since: float | None = None) -> SeriesColumns:
        past, upto = self._past, self._upto
        first = 0 if since is None else bisect.bisect_left(past.at, since, 0, upto)
        columns = SeriesColumns(past.at[first:upto], past.rate_in_bps[first:upto], past.rate_out_bps[first:upto],
                                past.viewers[first:upto])
        if self._gap and first < upto:
            gap = self.point(upto)
            columns.at.append(gap.at)
            columns.rate_in_bps.append(None)
            columns.rate_out_bps.append(None)
            columns.viewers.append(None)
        live = self._live.columns(since)
        columns.at.extend(live.at)
        columns.rate_in_bps.extend(live.rate_in_bps)
        columns.rate_out_bps.extend(live.rate_out_bps)
        columns.viewers.extend(live.viewers)
        return columns


class StoredPast:
    """The recorded past of one server's nodes, read in one worker thread (a reader is per thread)."""

    def __init__(self, path: Path, settings: HistorySettings, server: str, clock: Clock, *,
                 after: asyncio.Event | None = None) -> None:
        """`after`: set when the store may be read (the console's writer has opened or created it)."""
        self._after = after
        self.path = path
        self.settings = settings
        self.server = server
        self._clock = clock
        self._loaded: dict[NodePath, _Loaded] = {}
        self._pending: dict[NodePath, asyncio.Task[_Loaded]] = {}
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="omeconsole-past")
        self._local = threading.local()

    def joined(self, view: NodeView) -> NodeView:
        """`view` with its recorded past in front of its series (as it is while the past is being read)."""
        path = view.path
        loaded = self._loaded.get(path)
        live = view.series
        live_start = live[0].at if len(live) else None
        if loaded is not None and live_start is not None and live_start > loaded.read_at + RESTART_SLACK_S:
            loaded = None  # the live series restarted (the node was off screen a while): the store has the middle
            del self._loaded[path]
        if loaded is None:
            self._request(path)
            return view
        if not loaded.columns.at:
            return view
        cut = live_start - CUT_SLACK_S if live_start is not None else loaded.read_at
        return dataclasses.replace(view, series=JoinedSeries(loaded.columns, cut, live))

    async def loaded(self, path: NodePath) -> None:
        """Returns once `path`'s past has been read (asking for it if nobody has yet)."""
        if path not in self._loaded:
            await asyncio.shield(self._request(path))

    def _request(self, path: NodePath) -> asyncio.Task[_Loaded]:
        pending = self._pending.get(path)
        if pending is not None:
            return pending

        async def load() -> _Loaded:
            if self._after is not None:
                await self._after.wait()
            now, wall = self._clock.monotonic(), self._clock.wall().timestamp()
            return await asyncio.get_running_loop().run_in_executor(self._executor, self._read, path, now, wall)

        task = asyncio.get_running_loop().create_task(load())
        self._pending[path] = task

        def done(finished: asyncio.Task[_Loaded]) -> None:
            self._pending.pop(path, None)
            if not finished.cancelled() and finished.exception() is None:
                self._loaded[path] = finished.result()

        task.add_done_callback(done)
        return task

    def _reader(self) -> HistoryReader:
        from omeconsole.core.history.reader import HistoryReader

        reader: HistoryReader | None = getattr(self._local, "reader", None)
        if reader is None:
            reader = HistoryReader(self.path, self.settings)
            self._local.reader = reader
        return reader

    def _read(self, path: NodePath, now: float, wall: float) -> _Loaded:
        """In the worker: the last hour of `path` before `now`, on the console clock."""
        from omeconsole.core.history.database import HistoryError

        columns = SeriesColumns([], [], [], [])
        try:
            series = self._reader().window(self.server, path, PAST_SECONDS, now=wall)
        except (HistoryError, OSError, ValueError, sqlite3.Error):
            series = None  # nothing recorded yet, or a store that cannot be read: no past to show
        if series is not None:
            shift = now - wall
            for point in series.points:
                middle = point.at + point.span / 2
                columns.at.append(middle + shift)
                columns.rate_in_bps.append(point.rate_in_bps)
                columns.rate_out_bps.append(point.rate_out_bps)
                columns.viewers.append(point.viewers)
        return _Loaded(columns, now)

    def close(self) -> None:
        def close_reader() -> None:
            reader = getattr(self._local, "reader", None)
            if reader is not None:
                reader.close()

        self._executor.submit(close_reader)
        self._executor.shutdown(wait=False, cancel_futures=False)

