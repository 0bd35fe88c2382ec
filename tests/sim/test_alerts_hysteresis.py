"""Hysteresis: a flapping link raises one alert, not one per flap; and the alert-transition hook the TUI
(badges, bell, desktop notification) will use hears each change once.
"""

from __future__ import annotations

from pathlib import Path

from alerts_support import exporter_rig
from fake_clock import FakeClock

from omeconsole.api.client import OmeClient
from omeconsole.core.alerts.evaluator import AlertEvaluator
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.alerts.source import EngineSource, Observed
from omeconsole.core.alerts.state import AlertStatus, Transition
from omeconsole.core.polling.engine import PollingEngine
from omeconsole.model.paths import NodePath

FLAPS = 6


async def test_a_flapping_link_raises_one_alert_not_one_per_flap(tmp_path: Path) -> None:
    rules = [AlertRule(name="steady", kind="server_down", after=2, keep_firing_for=15),
             AlertRule(name="twitchy", kind="server_down", after=2, keep_firing_for=0)]
    async with exporter_rig(tmp_path, rules=rules, faults="reset=1") as rig:
        await rig.cycle(5)
        for _ in range(FLAPS):  # 4 s down, 4 s up: every request refused, then all fine again
            rig.http_faults(True)
            await rig.cycle(4)
            rig.http_faults(False)
            await rig.cycle(4)
        firing_during_flaps = [t.alert.key.rule for t in rig.transitions if t.alert.status is AlertStatus.FIRING]
        assert rig.firing() == [("steady", None)]  # still firing: the link was never up for 15 s
        await rig.cycle(20)
    assert firing_during_flaps.count("steady") == 1
    assert firing_during_flaps.count("twitchy") == FLAPS  # without hysteresis: one alert per flap
    steady = [t.alert.status for t in rig.transitions if t.alert.key.rule == "steady"]
    assert steady == [AlertStatus.FIRING, AlertStatus.RESOLVED]


async def test_the_transition_hook_hears_each_change_once_and_a_failing_listener_stops_nothing(tmp_path: Path) -> None:
    """The evaluator on its own, as the TUI will hold it: its engine, its clock, its listeners."""
    async with exporter_rig(tmp_path) as rig:  # the rig's simulator; the engine and rules are built here
        clock = FakeClock()
        async with OmeClient(rig.simulator.api_url, rig.simulator.access_token) as client:
            engine = PollingEngine(client, clock)
            news = NodePath("default", "app", "news")
            engine.select(news)
            rule = AlertRule(kind="ingest_stopped", scope="default/app/news", after=3, keep_firing_for=0)
            evaluator = AlertEvaluator([rule], Observed(EngineSource(engine)), clock, server="lab")
            heard: list[Transition] = []

            def broken(_: Transition) -> None:
                raise RuntimeError("a listener bug")

            evaluator.add_listener(broken)
            evaluator.add_listener(heard.append)

            async def interval() -> None:
                rig.world_clock.advance(1)
                clock.advance(1)
                await engine.poll_cycle()
                evaluator.evaluate()

            for _ in range(6):
                await interval()
            rig.input_share("news", 0)
            for _ in range(8):
                await interval()
            assert evaluator.firing_paths() == {news: evaluator.firing()}
            rig.input_share("news", 1)
            for _ in range(4):
                await interval()
    assert [(t.alert.status, t.alert.key.path, t.alert.key.server) for t in heard] == [
        (AlertStatus.FIRING, news, "lab"), (AlertStatus.RESOLVED, news, "lab")]
    assert evaluator.firing_by_rule() == {"ingest_stopped": 0}
    assert evaluator.alerts()[0].status is AlertStatus.RESOLVED
