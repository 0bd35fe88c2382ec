"""The exporter's /metrics against a real simulator, read back with prometheus-client's own parsers.

Every family's type, HELP and label names are checked, and the values are held to the simulator's own
counters at the instant the exporter read them (the world's clock stands still between the read and
the scrape, so they must be equal, not close).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from alerts_support import Rig, exporter_rig
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics
from prometheus_client.parser import text_string_to_metric_families as parse_text
from prometheus_client.samples import Sample

from omeconsole.api.wire import PROVIDER_PROTOCOLS, PUBLISHER_PROTOCOLS
from omeconsole.core.adops.audit import AuditLog, Intent
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.alerts.webhook_config import WebhookConfig

NODE = {"server", "vhost"}
FAMILIES = {
    # name: (type, label names beyond the node's, words its HELP must say)
    "ome_bytes_in": ("counter", set(), ("totalBytesIn", "restarts")),
    "ome_bytes_out": ("counter", set(), ("totalBytesOut", "restarts")),
    "ome_connections": ("gauge", {"direction", "protocol"}, ("current count", "providers", "publishers")),
    "ome_connections_max": ("gauge", set(), ("maxTotalConnections",)),
    "ome_connections_max_timestamp_seconds": ("gauge", set(), ("Unix time",)),
    "ome_throughput_bytes_per_second": ("gauge", {"direction", "stat"},
                                        ("bytes per second", "lastThroughput", "byte count", "freeze")),
    "ome_sample_age_seconds": ("gauge", set(), ("Seconds since",)),
}
SERVER_FAMILIES = {
    "ome_up": ("gauge", {"server"}),
    "ome_server_info": ("gauge", {"server", "edition", "version"}),
    "ome_scrape_errors": ("counter", {"server"}),
    "ome_events_sent": ("counter", {"server", "format", "outcome"}),
    "ome_alerts_firing": ("gauge", {"server", "rule"}),
    "ome_ad_break_active": ("gauge", {"server", "vhost", "app", "stream"}),
    "ome_webhook_delivered": ("counter", {"server", "webhook"}),
    "ome_webhook_failed_attempts": ("counter", {"server", "webhook"}),
    "ome_webhook_dropped": ("counter", {"server", "webhook"}),
    "ome_webhook_queue_length": ("gauge", {"server", "webhook"}),
}
LEVEL_LABELS = ({"server", "vhost"}, {"server", "vhost", "app"}, {"server", "vhost", "app", "stream"})


def _world_counters(rig: Rig, labels: dict[str, str]) -> dict[str, object]:
    world = rig.simulator.world
    if "stream" in labels:
        stream = world.find_stream(labels["vhost"], labels["app"], labels["stream"])
        assert stream is not None
        return world.counters("stream", stream.row)
    if "app" in labels:
        app = world.find_app(labels["vhost"], labels["app"])
        assert app is not None
        return world.counters("app", app.row)
    vhost = world.find_vhost(labels["vhost"])
    assert vhost is not None
    return world.counters("vhost", vhost.row)


def _node_labels(sample: Sample) -> dict[str, str]:
    return {k: v for k, v in sample.labels.items() if k in ("server", "vhost", "app", "stream")}


def _audited_send(audit: AuditLog, send_id: str, server: str, action: str, content: bytes) -> None:
    """A send as the console's send path writes it: the intent, then the server's 200."""
    audit.record_intent(Intent(send_id=send_id, server=server, profile=None, vhost="default", app="app",
                               stream="stream", action=action, api_path="/v1/vhosts/default/apps/app/streams/stream",
                               content=content))
    audit.record_outcome(send_id, "accepted", 200, "OK")


def _partly_refused_send(audit: AuditLog, send_id: str, server: str) -> None:
    """The real 0.19.0's answer to mixed event sets (captures api/34): 207, the second set refused."""
    audit.record_intent(Intent(send_id=send_id, server=server, profile=None, vhost="default", app="app",
                               stream="stream", action="send-events", api_path="/v1/vhosts/default/apps/app/"
                               "streams/stream:sendEvents", content=b'[{"eventFormat":"id3v2","events":[{"frameType"'
                               b':"TXXX","info":"a","data":"b"}]},{"eventFormat":"foo","events":[{"x":1}]}]'))
    audit.record_outcome(send_id, "rejected", 207, "Multi Status",
                         [(200, "OK"), (400, "eventFormat is not supported: [foo]")])


