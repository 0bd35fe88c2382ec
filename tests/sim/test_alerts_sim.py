"""Every alert kind fires and resolves against a real simulator, on clocks the test moves.

Traffic is changed through the simulator's world (an encoder that stops sending, a bit rate that drops,
players that come and go) and the network through its fault injection; the console side is the real
exporter: engine, rules, hysteresis. Each test checks the moment an alert fires and resolves, and that
it fires once.
"""

from __future__ import annotations

from pathlib import Path

from alerts_support import Rig, exporter_rig

from omeconsole.api.client import OmeClient
from omeconsole.core.adops.operations import AdOps
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.alerts.state import AlertStatus
from omeconsole.core.context import ServerContext
from omeconsole.core.polling.rates import RATE_WINDOW_S
from omeconsole.model.paths import NodePath


def _statuses(rig: Rig) -> list[tuple[str, str, NodePath | None]]:
    return [(t.alert.status.value, t.alert.key.rule, t.alert.key.path) for t in rig.transitions]


async def _cycles_until(rig: Rig, status: str, limit: int) -> int:
    """Cycles until a transition of `status` is made; how many it took (fails past `limit`)."""
    for count in range(1, limit + 1):
        if any(t.alert.status.value == status for t in await rig.cycle()):
            return count
    raise AssertionError(f"no {status} transition within {limit} cycles: {_statuses(rig)}")


async def test_server_down_fires_after_its_threshold_and_resolves_after_the_hysteresis(tmp_path: Path) -> None:
    rule = AlertRule(kind="server_down", after=5, keep_firing_for=10, severity="critical")
    async with exporter_rig(tmp_path, rules=[rule], faults="reset=1") as rig:
        await rig.cycle(5)
        assert rig.transitions == []
        rig.http_faults(True)  # every request now ends in a TCP reset
        took = await _cycles_until(rig, "firing", 10)
        assert 5 <= took <= 6  # no successful read for 5 s, seen at the next pass
        firing = rig.exporter.evaluator.firing()[0]
        assert firing.key.path is None and firing.severity == "critical" and firing.value is not None
        assert firing.value >= 5 and "no successful read" in firing.detail
        rig.http_faults(False)
        took = await _cycles_until(rig, "resolved", 20)
        assert 10 <= took <= 13  # back within two intervals, then 10 s without the condition
    assert _statuses(rig) == [("firing", "server_down", None), ("resolved", "server_down", None)]


async def test_server_down_counts_from_the_start_when_the_server_never_answered(tmp_path: Path) -> None:
    rule = AlertRule(kind="server_down", after=3)
    async with exporter_rig(tmp_path, rules=[rule], faults="reset=1") as rig:
        rig.http_faults(True)
        took = await _cycles_until(rig, "firing", 6)
    assert took == 3


async def test_ingest_stopped_fires_on_the_stalled_stream_only_and_resolves_when_bytes_flow(tmp_path: Path) -> None:
    rule = AlertRule(kind="ingest_stopped", scope="default/*/*", after=5, keep_firing_for=3)
    async with exporter_rig(tmp_path, rules=[rule]) as rig:
        await rig.cycle(8)
        rig.input_share("news", 0)  # the encoder stalls; the stream stays listed
        took = await _cycles_until(rig, "firing", 10)
        assert 5 <= took <= 7
        assert rig.firing() == [("ingest_stopped", rig.path("news"))]
        alert = rig.exporter.evaluator.firing()[0]
        assert alert.detail.startswith("no input bytes for") and alert.labels["stream"] == "news"
        rig.input_share("news", 1)
        took = await _cycles_until(rig, "resolved", 8)
        assert 3 <= took <= 5
    assert _statuses(rig) == [("firing", "ingest_stopped", rig.path("news")),
                              ("resolved", "ingest_stopped", rig.path("news"))]


async def test_input_bitrate_drop_fires_below_its_share_of_the_median_and_resolves_when_it_recovers(
        tmp_path: Path) -> None:
    rule = AlertRule(kind="input_bitrate_drop", scope="default/app/stream", below_percent=50, window=60,
                     keep_firing_for=5)
    async with exporter_rig(tmp_path, rules=[rule]) as rig:
        await rig.cycle(45)  # more than half the window of normal input (jitter stays within 80-120 %)
        assert rig.transitions == []
        rig.input_share("stream", 0.3)
        # The console's rate averages over RATE_WINDOW_S (a fetch between polls must not make a spike), so
        # a step drop shows in full once that window has passed, and crosses 50 % of the median before.
        took = await _cycles_until(rig, "firing", 7)
        assert took <= RATE_WINDOW_S
        await rig.cycle(int(RATE_WINDOW_S))
        alert = rig.exporter.evaluator.firing()[0]
        assert alert.value is not None and 20 < alert.value < 40  # percent of the median
        await rig.cycle(35)  # a lasting drop does not become the new normal
        assert rig.firing() == [("input_bitrate_drop", rig.path("stream"))]
        rig.input_share("stream", 1)
        took = await _cycles_until(rig, "resolved", 10)
        assert 5 <= took <= 8
    assert [s for s, _, _ in _statuses(rig)] == ["firing", "resolved"]


