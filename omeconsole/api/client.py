"""The management API client: one transport (api/http.py), typed results, typed errors.

Reads may be repeated by the caller; a POST is sent exactly once. If the connection fails or times
out after a POST may have left, the outcome is reported as unknown (OutcomeUnknown), never retried.
The access token lives only in the Authorization header this client builds itself; it is kept out
of reprs, messages and exceptions. Every reply is bounded (`max_reply_bytes`) and every request has
a deadline. Names from the server are data: a path that cannot be put into a URL is refused with
UnaddressableError before anything is sent.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from pydantic import ValidationError

from omeconsole.api import replies
from omeconsole.api.app_config import APP_DOCUMENT_BYTES, app_config_from_wire
from omeconsole.api.convert import stats_from_v1, stats_from_v2, stream_info_from_wire
from omeconsole.api.errors import (
    AuthError,
    EventsUnsupportedError,
    NotFoundError,
    OmeError,
    ProtocolError,
    UnaddressableError,
)
from omeconsole.api.http import Cap, HttpTransport, MiB, Reply, Timeouts, Transport
from omeconsole.api.own_reads import OwnReads
from omeconsole.api.wire import (
    CueEvent,
    CueEventSet,
    Id3EventSet,
    Id3EventType,
    Id3Frame,
    VersionInfo,
    dump_event_set,
)
from omeconsole.model.app_config import AppConfig
from omeconsole.model.paths import NodePath, addressable_name
from omeconsole.model.readings import NodeStats, StreamInfo
from omeconsole.model.sends import ItemResult, SendResult
from omeconsole.model.server import Edition, ServerInfo, StatsApi, version_tuple

EventSetLike = CueEventSet | Id3EventSet | Mapping[str, Any]

DEFAULT_MAX_REPLY_BYTES = 8 * MiB
"""A listing of 10,000 streams is about 150 kB; nothing the API says legitimately comes near this."""

DETECTION_REQUESTS = 4
"""How many requests `detect()` sends (all at once), for callers that budget their requests."""

DEFAULT_PROBE = NodePath("default")
"""The virtual host detection reads while it lists: OvenMediaEngine's default one."""

_SAFE = "!$&'()*+,;=@-._~"
"""Characters left as they are in a path segment: the real server does not percent-decode."""

_CUE_REFUSED = re.compile(r"eventFormat is not supported: \[cue\]", re.IGNORECASE)


def _segment(name: str) -> str:
    if not addressable_name(name):
        raise UnaddressableError(f"the name {name!r} cannot be put into a URL (empty, '/', a dot segment "
                                 "or not valid Unicode); nothing was sent")
    return quote(name, safe=_SAFE)


def basic_authorization(token: str) -> str:
    """`Basic base64(token)`: the token as a whole, not `user:password` (reference §4)."""
    return "Basic " + base64.b64encode(token.encode("utf-8")).decode("ascii")


def cue_support(edition: str, version: str) -> tuple[bool | None, str | None]:
    """Whether the server takes cue events, from its edition and version (reference §2.3)."""
    if edition == "enterprise":
        return True, None
    parsed = version_tuple(version)
    if parsed is None:
        return None, None
    if parsed[:2] >= (0, 21):
        return False, (f"This server (open source OvenMediaEngine {version}) cannot take cue events: "
                       "the open source edition removed ad markers in 0.21. ID3 metadata still works.")
    if parsed[:2] < (0, 18):
        return False, (f"This server (open source OvenMediaEngine {version}) is older than 0.18 "
                       "and cannot take cue events. ID3 metadata still works.")
    return True, None


@dataclass(frozen=True, slots=True)
class Detection:
    """What `detect()` learnt about a server, with what it read on the way, so nothing is asked twice."""

    server: ServerInfo
    vhosts: list[str]
    """The server's virtual hosts (the first level of the tree)."""
    first_reading: tuple[NodePath, NodeStats] | None = None
    """A vhost's statistics read while probing, if the probe got them: the console's first data."""


