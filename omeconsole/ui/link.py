"""How the app gets its data: a `Connector` turns settings into a running engine and its client.

The app never builds HTTP clients itself; it is handed a connector (and a clock), so tests inject
one with a fake clock and a seeded random source, and "connect" or a new token simply asks the
connector for a fresh link.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from omeconsole.api.client import OmeClient
from omeconsole.core.clock import Clock
from omeconsole.core.config import Settings
from omeconsole.core.engine import PollingEngine, PollSettings


@dataclass
class Link:
    """An engine and the client it polls through; closing the link closes both."""

    engine: PollingEngine
    client: OmeClient

    async def aclose(self) -> None:
        self.engine.stop()
        await self.client.aclose()


Connector = Callable[[Settings], Link]


def poll_settings(settings: Settings) -> PollSettings:
    return PollSettings(interval=settings.interval, listing_interval=settings.listing_interval,
                        request_budget=settings.request_budget, max_concurrency=settings.max_concurrency,
                        history_seconds=settings.history_seconds)


def http_connector(clock: Clock, *, rng: random.Random | None = None,
                   transport: httpx.AsyncBaseTransport | None = None) -> Connector:
    """The real thing: an OmeClient over HTTP and a PollingEngine on `clock`."""

    def connect(settings: Settings) -> Link:
        client = OmeClient(settings.api_url, settings.token_value() or "", timeout=settings.timeout,
                           verify=not settings.insecure, transport=transport)
        engine = PollingEngine(client, clock, poll_settings(settings), rng=rng)
        return Link(engine, client)

    return connect