async def test_no_viewers_fires_on_an_always_watched_stream_and_resolves_when_someone_watches(
        tmp_path: Path) -> None:
    rule = AlertRule(kind="no_viewers", scope="default/app/backup", after=30, keep_firing_for=5)
    async with exporter_rig(tmp_path, rules=[rule]) as rig:  # app/backup: live, nobody watching
        took = await _cycles_until(rig, "firing", 40)
        assert 30 <= took <= 36  # readings begin a few cycles in: 30 s of zero viewers after that
        assert rig.firing() == [("no_viewers", rig.path("backup"))]
        backup = rig.stream("backup")
        rig.simulator.world.open_session(backup, "llhls")
        took = await _cycles_until(rig, "resolved", 10)
        assert 5 <= took <= 7
        rig.simulator.world.close_session(backup, "llhls")
        await rig.cycle(20)  # empty again, but for less than 30 s
    assert [s for s, _, _ in _statuses(rig)] == ["firing", "resolved"]


async def test_viewers_above_fires_at_any_level_and_resolves_below(tmp_path: Path) -> None:
    rules = [AlertRule(name="backup busy", kind="viewers_above", scope="default/app/backup", viewers=2,
                       keep_firing_for=2),
             AlertRule(name="app crowd", kind="viewers_above", scope="default/app", viewers=1_000_000)]
    async with exporter_rig(tmp_path, rules=rules) as rig:
        await rig.cycle(6)
        backup = rig.stream("backup")
        for _ in range(3):
            rig.simulator.world.open_session(backup, "webrtc")
        took = await _cycles_until(rig, "firing", 3)
        assert took <= 2
        alert = rig.exporter.evaluator.firing()[0]
        assert alert.value == 3.0 and alert.key.rule == "backup busy"
        for _ in range(3):
            rig.simulator.world.close_session(backup, "webrtc")
        took = await _cycles_until(rig, "resolved", 6)
        assert 2 <= took <= 4
    assert _statuses(rig) == [("firing", "backup busy", rig.path("backup")),
                              ("resolved", "backup busy", rig.path("backup"))]


async def test_marker_unconfirmed_fires_for_a_cue_the_playlist_never_showed_and_resolves_when_seen(
        tmp_path: Path) -> None:
    rule = AlertRule(kind="marker_unconfirmed", scope="default/*/*", within=10, keep_firing_for=0)
    async with exporter_rig(tmp_path, rules=[rule]) as rig:
        await rig.cycle(3)
        # A real cue-out through the console's one send path, its audit line written by it; nobody follows
        # the playlist, so no confirmation line comes.
        async with OmeClient(rig.simulator.api_url, rig.simulator.access_token) as client:
            context = ServerContext(api_url=rig.simulator.api_url, profile=None, read_only=False)
            adops = AdOps(client, rig.audit, rig.console_clock, context, publisher_url=rig.simulator.publisher_url)
            controller = adops.stream(rig.path("stream"))  # unread playlist: the rules' check is confirmed away
            outcome = await controller.send(controller.plan_cue_out(30), confirmed={"check-not-run"})
            await adops.aclose()
        assert outcome.status == "accepted"
        took = await _cycles_until(rig, "firing", 15)
        assert 10 <= took <= 11
        alert = rig.exporter.evaluator.firing()[0]
        assert alert.key.path == rig.path("stream") and "not seen in the playlist" in alert.detail
        rig.audit.record_confirmation(outcome.plan.send_id, 12.5, "CUE-OUT in llhls chunklist")  # seen, late
        took = await _cycles_until(rig, "resolved", 3)
        assert took == 1
        resolved = rig.exporter.evaluator.alerts()[0]
        assert resolved.status is AlertStatus.RESOLVED and "(late)" in resolved.detail
    assert [s for s, _, _ in _statuses(rig)] == ["firing", "resolved"]


async def test_a_pending_alert_that_clears_before_its_for_never_fires(tmp_path: Path) -> None:
    rule = AlertRule(kind="ingest_stopped", scope="default/app/news", after=2, **{"for": "10s"})
    async with exporter_rig(tmp_path, rules=[rule]) as rig:
        await rig.cycle(6)
        rig.input_share("news", 0)
        await rig.cycle(6)
        pending = rig.exporter.evaluator.alerts()
        assert [a.status for a in pending] == [AlertStatus.PENDING]
        rig.input_share("news", 1)
        await rig.cycle(12)
        assert rig.exporter.evaluator.alerts() == [] and rig.transitions == []
