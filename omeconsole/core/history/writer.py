"""The writer thread: observations go into a bounded queue and reach the disk in batches, off the event loop.

`offer()` never waits: it puts the observation in the queue, or, when the queue is full (the disk
cannot keep up, or the database is locked or failing), drops it and counts it. A dropped sample
loses no bytes (the node's next sample carries the bytes since the last stored one) but may lose a
peak between the two; the count is in `stats()` and logged at most once a minute. A batch is
acknowledged when its transaction has committed (`synchronous = FULL`: on disk); `close()` writes
everything offered before it, so a recorder stopped by SIGTERM loses no acknowledged observation and
no queued one either. A batch that fails is kept and tried again with back-off; what still cannot be
written at close is counted as `lost`.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from omeconsole.core.history.database import HistoryError, open_database, used_bytes
from omeconsole.core.history.ingest import Ingest, IngestResult
from omeconsole.core.history.observations import Observation
from omeconsole.core.history.retention import PruneResult, prune
from omeconsole.core.history.settings import HistorySettings

log = logging.getLogger("omeconsole.history")

MAX_BATCH = 5000
PRUNE_EVERY_S = 60.0
DROP_LOG_EVERY_S = 60.0
RETRY_CAP_S = 30.0
LATENCIES_KEPT = 10_000


@dataclass(frozen=True, slots=True)
class WriterStats:
    accepted: int
    """Observations taken into the queue."""
    committed: int
    """Of those, on disk (acknowledged)."""
    samples: int
    """Samples among the committed observations that were new (rows at full resolution)."""
    dropped: int
    """Refused because the queue was full or the writer closed."""
    duplicates: int
    """Written batches' samples that were not newer than the node's stored latest (ignored)."""
    lost: int
    """Accepted but never written (the database kept failing until close)."""
    pending: int
    batches: int
    last_error: str | None
    latency_p50_s: float | None
    """Offer -> commit, over the last 10,000 observations."""
    latency_p99_s: float | None
    latency_max_s: float | None
    transaction_p50_s: float | None
    """One batch's transaction (BEGIN to a COMMIT on disk), over the last 1,000 batches."""
    transaction_max_s: float | None
    writer_cpu_s: float
    """CPU time of the writer thread itself."""
    used_bytes: int
    last_prune: PruneResult | None


class _Signal:
    """Put in the queue to wake the writer: FLUSH writes what it holds now, STOP also ends the thread."""

    def __init__(self, name: str) -> None:
        self.name = name


FLUSH, STOP = _Signal("flush"), _Signal("stop")
_Item = tuple[float, Observation] | _Signal


