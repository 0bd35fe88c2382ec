"""The management API as one ASGI app: authentication first, then a small path router.

Reads are served from bodies cached per world revision, so a stats request costs a dictionary
lookup whether the world holds 8 streams or 10,000.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from typing import Any, NoReturn
from urllib.parse import unquote_to_bytes

from simulator.http import views
from simulator.http.api_headers import json_headers, send_json, send_preflight
from simulator.http.app_info import app_info
from simulator.http.asgi import BodyTooLarge, Headers, Message, Receive, Request, Scope, Send, header_value
from simulator.http.auth import REALM_HEADER, basic_header, check_authorization
from simulator.http.event_validation import EventRejected, validate_event_set, validate_event_sets
from simulator.http.json_body import JsonBodyError, parse_json_body
from simulator.http.openapi import openapi_document
from simulator.http.stream_info import stream_info
from simulator.http.wire_json import encode, error_body, ok_body
from simulator.world.edition import Edition
from simulator.world.topology import Stream
from simulator.world.world import Level, World

log = logging.getLogger("simulator.api")

MAX_BODY_BYTES = 1024 * 1024

_STATS_PREFIXES = ("/v2/stats/", "/v1/stats/")


def refusal_reply(status: int, text: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """A request refused by the port's limits (simulator/http/limits.py), in the API's envelope."""
    body = error_body(status, text)
    return [h for h in json_headers(len(body)) if h[0] != b"content-length"], body


class Reply(Exception):
    """Ends a request early with a status and a body (how every error leaves a handler)."""

    def __init__(self, status: int, body: bytes, first_headers: Headers | None = None) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.first_headers = first_headers or []


def _error(status: int, text: str) -> Reply:
    return Reply(status, error_body(status, text))


def _not_found_controller() -> Reply:
    return _error(404, "Controller not found")


def _path_key(scope: Scope) -> bytes | str:
    return scope.get("raw_path") or str(scope["path"])


async def _json_body(request: Request) -> Any:
    """The request's body parsed as the real server's reader does, before any lookup (reference §2.2)."""
    try:
        raw = await request.body(MAX_BODY_BYTES)
    except BodyTooLarge:
        raise _error(413, f"Request body is too large (limit {MAX_BODY_BYTES} bytes)") from None
    try:
        return parse_json_body(raw)
    except JsonBodyError as error:
        raise _error(400, f"[JSON] {error}") from None


def _segments(path: str) -> list[str]:
    """Path segments with percent-escapes and raw bytes read as UTF-8 (clients escape odd names)."""
    parts = path.split("/")[1:]
    if "%" not in path and path.isascii():
        return parts
    return [unquote_to_bytes(part.encode("latin-1")).decode("utf-8", "replace") for part in parts]


class ManagementApi:
    def __init__(self, world: World, *, access_token: str) -> None:
        """Plays the edition and version of `world.profile`."""
        self.world = world
        self.profile = world.profile
        self._token = access_token.encode("utf-8")
        self._canonical_header = basic_header(access_token).encode("ascii")
        self._cache: dict[str, bytes] = {}
        self._cache_revision = -1
        self._ready: dict[bytes | str, tuple[Message, Message]] = {}
        """Whole stats responses by raw path, valid for `_ready_revision` only (the hot path)."""
        self._ready_revision = -1

    @property
    def edition(self) -> Edition:
        return self.profile.edition

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if scope["method"] == "GET" and await self._send_ready(scope, send):
            return
        request = Request(scope, receive)
        if request.method == "OPTIONS":
            await send_preflight(send)
            return
        try:
            problem = check_authorization(request.header(b"authorization"), self._token)
            if problem is not None:
                raise Reply(401, error_body(401, problem), [REALM_HEADER])
            status, body = await self._route(request)
        except Reply as reply:
            await send_json(send, reply.status, reply.body, reply.first_headers)
            return
        except Exception:
            # A bug, not a client error: still answer in the envelope, never with the framework's body.
            log.exception("unexpected error answering %s %s", request.method, request.path)
            await send_json(send, 500, error_body(500, "Internal Server Error"))
            return
        if status == 200 and request.method == "GET" and request.path.startswith(_STATS_PREFIXES):
            self._keep_ready(scope, body)
        await send_json(send, status, body)

    async def _send_ready(self, scope: Scope, send: Send) -> bool:
        """Statistics already answered during this world revision, sent again with no parsing or routing.

        Only for the exact header a client builds from the token (compared in constant time); any
        other spelling of the credentials takes the full check.
        """
        authorization = header_value(scope["headers"], b"authorization")
        if authorization is None or not hmac.compare_digest(authorization, self._canonical_header):
            return False
        self.world.advance()
        if self._ready_revision != self.world.revision:
            return False
        ready = self._ready.get(_path_key(scope))
        if ready is None:
            return False
        await send(ready[0])
        await send(ready[1])
        return True

    def _keep_ready(self, scope: Scope, body: bytes) -> None:
        if self._ready_revision != self.world.revision:
            self._ready.clear()  # bounded by what one revision (one tick) is asked for
            self._ready_revision = self.world.revision
        self._ready[_path_key(scope)] = (
            {"type": "http.response.start", "status": 200, "headers": json_headers(len(body))},
            {"type": "http.response.body", "body": body},
        )

    # -- routing --------------------------------------------------------------------------------

    async def _route(self, request: Request) -> tuple[int, bytes]:
        segments = _segments(request.path)
        if not segments:
            raise _not_found_controller()
        version, rest = segments[0], segments[1:]
        if request.method == "POST" and version == "v1":
            return await self._post(request, rest)
        if request.method != "GET":
            raise _not_found_controller()
        if version == "v2" and self.profile.serves_v2_stats and rest[:2] == ["stats", "current"]:
            return 200, self._stats(rest[2:], views.stats_v2)
        if version != "v1":
            raise _not_found_controller()
        match rest:
            case ["version"]:
                return 200, ok_body({"gitVersion": self.profile.git_version, "version": self.profile.version})
            case ["openapi.json"]:
                return 200, encode(openapi_document(self.edition))
            case ["stats", "current"]:
                return 200, self._cached("server", lambda: ok_body(views.stats_v1(self.world.counters("server", 0))))
            case ["stats", "current", *path]:
                return 200, self._stats(path, views.stats_v1)
            case ["vhosts"]:
                return 200, ok_body(list(self.world.vhosts))
            case ["vhosts", vhost]:
                self._vhost(vhost)
                return 200, ok_body(self._vhost_info(vhost))
            case ["vhosts", vhost, "apps"]:
                return 200, ok_body(list(self._vhost(vhost).apps))
            case ["vhosts", vhost, "apps", app]:
                return 200, ok_body(app_info(self._app(vhost, app), self.world.scenario.media, self.profile))
            case ["vhosts", vhost, "apps", app, "streams"] if ":" not in app:
                self.world.advance()
                return 200, ok_body(list(self._app(vhost, app).streams))
            case ["vhosts", vhost, "apps", app, "streams", stream] if ":" not in app:
                self.world.advance()
                found = self._stream(vhost, app, stream)
                return 200, ok_body(stream_info(found, self.profile, self._app(vhost, app).publishers))
        raise _not_found_controller()

    def _vhost_info(self, vhost: str) -> dict[str, Any]:
        """The virtual host's configuration; open source also echoes its CORS origins and distribution
        (capture api/18)."""
        info: dict[str, Any] = {"name": vhost, "host": {"names": ["*"]}}
        if not self.profile.is_enterprise:
            info |= {"crossDomains": {"urls": ["*"]}, "distribution": "ovenmediaengine.com"}
        return info

    def _stats(self, path: list[str], render: Callable[[dict[str, Any]], dict[str, Any]]) -> bytes:
        self.world.advance()
        level: Level
        match path:
            case ["vhosts", vhost]:
                level, row = "vhost", self._vhost(vhost).row
            case ["vhosts", vhost, "apps", app]:
                level, row = "app", self._app(vhost, app).row
            case ["vhosts", vhost, "apps", app, "streams", stream] if ":" not in app:
                level, row = "stream", self._stream(vhost, app, stream).row
            case _:
                raise _not_found_controller()
        key = f"{render.__name__}:{level}:{row}"
        return self._cached(key, lambda: ok_body(render(self.world.counters(level, row))))

    def _cached(self, key: str, build: Callable[[], bytes]) -> bytes:
        """A body built at most once per world revision; older ones are dropped, not kept for ever."""
        self.world.advance()
        if self._cache_revision != self.world.revision:
            self._cache.clear()
            self._cache_revision = self.world.revision
        body = self._cache.get(key)
        if body is None:
            body = self._cache[key] = build()
        return body

    # -- lookups with the edition's 404 texts -------------------------------------------------------

    def _vhost(self, vhost: str) -> Any:
        found = self.world.find_vhost(vhost)
        if found is None:
            raise _error(404, f"Could not find the virtual host: [{vhost}]")
        return found

    def _app(self, vhost: str, app: str) -> Any:
        found = self._vhost(vhost).apps.get(app)
        if found is None:
            raise _error(404, f"Could not find the application: [{vhost}/{app}]")
        return found

    def _stream(self, vhost: str, app: str, stream: str) -> Stream:
        found: Stream | None = self._app(vhost, app).streams.get(stream)
        if found is None:
            raise _error(404, f"Could not find the stream: [{vhost}/{self._app_name(vhost, app)}/{stream}]")
        return found

    def _app_name(self, vhost: str, app: str) -> str:
        """How a stream's 404 names its application: the seed's plain name (Enterprise), or the open source
        server's internal one, `#vhost#app` with any `#` inside a name written `_` (captures api/11, 14, 41, 53)."""
        if not self.profile.internal_app_names:
            return app
        return f"#{vhost.replace('#', '_')}#{app.replace('#', '_')}"

    # -- actions --------------------------------------------------------------------------------

    async def _post(self, request: Request, rest: list[str]) -> tuple[int, bytes]:
        match rest:
            case ["vhosts"]:
                await self._create_vhosts(request)
            case ["vhosts", vhost, "apps", app, "streams", target] if ":" not in app and ":" in target:
                stream_name, action = target.rsplit(":", 1)
            case _:
                raise _not_found_controller()
        if action not in ("sendEvent", "sendEvents"):
            raise _not_found_controller()
        value = await _json_body(request)
        self.world.advance()
        stream = self._stream(vhost, app, stream_name)
        if action == "sendEvent":
            return self._send_event(stream, value)
        if self.profile.send_events_multi_status:
            return self._send_events_multi_status(stream, value)
        return self._send_events(stream, value)

    async def _create_vhosts(self, request: Request) -> NoReturn:
        """`POST /v1/vhosts`: the real server wants an array (capture api/47); the simulator's virtual hosts come
        from its scenario, so an array is answered as any other write it does not serve (README, "Simulator
        versus the real server")."""
        if not isinstance(await _json_body(request), list):
            raise _error(400, "Request body must be an array")
        raise _not_found_controller()

    def _send_event(self, stream: Stream, value: Any) -> tuple[int, bytes]:
        try:
            event_set = validate_event_set(value, self.profile)
        except EventRejected as error:
            raise _error(400, str(error)) from None
        self._accept(stream, [(event_set, value)])
        return 200, ok_body()

    def _send_events(self, stream: Stream, value: Any) -> tuple[int, bytes]:
        try:
            event_sets = validate_event_sets(value, self.profile)
        except EventRejected as error:
            raise _error(400, str(error)) from None
        self._accept(stream, list(zip(event_sets, value, strict=True)))
        return 200, ok_body()

    def _send_events_multi_status(self, stream: Stream, value: Any) -> tuple[int, bytes]:
        """The open source reply: each element on its own, a bare array, 207 when statuses differ."""
        if not isinstance(value, list) or not value:
            raise _error(400, "events(array) is required")
        results: list[dict[str, Any]] = []
        statuses: set[int] = set()
        for element in value:
            try:
                event_set = validate_event_set(element, self.profile)
            except EventRejected as error:
                results.append({"message": str(error), "statusCode": 400})
                statuses.add(400)
                continue
            self._accept(stream, [(event_set, element)])
            results.append({"message": "OK", "statusCode": 200})
            statuses.add(200)
        return (statuses.pop() if len(statuses) == 1 else 207), encode(results)

    def _accept(self, stream: Stream, event_sets: list[tuple[Any, Any]]) -> None:
        accepted = self.world.accept_events(stream, event_sets)
        for event in accepted:
            log.info("accepted event #%d for %s/%s/%s: %s", event.seq, stream.vhost, stream.app, stream.name,
                     event.event_set.eventFormat)
