"""Webhooks: a real receiver on loopback gets each firing and resolution once, retried after a 500,
and a receiver that hangs holds up nothing: the engine polls, the rules run, /metrics answers.

The receiver (`webhook_receiver.py`) is a small ASGI app under uvicorn on a free port; it answers with the
statuses a test scripts, or holds every request until the test lets it go.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from alerts_support import Rig, exporter_rig
from prometheus_client.parser import text_string_to_metric_families
from webhook_receiver import receiver_running

from omeconsole.api.webhook import WebhookClient
from omeconsole.cli.exporter_cmd import configure_logging
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.alerts.webhook_config import WebhookConfig, WebhookConfigError
from omeconsole.core.alerts.webhooks import WebhookDispatcher

SECRET = "Bearer hook-secret-4711"


def _stall_rule(**more: Any) -> AlertRule:
    return AlertRule(name="ingest stopped", kind="ingest_stopped", scope="default/app/news", after=3,
                     keep_firing_for=2, severity="critical", **more)


async def _until_transition(rig: Rig, status: str, limit: int = 15) -> None:
    for _ in range(limit):
        if any(t.alert.status.value == status for t in await rig.cycle()):
            return
    raise AssertionError(f"no {status} within {limit} cycles")


async def _stall_fired(rig: Rig) -> WebhookDispatcher:
    """Starts the rig's senders, warms up, stalls app/news until its alert fires; the first sender."""
    rig.exporter.start_webhooks()
    await rig.cycle(6)
    rig.input_share("news", 0)
    await _until_transition(rig, "firing")
    return rig.exporter.webhooks[0]


async def test_each_firing_and_resolution_reaches_the_receiver_once_in_alertmanagers_shape(tmp_path: Path) -> None:
    async with receiver_running() as receiver:
        hook = WebhookConfig(name="ops", url=receiver.url, headers_from_env={"Authorization": "HOOK_AUTH"})
        async with exporter_rig(tmp_path, rules=[_stall_rule()], webhooks=[hook], profile="prod",
                                environ={"HOOK_AUTH": SECRET}) as rig:
            dispatcher = await _stall_fired(rig)
            await rig.cycle(3)  # still firing: nothing more is sent
            await dispatcher.drained()
            rig.input_share("news", 1)
            await _until_transition(rig, "resolved")
            await rig.cycle(5)
            await dispatcher.drained()
    firing, resolved = receiver.messages()
    assert len(receiver.requests) == 2
    for message, status in ((firing, "firing"), (resolved, "resolved")):
        assert message["version"] == "4" and message["status"] == status and message["receiver"] == "ops"
        assert message["groupLabels"] == {"alertname": "ingest stopped"}
        (alert,) = message["alerts"]
        assert alert["status"] == status
        assert alert["labels"] == {"alertname": "ingest stopped", "kind": "ingest_stopped", "severity": "critical",
                                   "server": "prod", "vhost": "default", "app": "app", "stream": "news"}
        assert alert["annotations"]["summary"] == "no input bytes for 3 s on a live stream"
        assert alert["startsAt"].startswith("2026-01-01T00:00:") and alert["startsAt"].endswith("Z")
    assert firing["alerts"][0]["endsAt"] == "0001-01-01T00:00:00Z"
    assert resolved["alerts"][0]["endsAt"] > resolved["alerts"][0]["startsAt"]
    assert firing["alerts"][0]["fingerprint"] == resolved["alerts"][0]["fingerprint"]
    assert firing["alerts"][0]["annotations"]["description"].startswith("no input bytes for")
    for headers, _ in receiver.requests:
        assert headers["authorization"] == SECRET and headers["content-type"] == "application/json"


async def test_a_500_is_retried_after_a_back_off_and_the_failure_is_visible(tmp_path: Path) -> None:
    async with receiver_running() as receiver:
        receiver.statuses = [500]
        hook = WebhookConfig(name="ops", url=receiver.url)
        async with exporter_rig(tmp_path, rules=[_stall_rule()], webhooks=[hook]) as rig:
            dispatcher = await _stall_fired(rig)
            await receiver.wait_for(1)
            while not rig.console_clock.sleepers:  # the sender waits out its back-off on the console's clock
                await asyncio.sleep(0.005)
            assert len(receiver.requests) == 1
            document = (await rig.get("/alerts")).json()
            assert document["webhooks"][0]["last_error"] == "ops: answered 500"
            assert document["webhooks"][0]["queued"] == 1
            rig.console_clock.advance(1.0)  # the first back-off is 0.5-1 s
            await dispatcher.drained()
            families = {f.name: f for f in text_string_to_metric_families((await rig.get("/metrics")).text)}
    assert len(receiver.requests) == 2 and receiver.requests[0][1] == receiver.requests[1][1]
    stats = dispatcher.stats
    assert (stats.delivered, stats.failed_attempts, stats.dropped, stats.queued) == (1, 1, 0, 0)
    assert families["ome_webhook_failed_attempts"].samples[0].value == 1.0
    assert families["ome_webhook_delivered"].samples[0].value == 1.0


