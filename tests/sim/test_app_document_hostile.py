"""Application documents a real OME would not send, from a server on a real loopback port, through the console's
own transport: too large for their cap (far under the client's general one), not an object, deeply nested. Each
is refused with its typed error and leaves the playback URLs marked as not confirmed, memory bounded."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from loopback_server import Answer, Behaviour, LoopbackServer, Request

from omeconsole.api.app_config import APP_DOCUMENT_BYTES
from omeconsole.api.client import OmeClient
from omeconsole.api.errors import ProtocolError, ReplyTooLarge
from omeconsole.core.playback import NOT_CONFIRMED, playback_urls
from omeconsole.model.paths import NodePath

TOKEN = "app-document-token"
DOCUMENT = "/v1/vhosts/default/apps/app"


def answering(answer: Answer) -> LoopbackServer:
    async def handler(request: Request) -> Behaviour:
        return answer if request.path == DOCUMENT else Answer(404)

    return LoopbackServer(handler).start()  # type: ignore[arg-type]


@pytest.fixture
async def too_large() -> AsyncIterator[LoopbackServer]:
    """A valid envelope around a document padded past its cap (the client's own cap, 8 MiB, would take it)."""
    body = json.dumps({"message": "OK", "statusCode": 200,
                       "response": {"publishers": {"webrtc": {}}, "pad": "x" * (APP_DOCUMENT_BYTES + 1)}})
    server = answering(Answer(200, body.encode(), {"Content-Type": "application/json;charset=UTF-8"}))
    yield server
    await server.aclose()


async def test_a_document_past_its_cap_is_refused_and_nothing_is_confirmed(too_large: LoopbackServer) -> None:
    async with OmeClient(too_large.url, TOKEN) as client:
        with pytest.raises(ReplyTooLarge) as caught:
            await client.app_config("default", "app")
    assert "application document" in caught.value.message and TOKEN not in caught.value.message
    urls = playback_urls("http://h:3333", NodePath("default", "app", "s"), None, None)
    assert [(u.label, u.assumed) for u in urls] == [
        ("LL-HLS llhls", NOT_CONFIRMED), ("thumbnail", NOT_CONFIRMED), ("WebRTC", NOT_CONFIRMED)]


@pytest.mark.parametrize("response", [["publishers"], "webrtc", 7],
                         ids=["a-list", "a-string", "a-number"])
async def test_a_document_that_is_not_an_object_is_a_protocol_error(response: object) -> None:
    server = answering(Answer.json({"message": "OK", "response": response, "statusCode": 200}))
    try:
        async with OmeClient(server.url, TOKEN) as client:
            with pytest.raises(ProtocolError):
                await client.app_config("default", "app")
    finally:
        await server.aclose()


async def test_a_document_nested_too_deeply_is_a_protocol_error_not_a_crash() -> None:
    body = b'{"message":"OK","statusCode":200,"response":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    server = answering(Answer(200, body, {"Content-Type": "application/json;charset=UTF-8"}))
    try:
        async with OmeClient(server.url, TOKEN) as client:
            with pytest.raises(ProtocolError):
                await client.app_config("default", "app")
    finally:
        await server.aclose()
