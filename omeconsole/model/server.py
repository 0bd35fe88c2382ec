"""The server as a whole: which edition it is, what it does with ad markers, and the console's link to it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Edition = Literal["enterprise", "oss"]
StatsApi = Literal["v2", "v1"]
LinkStatus = Literal["connecting", "connected", "unreachable", "unauthorized", "error"]


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What detection found: which edition, which statistics API, whether events can be sent."""

    edition: Edition
    version: str
    git_version: str
    stats_api: StatsApi
    events_supported: bool | None
    """None: not known until a send is tried."""
    events_reason: str | None = None
    """Plain words when events_supported is False."""

    @property
    def markers(self) -> MarkerCapability:
        """What this server does with a cue event (from its edition and version)."""
        return marker_capability(self.edition, self.version, events_supported=self.events_supported)


MarkerWriting = Literal["tags", "segment-cut", "refused", "unknown"]
NO_MARKER_TAGS_NOTE = ("this server writes no ad markers into its playlists: players and ad insertion downstream "
                       "see no break; it will cut a segment at the splice point")


@dataclass(frozen=True, slots=True)
class MarkerCapability:
    """What a server does with an accepted cue event, known from its edition and version.

    `tags`: it writes `#EXT-X-CUE-OUT` / `#EXT-X-DATERANGE` into its playlists (Enterprise).
    `segment-cut`: open source 0.18 to 0.20 accepts the cue with 200, writes no tag anywhere, and only cuts
    the LL-HLS segment at the splice point (captures/ome-0.19.0/markers). `refused`: it answers cue events
    with 400 (open source 0.21+, or a refusal seen on the wire). `unknown`: nothing tells.
    """

    writing: MarkerWriting
    version: str = ""

    @property
    def writes_tags(self) -> bool:
        return self.writing == "tags"

    @property
    def cuts_segment_only(self) -> bool:
        """The splice shows only as a segment cut: there is no marker to wait for."""
        return self.writing == "segment-cut"

    @property
    def note(self) -> str | None:
        """What an operator must know before a cue on this server, or None when markers are written."""
        if self.writing == "segment-cut":
            return NO_MARKER_TAGS_NOTE
        if self.writing == "refused":
            return f"this server ({self.version or 'version unknown'}) refuses cue events"
        return None


UNKNOWN_MARKERS = MarkerCapability("unknown")
_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")


def version_tuple(version: str) -> tuple[int, ...] | None:
    """`0.19.0` → (0, 19, 0); None when the text starts with no version number."""
    match = _VERSION.match(version.strip())
    return tuple(int(g) for g in match.groups() if g is not None) if match else None


def marker_capability(edition: Edition | None, version: str, *, events_supported: bool | None = None
                      ) -> MarkerCapability:
    """Enterprise writes tags; open source 0.18 to 0.20 only cuts a segment; 0.21+ refuses cue; else unknown.

    `events_supported=False` (a cue already refused on the wire) makes any server `refused`.
    """
    if events_supported is False:
        return MarkerCapability("refused", version)
    if edition == "enterprise":
        return MarkerCapability("tags", version)
    parsed = version_tuple(version) if edition == "oss" else None
    if parsed is None:
        return MarkerCapability("unknown", version)
    if (0, 18) <= parsed[:2] < (0, 21):
        return MarkerCapability("segment-cut", version)
    if parsed[:2] >= (0, 21):
        return MarkerCapability("refused", version)
    return MarkerCapability("unknown", version)


@dataclass(frozen=True, slots=True)
class LinkState:
    """The console's link to one server, in words fit for a banner (never the token).

    Times are the console clock's monotonic seconds. `errors_per_minute` and `last_error` count every
    failed request, not only those that took the whole link down, so trouble is visible while some
    requests still succeed.
    """

    status: LinkStatus = "connecting"
    message: str = "connecting"
    server: ServerInfo | None = None
    next_retry_at: float | None = None
    """When the next attempt goes out while unreachable or failing."""
    failures: int = 0
    """Consecutive failed attempts of the link as a whole."""
    errors_per_minute: float = 0.0
    """Failed requests (and internal errors) in the last 60 s of console time."""
    last_error: str | None = None
    """The last failure in words (server text: display it through text.visible)."""
    last_error_at: float | None = None
    last_success_at: float | None = None
    """When a request last succeeded; "connected" is never said when that is more than two intervals
    old while requests fail or hang."""
    errors_total: int = 0
    """Failed requests and internal errors since this link was made."""
