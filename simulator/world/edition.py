"""Which server the simulator plays: the edition and version, and what follows from them.

One frozen `ServerProfile` is chosen at start (`--edition`, `--version`) and read by the world, the media
and the HTTP layers, so that every difference between versions is decided here, by name, once:

- Enterprise (the seed): v2 statistics, cue events accepted, ad-marker tags written into the playlists.
- Open source 0.19 and 0.20 (the captures of a real 0.19.0, ../shared/captures/ome-0.19.0): v1 only; cue
  events answered 200 with no `duration` needed, no marker tag ever written, the LL-HLS segment cut at the
  cue point instead; the stream info of `json_serdes/stream.cpp` before 0.21.
- Open source 0.21: cue refused with 400 (`eventFormat is not supported: [cue]`), the stream info of 0.21.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Edition = Literal["enterprise", "oss"]
EDITIONS: tuple[Edition, ...] = ("enterprise", "oss")

StreamInfoShape = Literal["enterprise", "oss-0.19", "oss-0.21"]
"""The stream info document: the seed's Enterprise shape; open source before 0.21 (`sourceUrl`, tracks named
Video/Audio/Data, bypass outputs `{"bypass":true}`, three playlists); open source 0.21 (codecStatus,
configChangeCount, max*, timebase, a data track with `data`)."""

ENTERPRISE_VERSION = "0.20.5.0-1"
"""The one Enterprise version the simulator plays (the seed's events need 0.17.3.0-1 or later)."""

OSS_FAMILIES = ("0.19", "0.20", "0.21")
"""The open source minor versions the simulator plays; any patch number of them is accepted."""

NEWEST_OSS_VERSION = "0.21.0"

_OSS_VERSION = re.compile(r"0\.(19|20|21)\.(0|[1-9][0-9]?)")


class UnknownVersion(ValueError):
    """A version the simulator cannot play; the message says which ones it can."""


@dataclass(frozen=True)
class ServerProfile:
    edition: Edition
    version: str
    """What `GET /v1/version` answers as `version`."""

    @property
    def git_version(self) -> str:
        """`gitVersion`: the release tag with a suffix that tells a reader it is the simulator."""
        return f"v{self.version}-omesim"

    @property
    def minor(self) -> int:
        """The open source minor version (19, 20, 21); Enterprise reads as its 0.20 base."""
        return int(self.version.split(".")[1])

    @property
    def is_enterprise(self) -> bool:
        return self.edition == "enterprise"

    @property
    def serves_v2_stats(self) -> bool:
        """`/v2/stats/current/...` exists in Enterprise only; open source answers 404 Controller not found."""
        return self.is_enterprise

    @property
    def accepts_cue(self) -> bool:
        """`eventFormat: cue`: Enterprise, and open source 0.18 to 0.20 (removed from the API in 0.21, #2282)."""
        return self.is_enterprise or self.minor <= 20

    @property
    def cue_out_needs_duration(self) -> bool:
        """The seed requires `duration` on a cue-out; open source reads it when present (0 otherwise) and
        answers 200 either way (capture api/52)."""
        return self.is_enterprise

    @property
    def writes_marker_tags(self) -> bool:
        """`#EXT-X-CUE-OUT` / `#EXT-X-CUE-IN` / `#EXT-X-DATERANGE` in playlists: Enterprise only (the open source
        tag writer has no caller in any version)."""
        return self.is_enterprise

    @property
    def cuts_segment_at_cue(self) -> bool:
        """Open source 0.18 to 0.20 close the LL-HLS segment at the cue point (5.867 + 0.133 s in the captures)."""
        return not self.is_enterprise and self.accepts_cue

    @property
    def reads_event_target(self) -> bool:
        """`eventTarget` as an alias of `eventType` in an id3v2 set: the Enterprise docs; open source ignores it."""
        return self.is_enterprise

    @property
    def send_events_multi_status(self) -> bool:
        """Open source answers `:sendEvents` with a bare array, 207 `Multi Status` when results differ; the
        seed's Enterprise validates every element first and answers one envelope."""
        return not self.is_enterprise

    @property
    def internal_app_names(self) -> bool:
        """Open source names a missing stream `[vhost/#vhost#app/stream]` (its internal application name, in
        0.19 as captured and in 0.21's code alike); the seed's Enterprise text is `[vhost/app/stream]`."""
        return not self.is_enterprise

    @property
    def stream_info_shape(self) -> StreamInfoShape:
        if self.is_enterprise:
            return "enterprise"
        return "oss-0.21" if self.minor >= 21 else "oss-0.19"

    @property
    def captured_playlists(self) -> bool:
        """Playlists laid out as the captured 0.19.0 writes them (captures/ome-0.19.0 `playlists/`): absolute
        URIs, `bypass_audio` / `Audio_1` / CHANNELS and the input's bitrate in `llhls.m3u8`; each track's own
        PART-TARGET (an audio part ends on the AAC frame that crosses it), PART-HOLD-BACK three times the
        longest, no RENDITION-REPORT; AVERAGE-BANDWIDTH in the HLS v3 playlist. Open source 0.19 and 0.20;
        0.21 (not captured) and Enterprise keep the simulator's earlier layout."""
        return not self.is_enterprise and self.minor <= 20

    def describe(self) -> str:
        """How the simulator names itself when it starts: `oss 0.19.0`, `enterprise 0.20.5.0-1`."""
        return f"{self.edition} {self.version}"


ENTERPRISE = ServerProfile("enterprise", ENTERPRISE_VERSION)


def server_profile(edition: Edition = "enterprise", version: str | None = None) -> ServerProfile:
    """The profile of `edition` at `version` (default: Enterprise's one version, open source's newest)."""
    if edition == "enterprise":
        if version not in (None, ENTERPRISE_VERSION):
            raise UnknownVersion(f"the enterprise edition plays version {ENTERPRISE_VERSION} only, not {version!r}")
        return ENTERPRISE
    if edition != "oss":
        raise UnknownVersion(f"unknown edition {edition!r}: enterprise or oss")
    if version is None:
        return ServerProfile("oss", NEWEST_OSS_VERSION)
    if not _OSS_VERSION.fullmatch(version):
        families = ", ".join(f"{family}.N" for family in OSS_FAMILIES)
        raise UnknownVersion(f"the oss edition plays versions {families} (e.g. 0.19.0, 0.20.5, {NEWEST_OSS_VERSION}), "
                             f"not {version!r}")
    return ServerProfile("oss", version)
