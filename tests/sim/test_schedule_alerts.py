"""A planned break that did not go out reaches a real webhook receiver as `schedule_missed`, with the reason,
and one that went out unseen as `marker_unconfirmed`: the runner against the real simulator on one
injected clock, its events through `ScheduleAlerts` and `Occurrences` to the webhook senders, over HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from schedule_support import WAIT_S, Rig, drive, rig, started
from webhook_receiver import Receiver, receiver_running

from omeconsole.core.alerts.occurrences import Occurrences
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.alerts.webhook_config import WebhookConfig
from omeconsole.core.alerts.webhooks import Deliveries
from omeconsole.core.config import Settings
from omeconsole.core.schedule.alerting import ScheduleAlerts
from omeconsole.core.schedule.events import RunnerEvent
from omeconsole.core.schedule.lock import RunnerLock, lock_path
from omeconsole.core.schedule.runner import Runner
from omeconsole.model.paths import NodePath

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SPOT = '[templates.spot]\nduration = "30s"\n'
SPOTS = SPOT + '[[schedules]]\nname = "spots"\nstream = "default/app/stream"\ntemplate = "spot"\nevery = "2m"\n'
GHOST = '[[schedules]]\nname = "ghost"\nstream = "default/app/ghost"\ntemplate = "spot"\nat = ["00:05"]\n'
REFUSE_SENDS = "5xx=1,paths=/v1/vhosts/default/apps/app/streams/stream:send"
MISSED = AlertRule(name="break missed", kind="schedule_missed", scope="default/app/*", keep_firing_for=0,
                   severity="critical")
UNSEEN = AlertRule(name="break unseen", kind="marker_unconfirmed", scope="*/*/*", keep_firing_for=0)


def _at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


@contextlib.asynccontextmanager
async def alerting(r: Rig, receiver: Receiver, rules: Sequence[AlertRule]) -> AsyncIterator[Runner]:
    """A runner whose events fire the rules, delivered to `receiver`; every delivery settled on exit."""
    occurrences = Occurrences(rules, r.clock, server="sim")
    deliveries = Deliveries([WebhookConfig(name="ops", url=receiver.url)], r.clock)
    occurrences.add_listener(deliveries.notifier())
    alerts = ScheduleAlerts(occurrences)

    def report(event: RunnerEvent) -> None:
        r.events.append(event)
        alerts(event)

    runner = Runner(r.adops, r.book, [r.config, r.schedules], report, RunnerLock(lock_path(r.audit), "test"),
                    watch_s=60, on_tick=occurrences.tick)
    deliveries.start()
    try:
        async with started(runner):
            yield runner
    finally:
        await asyncio.wait_for(deliveries.drained(), WAIT_S)
        await deliveries.aclose()


def _alerts(receiver: Receiver) -> list[tuple[str, str, str, str]]:
    """(status, alertname, schedule/stream, description) of every message received, in order."""
    found = []
    for message in receiver.messages():
        [alert] = message["alerts"]
        labels: dict[str, Any] = alert["labels"]
        where = f"{labels['vhost']}/{labels['app']}/{labels['stream']}"
        found.append((message["status"], labels["alertname"], f"{labels['schedule']} {where}",
                      alert["annotations"]["description"]))
    return found


async def test_breaks_that_did_not_go_out_fire_schedule_missed_with_the_reason_and_resolve_on_the_next_send(
        tmp_path: Path) -> None:
    async with receiver_running() as receiver, rig(tmp_path, SPOTS + GHOST, faults=REFUSE_SENDS) as r:
        assert r.simulator.faults is not None
        r.simulator.faults.http.active = False
        async with alerting(r, receiver, [MISSED]) as runner:
            await drive(runner, r.clock, _at(3))
            controller = r.adops.stream(NodePath("default", "app", "stream"))
            assert (await controller.send(controller.plan_cue_out(100))).status == "accepted"  # on air at 4:00
            await drive(runner, r.clock, _at(7))
            r.simulator.faults.http.active = True  # the server refuses the POST at 8:00
            await drive(runner, r.clock, _at(9))
            r.simulator.faults.http.active = False
            await drive(runner, r.clock, _at(10) + timedelta(seconds=10))
    assert [e.run for e in r.kinds("sent")] == [_at(2), _at(6), _at(10)]
    received = _alerts(receiver)
    assert [(status, who) for status, _, who, _ in received] == [
        ("firing", "spots default/app/stream"),   # 4:00: a break on air
        ("firing", "ghost default/app/ghost"),    # 5:00: no playlist to read
        ("resolved", "spots default/app/stream"),  # 6:00 sent
        ("firing", "spots default/app/stream"),   # 8:00: refused by the server
        ("resolved", "spots default/app/stream"),  # 10:00 sent
    ]
    assert {name for _, name, _, _ in received} == {"break missed"}
    on_air, no_playlist, _, refused, _ = (description for *_, description in received)
    assert "a break is already on air since 00:03:01" in on_air
    assert "whether a break is on air is not known" in no_playlist and "404" in no_playlist
    assert "500" in refused
    first = receiver.messages()[0]["alerts"][0]
    assert first["labels"]["kind"] == "schedule_missed" and first["labels"]["severity"] == "critical"


async def test_runs_missed_while_nothing_ran_fire_schedule_missed_on_start(tmp_path: Path) -> None:
    async with receiver_running() as receiver, rig(tmp_path, SPOTS) as r:
        async with alerting(r, receiver, [MISSED]) as first:
            await drive(first, r.clock, _at(2) + timedelta(seconds=10))
        r.clock.advance(7 * 60)  # nothing runs from 2:10 to 9:10
        async with alerting(r, receiver, [MISSED]) as second:
            await asyncio.wait_for(receiver.wait_for(1), WAIT_S)  # said on start, before any run
            await drive(second, r.clock, _at(10) + timedelta(seconds=10))
    assert [e.run for e in r.kinds("missed")] == [_at(4), _at(6), _at(8)]
    assert _alerts(receiver) == [
        ("firing", "break missed", "spots default/app/stream",
         "missed 00:04 — not sent late (nothing was running)"),
        ("resolved", "break missed", "spots default/app/stream", "a break was sent to default/app/stream"),
    ]


async def test_a_scheduled_break_not_seen_fires_marker_unconfirmed(tmp_path: Path) -> None:
    config = SPOT + '[[schedules]]\nname = "once"\nstream = "default/app/stream"\ntemplate = "spot"\nat = ["00:02"]\n'
    async with (receiver_running() as receiver, rig(tmp_path, config) as r,
                alerting(r, receiver, [MISSED, UNSEEN]) as runner):
        await drive(runner, r.clock, _at(2) + timedelta(seconds=0.1))  # sent; its first follow is at 2:00.5
        stream = r.simulator.world.find_stream("default", "app", "stream")
        assert stream is not None
        r.simulator.world.end_stream(stream)  # no playlist will show it
        await drive(runner, r.clock, _at(2) + timedelta(seconds=30))
    assert [e.run for e in r.kinds("sent")] == [_at(2)] and r.kinds("unconfirmed")
    [(status, name, who, description)] = _alerts(receiver)
    assert (status, name, who) == ("firing", "break unseen", "once default/app/stream")
    assert "not seen" in description


def test_schedule_missed_is_a_rule_kind_of_the_config_with_no_threshold() -> None:
    settings = Settings.model_validate({"alerts": [{"kind": "schedule_missed", "scope": "default/app/*"}]})
    [rule] = settings.alerts
    assert rule.name == "schedule_missed" and rule.describe() == "a planned break of a schedule did not go out"
    with pytest.raises(ValueError, match="within does not apply to schedule_missed"):
        Settings.model_validate({"alerts": [{"kind": "schedule_missed", "within": "30s"}]})
    with pytest.raises(ValueError, match="watches stream nodes"):
        Settings.model_validate({"alerts": [{"kind": "schedule_missed", "scope": "default/app"}]})
