"""Delivering alert transitions to `[[webhooks]]`: a bounded queue per receiver, retries with back-off.

`submit()` only appends to a queue and returns: the evaluation pass, the polling and the UI never wait
for a receiver. One task per receiver sends the queue in order, one message at a time; a receiver that
answers 5xx, 408, 425 or 429, or does not answer, gets the same message again after a jittered
exponential back-off (1 s doubling to 60 s) on the injected clock, up to `max_attempts`; any other 4xx
is final. A full queue drops its oldest message. Every outcome is counted and the last failure kept in
words (`DeliveryStats`), so a broken receiver is visible on screen and in the exporter's metrics.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from omeconsole.api.http import Transport
from omeconsole.api.webhook import WebhookClient, WebhookError
from omeconsole.core.alerts.payload import webhook_body
from omeconsole.core.alerts.state import Transition
from omeconsole.core.alerts.webhook_config import WebhookConfig
from omeconsole.core.clock import Clock

log = logging.getLogger("omeconsole.webhooks")

BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 60.0
RETRY_STATUSES = frozenset({408, 425, 429})


class Poster(Protocol):
    """The wire (`api.webhook.WebhookClient`): one POST, its status, or WebhookError."""

    async def post(self, body: bytes) -> int: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class DeliveryStats:
    name: str
    delivered: int
    """Messages the receiver accepted (2xx)."""
    failed_attempts: int
    """Attempts that failed (an error status or no answer), retried or not."""
    dropped: int
    """Messages given up on: a final refusal, out of attempts, or pushed out of a full queue."""
    queued: int
    last_error: str | None
    last_error_at: float | None


class WebhookDispatcher:
    """Sends messages to one receiver in order; `run()` is its task, `submit()` never blocks."""

    def __init__(self, config: WebhookConfig, poster: Poster, clock: Clock, *,
                 rng: random.Random | None = None) -> None:
        self.config = config
        self.name = config.label
        self._poster = poster
        self._clock = clock
        self._rng = rng or random.Random()
        self._queue: deque[bytes] = deque()
        """Messages waiting; the one being delivered is `_sending`."""
        self._sending: bytes | None = None
        self._ready = asyncio.Event()
        self._delivered = 0
        self._failed_attempts = 0
        self._dropped = 0
        self._last_error: str | None = None
        self._last_error_at: float | None = None
        self._settled = asyncio.Event()

    def submit(self, body: bytes) -> None:
        """Queues `body` and returns at once; past `queue` waiting messages the oldest waiting one goes."""
        if len(self._queue) >= self.config.queue:
            self._queue.popleft()
            self._note_drop(f"queue full ({self.config.queue} messages): the oldest message was dropped")
        self._queue.append(body)
        self._ready.set()

    @property
    def stats(self) -> DeliveryStats:
        return DeliveryStats(self.name, self._delivered, self._failed_attempts, self._dropped,
                             len(self._queue) + (self._sending is not None), self._last_error, self._last_error_at)

    async def run(self) -> None:
        """Delivers until cancelled."""
        while True:
            while not self._queue:
                self._ready.clear()
                await self._ready.wait()
            self._sending = self._queue.popleft()
            try:
                if await self._deliver(self._sending):
                    self._delivered += 1
            except Exception:  # a sender bug must not end deliveries for good
                log.exception("webhook %s: delivery failed", self.name)
                self._note_drop("delivery failed (see the log)")
            finally:
                self._sending = None
                self._settled.set()

    async def drained(self) -> None:
        """Waits until every submitted message has been delivered or dropped."""
        while self._queue or self._sending is not None:
            self._settled.clear()
            await self._settled.wait()

    async def _deliver(self, body: bytes) -> bool:
        for attempt in range(1, self.config.max_attempts + 1):
            try:
                status = await self._poster.post(body)
            except WebhookError as error:
                reason, retry = error.message, True
            else:
                if 200 <= status < 300:
                    return True
                reason = f"{self.name}: answered {status}"
                retry = status >= 500 or status in RETRY_STATUSES
            self._failed_attempts += 1
            self._last_error, self._last_error_at = reason, self._clock.monotonic()
            if not retry:
                self._note_drop(f"{reason}: not retried")
                return False
            if attempt < self.config.max_attempts:
                await self._clock.sleep(self._backoff(attempt))
        self._note_drop(f"{self._last_error}: gave up after {self.config.max_attempts} attempts")
        return False

    def _backoff(self, attempt: int) -> float:
        delay: float = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2.0 ** (attempt - 1))
        return delay * self._rng.uniform(0.5, 1.0)

    def _note_drop(self, reason: str) -> None:
        self._dropped += 1
        log.warning("webhook %s: %s", self.name, reason)


def notifier(dispatchers: list[WebhookDispatcher], clock: Clock) -> Callable[[Transition], None]:
    """An evaluator listener that queues every firing and resolution to every receiver."""

    def notify(transition: Transition) -> None:
        for dispatcher in dispatchers:
            dispatcher.submit(webhook_body(transition.alert, clock, dispatcher.name))

    return notify


class Deliveries:
    """Every `[[webhooks]]` receiver's sender and wire, started and closed together (the exporter, the
    scheduler). WebhookConfigError at construction when a header's variable is missing."""

    def __init__(self, configs: Sequence[WebhookConfig], clock: Clock, *, environ: Mapping[str, str] | None = None,
                 warn: Callable[[str], None] | None = None, transport: Transport | None = None,
                 rng: random.Random | None = None) -> None:
        self.dispatchers: list[WebhookDispatcher] = []
        self._clients: list[WebhookClient] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._clock = clock
        for config in configs:
            poster = WebhookClient(config.url, config.resolve_headers(environ, warn), timeout=config.timeout,
                                   verify=not config.insecure, transport=transport)
            self._clients.append(poster)
            self.dispatchers.append(WebhookDispatcher(config, poster, clock, rng=rng))

    def notifier(self) -> Callable[[Transition], None]:
        return notifier(self.dispatchers, self._clock)

    def start(self) -> None:
        for dispatcher in self.dispatchers:
            self._tasks.append(asyncio.create_task(dispatcher.run(), name=f"webhook-{dispatcher.name}"))

    async def drained(self) -> None:
        """Every message submitted so far delivered or dropped."""
        await asyncio.gather(*(dispatcher.drained() for dispatcher in self.dispatchers))

    async def aclose(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        for client in self._clients:
            await client.aclose()
