"""Servers a real OME cannot be made to imitate: each malformed or failing reply gives its typed error."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Awaitable, Callable

import httpx
import pytest

from omeconsole.api.client import OmeClient
from omeconsole.api.errors import (
    AuthError,
    BadRequestError,
    OmeError,
    OutcomeUnknown,
    ProtocolError,
    RequestTimeout,
    ServerError,
    UnreachableError,
)
from omeconsole.model.paths import NodePath

TOKEN = "s3cret-token-value"
ENCODED = base64.b64encode(TOKEN.encode()).decode()
STREAM = NodePath("default", "app", "stream")
GOOD_V2 = {
    "createdTime": "2026-01-01T00:00:00.000+00:00", "lastUpdatedTime": "2026-01-01T00:00:05.000+00:00",
    "providers": {"avgThroughputIn": 1, "connections": {"rtmp": 1}, "lastRecvTime": "2026-01-01T00:00:05.000+00:00",
                  "lastThroughputIn": 1, "maxThroughputIn": 1, "totalBytesIn": 100},
    "publishers": {"avgThroughputOut": 1, "connections": {"llhls": 2}, "lastSentTime": "2026-01-01T00:00:05.000+00:00",
                   "lastThroughputOut": 1, "maxThroughputOut": 1,
                   "maxTotalConnectionTime": "2026-01-01T00:00:01.000+00:00", "maxTotalConnections": 2,
                   "totalBytesOut": 200, "totalConnections": 2},
}

Handler = Callable[[httpx.Request], Awaitable[httpx.Response]]


def envelope(response: object) -> httpx.Response:
    return httpx.Response(200, json={"message": "OK", "response": response, "statusCode": 200})


def make_client(handler: Handler, timeout: float = 5.0) -> OmeClient:
    return OmeClient("http://ome.test:8081", TOKEN, transport=httpx.MockTransport(handler), timeout=timeout)


def assert_no_token(error: BaseException) -> None:
    for text in (str(error), repr(error), str(getattr(error, "body", ""))):
        assert TOKEN not in text and ENCODED not in text
    assert error.__cause__ is None  # httpx errors carry the request (and its headers): never chained


async def stats_error(handler: Handler, timeout: float = 5.0) -> OmeError:
    async with make_client(handler, timeout) as client:
        client._stats_api = "v2"  # skip detection: the fault is in the stats reply itself
        with pytest.raises(OmeError) as caught:
            await client.stats(STREAM)
    assert_no_token(caught.value)
    return caught.value


async def test_the_client_builds_basic_auth_from_the_whole_token() -> None:
    seen: list[str] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        return envelope(["default"])

    async with make_client(handler) as client:
        assert await client.list_vhosts() == ["default"]
    assert seen == [f"Basic {ENCODED}"]


@pytest.mark.parametrize(("reply", "words"), [
    (httpx.Response(200, content=b"{not json"), "text that is not JSON"),
    (httpx.Response(200, content=b""), "an empty body"),
    (httpx.Response(502, content=b"<html><body>Bad Gateway</body></html>",
                    headers={"content-type": "text/html"}), "HTML"),
    (httpx.Response(200, json={"detail": "not the API"}), "envelope"),
    (httpx.Response(200, json=[1, 2, 3]), "envelope"),
])
async def test_replies_that_are_not_the_api_are_protocol_errors(reply: httpx.Response, words: str) -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        return reply

    error = await stats_error(handler)
    assert isinstance(error, ProtocolError)
    assert words in error.message


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda r: r["providers"].pop("totalBytesIn"), "providers.totalBytesIn"),
    (lambda r: r["publishers"].__setitem__("totalConnections", "many"), "publishers.totalConnections"),
    (lambda r: r.pop("publishers"), "publishers"),
    (lambda r: r.__setitem__("createdTime", "yesterday"), "yesterday"),
])
async def test_missing_or_mistyped_fields_name_the_field(mutate: Callable[[dict[str, object]], object],
                                                         field: str) -> None:
    record = json.loads(json.dumps(GOOD_V2))
    mutate(record)

    async def handler(request: httpx.Request) -> httpx.Response:
        return envelope(record)

    error = await stats_error(handler)
    assert isinstance(error, ProtocolError)
    assert field in error.message


@pytest.mark.parametrize(("status", "kind"), [(400, BadRequestError), (500, ServerError), (503, ServerError)])
async def test_error_statuses_carry_the_server_message(status: int, kind: type[OmeError]) -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json={"message": f"[HTTP] broken thing ({status})", "statusCode": status})

    error = await stats_error(handler)
    assert type(error) is kind and error.status == status
    assert error.message == f"[HTTP] broken thing ({status})"


async def test_a_401_without_a_body_is_still_an_auth_error() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, headers={"www-authenticate": 'Basic realm="Proxy"'})

    error = await stats_error(handler)
    assert isinstance(error, AuthError) and error.realm == "Proxy"


async def test_stalled_reply_times_out() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        await asyncio.Event().wait()  # never answers
        raise AssertionError("unreachable")

    error = await stats_error(handler, timeout=0.05)
    assert isinstance(error, RequestTimeout)


class _Trickle(httpx.AsyncByteStream):
    """A reply that never stops arriving, one byte at a time."""

    async def __aiter__(self):  # type: ignore[no-untyped-def]
        for _ in range(10_000):
            await asyncio.sleep(0.005)
            yield b" "


async def test_a_trickling_reply_hits_the_whole_request_deadline() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=_Trickle())

    error = await stats_error(handler, timeout=0.05)
    assert isinstance(error, RequestTimeout)


async def test_detection_without_a_version_endpoint_or_v2() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/vhosts":
            return envelope(["default"])
        return httpx.Response(404, json={"message": "[HTTP] Controller not found (404)", "statusCode": 404})

    async with make_client(handler) as client:
        info = (await client.detect()).server
    assert (info.edition, info.stats_api, info.version, info.events_supported) == ("oss", "v1", "unknown", None)


@pytest.mark.parametrize(("failure", "kind"), [
    (httpx.ConnectError("refused"), UnreachableError),
    (httpx.ReadError("connection reset by peer"), UnreachableError),
    (httpx.RemoteProtocolError("illegal status line"), ProtocolError),
    (httpx.ReadTimeout("read timed out"), RequestTimeout),
])
async def test_transport_failures_on_reads(failure: Exception, kind: type[OmeError]) -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        raise failure

    assert type(await stats_error(handler)) is kind


@pytest.mark.parametrize("failure", [httpx.ReadError("connection reset by peer"), httpx.ReadTimeout("timed out"),
                                     httpx.WriteError("broken pipe"),
                                     httpx.RemoteProtocolError("Server disconnected without sending a response")])
async def test_a_post_that_fails_after_sending_is_unknown_and_never_retried(failure: Exception) -> None:
    calls: list[bytes] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        calls.append(await request.aread())
        raise failure

    async with make_client(handler) as client:
        with pytest.raises(OutcomeUnknown) as caught:
            await client.cue_out(STREAM, 30_000)
    assert len(calls) == 1
    assert caught.value.body == {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
    assert "may or may not" in caught.value.message
    assert_no_token(caught.value)


async def test_a_post_that_cannot_connect_says_nothing_was_sent() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    async with make_client(handler) as client:
        with pytest.raises(UnreachableError) as caught:
            await client.cue_in(STREAM)
    assert "nothing was sent" in caught.value.message


async def test_a_stalled_post_is_unknown() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async with make_client(handler, timeout=0.05) as client:
        with pytest.raises(OutcomeUnknown):
            await client.cue_in(STREAM)


async def test_a_multi_status_reply_with_garbage_elements_is_a_protocol_error() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(207, json=[{"message": "OK", "statusCode": 200}, {"oops": True}])

    async with make_client(handler) as client:
        with pytest.raises(ProtocolError):
            await client.send_events(STREAM, [{"eventFormat": "id3v2", "events": []}])


async def test_a_server_that_loses_v2_falls_back_to_v1() -> None:
    v1 = {"avgThroughputIn": 1, "avgThroughputOut": 1, "connections": {"llhls": 3},
          "createdTime": "2026-01-01T00:00:00.000+00:00", "lastRecvTime": "2026-01-01T00:00:00.000+00:00",
          "lastSentTime": "2026-01-01T00:00:00.000+00:00", "lastThroughputIn": 1, "lastThroughputOut": 1,
          "lastUpdatedTime": "2026-01-01T00:00:00.000+00:00", "maxThroughputIn": 1, "maxThroughputOut": 1,
          "maxTotalConnectionTime": "2026-01-01T00:00:00.000+00:00", "maxTotalConnections": 3,
          "totalBytesIn": 5, "totalBytesOut": 6, "totalConnections": 3}

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/v2/"):
            return httpx.Response(404, json={"message": "[HTTP] Controller not found (404)", "statusCode": 404})
        return envelope(v1)

    async with make_client(handler) as client:
        client._stats_api = "v2"
        stats = await client.stats(STREAM)
    assert stats.connections_in is None and stats.connections_out == {"llhls": 3}
    assert stats.total_bytes_out == 6


def test_a_bad_url_is_refused_before_any_request() -> None:
    with pytest.raises(ValueError, match="not an http"):
        OmeClient("ftp://example.com", TOKEN)


async def test_user_info_in_the_url_is_dropped_and_never_shown() -> None:
    seen: list[str] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        return envelope([])

    client = OmeClient("http://admin:hunter2@ome.test:8081/", TOKEN, transport=httpx.MockTransport(handler))
    async with client:
        await client.list_vhosts()
    assert "hunter2" not in repr(client) and client.api_url == "http://ome.test:8081"
    assert seen == [f"Basic {ENCODED}"]  # our header, not one built from the URL's user info