async def test_every_family_has_its_type_help_labels_and_the_servers_own_numbers(tmp_path: Path) -> None:
    rules = [AlertRule(kind="ingest_stopped"), AlertRule(name="crowd", kind="viewers_above", viewers=10_000)]
    hooks = [WebhookConfig(name="ops", url="http://127.0.0.1:9/hook")]
    async with exporter_rig(tmp_path, rules=rules, webhooks=hooks, profile=None) as rig:
        here = rig.simulator.api_url.removeprefix("http://")
        _audited_send(rig.audit, "cue-1", here, "cue-out",
                      b'{"eventFormat":"cue","events":[{"cueType":"out","duration":30000}]}')
        _audited_send(rig.audit, "id3-1", "elsewhere:8081", "id3", b'[{"eventFormat":"id3v2"}]')
        _partly_refused_send(rig.audit, "mixed-1", here)
        await rig.cycle(5)  # detection, the listing pass, then every node read
        response = await rig.get("/metrics")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
        families = {f.name: f for f in parse_text(response.text)}

    server = rig.simulator.api_url.removeprefix("http://")
    assert set(families) == set(FAMILIES) | set(SERVER_FAMILIES)
    for name, (kind, extra, words) in FAMILIES.items():
        family = families[name]
        assert family.type == kind, name
        for word in words:
            assert word in family.documentation, (name, word)
        levels = {frozenset(_node_labels(s)) for s in family.samples}
        assert levels == {frozenset(level) for level in LEVEL_LABELS}, name  # vhost, app and stream series
        for sample in family.samples:
            assert set(sample.labels) - set(_node_labels(sample)) == extra, (name, sample.labels)
            assert sample.labels["server"] == server
    for name, (kind, labels) in SERVER_FAMILIES.items():
        assert families[name].type == kind, name
        assert families[name].documentation, name
        assert all(set(s.labels) == labels for s in families[name].samples), name

    for sample in families["ome_bytes_out"].samples:
        counters = _world_counters(rig, _node_labels(sample))
        assert sample.name == "ome_bytes_out_total"
        assert sample.value == counters["bytes_out"]
    for sample in families["ome_bytes_in"].samples:
        assert sample.value == _world_counters(rig, _node_labels(sample))["bytes_in"]
    for sample in families["ome_connections"].samples:
        counters = _world_counters(rig, _node_labels(sample))
        key = "provider_conn" if sample.labels["direction"] == "in" else "publisher_conn"
        assert sample.value == counters[key][sample.labels["protocol"]]  # type: ignore[index]
    protocols = {(s.labels["direction"], s.labels["protocol"]) for s in families["ome_connections"].samples}
    assert protocols == {("in", p) for p in PROVIDER_PROTOCOLS} | {("out", p) for p in PUBLISHER_PROTOCOLS}
    for sample in families["ome_throughput_bytes_per_second"].samples:
        counters = _world_counters(rig, _node_labels(sample))
        column = {"avg": "avg", "max": "max", "last": "last"}[sample.labels["stat"]] + "_" + sample.labels["direction"]
        expected = counters[column] if sample.labels["stat"] == "last" else counters[column] / 8  # type: ignore[operator]
        assert sample.value == expected, sample
    for sample in families["ome_connections_max"].samples:
        assert sample.value == _world_counters(rig, _node_labels(sample))["max_total_conn"]
    for sample in families["ome_connections_max_timestamp_seconds"].samples:
        assert sample.value * 1000 == _world_counters(rig, _node_labels(sample))["max_total_conn_ms"]
    ages = {s.value for s in families["ome_sample_age_seconds"].samples}
    assert ages <= {0.0, 1.0, 2.0}  # read in the last cycles, on the console's clock

    up = families["ome_up"].samples
    assert [(s.labels, s.value) for s in up] == [({"server": server}, 1.0)]
    info = families["ome_server_info"].samples[0]
    assert info.labels["edition"] == "enterprise" and info.labels["version"] and info.value == 1.0
    assert families["ome_scrape_errors"].samples[0].value == 0.0
    assert [(s.labels["format"], s.labels["outcome"], s.value) for s in families["ome_events_sent"].samples] == [
        ("cue", "accepted", 1.0), ("other", "rejected", 1.0)]  # a 207 with a refused set counts as its audit says;
    # the send to another server is not this server's
    assert {s.labels["rule"]: s.value for s in families["ome_alerts_firing"].samples} == {
        "ingest_stopped": 0.0, "crowd": 0.0}
    breaks = {s.labels["stream"]: s.value for s in families["ome_ad_break_active"].samples}
    assert breaks["stream"] == 1.0 and sum(breaks.values()) == 1.0
    assert [s.labels["webhook"] for s in families["ome_webhook_queue_length"].samples] == ["ops"]


async def test_the_open_source_edition_has_no_inbound_connection_series(tmp_path: Path) -> None:
    async with exporter_rig(tmp_path, edition="oss", profile="lab") as rig:
        await rig.cycle(5)
        families = {f.name: f for f in parse_text((await rig.get("/metrics")).text)}
    assert {s.labels["direction"] for s in families["ome_connections"].samples} == {"out"}
    assert families["ome_server_info"].samples[0].labels["edition"] == "oss"
    assert {s.labels["server"] for s in families["ome_bytes_out"].samples} == {"lab"}  # the profile's name
    assert families["ome_bytes_out"].samples


