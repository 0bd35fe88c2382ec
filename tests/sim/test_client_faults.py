"""Servers a real OME cannot be made to imitate, on a real loopback port: each malformed or failing reply
gives its typed error, through the console's own transport (no mocked HTTP stack)."""

from __future__ import annotations

import base64
import json
import logging
import socket
from collections.abc import AsyncIterator, Callable

import pytest
from loopback_server import Answer, Behaviour, Hangup, LoopbackServer, RawBytes, Request, Stall

from omeconsole.api.client import OmeClient
from omeconsole.api.errors import (
    AuthError,
    BadRequestError,
    NotFoundError,
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
STATS = "/v2/stats/current/vhosts/default/apps/app/streams/stream"
GOOD_V2 = {
    "createdTime": "2026-01-01T00:00:00.000+00:00", "lastUpdatedTime": "2026-01-01T00:00:05.000+00:00",
    "providers": {"avgThroughputIn": 1, "connections": {"rtmp": 1}, "lastRecvTime": "2026-01-01T00:00:05.000+00:00",
                  "lastThroughputIn": 1, "maxThroughputIn": 1, "totalBytesIn": 100},
    "publishers": {"avgThroughputOut": 1, "connections": {"llhls": 2}, "lastSentTime": "2026-01-01T00:00:05.000+00:00",
                   "lastThroughputOut": 1, "maxThroughputOut": 1,
                   "maxTotalConnectionTime": "2026-01-01T00:00:01.000+00:00", "maxTotalConnections": 2,
                   "totalBytesOut": 200, "totalConnections": 2},
}
CONTROLLER_NOT_FOUND = Answer.json({"message": "[HTTP] Controller not found (404)", "statusCode": 404}, 404)


def envelope(response: object) -> Answer:
    return Answer.json({"message": "OK", "response": response, "statusCode": 200})


class Routes:
    """Answers by path, with v2 statistics detection answered as an Enterprise server would."""

    def __init__(self, **by_path: Behaviour) -> None:
        self.by_path: dict[str, Behaviour] = {
            "/v1/version": envelope({"gitVersion": "v0.20.5.0-1", "version": "0.20.5.0-1"}),
            "/v1/vhosts": envelope(["default"]),
            "/v2/stats/current/vhosts/default": envelope(GOOD_V2),
            "/v1/stats/current/vhosts/default": CONTROLLER_NOT_FOUND,
            **by_path,
        }

    async def __call__(self, request: Request) -> Behaviour:
        return self.by_path.get(request.path, CONTROLLER_NOT_FOUND)


@pytest.fixture
async def serve() -> AsyncIterator[Callable[..., LoopbackServer]]:
    servers: list[LoopbackServer] = []

    def start(handler: Callable[[Request], object], **options: bool) -> LoopbackServer:
        server = LoopbackServer(handler, **options).start()  # type: ignore[arg-type]
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.aclose()


def assert_no_token(error: BaseException) -> None:
    for text in (str(error), repr(error), str(getattr(error, "body", ""))):
        assert TOKEN not in text and ENCODED not in text
    linked = error
    while (linked := linked.__cause__ or linked.__context__) is not None:  # type: ignore[assignment]
        assert not type(linked).__module__.startswith("aiohttp"), f"{linked!r} (it holds the request) is chained"
        assert TOKEN not in repr(linked) and ENCODED not in repr(linked)


async def stats_error(server: LoopbackServer, timeout: float = 5.0) -> OmeError:
    async with OmeClient(server.url, TOKEN, timeout=timeout) as client:
        with pytest.raises(OmeError) as caught:
            await client.stats(STREAM)
    assert_no_token(caught.value)
    return caught.value


async def test_the_client_builds_basic_auth_from_the_whole_token(serve) -> None:
    server = serve(Routes())
    async with OmeClient(server.url, TOKEN) as client:
        assert await client.list_vhosts() == ["default"]
    assert [r.headers["authorization"] for r in server.requests] == [f"Basic {ENCODED}"]
    assert server.requests[0].headers["user-agent"].startswith("omeconsole/")  # a server's logs say who asked


@pytest.mark.parametrize(("reply", "words"), [
    (Answer(200, b"{not json"), "text that is not JSON"),
    (Answer(200, b""), "an empty body"),
    (Answer(502, b"<html><body>Bad Gateway</body></html>", {"Content-Type": "text/html"}), "HTML"),
    (Answer.json({"detail": "not the API"}), "envelope"),
    (Answer.json([1, 2, 3]), "envelope"),
    (Answer(200, b"[" * 100_000), "not JSON"),  # nested past any recursion limit
])
async def test_replies_that_are_not_the_api_are_protocol_errors(serve, reply: Answer, words: str) -> None:
    error = await stats_error(serve(Routes(**{STATS: reply})))
    assert isinstance(error, ProtocolError)
    assert words in error.message


@pytest.mark.parametrize(("status", "kind"), [(400, BadRequestError), (500, ServerError), (503, ServerError)])
async def test_error_statuses_carry_the_server_message(serve, status: int, kind: type[OmeError]) -> None:
    reply = Answer.json({"message": f"[HTTP] broken thing ({status})", "statusCode": status}, status)
    error = await stats_error(serve(Routes(**{STATS: reply})))
    assert type(error) is kind and error.status == status
    assert error.message == f"[HTTP] broken thing ({status})"


@pytest.mark.parametrize(("message", "level"), [
    ("[HTTP] Could not find the virtual host: [default] (404)", "vhost"),
    ("[HTTP] Could not find the application: [default/app] (404)", "app"),
    ("[HTTP] Could not find the stream: [default/app/stream] (404)", "stream"),
    ("[HTTP] Controller not found (404)", "path"),
])
async def test_not_found_says_which_level_is_missing(serve, message: str, level: str) -> None:
    error = await stats_error(serve(Routes(**{STATS: Answer.json({"message": message, "statusCode": 404}, 404)})))
    assert isinstance(error, NotFoundError) and error.level == level


async def test_a_401_without_a_body_is_still_an_auth_error_with_its_realm(serve) -> None:
    refused = Answer(401, headers={"WWW-Authenticate": 'Basic realm="Proxy"'})
    server = serve(Routes(**{path: refused for path in ("/v1/version", "/v1/vhosts", STATS,
                                                          "/v1/stats/current/vhosts/default/apps/app/streams/stream")}))
    error = await stats_error(server)
    assert isinstance(error, AuthError) and error.realm == "Proxy"


async def test_a_stalled_reply_times_out(serve) -> None:
    error = await stats_error(serve(Routes(**{STATS: Stall()})), timeout=0.1)
    assert isinstance(error, RequestTimeout)


async def test_a_trickling_reply_hits_the_whole_request_deadline(serve) -> None:
    trickle = Answer(200, json.dumps({"message": "OK", "response": GOOD_V2, "statusCode": 200}).encode(),
                     trickle_s=0.02)  # each byte in time for the read timeout, the whole far too slow
    async with OmeClient(serve(Routes(**{STATS: trickle})).url, TOKEN, timeout=0.5, deadline=0.3) as client:
        with pytest.raises(RequestTimeout) as caught:
            await client.stats(STREAM)
    assert "0.3 s" in caught.value.message


async def test_detection_without_a_version_endpoint_or_v2(serve) -> None:
    server = serve(Routes(**{"/v1/version": CONTROLLER_NOT_FOUND, "/v2/stats/current/vhosts/default":
                             CONTROLLER_NOT_FOUND, "/v1/stats/current/vhosts/default": envelope(GOOD_V2)}))
    async with OmeClient(server.url, TOKEN) as client:
        detection = await client.detect()
    info = detection.server
    assert (info.edition, info.stats_api, info.version, info.events_supported) == ("oss", "v1", "unknown", None)


async def test_garbage_instead_of_http_is_a_protocol_error(serve) -> None:
    error = await stats_error(serve(Routes(**{STATS: RawBytes(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")})))
    assert isinstance(error, ProtocolError) and "not HTTP" in error.message


async def test_a_reply_cut_short_is_reported_not_taken(serve) -> None:
    body = json.dumps({"message": "OK", "response": GOOD_V2, "statusCode": 200}).encode()
    error = await stats_error(serve(Routes(**{STATS: Answer(200, body[:40], length=len(body), close=True)})))
    assert isinstance(error, UnreachableError | ProtocolError)


async def test_a_server_that_hangs_up_on_reads_is_unreachable(serve) -> None:
    error = await stats_error(serve(Routes(**{STATS: Hangup()})))
    assert isinstance(error, UnreachableError) and "without answering" in error.message


async def test_nothing_listening_is_unreachable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed on exit: nobody listens there
    async with OmeClient(f"http://127.0.0.1:{port}", TOKEN) as client:
        with pytest.raises(UnreachableError) as caught:
            await client.list_vhosts()
        with pytest.raises(UnreachableError) as refused_post:
            await client.cue_in(STREAM)
    assert "cannot connect" in caught.value.message
    assert "nothing was sent" in refused_post.value.message
    assert_no_token(refused_post.value)


async def test_a_connect_that_never_completes_times_out_as_unreachable() -> None:
    """A full accept queue: the kernel drops the SYN and the connection never opens."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    fillers = []
    try:
        for _ in range(4):  # fill the accept queue (nobody accepts)
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(listener.getsockname())
            fillers.append(filler)
        async with OmeClient(f"http://127.0.0.1:{listener.getsockname()[1]}", TOKEN, timeout=0.2) as client:
            with pytest.raises(UnreachableError) as caught:
                await client.cue_in(STREAM)
        assert "nothing was sent" in caught.value.message
    finally:
        for filler in fillers:
            filler.close()
        listener.close()


@pytest.mark.parametrize("failure", [
    Hangup(), Stall(), RawBytes(b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n{"),
    Answer(200, b"\x1f\x8b not gzip", {"Content-Encoding": "gzip"}),  # answered, but unreadably
    Answer(200, b" " * 65536, repeat=200),  # answered with more than max_reply_bytes
], ids=["hangup", "stall", "cut-short", "corrupt-gzip", "too-large"])
async def test_a_post_that_fails_after_sending_is_unknown_and_never_retried(serve, failure: Behaviour) -> None:
    server = serve(Routes(**{"/v1/vhosts/default/apps/app/streams/stream:sendEvent": failure}))
    async with OmeClient(server.url, TOKEN, timeout=0.2, max_reply_bytes=1024 * 1024) as client:
        with pytest.raises(OutcomeUnknown) as caught:
            await client.cue_out(STREAM, 30_000)
    assert [json.loads(r.body) for r in server.requests if r.method == "POST"] == [
        {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}]
    assert caught.value.body == {"eventFormat": "cue", "events": [{"cueType": "out", "duration": 30000}]}
    assert "may or may not" in caught.value.message
    assert_no_token(caught.value)


async def test_a_post_after_the_server_closed_the_idle_connection_goes_once_and_succeeds(serve) -> None:
    """The server closes every connection after answering, without saying so (a short idle timeout).
    The pooled connection the reads used is dead when the POST comes: it must neither fail as
    "unreachable" nor be sent twice."""
    accepted = Answer.json({"message": "OK", "statusCode": 200})
    server = serve(Routes(**{"/v1/vhosts/default/apps/app/streams/stream:sendEvent": accepted}),
                   close_idle_after_reply=True)
    async with OmeClient(server.url, TOKEN) as client:
        for _ in range(3):
            assert await client.list_vhosts() == ["default"]  # a GET on a dead pooled connection is re-sent
        result = await client.cue_in(STREAM)
        assert result.status == 200
        assert await client.list_vhosts() == ["default"]
    assert sum(1 for r in server.requests if r.method == "POST") == 1


async def test_a_multi_status_reply_with_garbage_elements_is_a_protocol_error(serve) -> None:
    garbage = Answer.json([{"message": "OK", "statusCode": 200}, {"oops": True}], 207)
    async with OmeClient(serve(Routes(**{"/v1/vhosts/default/apps/app/streams/stream:sendEvents": garbage})).url,
                         TOKEN) as client:
        with pytest.raises(ProtocolError):
            await client.send_events(STREAM, [{"eventFormat": "id3v2", "events": []}])


async def test_a_server_that_loses_v2_falls_back_to_v1(serve) -> None:
    v1 = {"avgThroughputIn": 1, "avgThroughputOut": 1, "connections": {"llhls": 3},
          "createdTime": "2026-01-01T00:00:00.000+00:00", "lastRecvTime": "2026-01-01T00:00:00.000+00:00",
          "lastSentTime": "2026-01-01T00:00:00.000+00:00", "lastThroughputIn": 1, "lastThroughputOut": 1,
          "lastUpdatedTime": "2026-01-01T00:00:00.000+00:00", "maxThroughputIn": 1, "maxThroughputOut": 1,
          "maxTotalConnectionTime": "2026-01-01T00:00:00.000+00:00", "maxTotalConnections": 3,
          "totalBytesIn": 5, "totalBytesOut": 6, "totalConnections": 3}
    routes = Routes(**{"/v1/stats/current/vhosts/default/apps/app/streams/stream": envelope(v1)})
    async with OmeClient(serve(routes).url, TOKEN) as client:
        await client.detect()  # v2 there at first
        assert client.server_info is not None and client.server_info.stats_api == "v2"
        routes.by_path[STATS] = CONTROLLER_NOT_FOUND  # then replaced by an open source server
        stats = await client.stats(STREAM)
    assert stats.connections_in is None and stats.connections_out == {"llhls": 3}
    assert stats.total_bytes_out == 6


def test_a_bad_url_is_refused_before_any_request() -> None:
    with pytest.raises(ValueError, match="not an http"):
        OmeClient("ftp://example.com", TOKEN)


async def test_user_info_in_the_url_is_dropped_and_never_shown(serve) -> None:
    server = serve(Routes())
    client = OmeClient(f"http://admin:hunter2@127.0.0.1:{server.port}/", TOKEN)
    async with client:
        await client.list_vhosts()
    assert "hunter2" not in repr(client) and client.api_url == server.url
    assert [r.headers["authorization"] for r in server.requests] == [f"Basic {ENCODED}"]  # ours, not the URL's


async def test_the_token_is_in_no_log_line_repr_or_error(serve, caplog: pytest.LogCaptureFixture) -> None:
    """Everything a failing client can show: its reprs, every error's text and chain, every log record
    (aiohttp's and asyncio's included, at DEBUG)."""
    caplog.set_level(logging.DEBUG)
    server = serve(Routes(**{STATS: Hangup(), "/v1/vhosts/default/apps/app/streams/stream:sendEvent": Stall()}))
    errors: list[BaseException] = []
    client = OmeClient(server.url, TOKEN, timeout=0.2)
    async with client:
        for call in (client.stats(STREAM), client.cue_in(STREAM), client.list_apps("")):
            try:
                await call
            except OmeError as error:
                errors.append(error)
        shown = [repr(client), str(client.__dict__.get("api_url"))]
    assert len(errors) == 3
    for error in errors:
        assert_no_token(error)
    for text in shown + [record.getMessage() for record in caplog.records]:
        assert TOKEN not in text and ENCODED not in text
