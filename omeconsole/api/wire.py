"""Pydantic models of the management API's shapes, as they travel on the wire.

Shared by the simulator (which builds responses and validated event sets from them)
and by the console's client (which parses responses with them). No HTTP or UI here.
Field names are the wire's camelCase so that a model dumps to exactly what the server sends.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

PROVIDER_PROTOCOLS: tuple[str, ...] = (
    "file", "mpegts", "multiplex", "ovt", "rtmp", "rtsp", "rtsppull", "scheduled", "srt", "webrtc",
)
"""Inbound protocols: the keys of providers.connections (seed)."""

PUBLISHER_PROTOCOLS: tuple[str, ...] = ("file", "hlsv3", "llhls", "ovt", "push", "srt", "thumbnail", "webrtc")
"""Outbound protocols: the keys of publishers.connections (seed), also the v1 connections keys."""


class WireModel(BaseModel):
    """Unknown fields are ignored so that newer servers do not break older consoles."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class ProvidersStats(WireModel):
    avgThroughputIn: int
    connections: dict[str, int]
    lastRecvTime: str
    lastThroughputIn: int
    maxThroughputIn: int
    totalBytesIn: int


class PublishersStats(WireModel):
    avgThroughputOut: int
    connections: dict[str, int]
    lastSentTime: str
    lastThroughputOut: int
    maxThroughputOut: int
    maxTotalConnectionTime: str
    maxTotalConnections: int
    totalBytesOut: int
    totalConnections: int


class StatsRecord(WireModel):
    """The v2 statistics record: the same shape at vhost, application and stream level (seed)."""

    createdTime: str
    lastUpdatedTime: str
    providers: ProvidersStats
    publishers: PublishersStats


class StatsRecordV1(WireModel):
    """The open source v1 statistics record: one flat object, publisher connections only."""

    avgThroughputIn: int
    avgThroughputOut: int
    connections: dict[str, int]
    createdTime: str
    lastRecvTime: str
    lastSentTime: str
    lastThroughputIn: int
    lastThroughputOut: int
    lastUpdatedTime: str
    maxThroughputIn: int
    maxThroughputOut: int
    maxTotalConnectionTime: str
    maxTotalConnections: int
    totalBytesIn: int
    totalBytesOut: int
    totalConnections: int


class VersionInfo(WireModel):
    gitVersion: str
    version: str


class CueEvent(WireModel):
    cueType: Literal["out", "in"]
    duration: int | None = None
    """Milliseconds; only for cueType out."""


class CueEventSet(WireModel):
    eventFormat: Literal["cue"] = "cue"
    events: list[CueEvent]
    urgent: bool | None = None


class Id3Frame(WireModel):
    frameType: str
    info: str | None = None
    data: str | None = None


Id3EventType = Literal["video", "audio", "event"]


class Id3EventSet(WireModel):
    eventFormat: Literal["id3v2"] = "id3v2"
    eventType: Id3EventType = "event"
    events: list[Id3Frame]
    urgent: bool | None = None


def dump_event_set(event_set: CueEventSet | Id3EventSet) -> dict[str, object]:
    """The JSON body a client sends for an event set (None fields left out)."""
    return event_set.model_dump(mode="json", exclude_none=True)