async def test_openmetrics_when_the_scraper_asks_for_it(tmp_path: Path) -> None:
    async with exporter_rig(tmp_path) as rig:
        await rig.cycle(2)
        plain = await rig.get("/metrics")
        open_metrics = await rig.get("/metrics", accept="application/openmetrics-text;version=1.0.0,text/plain;q=0.5")
        not_found = await rig.get("/metrics/extra")
        index = await rig.get("/")
    assert plain.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert open_metrics.headers["content-type"].startswith("application/openmetrics-text; version=1.0.0")
    assert open_metrics.text.endswith("# EOF\n") and not plain.text.endswith("# EOF\n")
    om_families = {f.name: f.type for f in parse_openmetrics(open_metrics.text)}
    text_families = {f.name: f.type for f in parse_text(plain.text)}
    assert om_families == text_families
    assert not_found.status_code == 404 and index.status_code == 200 and "/metrics" in index.text


SIXTY_STREAMS = """
[traffic]
tick_seconds = 1.0
[generate]
vhosts = 1
apps_per_vhost = 2
streams_per_app = 30
"""


async def test_cardinality_is_bounded_busiest_and_newest_first_and_apps_keep_every_byte(tmp_path: Path) -> None:
    from simulator.world.scenario import parse_scenario

    scenario = parse_scenario(SIXTY_STREAMS, "sixty")
    async with exporter_rig(tmp_path, scenario=scenario, max_streams=10, request_budget=40.0) as rig:
        world = rig.simulator.world
        busiest = world.find_stream("default", "app001", "s0007")
        assert busiest is not None
        for _ in range(2000):  # more viewers than any generated stream can have (audience < 60, mood <= 10)
            world.open_session(busiest, "llhls")
        await rig.cycle(6)  # every one of the 63 nodes read at least once under the budget
        newest = world.start_stream("default", "app001", _spec("fresh"))
        await rig.cycle(12)  # the next listing pass (every 10 s) finds it, then it is read
        families = {f.name: f for f in parse_text((await rig.get("/metrics")).text)}
        apps = {a.name: world.counters("app", a.row)["bytes_out"] for a in world.vhosts["default"].apps.values()}
    streams = {(s.labels["app"], s.labels["stream"]) for s in families["ome_bytes_out"].samples if "stream" in s.labels}
    assert len(streams) == 10
    assert (busiest.app, busiest.name) in streams
    assert (newest.app, newest.name) in streams
    for family in families.values():  # the bound holds for every per-stream family
        assert len({s.labels.get("stream") for s in family.samples} - {None}) <= 10, family.name
    app_series = {s.labels["app"]: s.value for s in families["ome_bytes_out"].samples
                  if "app" in s.labels and "stream" not in s.labels}
    assert app_series == apps  # the application's own counter: every stream's bytes, exported or not
    for app, total in app_series.items():
        exported = sum(s.value for s in families["ome_bytes_out"].samples if s.labels.get("app") == app
                       and "stream" in s.labels)
        assert exported < total


def _spec(name: str) -> object:
    from simulator.world.scenario import StreamSpec

    return StreamSpec(name=name, input="srt", bitrate_kbps=2000, audience=0)


@pytest.mark.parametrize("accept", ["", "text/plain"])
async def test_a_failed_server_keeps_the_exposition_valid_and_says_down(tmp_path: Path, accept: str) -> None:
    async with exporter_rig(tmp_path, faults="reset=1") as rig:
        await rig.cycle(2)
        rig.http_faults(True)
        await rig.cycle(3)
        families = {f.name: f for f in parse_text((await rig.get("/metrics", accept=accept)).text)}
    assert families["ome_up"].samples[0].value == 0.0
    assert families["ome_scrape_errors"].samples[0].value >= 3
    assert min(s.value for s in families["ome_sample_age_seconds"].samples) >= 3.0  # the last numbers, and their age


async def test_each_scrape_has_the_newest_reading_and_its_age(tmp_path: Path) -> None:
    async def vhost_series(rig: Rig) -> tuple[float, float]:
        """(ome_bytes_out_total, ome_sample_age_seconds) of the virtual host, from one scrape."""
        families = {f.name: f for f in parse_text((await rig.get("/metrics")).text)}
        total = next(s.value for s in families["ome_bytes_out"].samples if "app" not in s.labels)
        age = next(s.value for s in families["ome_sample_age_seconds"].samples if "app" not in s.labels)
        return total, age

    async with exporter_rig(tmp_path) as rig:
        await rig.cycle(5)
        totals = []
        for _ in range(3):
            total, age = await vhost_series(rig)
            assert total == rig.simulator.world.counters("vhost", 0)["bytes_out"]
            rig.console_clock.advance(0.5)  # no poll in between: the same reading, half a second older
            assert await vhost_series(rig) == (total, age + 0.5)
            totals.append(total)
            await rig.cycle()
    assert len(set(totals)) == 3  # every interval's new reading, never an earlier one again