class OmeClient:
    """Async client of one server's management API. Use `async with` or call `aclose()`."""

    def __init__(
        self,
        api_url: str,
        token: str,
        *,
        timeout: float = 5.0,
        verify: bool = True,
        transport: Transport | None = None,
        max_connections: int = 8,
        deadline: float | None = None,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        """`timeout`: seconds to connect and for each read; `deadline`: the whole request (default twice
        `timeout`); `max_reply_bytes`: the most a decoded reply may be; `transport`: another transport
        (a wrapper of HttpTransport, in tests) instead of the one this client makes."""
        parts = urlsplit(api_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {api_url!r}")
        self._host = parts.netloc.rpartition("@")[2]
        self.api_url = f"{parts.scheme}://{self._host}{parts.path}".rstrip("/")
        """The base URL without any user info (it is shown in banners and logs)."""
        self.timeout = timeout
        self.timeouts = Timeouts.from_timeout(timeout, deadline)
        self.cap = Cap(max_reply_bytes, "max_reply_bytes")
        self.server_info: ServerInfo | None = None
        self.own_reads = OwnReads()
        """The console's own reads of this server's publisher (the publisher readers of this session enter
        them), so that statistics leave them out of the viewers."""
        self._stats_api: StatsApi | None = None
        headers = {"Authorization": basic_authorization(token), "Accept": "application/json"}
        # A transport of our own sends the headers with every request by itself (cheaper than per call);
        # a transport handed in gets them with each request.
        self._headers = headers if transport is not None else None
        self._http: Transport = transport if transport is not None else HttpTransport(
            headers=headers, timeouts=self.timeouts, verify=verify, max_connections=max_connections)

    def __repr__(self) -> str:
        return f"OmeClient({self.api_url!r})"

    async def __aenter__(self) -> OmeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # -- transport ----------------------------------------------------------------------------------

    async def _reply(self, method: str, path: str, body: bytes | None = None, cap: Cap | None = None) -> Reply:
        headers = self._headers if body is None else {**(self._headers or {}), "Content-Type": "application/json"}
        return await self._http.request("GET" if method == "GET" else "POST", self.api_url + path,
                                        cap=cap or self.cap, headers=headers, body=body, timeouts=self.timeouts)

    async def _get(self, path: str, cap: Cap | None = None) -> object:
        return replies.envelope_response(await self._reply("GET", path, cap=cap), path)

    async def _post(self, path: str, body: object, content: bytes | None = None) -> SendResult:
        if content is None:
            content = _json_bytes(body)
        try:
            response = await self._reply("POST", path, content)
        except OmeError as error:
            raise _with_body(error, body) from None
        try:
            return replies.send_result(response, path, body)
        except OmeError as error:
            if error.status == 400 and _CUE_REFUSED.search(error.message):
                self._note_cue_refused()
                raise _with_body(EventsUnsupportedError(
                    self.server_info.events_reason if self.server_info and self.server_info.events_reason
                    else "This server cannot take cue events (ad markers). ID3 metadata still works.",
                    400), body) from None
            raise _with_body(error, body) from None

    def _note_cue_refused(self) -> None:
        if self.server_info is not None and self.server_info.events_supported is not False:
            self.server_info = ServerInfo(
                edition=self.server_info.edition, version=self.server_info.version,
                git_version=self.server_info.git_version, stats_api=self.server_info.stats_api,
                events_supported=False,
                events_reason=(f"This server ({self.server_info.version}) cannot take cue events "
                               "(ad markers). ID3 metadata still works."))

    # -- reads --------------------------------------------------------------------------------------

    async def version(self) -> VersionInfo:
        raw = await self._get("/v1/version")
        try:
            return VersionInfo.model_validate(raw)
        except ValidationError:
            raise ProtocolError("/v1/version: the reply has no version and gitVersion strings") from None

    async def detect(self, probe: NodePath | None = None) -> Detection:
        """Which edition and statistics API the server has (cached in `server_info`), its vhosts, and the
        statistics of `probe` (default: the vhost "default") as the first reading: all in one round trip.

        The version, the vhost listing and the probe's v2 and v1 statistics are asked for at once. The v2
        answer tells the edition: statistics, or a 404 for a missing vhost/app/stream, mean v2 is there
        (Enterprise); "Controller not found" means it is not (open source), and the v1 answer is the reading.
        """
        if probe is None or not probe.addressable:
            probe = DEFAULT_PROBE
        tail = _stats_tail(probe)
        v2_url, v1_url = f"/v2/stats/current/{tail}", f"/v1/stats/current/{tail}"
        version, vhosts, v2, v1 = await asyncio.gather(
            self.version(), self.list_vhosts(), self._stats_at(v2_url, stats_from_v2),
            self._stats_at(v1_url, stats_from_v1), return_exceptions=True)
        for outcome in (vhosts, version, v2, v1):  # a refused token is the one answer that matters
            if isinstance(outcome, AuthError) or (isinstance(outcome, BaseException)
                                                  and not isinstance(outcome, OmeError)):
                raise outcome
        if isinstance(vhosts, BaseException):
            raise vhosts
        if isinstance(version, NotFoundError):  # servers older than the version endpoint still serve stats
            version = VersionInfo(gitVersion="unknown", version="unknown")
        elif isinstance(version, BaseException):
            raise version
        stats_api: StatsApi = "v1" if isinstance(v2, NotFoundError) and v2.level == "path" else "v2"
        reading = v2 if stats_api == "v2" else v1
        first = (probe, reading) if isinstance(reading, NodeStats) else None
        edition: Edition = "enterprise" if stats_api == "v2" else "oss"
        supported, reason = cue_support(edition, version.version)
        self._stats_api = stats_api
        self.server_info = ServerInfo(edition=edition, version=version.version, git_version=version.gitVersion,
                                      stats_api=stats_api, events_supported=supported, events_reason=reason)
        return Detection(self.server_info, vhosts, first)

    async def _stats_at(self, url: str, convert: Callable[[object, str], NodeStats]) -> NodeStats:
        return convert(await self._get(url), url)

    async def list_vhosts(self) -> list[str]:
        return replies.names(await self._get("/v1/vhosts"), "/v1/vhosts")

    async def list_apps(self, vhost: str) -> list[str]:
        path = f"/v1/vhosts/{_segment(vhost)}/apps"
        return replies.names(await self._get(path), path)

    async def list_streams(self, vhost: str, app: str) -> list[str]:
        path = f"/v1/vhosts/{_segment(vhost)}/apps/{_segment(app)}/streams"
        return replies.names(await self._get(path), path)

    async def stream_info(self, vhost: str, app: str, stream: str) -> StreamInfo:
        path = f"/v1/vhosts/{_segment(vhost)}/apps/{_segment(app)}/streams/{_segment(stream)}"
        return stream_info_from_wire(await self._get(path), path)

    async def app_config(self, vhost: str, app: str) -> AppConfig | None:
        """The application's publishers and outputs (None: its document does not list its publishers), read
        under a cap of its own: the document is a few kilobytes."""
        path = f"/v1/vhosts/{_segment(vhost)}/apps/{_segment(app)}"
        cap = Cap(min(APP_DOCUMENT_BYTES, self.cap.limit), "the application document's limit")
        return app_config_from_wire(await self._get(path, cap), path)

    async def stats(self, path: NodePath) -> NodeStats:
        """v2 statistics when the server has them, else v1 mapped (what v1 lacks is None)."""
        tail = _stats_tail(path)
        if self._stats_api is None:
            detection = await self.detect(path)
            if detection.first_reading is not None and detection.first_reading[0] == path:
                return detection.first_reading[1]
        if self._stats_api == "v2":
            url = f"/v2/stats/current/{tail}"
            try:
                return stats_from_v2(await self._get(url), url)
            except NotFoundError as error:
                if error.level != "path":
                    raise
                self._stats_api = "v1"  # the server lost /v2 (e.g. replaced by an open source one)
        url = f"/v1/stats/current/{tail}"
        return stats_from_v1(await self._get(url), url)

    # -- sends --------------------------------------------------------------------------------------

    async def send_prepared(self, path: NodePath, action: str, content: bytes, body: object) -> SendResult:
        """POST `content` (the JSON bytes of `body`, serialised by the caller) to the stream's `action`
        (`sendEvent` or `sendEvents`) as they are, so what was shown and audited is what goes out."""
        return await self._post(action_path(path, action), body, content)

    async def send_event(self, path: NodePath, event_set: EventSetLike) -> SendResult:
        return await self._post(action_path(path, "sendEvent"), event_body(event_set))

    async def send_events(self, path: NodePath, event_sets: Sequence[EventSetLike]) -> SendResult:
        return await self._post(action_path(path, "sendEvents"), [event_body(e) for e in event_sets])

    async def cue_out(self, path: NodePath, duration_ms: int) -> SendResult:
        if duration_ms <= 0:
            raise ValueError("a cue-out needs a positive duration in milliseconds")
        return await self.send_event(path, CueEventSet(events=[CueEvent(cueType="out", duration=duration_ms)]))

    async def cue_in(self, path: NodePath) -> SendResult:
        return await self.send_event(path, CueEventSet(events=[CueEvent(cueType="in")]))

    async def id3(self, path: NodePath, frames: Sequence[Id3Frame], event_type: Id3EventType = "event") -> SendResult:
        """ID3 frames go through sendEvents, the form the seed documents for id3v2 sets."""
        if not frames:
            raise ValueError("an ID3 event needs at least one frame")
        return await self.send_events(path, [Id3EventSet(eventType=event_type, events=list(frames))])


def event_body(event_set: EventSetLike) -> object:
    """The JSON value sent for one event set (raw mappings are sent exactly as given)."""
    if isinstance(event_set, CueEventSet | Id3EventSet):
        return dump_event_set(event_set)
    return dict(event_set)


def action_path(path: NodePath, action: str) -> str:
    """The management API path of a stream action, e.g. `/v1/vhosts/v/apps/a/streams/s:sendEvent`."""
    if path.level != "stream" or path.app is None or path.stream is None:
        raise ValueError(f"events go to a stream (vhost/app/stream), not {path}")
    return (f"/v1/vhosts/{_segment(path.vhost)}/apps/{_segment(path.app)}"
            f"/streams/{_segment(path.stream)}:{action}")


def _stats_tail(path: NodePath) -> str:
    tail = f"vhosts/{_segment(path.vhost)}"
    if path.app is not None:
        tail += f"/apps/{_segment(path.app)}"
    if path.stream is not None:
        tail += f"/streams/{_segment(path.stream)}"
    return tail


def _json_bytes(body: object) -> bytes:
    """UTF-8 JSON; text that is not valid Unicode (a lone surrogate) goes as a `\\u` escape instead."""
    try:
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(body, separators=(",", ":")).encode("ascii")


def _with_body(error: OmeError, body: object) -> OmeError:
    error.body = body
    return error


__all__ = ["DEFAULT_MAX_REPLY_BYTES", "DETECTION_REQUESTS", "Detection", "ItemResult", "OmeClient", "action_path",
           "basic_authorization", "cue_support", "event_body"]
