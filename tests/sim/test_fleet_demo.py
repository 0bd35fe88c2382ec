"""`omeconsole demo --fleet`: an origin and two edges in one simulator, as the fleet the console will show."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fake_clock import FakeClock

from omeconsole.core.config import Settings
from omeconsole.core.fleet.fleet import Fleet
from omeconsole.model.paths import NodePath
from omeconsole.ui.demo import demo_fleet_settings
from simulator.http.fleet import start_fleet


def test_the_demo_is_asked_for_a_fleet(monkeypatch: pytest.MonkeyPatch) -> None:
    import omeconsole.ui.demo
    from omeconsole.cli.gc_policy import ConsoleStart
    from omeconsole.cli.main import main

    calls: list[dict[str, Any]] = []

    def record(settings: Any, **options: Any) -> int:
        assert isinstance(options.pop("start_watch"), ConsoleStart)  # the collections' policy is told of the start
        calls.append(options)
        return 0

    monkeypatch.setattr(omeconsole.ui.demo, "run_demo", record)
    monkeypatch.setenv("OMECONSOLE_CONFIG", "/nonexistent/omeconsole-test/config.toml")
    assert main(["demo", "--fleet", "--seed", "4"]) == 0
    assert calls == [{"scenario": "demo", "seed": 4, "select": None, "fleet": True}]


async def test_the_demos_fleet_is_an_origin_and_two_edges_pulling_its_streams() -> None:
    clock = FakeClock()
    running = await start_fleet("demo", edges=2, seed=4, clock=clock)
    settings = demo_fleet_settings(running, Settings(interval=2.0, request_budget=30.0))
    assert settings.profiles == ("origin", "edge-1", "edge-2") and settings.request_budget == 30.0
    assert [s.api_url for s in settings.servers] == [s.api_url for s in running.servers]
    assert all(s.interval == 2.0 and s.token_value() == running.origin.access_token for s in settings.servers)
    fleet = Fleet.connect(settings, clock, rng=random.Random(4), demo=True)
    try:
        stream = NodePath("default", "app", "stream")
        fleet.select(stream)
        for _ in range(4):
            clock.advance(1)
            await fleet.poll_cycle()
        assert all(member.session.context.demo for member in fleet)  # its sends go to the demo's audit log
        view = fleet.view(stream)
        assert view.origins == ("origin",) and view.edges == ("edge-1", "edge-2")
        assert view.viewers is not None and view.viewers > 0 and view.servers[0].viewers == 0
    finally:
        await fleet.aclose()
        await running.stop()
