"""The collector over readings a real server sends rarely: broken fields, hostile names, unknown protocols.

The source here is a plain `NodeSource` holding hand-made readings (the simulator cannot send a
per-field broken value or a lone surrogate in a stream name on demand); the exposition is read back
with prometheus-client's parser and promtool's rules are the caller's concern (make test-integration).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from fake_clock import FakeClock
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from omeconsole.core.alerts.source import Observed
from omeconsole.core.listeners import Unsubscribe
from omeconsole.core.polling.engine import Listener
from omeconsole.exporter.collector import ExportedServer, ExporterCollector
from omeconsole.model.nodes import AppStreams, Listing, NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample
from omeconsole.model.server import LinkState

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _stats(**changes: object) -> NodeStats:
    values: dict[str, object] = dict(
        created=T0, last_updated=T0, total_bytes_in=1000, total_bytes_out=5000,
        connections_in={"srt": 1}, connections_out={"llhls": 3, "webrtc": 2}, total_connections=5,
        max_total_connections=9, max_total_connection_time=T0, avg_throughput_in_bps=8000,
        avg_throughput_out_bps=16000, max_throughput_in_bps=9000, max_throughput_out_bps=20000,
        last_throughput_in_bytes=1000, last_throughput_out_bytes=2000)
    values.update(changes)
    return NodeStats(**values)  # type: ignore[arg-type]


class StaticSource:
    """A NodeSource with fixed readings."""

    def __init__(self, readings: dict[NodePath, NodeStats], at: float) -> None:
        self._readings = readings
        self._at = at
        listing: dict[str, dict[str, list[str]]] = {}
        for path in readings:
            apps = listing.setdefault(path.vhost, {})
            if path.app is not None:
                streams = apps.setdefault(path.app, [])
                if path.stream is not None:
                    streams.append(path.stream)
        self._listing: Listing = {v: {a: AppStreams(tuple(s)) for a, s in apps.items()} for v, apps in listing.items()}

    @property
    def connection(self) -> LinkState:
        return LinkState(status="connected")

    def listing(self) -> Listing:
        return self._listing

    def node(self, path: NodePath) -> NodeView:
        stats = self._readings.get(path)
        if stats is None:
            return NodeView(path, NodeState.UNKNOWN)
        return NodeView(path, NodeState.LIVE, Sample(self._at, None, None, stats.total_connections, stats))

    def add_listener(self, listener: Listener) -> Unsubscribe:
        return lambda: None  # fixed readings: there is never news to tell

    def watch(self, paths: Iterable[NodePath]) -> None:
        pass


def _scrape(readings: dict[NodePath, NodeStats]) -> dict[str, list[tuple[dict[str, str], float]]]:
    clock = FakeClock()
    source = StaticSource(readings, clock.monotonic())
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ExporterCollector([ExportedServer("lab", Observed(source))], clock))
    text = generate_latest(registry).decode("utf-8")
    return {f.name: [(s.labels, s.value) for s in f.samples] for f in text_string_to_metric_families(text)}


def test_broken_values_are_left_out_never_exported_as_zero() -> None:
    stream = NodePath("default", "app", "s")
    broken = _stats(total_bytes_out=None, avg_throughput_in_bps=None, last_throughput_out_bytes=None,
                    connections_in=None, max_total_connection_time=None,
                    invalid=frozenset({"total_bytes_out", "avg_throughput_in_bps", "last_throughput_out_bytes",
                                       "connections_in", "max_total_connection_time"}))
    families = _scrape({NodePath("default"): _stats(), NodePath("default", "app"): _stats(), stream: broken})

    def of(name: str) -> list[tuple[dict[str, str], float]]:
        return [(labels, value) for labels, value in families[name] if labels.get("stream") == "s"]

    assert of("ome_bytes_out") == []
    assert [v for _, v in of("ome_bytes_in")] == [1000.0]
    assert {(labels["direction"], labels["stat"]) for labels, _ in of("ome_throughput_bytes_per_second")} == {
        ("in", "max"), ("in", "last"), ("out", "avg"), ("out", "max")}
    assert {labels["direction"] for labels, _ in of("ome_connections")} == {"out"}
    assert of("ome_connections_max_timestamp_seconds") == []
    assert len(families["ome_bytes_out"]) == 2  # the vhost and the app still have theirs


def test_hostile_names_come_out_as_valid_bounded_unique_label_values() -> None:
    names = ['quote " and \\ and\nnewline', "lone \ud800 surrogate", "x" * 5000, "x" * 4999 + "y"]
    readings = {NodePath("default"): _stats(), NodePath("default", "app"): _stats()}
    readings.update({NodePath("default", "app", n): _stats() for n in names})
    families = _scrape(readings)
    streams = [labels["stream"] for labels, _ in families["ome_bytes_in"] if "stream" in labels]
    assert len(set(streams)) == 4
    assert 'quote " and \\ and\nnewline' in streams  # escaped on the wire, read back as it was
    assert "lone \\ud800 surrogate" in streams
    assert all(len(name) <= 256 for name in streams)


def test_protocols_a_server_invents_are_summed_under_other() -> None:
    readings = {NodePath("default"): _stats(connections_out={"llhls": 2, "x-new": 3, "y-new": 4})}
    families = _scrape(readings)
    out = {labels["protocol"]: value for labels, value in families["ome_connections"]
           if labels["direction"] == "out"}
    assert out == {"llhls": 2.0, "other": 7.0}
