"""World-level faults: a server restart (every counter back to zero), streams vanishing and returning, and
a stream's input stalling or dropping its bit rate.

They run on world time, from the world's tick hook, so a test that advances a ManualClock sees a
restart at exactly the tick it asked for, and a seed picks the same vanishing streams every run.
What a client sees is what a real server shows: after a restart every level's `createdTime` is the
restart time and every total starts again from zero; a vanished stream answers 404 and leaves the
listings, and comes back as a new stream (new created time, counters from zero); a stalled stream stays
listed with its input connection while no input byte arrives (its throughput fields freeze, as the real
server's do: they are recomputed only when bytes come in), and a dropped one ingests a share of its rate.
"""

from __future__ import annotations

import dataclasses
import logging
import random
from collections import Counter
from fnmatch import fnmatchcase

import numpy as np
import numpy.typing as npt

from simulator.world.counters import CounterTable
from simulator.world.events import EventLog
from simulator.world.fault_spec import FaultSpec, Schedule
from simulator.world.picture_faults import PictureFaults
from simulator.world.scenario import StreamSpec
from simulator.world.world import World

log = logging.getLogger("simulator.faults")


class WorldFaults:
    """Applies a spec's `restart` and `vanish` to one world as its ticks pass."""

    def __init__(self, world: World, spec: FaultSpec, seed: int = 0) -> None:
        self.world = world
        self.spec = spec
        self.counts: Counter[str] = Counter()
        """How often each fault happened: restart, vanish (streams), return (streams)."""
        self._rng = random.Random(f"omesim-world-faults-{seed}")
        self._next_restart_ms = _first(spec.restart)
        self._next_vanish_ms = _first(spec.vanish.schedule) if spec.vanish else None
        self._away: list[tuple[int, str, str, StreamSpec]] = []
        """Streams gone, with the world time (since start) at which each returns."""
        self._chosen: tuple[int, npt.NDArray[np.int64]] = (-1, np.zeros(0, dtype=np.int64))
        """The rows of the live streams `spec.streams` names, as of a topology revision."""
        self._input_faults_on: set[str] = set()
        world.after_tick.append(self.on_tick)
        if spec.picture_freeze is not None or spec.picture_black is not None:
            world.pictures = PictureFaults(spec, world.start_ms)
        if spec.ingest_stall is not None or spec.bitrate_drop is not None:
            world.before_traffic.append(self.set_input_rates)

    def on_tick(self, now_ms: int) -> None:
        elapsed = now_ms - self.world.start_ms
        self._bring_back(elapsed)
        if self._next_restart_ms is not None and elapsed >= self._next_restart_ms:
            self.restart(now_ms)
            self._next_restart_ms = _following(self.spec.restart, self._next_restart_ms, elapsed)
        vanish = self.spec.vanish
        if vanish is not None and self._next_vanish_ms is not None and elapsed >= self._next_vanish_ms:
            self.vanish(vanish.share, elapsed + vanish.away_ms, now_ms)
            self._next_vanish_ms = _following(vanish.schedule, self._next_vanish_ms, elapsed)

    def set_input_rates(self, now_ms: int) -> None:
        """Before a tick's traffic: the input rate of the chosen streams over the tick's interval."""
        world = self.world
        elapsed = now_ms - world.tick_ms - world.start_ms  # the interval (elapsed, elapsed + tick] this tick covers
        stall = self.spec.ingest_stall is not None and self.spec.ingest_stall.active(elapsed)
        drop = self.spec.bitrate_drop is not None and self.spec.bitrate_drop.window.active(elapsed)
        scale = world.traffic.input_scale
        scale[: len(world.streams_by_row)] = 1.0
        rows = self._chosen_rows() if stall or drop else np.zeros(0, dtype=np.int64)
        if stall:
            scale[rows] = 0.0
        elif drop and self.spec.bitrate_drop is not None:
            scale[rows] = self.spec.bitrate_drop.fraction
        for kind, on in (("ingest-stall", stall), ("bitrate-drop", drop and not stall)):
            if on and kind not in self._input_faults_on:
                self.counts[kind] += len(rows)
                log.info("fault: %s on %d streams", kind, len(rows))
            (self._input_faults_on.add if on else self._input_faults_on.discard)(kind)

    def _chosen_rows(self) -> npt.NDArray[np.int64]:
        revision, rows = self._chosen
        if revision != self.world.topology_revision:
            patterns = self.spec.streams
            rows = np.array([s.row for s in self.world.live_streams()
                             if not patterns or any(fnmatchcase(f"{s.vhost}/{s.app}/{s.name}", p) for p in patterns)],
                            dtype=np.int64)
            self._chosen = (self.world.topology_revision, rows)
        return rows

    def restart(self, now_ms: int) -> None:
        """As after a server restart: every counter at every level from zero, created now; streams anew."""
        world = self.world
        for table in (world.server, world.vhost_table, world.app_table, world.stream_table):
            _reset_table(table, now_ms)
        world.traffic.viewers[:] = 0.0
        world.traffic.real_viewers[:] = 0
        for stream in list(world.live_streams()):
            reborn = dataclasses.replace(stream, created_ms=now_ms, events=EventLog())
            stream.ended_ms = now_ms
            world.streams_by_row[stream.row] = reborn
            world.vhosts[stream.vhost].apps[stream.app].streams[stream.name] = reborn
        world.topology_revision += 1
        world.revision += 1
        self.counts["restart"] += 1
        log.info("fault: server restart at %d (all counters reset)", now_ms)

    def vanish(self, share: float, back_at_ms: int, now_ms: int) -> None:
        live = sorted(self.world.live_streams(), key=lambda s: s.row)
        if not live:
            return
        chosen = self._rng.sample(live, max(1, round(share * len(live))))
        for stream in chosen:
            spec = StreamSpec(stream.name, stream.input_protocol, stream.bitrate_kbps, stream.audience,
                              stream.permanent)
            self._away.append((back_at_ms, stream.vhost, stream.app, spec))
            self.world.end_stream(stream, now_ms)
        self.counts["vanish"] += len(chosen)
        log.info("fault: %d streams vanished", len(chosen))

    def _bring_back(self, elapsed: int) -> None:
        due = [item for item in self._away if item[0] <= elapsed]
        if not due:
            return
        self._away = [item for item in self._away if item[0] > elapsed]
        for _, vhost, app, spec in due:
            if self.world.find_stream(vhost, app, spec.name) is None:
                self.world.start_stream(vhost, app, spec)
                self.counts["return"] += 1

    @property
    def streams_away(self) -> int:
        return len(self._away)


def _first(schedule: Schedule | None) -> int | None:
    return schedule.time_ms if schedule is not None else None


def _following(schedule: Schedule | None, previous_ms: int, elapsed: int) -> int | None:
    """The next occurrence after `elapsed` (a long pause between ticks does not replay missed ones)."""
    if schedule is None or schedule.kind == "at":
        return None
    periods = (elapsed - previous_ms) // schedule.time_ms + 1
    return previous_ms + periods * schedule.time_ms


def _reset_table(table: CounterTable, now_ms: int) -> None:
    n = table.size
    for name, column in table.columns.items():
        column[:n] = 0
        if name in ("created_ms", "last_updated_ms", "last_recv_ms", "last_sent_ms", "max_total_conn_ms",
                    "window_start_ms"):
            column[:n] = now_ms
    table.publisher_conn[:n] = 0
    table.provider_conn[:n] = 0