async def test_a_hanging_receiver_holds_up_neither_polling_nor_the_rules_nor_the_scrape(tmp_path: Path) -> None:
    async with receiver_running() as receiver:
        receiver.hold = asyncio.Event()
        hook = WebhookConfig(name="ops", url=receiver.url, timeout=120)
        async with exporter_rig(tmp_path, rules=[_stall_rule()], webhooks=[hook]) as rig:
            dispatcher = await _stall_fired(rig)
            await receiver.wait_for(1)  # the receiver now holds the firing's POST open
            rig.input_share("news", 1)
            reads_before = rig.exporter.engine.requests_sent
            await _until_transition(rig, "resolved")  # the rules go on
            await rig.cycle(5)
            assert rig.exporter.engine.requests_sent > reads_before + 10  # and so does polling
            families = {f.name: f for f in text_string_to_metric_families((await rig.get("/metrics")).text)}
            assert families["ome_webhook_queue_length"].samples[0].value == 2.0  # one held, one waiting
            assert families["ome_alerts_firing"].samples[0].value == 0.0
            receiver.hold.set()
            await dispatcher.drained()
    assert [m["status"] for m in receiver.messages()] == ["firing", "resolved"]


async def test_a_full_queue_drops_its_oldest_waiting_message_and_counts_it(tmp_path: Path) -> None:
    async with receiver_running() as receiver:
        receiver.hold = asyncio.Event()
        hook = WebhookConfig(name="ops", url=receiver.url, timeout=120, queue=1)
        rules = [_stall_rule(), AlertRule(name="busy", kind="viewers_above", scope="default/app/backup", viewers=0,
                                          keep_firing_for=0)]
        async with exporter_rig(tmp_path, rules=rules, webhooks=[hook]) as rig:
            rig.exporter.start_webhooks()
            dispatcher = rig.exporter.webhooks[0]
            await rig.cycle(6)
            backup = rig.stream("backup")
            rig.simulator.world.open_session(backup, "llhls")
            await _until_transition(rig, "firing")  # busy fires: its POST is held
            await receiver.wait_for(1)
            rig.input_share("news", 0)
            await _until_transition(rig, "firing")  # ingest stopped fires: waits
            rig.simulator.world.close_session(backup, "llhls")
            await _until_transition(rig, "resolved")  # busy resolves: pushes the waiting message out
            assert dispatcher.stats.dropped == 1 and dispatcher.stats.queued == 2
            receiver.hold.set()
            await dispatcher.drained()
    statuses = [(m["alerts"][0]["labels"]["alertname"], m["status"]) for m in receiver.messages()]
    assert statuses == [("busy", "firing"), ("busy", "resolved")]
    assert dispatcher.stats.delivered == 2


async def test_secret_headers_never_reach_logs_errors_or_documents(tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    configure_logging()  # as `omeconsole exporter` runs: everything of the console's at INFO and above
    caplog.set_level(logging.INFO)
    async with receiver_running() as receiver:
        receiver.statuses = [401]
        hook = WebhookConfig(url=receiver.url, headers_from_env={"Authorization": "HOOK_AUTH"})
        async with exporter_rig(tmp_path, rules=[_stall_rule()], webhooks=[hook],
                                environ={"HOOK_AUTH": SECRET}) as rig:
            dispatcher = await _stall_fired(rig)
            await dispatcher.drained()
            document = (await rig.get("/alerts")).text
            metrics = (await rig.get("/metrics")).text
    assert len(receiver.requests) == 1  # a 401 is final: not retried
    assert dispatcher.stats.dropped == 1 and dispatcher.name == receiver.url.split("/")[2]  # host:port only
    assert "answered 401" in (dispatcher.stats.last_error or "")
    for text in (document, metrics, caplog.text, repr(dispatcher.stats), repr(hook), repr(rig.exporter.settings)):
        assert "hook-secret" not in text and "in-the-query" not in text
    client = WebhookClient(receiver.url, {"Authorization": SECRET})
    assert "hook-secret" not in repr(client) and "in-the-query" not in repr(client)
    await client.aclose()


def test_header_sources_say_what_is_missing_without_values(tmp_path: Path) -> None:
    missing_env = WebhookConfig(url="https://hooks.example.net/x", headers_from_env={"Authorization": "NOPE"})
    with pytest.raises(WebhookConfigError, match=r"header Authorization: \$NOPE is not set"):
        missing_env.resolve_headers({})
    secret_file = tmp_path / "key"
    secret_file.write_text("\n  s3cret-value  \nsecond line\n")
    secret_file.chmod(0o644)
    warnings: list[str] = []
    from_file = WebhookConfig(url="https://hooks.example.net/x", headers_from_file={"X-Key": str(secret_file)})
    assert from_file.resolve_headers({}, warnings.append) == {"X-Key": "s3cret-value"}
    assert warnings and "chmod 600" in warnings[0] and "s3cret" not in warnings[0]
    gone = WebhookConfig(url="https://hooks.example.net/x", headers_from_file={"X-Key": str(tmp_path / "gone")})
    with pytest.raises(WebhookConfigError, match="cannot read"):
        gone.resolve_headers({})
    with pytest.raises(ValueError, match="header name"):
        WebhookConfig(url="https://hooks.example.net/x", headers={"Bad Header": "x"})
    with pytest.raises(ValueError, match="http"):
        WebhookConfig(url="ftp://hooks.example.net/x")