class HistoryWriter:
    """Owns the store's one writing connection, in its own thread. Start with `HistoryWriter.start`."""

    def __init__(self, path: Path, settings: HistorySettings, *, now: Callable[[], float] = time.time) -> None:
        self.path = path
        self.settings = settings
        self._now = now
        self._queue: queue.Queue[_Item] = queue.Queue(maxsize=settings.queue_size)
        self._closing = False
        self._wake = threading.Event()
        self._done = threading.Condition()
        self._accepted = self._committed = self._samples = self._batches = 0
        self._dropped = self._duplicates = self._lost = 0
        self._last_error: str | None = None
        self._latencies: deque[float] = deque(maxlen=LATENCIES_KEPT)
        self._transactions: deque[float] = deque(maxlen=LATENCIES_KEPT // 10)
        self._latency_max: float | None = None
        self._cpu = 0.0
        self._cpu_started = 0.0
        self._used = 0
        self._last_prune: PruneResult | None = None
        self._last_drop_log = float("-inf")
        self._ready = threading.Event()
        self._open_error: HistoryError | None = None
        self._thread = threading.Thread(target=self._run, name="omeconsole-history-writer", daemon=True)

    @classmethod
    def start(cls, path: Path, settings: HistorySettings, *, now: Callable[[], float] = time.time) -> HistoryWriter:
        """Opens (or creates) the store and starts the thread; a HistoryError if the file cannot be used."""
        writer = cls(path, settings, now=now)
        writer._thread.start()
        writer._ready.wait()
        if writer._open_error is not None:
            writer._thread.join()
            raise writer._open_error
        return writer

    # -- the producer's side (never blocks) -------------------------------------------------------------

    def offer(self, observation: Observation) -> bool:
        """Queues `observation` for the disk; False (and counted) when it was dropped."""
        if not self._closing:
            try:
                self._queue.put_nowait((time.monotonic(), observation))
            except queue.Full:
                pass
            else:
                self._accepted += 1
                return True
        self._dropped += 1
        moment = time.monotonic()
        if moment - self._last_drop_log >= DROP_LOG_EVERY_S:
            self._last_drop_log = moment
            log.warning("history: %d observations dropped so far (the writer is behind or closed); no bytes "
                        "are lost, the next sample of each node covers them", self._dropped)
        return False

    def flush(self, timeout: float | None = None) -> bool:
        """Waits until everything offered before this call is on disk (or lost); False on timeout."""
        target = self._accepted
        with contextlib.suppress(queue.Full):
            self._queue.put_nowait(FLUSH)  # a full queue is written at once anyway
        with self._done:
            return self._done.wait_for(
                lambda: self._committed + self._lost >= target or not self._thread.is_alive(), timeout)

    def close(self) -> WriterStats:
        """Writes everything offered so far, closes the database, stops the thread. Blocks until then."""
        self._closing = True
        self._wake.set()
        with contextlib.suppress(queue.Full):
            self._queue.put_nowait(STOP)  # a full queue: the writer sees `_closing` within one batch
        self._thread.join()
        straggler = 0  # an offer that raced close() past its check: accepted, never written
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            straggler += not isinstance(item, _Signal)
        self._lost += straggler
        return self.stats()

    def stats(self) -> WriterStats:
        latencies, transactions = sorted(self._latencies), sorted(self._transactions)

        def quantile(q: float, values: list[float]) -> float | None:
            return values[min(len(values) - 1, int(q * len(values)))] if values else None

        return WriterStats(
            accepted=self._accepted, committed=self._committed, samples=self._samples, dropped=self._dropped,
            duplicates=self._duplicates, lost=self._lost,
            pending=max(0, self._accepted - self._committed - self._lost), batches=self._batches,
            last_error=self._last_error, latency_p50_s=quantile(0.5, latencies),
            latency_p99_s=quantile(0.99, latencies), latency_max_s=self._latency_max,
            transaction_p50_s=quantile(0.5, transactions), transaction_max_s=max(transactions, default=None),
            writer_cpu_s=self._cpu, used_bytes=self._used,
            last_prune=self._last_prune)

    # -- the thread -------------------------------------------------------------------------------------

    def _run(self) -> None:
        self._cpu_started = time.thread_time()
        try:
            db = open_database(self.path)
        except HistoryError as error:
            self._open_error = error
            self._ready.set()
            return
        self._prune(db)  # before `start` returns: what a reader sees next is already within the retention
        self._ready.set()
        try:
            self._loop(db, Ingest(db, self.settings))
        except Exception as error:  # a bug, not the disk: say so; close() counts what is left as lost
            self._last_error = f"{type(error).__name__}: {error}"
            log.exception("history: the writer stopped")
        finally:
            db.close()
            with self._done:
                self._done.notify_all()

    def _loop(self, db: sqlite3.Connection, ingest: Ingest) -> None:
        next_prune = time.monotonic() + PRUNE_EVERY_S
        held: list[tuple[float, Observation]] = []
        retry_delay = 0.0
        while True:
            closing = self._closing
            if held and not closing:
                self._wake.wait(retry_delay)  # a failed batch: nothing new is taken, the queue is the bound
            elif not held:
                if time.monotonic() >= next_prune:
                    self._prune(db)
                    next_prune = time.monotonic() + PRUNE_EVERY_S
                self._gather(held, next_prune)
            closing = closing or self._closing
            if closing:
                self._drain(held)
            if held and self._write(ingest, held):
                held, retry_delay = [], 0.0
                self._used = used_bytes(db)
            elif held:
                retry_delay = min(RETRY_CAP_S, max(1.0, retry_delay * 2))
            self._cpu = time.thread_time() - self._cpu_started
            if closing:
                if held:
                    log.error("history: %d observations could not be written: %s", len(held), self._last_error)
                with self._done:
                    self._lost += len(held)
                return

    def _gather(self, batch: list[tuple[float, Observation]], until: float) -> None:
        """Fills `batch` for up to `batch_seconds` from its first observation (or MAX_BATCH, or a signal)."""
        deadline = until
        while len(batch) < MAX_BATCH:
            timeout = deadline - time.monotonic()
            try:
                item = self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, _Signal):
                if batch or item is STOP:
                    return
                continue  # a flush with nothing held: flush() is answered by the counts
            if not batch:
                deadline = time.monotonic() + self.settings.batch_seconds
            batch.append(item)

    def _drain(self, batch: list[tuple[float, Observation]]) -> None:
        """At stop: everything still queued joins the last batch (nothing new is accepted by then)."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if not isinstance(item, _Signal):
                batch.append(item)

    def _write(self, ingest: Ingest, batch: list[tuple[float, Observation]]) -> bool:
        """One transaction for the batch; False if it must be tried again later (the file is busy or full)."""
        began = time.monotonic()
        try:
            result = ingest.write([observation for _, observation in batch])
            self._transactions.append(time.monotonic() - began)
        except sqlite3.OperationalError as error:
            self._last_error = f"{type(error).__name__}: {error}"
            log.warning("history: a batch of %d could not be written (%s); trying again", len(batch),
                        self._last_error)
            return False
        except (sqlite3.Error, OverflowError, ValueError) as error:
            # A value the database refuses (a counter past 2**63, ...): retrying would never end, so each
            # observation is written alone and only the ones refused are lost.
            self._last_error = f"{type(error).__name__}: {error}"
            return self._write_one_by_one(ingest, batch)
        self._acknowledge(batch, result)
        return True

    def _write_one_by_one(self, ingest: Ingest, batch: list[tuple[float, Observation]]) -> bool:
        refused = 0
        for index, item in enumerate(batch):
            try:
                result = ingest.write([item[1]])
            except sqlite3.OperationalError:
                del batch[:index]  # what was written is not written twice when the rest is tried again
                return False
            except (sqlite3.Error, OverflowError, ValueError):
                refused += 1
                with self._done:
                    self._lost += 1
                continue
            self._acknowledge([item], result)
        log.warning("history: %d observations refused by the database (%s)", refused, self._last_error)
        return True

    def _acknowledge(self, batch: list[tuple[float, Observation]], result: IngestResult) -> None:
        done = time.monotonic()
        for offered, _ in batch:
            latency = done - offered
            self._latencies.append(latency)
            if self._latency_max is None or latency > self._latency_max:
                self._latency_max = latency
        with self._done:
            self._committed += len(batch)
            self._samples += result.samples
            self._duplicates += result.duplicates
            self._batches += 1
            self._done.notify_all()

    def _prune(self, db: sqlite3.Connection) -> None:
        try:
            self._last_prune = prune(db, self.settings, self._now())
            self._used = self._last_prune.used_bytes
        except sqlite3.Error as error:
            self._last_error = f"{type(error).__name__}: {error}"
            log.warning("history: pruning failed: %s", self._last_error)
