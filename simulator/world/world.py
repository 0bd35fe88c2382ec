"""The world: topology, counters and traffic, moved forward by its clock.

Time advances in fixed ticks from the world's start. Ticks are caught up lazily (on every read
through `advance`) and by the server's background task, so a test that advances a ManualClock
sees exactly the same world as a server that ticked in real time: a seed and a clock make a run repeatable.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Literal

import numpy as np
import numpy.typing as npt

from simulator.world.clock import Clock
from simulator.world.counters import CounterTable
from simulator.world.edition import ENTERPRISE, ServerProfile
from simulator.world.events import AcceptedEvent
from simulator.world.picture_faults import PictureFaults
from simulator.world.scenario import Scenario, StreamSpec
from simulator.world.topology import SERVER_ROW, App, Stream, Vhost
from simulator.world.traffic import Traffic
from simulator.world.truth import Direction, Ledger, rate_bps
from simulator.world.wire import PROVIDER_PROTOCOLS, PUBLISHER_PROTOCOLS, CueEventSet, Id3EventSet

Level = Literal["server", "vhost", "app", "stream"]


class World:
    def __init__(self, scenario: Scenario, clock: Clock, seed: int = 0, *, start_ms: int | None = None,
                 viewer_share: float = 1.0, ovt_viewers: bool = True, profile: ServerProfile = ENTERPRISE) -> None:
        """`start_ms` (default now) lets a fleet's servers share one tick grid; `viewer_share` and `ovt_viewers`
        shape the audience (see Traffic); `profile` is the edition and version this server plays."""
        self.scenario = scenario
        self.profile = profile
        self.clock = clock
        self.seed = seed
        self.start_ms = clock.now_ms() if start_ms is None else start_ms
        self.tick_ms = round(scenario.traffic.tick_seconds * 1000)
        self.ticks_done = 0
        self.revision = 0
        """Changes whenever anything a reader can see changes (cache key for serialised bodies)."""
        self.after_tick: list[Callable[[int], None]] = []
        """Called with each tick's time after it ran (fault injection and a fleet's edges hook in here)."""
        self.before_traffic: list[Callable[[int], None]] = []
        """Called with each tick's time before its traffic is drawn (stream faults set input rates here)."""
        self.topology_revision = 0
        """Changes whenever a stream starts or ends (or every stream starts anew)."""
        self.pictures = PictureFaults()
        """What each stream's thumbnail shows (fault injection replaces it: frozen or black pictures)."""
        self.follows: Callable[[], None] | None = None
        """Set on a fleet's edge: `advance` then catches up its origin, whose ticks drive this world's."""
        self.last_delta_in: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        """Bytes each stream received in the last tick (what a fleet's edges relay)."""
        self.server = CounterTable(1)
        self.server.add_row(self.start_ms)
        self.vhost_table = CounterTable()
        self.app_table = CounterTable()
        self.stream_table = CounterTable(max(16, scenario.stream_count))
        self.vhosts: dict[str, Vhost] = {}
        self.apps_by_row: list[App] = []
        self.streams_by_row: list[Stream] = []
        self.traffic = Traffic(seed, max(16, scenario.stream_count), viewer_share=viewer_share,
                               ovt_viewers=ovt_viewers)
        self._ledgers: dict[tuple[Level, int], Ledger] = {}
        """Byte totals of the nodes a test watches (`watch_bytes`), at every change."""
        self._watched: dict[str, tuple[Level, int]] = {}
        """The node each watched path named when it was watched (a stream may end meanwhile)."""
        self.event_sequence: Iterator[int] = itertools.count(1)
        """Numbers accepted events across the server (a fleet's servers share one)."""
        self._stream_serial = itertools.count(1)
        for vhost_spec in scenario.vhosts:
            vhost = Vhost(vhost_spec.name, self.vhost_table.add_row(self.start_ms))
            self.vhosts[vhost.name] = vhost
            for app_spec in vhost_spec.apps:
                app = App(vhost.name, app_spec.name, self.app_table.add_row(self.start_ms), vhost.row,
                          thumbnails=app_spec.thumbnails, publishers=app_spec.publishers)
                vhost.apps[app.name] = app
                self.apps_by_row.append(app)
                for stream_spec in app_spec.streams:
                    self._start_stream(app, stream_spec, self.start_ms)
        self._vhost_of_app = np.array([a.vhost_row for a in self.apps_by_row], dtype=np.int64)
        """The virtual host row of each application row (applications are fixed by the scenario)."""
        self._publish_connections(self.start_ms)

    # -- lookups -------------------------------------------------------------------------------

    def find_vhost(self, vhost: str) -> Vhost | None:
        return self.vhosts.get(vhost)

    def find_app(self, vhost: str, app: str) -> App | None:
        found = self.vhosts.get(vhost)
        return found.apps.get(app) if found else None

    def find_stream(self, vhost: str, app: str, stream: str) -> Stream | None:
        found = self.find_app(vhost, app)
        return found.streams.get(stream) if found else None

    def live_streams(self) -> Iterable[Stream]:
        return (s for s in self.streams_by_row if s.live)

    def counters(self, level: Level, row: int) -> dict[str, object]:
        return self._table(level).snapshot(row)

    # -- time --------------------------------------------------------------------------------------

    def advance(self) -> None:
        """Run every tick due by the clock's current time."""
        if self.follows is not None:
            self.follows()
            return
        due = (self.clock.now_ms() - self.start_ms) // self.tick_ms
        while self.ticks_done < due:
            self.ticks_done += 1
            self._tick(self.start_ms + self.ticks_done * self.tick_ms)

    def relay_tick(self, now_ms: int, relayed_in: npt.NDArray[np.int64]) -> None:
        """A tick of a fleet's edge, run by its origin's tick: `relayed_in` is what each stream received."""
        self.ticks_done += 1
        self._tick(now_ms, relayed_in)

    def _tick(self, now_ms: int, relayed_in: npt.NDArray[np.int64] | None = None) -> None:
        dt = self.tick_ms / 1000
        self._churn(now_ms, dt)  # first, so that the byte deltas cover a stream churn just started
        for hook in self.before_traffic:
            hook(now_ms)
        delta_in, delta_out = self.traffic.step(dt, len(self.streams_by_row), relayed_in)
        self.last_delta_in = delta_in
        self._apply_bytes(delta_in, delta_out, now_ms)
        self._publish_connections(now_ms)
        self._record_truth(now_ms)
        self.revision += 1
        for hook in self.after_tick:
            hook(now_ms)

    def _apply_bytes(self, delta_in: np.ndarray, delta_out: np.ndarray, now_ms: int) -> None:
        n = len(self.streams_by_row)
        self.stream_table.add_bytes(delta_in, delta_out, now_ms)
        app_rows = self.traffic.app_row[:n]
        app_in = np.bincount(app_rows, weights=delta_in[:n], minlength=self.app_table.size).astype(np.int64)
        app_out = np.bincount(app_rows, weights=delta_out[:n], minlength=self.app_table.size).astype(np.int64)
        self.app_table.add_bytes(app_in, app_out, now_ms)
        vhost_rows = self._vhost_of_app
        vhost_in = np.bincount(vhost_rows, weights=app_in, minlength=self.vhost_table.size).astype(np.int64)
        vhost_out = np.bincount(vhost_rows, weights=app_out, minlength=self.vhost_table.size).astype(np.int64)
        self.vhost_table.add_bytes(vhost_in, vhost_out, now_ms)
        self.server.add_bytes(np.array([vhost_in.sum()], dtype=np.int64),
                              np.array([vhost_out.sum()], dtype=np.int64), now_ms)

    def refresh_connections(self, now_ms: int) -> None:
        """Publish the current connection counts after the traffic model's were changed from outside."""
        self._publish_connections(now_ms)
        self.revision += 1

    def _publish_connections(self, now_ms: int) -> None:
        n = len(self.streams_by_row)
        publisher, provider = self.traffic.connections(n)
        self.stream_table.set_connections(publisher, provider, now_ms)
        app_pub = _sum_rows(publisher, self.traffic.app_row[:n], self.app_table.size)
        app_prov = _sum_rows(provider, self.traffic.app_row[:n], self.app_table.size)
        self.app_table.set_connections(app_pub, app_prov, now_ms)
        vhost_rows = self._vhost_of_app
        vhost_pub = _sum_rows(app_pub, vhost_rows, self.vhost_table.size)
        vhost_prov = _sum_rows(app_prov, vhost_rows, self.vhost_table.size)
        self.vhost_table.set_connections(vhost_pub, vhost_prov, now_ms)
        self.server.set_connections(vhost_pub.sum(axis=0, keepdims=True), vhost_prov.sum(axis=0, keepdims=True),
                                    now_ms)

    # -- stream lifecycle --------------------------------------------------------------------------

    def _start_stream(self, app: App, spec: StreamSpec, now_ms: int) -> Stream:
        row = self.stream_table.add_row(now_ms)
        stream = Stream(
            vhost=app.vhost, app=app.name, name=spec.name, row=row, app_row=app.row,
            input_protocol=spec.input, bitrate_kbps=spec.bitrate_kbps, audience=spec.audience,
            permanent=spec.permanent, created_ms=now_ms,
        )
        self.streams_by_row.append(stream)
        app.streams[stream.name] = stream
        self.traffic.add_stream(row, app.row, PROVIDER_PROTOCOLS.index(spec.input), spec.bitrate_kbps,
                                spec.audience)
        self.topology_revision += 1
        return stream

    def end_stream(self, stream: Stream, now_ms: int | None = None, *, publish: bool = True) -> None:
        """The input stops: the stream disappears from listings and answers 404; parents keep its bytes.

        `now_ms` is the tick's time when churn ends a stream while ticks are caught up, so that no
        timestamp written afterwards by an earlier tick goes back in time. Without `publish` the connection
        counts wait for `refresh_connections` (a fleet's edge starts and ends many streams at once).
        """
        if not stream.live:
            return
        now_ms = self.clock.now_ms() if now_ms is None else now_ms
        stream.ended_ms = now_ms
        app = self.vhosts[stream.vhost].apps[stream.app]
        del app.streams[stream.name]
        self.traffic.remove_stream(stream.row)
        if publish:
            self._publish_connections(now_ms)
        self.topology_revision += 1
        self.revision += 1

    def start_stream(self, vhost: str, app: str, spec: StreamSpec, now_ms: int | None = None, *,
                     publish: bool = True) -> Stream:
        target = self.find_app(vhost, app)
        if target is None:
            raise KeyError(f"{vhost}/{app}")
        if spec.name in target.streams:
            raise ValueError(f"stream {spec.name} already exists")
        now_ms = self.clock.now_ms() if now_ms is None else now_ms
        stream = self._start_stream(target, spec, now_ms)
        if publish:
            self._publish_connections(now_ms)
        self.revision += 1
        return stream

    def _churn(self, now_ms: int, dt: float) -> None:
        settings = self.scenario.traffic
        if settings.churn_per_hour <= 0:
            return
        if self.traffic.rng.random() >= settings.churn_per_hour * dt / 3600:
            return
        candidates = [
            s for s in self.live_streams()
            if not s.permanent and (not settings.churn_apps or s.app in settings.churn_apps)
        ]
        if not candidates:
            return
        ended = candidates[int(self.traffic.rng.integers(len(candidates)))]
        self.end_stream(ended, now_ms)
        base = ended.name.rsplit("-", 1)[0] if ended.name[-1].isdigit() and "-" in ended.name else ended.name
        app = self.vhosts[ended.vhost].apps[ended.app]
        name = f"{base}-{next(self._stream_serial)}"
        while name in app.streams:  # a scenario may already hold a stream of that name
            name = f"{base}-{next(self._stream_serial)}"
        replacement = StreamSpec(
            name=name, input=ended.input_protocol,
            bitrate_kbps=ended.bitrate_kbps, audience=ended.audience,
        )
        self._start_stream(app, replacement, now_ms)

    # -- events and real viewers ---------------------------------------------------------------

    def accept_events(
        self, stream: Stream, event_sets: list[tuple[CueEventSet | Id3EventSet, object]]
    ) -> list[AcceptedEvent]:
        """Hand validated event sets (with the bodies they came from) to the stream, stamped with the time."""
        now_ms = self.clock.now_ms()
        accepted = [AcceptedEvent(next(self.event_sequence), now_ms, event_set, body) for event_set, body in event_sets]
        for event in accepted:
            stream.events.append(event)
        return accepted

    def open_session(self, stream: Stream, protocol: str) -> None:
        """A real client of the publisher started watching (counts as one publisher connection)."""
        self.traffic.real_viewers[stream.row, PUBLISHER_PROTOCOLS.index(protocol)] += 1
        self._publish_connections(self.clock.now_ms())
        self.revision += 1

    def close_session(self, stream: Stream, protocol: str) -> None:
        column = PUBLISHER_PROTOCOLS.index(protocol)
        if self.traffic.real_viewers[stream.row, column] > 0:
            self.traffic.real_viewers[stream.row, column] -= 1
            self._publish_connections(self.clock.now_ms())
            self.revision += 1

    def add_bytes_out(self, stream: Stream, nbytes: int) -> None:
        """Bytes a real client received, added at once at every level."""
        now_ms = self.clock.now_ms()
        self.stream_table.add_bytes_out_row(stream.row, nbytes, now_ms)
        self.app_table.add_bytes_out_row(stream.app_row, nbytes, now_ms)
        self.vhost_table.add_bytes_out_row(self.apps_by_row[stream.app_row].vhost_row, nbytes, now_ms)
        self.server.add_bytes_out_row(SERVER_ROW, nbytes, now_ms)
        self._record_truth(now_ms)
        self.revision += 1

    # -- the truth, for tests -------------------------------------------------------------------------

    def watch_bytes(self, path: str) -> None:
        """Start recording the exact byte totals of a node: `""` (the server), `"vhost"`, `"vhost/app"` or
        `"vhost/app/stream"` (the stream live now; a later stream of the same name is another node).
        Idempotent. Read them back with `bytes_at` and `true_rate`."""
        key = self._node(path)
        self._watched[path] = key
        if key not in self._ledgers:
            self.advance()
            self._ledgers[key] = Ledger()
            self._record_truth(self.clock.now_ms())

    def bytes_at(self, path: str, time_ms: int | None = None) -> tuple[int, int]:
        """Exact (bytes in, bytes out) of a watched node at world time `time_ms` (default now), as the
        statistics showed them at that moment. Raises KeyError if the node is not watched."""
        self.advance()
        return self._ledger(path).at(self.clock.now_ms() if time_ms is None else time_ms)

    def true_rate(self, path: str, direction: Direction, window_s: float, end_ms: int | None = None) -> float:
        """The true rate of a watched node in bits per second over the `window_s` seconds of world time
        ending at `end_ms` (default now): every byte counted in that window, synthetic ticks and real
        clients' responses alike, over the window's length. Across a server restart (`restart` fault)
        the totals start again from 0, as the counters do."""
        self.advance()
        end = self.clock.now_ms() if end_ms is None else end_ms
        return rate_bps(self._ledger(path), direction, end - round(window_s * 1000), end)

    def _ledger(self, path: str) -> Ledger:
        key = self._watched.get(path)
        if key is None:
            raise KeyError(f"{path!r} is not watched: call watch_bytes({path!r}) first")
        return self._ledgers[key]

    def _node(self, path: str) -> tuple[Level, int]:
        parts = path.split("/") if path else []
        found: Vhost | App | Stream | None
        match parts:
            case []:
                return "server", SERVER_ROW
            case [vhost]:
                found = self.find_vhost(vhost)
            case [vhost, app]:
                found = self.find_app(vhost, app)
            case [vhost, app, stream]:
                found = self.find_stream(vhost, app, stream)
            case _:
                found = None
        if found is None:
            raise KeyError(f"no node {path!r} in the world")
        level: Level = ("vhost", "app", "stream")[len(parts) - 1]
        return level, found.row

    def _table(self, level: Level) -> CounterTable:
        return {"server": self.server, "vhost": self.vhost_table, "app": self.app_table,
                "stream": self.stream_table}[level]

    def _record_truth(self, now_ms: int) -> None:
        for (level, row), ledger in self._ledgers.items():
            columns = self._table(level).columns
            ledger.record(now_ms, int(columns["bytes_in"][row]), int(columns["bytes_out"][row]))


def _sum_rows(matrix: np.ndarray, groups: np.ndarray, size: int) -> np.ndarray:
    """Rows of `matrix` summed by group: np.add.at for a few rows, one bincount per column for many
    (np.add.at is the faster of the two below a few hundred rows and far slower at 10,000)."""
    rows = matrix[: len(groups)]
    if len(groups) < 256:
        summed = np.zeros((size, matrix.shape[1]), dtype=np.int64)
        np.add.at(summed, groups, rows)
        return summed
    summed = np.empty((size, matrix.shape[1]), dtype=np.int64)
    for column in range(matrix.shape[1]):
        summed[:, column] = np.bincount(groups, weights=rows[:, column], minlength=size)
    return summed
