"""The metric families, built at each scrape from what the engine last read (a prometheus-client collector).

Levels share a family and differ by labels: a virtual host's series has `server` and `vhost`, an
application's adds `app`, a stream's adds `stream` (an absent label is the empty string to PromQL, so
`{stream=""}` picks the application and vhost series, `{stream!=""}` the streams). Each level's numbers
are the server's own counters for that level: parents are not sums of their children (reference §1.3),
so do not add levels together. Values the server sent broken (`NodeStats.invalid`) are left out, never
exported as 0; nodes never read have no series.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.samples import Sample as PromSample

from omeconsole.api.wire import PROVIDER_PROTOCOLS, PUBLISHER_PROTOCOLS
from omeconsole.core.alerts.audit_feed import AuditFeed
from omeconsole.core.alerts.evaluator import AlertEvaluator
from omeconsole.core.alerts.source import Observed
from omeconsole.core.alerts.webhooks import WebhookDispatcher
from omeconsole.core.clock import Clock
from omeconsole.exporter.selection import choose_streams
from omeconsole.model.nodes import NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample

MAX_LABEL_CHARS = 256
HELP = {
    "bytes_in": "Bytes received by the node since the server created its counters (totalBytesIn); "
                "resets when the server restarts.",
    "bytes_out": "Bytes sent by the node's publishers since the server created its counters (totalBytesOut); "
                 "resets when the server restarts.",
    "connections": "Current connections: direction=in are providers (ingest, Enterprise v2 only), direction=out "
                   "publishers per protocol (viewers: llhls, hlsv3, webrtc, srt; ovt relays, push, file recordings, "
                   "thumbnail readers); a current count, not a running total.",
    "connections_max": "Peak of the node's total outbound connections (maxTotalConnections).",
    "connections_max_ts": "Unix time at which that peak was last raised (maxTotalConnectionTime).",
    "throughput": "The server's own throughput figures in bytes per second (Prometheus' base unit; the server "
                  "reports bits): stat=avg is avgThroughput*/8, the rate over the server's last window of at least "
                  "1 s; stat=max is maxThroughput*/8, the highest avg seen; stat=last is lastThroughput*, the byte "
                  "count of that window as the server reports it (bytes per second only when the window is 1 s). "
                  "All freeze while ingest is stopped: prefer rate(ome_bytes_in_total) and rate(ome_bytes_out_total).",
    "up": "1 while the exporter's link to the server is connected (its last requests succeeded), else 0.",
    "server_info": "Always 1; the server's edition and version as detected, as labels.",
    "scrape_errors": "Reads of the server that failed (an error answer or none) since the exporter started.",
    "sample_age": "Seconds since the exporter last read this node; the node's other values are that old.",
    "ad_break": "1 while a cue-out sent by this console (its audit log) is within its planned duration and no "
                "cue-in followed; breaks started by other tools are not seen. Else 0.",
    "events_sent": "Event sets sent to the server by this console (its audit log) by eventFormat and outcome "
                   "(accepted, rejected, failed, unknown, not_sent).",
    "alerts_firing": "Alerts firing now, per rule (0 for a configured rule with none).",
    "webhook_delivered": "Alert notifications a webhook receiver accepted.",
    "webhook_failed": "Failed delivery attempts to a webhook receiver (error status or no answer), retried or not.",
    "webhook_dropped": "Alert notifications given up on (refused, out of attempts, or pushed out of a full queue).",
    "webhook_queue": "Alert notifications waiting for a webhook receiver.",
}


@dataclass
class ExportedServer:
    """One server as the exporter sees it."""

    name: str
    observed: Observed
    evaluator: AlertEvaluator | None = None
    audit: AuditFeed | None = None
    webhooks: Sequence[WebhookDispatcher] = field(default_factory=tuple)


def label_value(text: str) -> str:
    """A server-given name made safe for the exposition: valid UTF-8, bounded, still unique."""
    safe = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(safe) <= MAX_LABEL_CHARS:
        return safe
    digest = hashlib.sha256(safe.encode("utf-8")).hexdigest()[:12]
    return f"{safe[:MAX_LABEL_CHARS - 14]}~{digest}"


def _node_labels(server: str, path: NodePath) -> dict[str, str]:
    labels = {"server": server, "vhost": label_value(path.vhost)}
    if path.app is not None:
        labels["app"] = label_value(path.app)
    if path.stream is not None:
        labels["stream"] = label_value(path.stream)
    return labels


def _bounded_protocols(counts: Mapping[str, int], known: tuple[str, ...]) -> dict[str, int]:
    """Known protocols as they are; anything else a server invents is summed under "other"."""
    bounded: dict[str, int] = {}
    for name, value in counts.items():
        key = name if name in known else "other"
        bounded[key] = bounded.get(key, 0) + value
    return bounded


class Families:
    """The families of one scrape, filled node by node."""

    def __init__(self) -> None:
        self.bytes_in = CounterMetricFamily("ome_bytes_in", HELP["bytes_in"])
        self.bytes_out = CounterMetricFamily("ome_bytes_out", HELP["bytes_out"])
        self.connections = GaugeMetricFamily("ome_connections", HELP["connections"])
        self.connections_max = GaugeMetricFamily("ome_connections_max", HELP["connections_max"])
        self.connections_max_ts = GaugeMetricFamily("ome_connections_max_timestamp_seconds",
                                                    HELP["connections_max_ts"])
        self.throughput = GaugeMetricFamily("ome_throughput_bytes_per_second", HELP["throughput"])
        self.up = GaugeMetricFamily("ome_up", HELP["up"])
        self.server_info = GaugeMetricFamily("ome_server_info", HELP["server_info"])
        self.scrape_errors = CounterMetricFamily("ome_scrape_errors", HELP["scrape_errors"])
        self.sample_age = GaugeMetricFamily("ome_sample_age_seconds", HELP["sample_age"])
        self.ad_break = GaugeMetricFamily("ome_ad_break_active", HELP["ad_break"])
        self.events_sent = CounterMetricFamily("ome_events_sent", HELP["events_sent"])
        self.alerts_firing = GaugeMetricFamily("ome_alerts_firing", HELP["alerts_firing"])
        self.webhook_delivered = CounterMetricFamily("ome_webhook_delivered", HELP["webhook_delivered"])
        self.webhook_failed = CounterMetricFamily("ome_webhook_failed_attempts", HELP["webhook_failed"])
        self.webhook_dropped = CounterMetricFamily("ome_webhook_dropped", HELP["webhook_dropped"])
        self.webhook_queue = GaugeMetricFamily("ome_webhook_queue_length", HELP["webhook_queue"])

    def all(self) -> list[Metric]:
        return [self.up, self.server_info, self.scrape_errors, self.bytes_in, self.bytes_out, self.connections,
                self.connections_max, self.connections_max_ts, self.throughput, self.sample_age, self.ad_break,
                self.events_sent, self.alerts_firing, self.webhook_delivered, self.webhook_failed,
                self.webhook_dropped, self.webhook_queue]

    def extend(self, entries: Iterable[tuple[str, PromSample]]) -> None:
        """Adds samples built by `node_samples` to their families."""
        for family, sample in entries:
            getattr(self, family).samples.append(sample)


def node_samples(labels: dict[str, str], stats: NodeStats) -> list[tuple[str, PromSample]]:
    """One reading's samples as (family attribute, sample): built once per reading and reused by every
    scrape until the engine reads the node again (a big server's scrape mostly repeats itself)."""
    entries: list[tuple[str, PromSample]] = []

    def put(family: str, name: str, value: float | None, **extra: str) -> None:
        if value is not None:
            entries.append((family, PromSample(name, {**labels, **extra}, float(value))))

    put("bytes_in", "ome_bytes_in_total", stats.total_bytes_in)
    put("bytes_out", "ome_bytes_out_total", stats.total_bytes_out)
    for direction, counts, known in (("in", stats.connections_in, PROVIDER_PROTOCOLS),
                                     ("out", stats.connections_out, PUBLISHER_PROTOCOLS)):
        for protocol, value in sorted(_bounded_protocols(counts or {}, known).items()):
            put("connections", "ome_connections", value, direction=direction, protocol=protocol)
    put("connections_max", "ome_connections_max", stats.max_total_connections)
    peak_at = stats.max_total_connection_time
    put("connections_max_ts", "ome_connections_max_timestamp_seconds",
        peak_at.timestamp() if peak_at is not None else None)
    last_in, last_out = stats.last_throughput_in_bytes, stats.last_throughput_out_bytes
    for direction, avg, peak, last in (
            ("in", stats.avg_throughput_in_bps, stats.max_throughput_in_bps, last_in),
            ("out", stats.avg_throughput_out_bps, stats.max_throughput_out_bps, last_out)):
        name = "ome_throughput_bytes_per_second"
        put("throughput", name, None if avg is None else avg / 8, direction=direction, stat="avg")
        put("throughput", name, None if peak is None else peak / 8, direction=direction, stat="max")
        put("throughput", name, last, direction=direction, stat="last")
    return entries


class ExporterCollector:
    """A prometheus-client collector over one or more servers (register it on a CollectorRegistry)."""

    def __init__(self, servers: Sequence[ExportedServer], clock: Clock, *, max_streams: int | None = None) -> None:
        self.servers = list(servers)
        self._clock = clock
        self.max_streams = max_streams
        self._rendered: dict[tuple[str, NodePath], tuple[Sample, list[tuple[str, PromSample]]]] = {}
        """Each exported node's samples with the reading they were built from (kept for the last scrape's
        nodes only)."""

    def describe(self) -> Iterable[Metric]:
        return Families().all()

    def collect(self) -> Iterator[Metric]:
        families = Families()
        rendered: dict[tuple[str, NodePath], tuple[Sample, list[tuple[str, PromSample]]]] = {}
        for server in self.servers:
            self._server(families, server, rendered)
        self._rendered = rendered
        yield from families.all()

    def exported_streams(self, server: ExportedServer) -> list[NodeView]:
        """The streams that get series of their own (see `selection`)."""
        source = server.observed.source
        views = (source.node(NodePath(v, a, s)) for v, apps in source.listing().items()
                 for a, streams in apps.items() for s in streams.live)
        return choose_streams(views, self.max_streams)

    def _server(self, families: Families, server: ExportedServer,
                rendered: dict[tuple[str, NodePath], tuple[Sample, list[tuple[str, PromSample]]]]) -> None:
        name = label_value(server.name)
        source = server.observed.source
        link = source.connection
        now = self._clock.monotonic()
        families.up.add_sample("ome_up", {"server": name}, 1.0 if link.status == "connected" else 0.0)
        if link.server is not None:
            families.server_info.add_sample("ome_server_info", {
                "server": name, "edition": link.server.edition, "version": label_value(link.server.version)}, 1.0)
        families.scrape_errors.add_sample("ome_scrape_errors_total", {"server": name},
                                          float(server.observed.read_errors))
        listing = source.listing()
        parents = [NodePath(v) for v in listing] + [NodePath(v, a) for v, apps in listing.items() for a in apps]
        streams = self.exported_streams(server)
        for view in [*(source.node(p) for p in parents), *streams]:
            reading = view.latest
            if reading is None:
                continue
            key = (name, view.path)
            cached = self._rendered.get(key)
            if cached is None or cached[0] is not reading:
                cached = (reading, node_samples(_node_labels(name, view.path), reading.stats))
            rendered[key] = cached
            families.extend(cached[1])
            families.sample_age.add_sample("ome_sample_age_seconds", _node_labels(name, view.path),
                                           max(0.0, now - reading.at))
        audit = server.audit
        if audit is not None:
            audit.refresh()
            wall = self._clock.wall()
            for view in streams:
                families.ad_break.add_sample("ome_ad_break_active", _node_labels(name, view.path),
                                             1.0 if audit.ad_break_active(view.path, wall) else 0.0)
            for (event_format, outcome), count in sorted(audit.counts.items()):
                families.events_sent.add_sample("ome_events_sent_total", {
                    "server": name, "format": event_format, "outcome": outcome}, float(count))
        if server.evaluator is not None:
            for rule, count in server.evaluator.firing_by_rule().items():
                families.alerts_firing.add_sample("ome_alerts_firing", {"server": name, "rule": label_value(rule)},
                                                  float(count))
        for dispatcher in server.webhooks:
            stats = dispatcher.stats
            labels = {"server": name, "webhook": label_value(stats.name)}
            families.webhook_delivered.add_sample("ome_webhook_delivered_total", labels, float(stats.delivered))
            families.webhook_failed.add_sample("ome_webhook_failed_attempts_total", labels,
                                               float(stats.failed_attempts))
            families.webhook_dropped.add_sample("ome_webhook_dropped_total", labels, float(stats.dropped))
            families.webhook_queue.add_sample("ome_webhook_queue_length", labels, float(stats.queued))
