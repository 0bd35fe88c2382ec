"""The management API client: one httpx connection pool, typed results, typed errors.

Reads may be repeated by the caller; a POST is sent exactly once. If the connection fails or times
out after a POST may have left, the outcome is reported as unknown (OutcomeUnknown), never retried.
The access token lives only in the Authorization header this client builds itself; it is kept out
of reprs, messages and exceptions (httpx errors are not chained, since they carry the request).
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
from pydantic import ValidationError

from omeconsole.api import replies
from omeconsole.api.convert import stats_from_v1, stats_from_v2, stream_info_from_wire
from omeconsole.api.errors import (
    EventsUnsupportedError,
    NotFoundError,
    OmeError,
    OutcomeUnknown,
    ProtocolError,
    RequestTimeout,
    UnreachableError,
)
from omeconsole.api.wire import (
    CueEvent,
    CueEventSet,
    Id3EventSet,
    Id3EventType,
    Id3Frame,
    VersionInfo,
    dump_event_set,
)
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, StreamInfo
from omeconsole.model.sends import ItemResult, SendResult
from omeconsole.model.server import Edition, ServerInfo, StatsApi

EventSetLike = CueEventSet | Id3EventSet | Mapping[str, Any]

_SAFE = "!$&'()*+,;=@-._~"
"""Characters left as they are in a path segment: the real server does not percent-decode."""

KEEPALIVE_EXPIRY_S = 2.0
"""Shorter than common server idle timeouts, so a POST rarely meets a connection the server closed."""

_CUE_REFUSED = re.compile(r"eventFormat is not supported: \[cue\]", re.IGNORECASE)


def _segment(name: str) -> str:
    return quote(name, safe=_SAFE)


def basic_authorization(token: str) -> str:
    """`Basic base64(token)`: the token as a whole, not `user:password` (reference §4)."""
    return "Basic " + base64.b64encode(token.encode("utf-8")).decode("ascii")


def _version_tuple(version: str) -> tuple[int, ...] | None:
    match = re.match(r"v?(\d+)\.(\d+)(?:\.(\d+))?", version.strip())
    return tuple(int(g) for g in match.groups() if g is not None) if match else None


def cue_support(edition: str, version: str) -> tuple[bool | None, str | None]:
    """Whether the server takes cue events, from its edition and version (reference §2.3)."""
    if edition == "enterprise":
        return True, None
    parsed = _version_tuple(version)
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
        transport: httpx.AsyncBaseTransport | None = None,
        max_connections: int = 8,
    ) -> None:
        parts = urlsplit(api_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {api_url!r}")
        self._host = parts.netloc.rpartition("@")[2]
        self.api_url = f"{parts.scheme}://{self._host}{parts.path}".rstrip("/")
        """The base URL without any user info (it is shown in banners and logs)."""
        self.timeout = timeout
        self.server_info: ServerInfo | None = None
        self._stats_api: StatsApi | None = None
        self._http = httpx.AsyncClient(
            base_url=self.api_url,
            headers={"Authorization": basic_authorization(token), "Accept": "application/json"},
            timeout=httpx.Timeout(timeout),
            verify=verify,
            transport=transport,
            follow_redirects=False,
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections,
                                keepalive_expiry=KEEPALIVE_EXPIRY_S),
        )

    def __repr__(self) -> str:
        return f"OmeClient({self.api_url!r})"

    async def __aenter__(self) -> OmeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # -- transport ----------------------------------------------------------------------------------

    @property
    def _deadline(self) -> float:
        """A whole-request limit, so that a server trickling bytes cannot stall a call forever."""
        return self.timeout * 2

    async def _get(self, path: str) -> object:
        try:
            async with asyncio.timeout(self._deadline):
                response = await self._http.get(path)
        except TimeoutError:
            raise RequestTimeout(f"{self._host} did not answer {path} within {self._deadline:g} s") from None
        except httpx.ConnectTimeout:
            raise UnreachableError(f"cannot connect to {self._host}: connection timed out") from None
        except httpx.TimeoutException:
            raise RequestTimeout(f"{self._host} did not answer {path} within {self.timeout:g} s") from None
        except httpx.ConnectError as error:
            raise UnreachableError(f"cannot connect to {self._host}: {_reason(error)}") from None
        except httpx.RemoteProtocolError as error:
            raise _lost_or_garbled(self._host, path, error) from None
        except httpx.TransportError as error:
            raise UnreachableError(f"connection to {self._host} lost during {path}: {_reason(error)}") from None
        return replies.envelope_response(response, path)

    async def _post(self, path: str, body: object, content: bytes | None = None) -> SendResult:
        if content is None:
            content = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        try:
            async with asyncio.timeout(self._deadline):
                response = await self._http.post(
                    path, content=content, headers={"Content-Type": "application/json"})
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as error:
            raise _with_body(UnreachableError(
                f"cannot connect to {self._host}: {_reason(error)}; nothing was sent"), body) from None
        except (TimeoutError, httpx.TimeoutException, httpx.TransportError) as error:
            raise _with_body(OutcomeUnknown(
                f"the connection to {self._host} failed after the request was sent ({_reason(error)}); "
                "the server may or may not have applied it. Check the stream before sending again."),
                body) from None
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

    async def detect(self) -> Detection:
        """Which edition and statistics API the server has (cached in `server_info`), and its vhosts."""
        try:
            version = await self.version()
        except NotFoundError:  # servers older than the version endpoint still serve statistics
            version = VersionInfo(gitVersion="unknown", version="unknown")
        vhosts = await self.list_vhosts()
        probed = NodePath(vhosts[0] if vhosts else "_")
        probe = f"/v2/stats/current/{_stats_tail(probed)}"
        stats_api: StatsApi = "v2"
        first: tuple[NodePath, NodeStats] | None = None
        try:
            first = (probed, stats_from_v2(await self._get(probe), probe)) if vhosts else None
        except NotFoundError as error:
            if error.level == "path":
                stats_api = "v1"
        edition: Edition = "enterprise" if stats_api == "v2" else "oss"
        supported, reason = cue_support(edition, version.version)
        self._stats_api = stats_api
        self.server_info = ServerInfo(edition=edition, version=version.version, git_version=version.gitVersion,
                                      stats_api=stats_api, events_supported=supported, events_reason=reason)
        return Detection(self.server_info, vhosts, first)

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

    async def stats(self, path: NodePath) -> NodeStats:
        """v2 statistics when the server has them, else v1 mapped (what v1 lacks is None)."""
        if self._stats_api is None:
            await self.detect()
        tail = _stats_tail(path)
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


def _reason(error: Exception) -> str:
    text = str(error).strip()
    return text if text and len(text) < 200 else type(error).__name__


def _lost_or_garbled(host: str, path: str, error: httpx.RemoteProtocolError) -> OmeError:
    if "disconnect" in str(error).lower():
        return UnreachableError(f"{host} closed the connection during {path} without answering")
    return ProtocolError(f"{host} answered {path} with something that is not HTTP: {_reason(error)}")


def _with_body(error: OmeError, body: object) -> OmeError:
    error.body = body
    return error


__all__ = ["Detection", "ItemResult", "OmeClient", "action_path", "basic_authorization", "cue_support", "event_body"]
