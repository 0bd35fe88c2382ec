"""A hostile server on loopback against the console's wire layer: bombs, huge bodies, trickles, bad names,
absurd numbers, a certificate nobody trusts. Nothing may crash, block past its deadline, or take memory
beyond the cap set for it (measured with tracemalloc, not time)."""

from __future__ import annotations

import gzip
import json
import ssl
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from functools import cache
from typing import Any

import pytest
import trustme
from fake_clock import FakeClock
from fake_ome_server import FakeOme
from loopback_server import Answer, Behaviour, LoopbackServer, Request, Stall

from omeconsole.api.client import OmeClient
from omeconsole.api.errors import ProtocolError, ReplyTooLarge, UnaddressableError, UnreachableError
from omeconsole.api.http import MiB
from omeconsole.api.publisher import PlaylistUnreadable, PublisherReader
from omeconsole.model.paths import NodePath

TOKEN = "hostile-test-token"
CAP = 1 * MiB
MEMORY_ALLOWANCE = 8 * MiB
"""Peak Python allocation allowed for one request under a 1 MiB cap: the cap, a few read buffers, the rest."""


@cache
def gzip_bomb_1gib() -> bytes:
    """About 1 MB of gzip that expands to 1 GiB of zeros (1024 members of 1 MiB each, as RFC 1952 allows)."""
    return gzip.compress(bytes(MiB), 9) * 1024


@cache
def gzip_bomb_single_member() -> bytes:
    """One gzip member, 64 KiB, expanding to 64 MiB."""
    return gzip.compress(bytes(64 * MiB), 9)


def envelope(response: object) -> bytes:
    return json.dumps({"message": "OK", "response": response, "statusCode": 200}).encode()


@pytest.fixture
async def serve() -> AsyncIterator[Callable[..., LoopbackServer]]:
    servers: list[LoopbackServer] = []

    def start(behaviour: Behaviour | Callable[[Request], Awaitable[Behaviour]], **options: Any) -> LoopbackServer:
        async def fixed(request: Request) -> Behaviour:
            return behaviour  # type: ignore[return-value]

        server = LoopbackServer(behaviour if callable(behaviour) else fixed, **options).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.aclose()


class PeakMemory:
    """Peak bytes allocated by Python (all threads) inside the block."""

    def __enter__(self) -> PeakMemory:
        tracemalloc.start()
        tracemalloc.reset_peak()
        self.peak = 0
        return self

    def __exit__(self, *exc: object) -> None:
        self.peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


@pytest.fixture
def peak() -> Iterator[type[PeakMemory]]:
    yield PeakMemory


@pytest.mark.parametrize("bomb", [gzip_bomb_1gib, gzip_bomb_single_member], ids=["1GiB-multi-member", "64MiB"])
async def test_a_gzip_bomb_stops_at_the_cap(serve, bomb: Callable[[], bytes]) -> None:
    body = bomb()
    server = serve(Answer(200, body, {"Content-Encoding": "gzip", "Content-Type": "application/json"}))
    async with OmeClient(server.url, TOKEN, max_reply_bytes=CAP) as client:
        with PeakMemory() as memory, pytest.raises(ReplyTooLarge) as caught:
            await client.list_vhosts()
    assert memory.peak < MEMORY_ALLOWANCE, f"{memory.peak / MiB:.1f} MiB for a {CAP / MiB:g} MiB cap"
    assert "max_reply_bytes = 1 MiB" in caught.value.message and "raise max_reply_bytes" in caught.value.message
    assert caught.value.limit == CAP and caught.value.setting == "max_reply_bytes"


@pytest.mark.parametrize("length", [None, -1], ids=["declared-400MB", "until-close"])
async def test_a_huge_body_is_not_read_past_the_cap(serve, length: int | None) -> None:
    server = serve(Answer(200, b" " * MiB, repeat=400, length=length))
    async with OmeClient(server.url, TOKEN, max_reply_bytes=CAP) as client:
        with PeakMemory() as memory, pytest.raises(ReplyTooLarge):
            await client.list_vhosts()
    assert memory.peak < MEMORY_ALLOWANCE


def _deflate(raw: bytes, wbits: int) -> bytes:
    packer = zlib.compressobj(wbits=wbits)
    return packer.compress(raw) + packer.flush()


ENCODINGS: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "gzip": ("gzip", gzip.compress),
    "gzip-three-members": ("gzip", lambda raw: b"".join(
        gzip.compress(raw[i * len(raw) // 3:(i + 1) * len(raw) // 3]) for i in range(3))),
    "gzip-then-padding": ("gzip", lambda raw: gzip.compress(raw) + b"\0" * 100),
    "deflate": ("deflate", lambda raw: _deflate(raw, 15)),
    "raw-deflate": ("deflate", lambda raw: _deflate(raw, -15)),
}


@pytest.mark.parametrize("encoding", list(ENCODINGS))
async def test_compressed_replies_under_the_cap_are_read_whole(serve, encoding: str) -> None:
    names = [f"vhost-{i}" for i in range(20_000)]
    header, pack = ENCODINGS[encoding]
    server = serve(Answer(200, pack(envelope(names)), {"Content-Encoding": header}))
    async with OmeClient(server.url, TOKEN) as client:
        assert await client.list_vhosts() == names
    assert server.requests[0].headers["accept-encoding"] == "gzip, deflate"


@pytest.mark.parametrize(("headers", "body"), [
    ({"Content-Encoding": "gzip"}, b"\x1f\x8b\x08\x00 this is not gzip at all"),
    ({"Content-Encoding": "gzip"}, gzip.compress(envelope(["default"]), mtime=0)[:-12]),  # cut before its end
    ({"Content-Encoding": "br"}, b"\x0b\x02\x80{}\x03"),
], ids=["corrupt-gzip", "gzip-cut-short", "brotli"])
async def test_a_body_that_cannot_be_decoded_is_a_protocol_error(serve, headers: dict[str, str],
                                                                 body: bytes) -> None:
    async with OmeClient(serve(Answer(200, body, headers)).url, TOKEN) as client:
        with pytest.raises(ProtocolError):
            await client.list_vhosts()


# -- the publisher ------------------------------------------------------------------------------------

PLAYLIST = """#EXTM3U
#EXT-X-VERSION:6
#EXT-X-TARGETDURATION:6
#EXT-X-PART-INF:PART-TARGET=0.500
#EXT-X-MEDIA-SEQUENCE:10
#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:01:00.000+00:00
#EXT-X-PART:DURATION=0.500,URI="part_10_0.m4s",INDEPENDENT=YES
"""


async def test_a_playlist_bomb_is_unreadable_and_says_which_cap(serve) -> None:
    server = serve(Answer(200, gzip_bomb_1gib(), {"Content-Encoding": "gzip"}))
    reader = PublisherReader(server.url, "app", "stream", max_playlist_bytes=CAP)
    try:
        with PeakMemory() as memory, pytest.raises(PlaylistUnreadable, match="max_playlist_bytes"):
            await reader.chunklist()
    finally:
        await reader.aclose()
    assert memory.peak < MEMORY_ALLOWANCE


async def test_a_part_over_its_cap_is_not_had(serve) -> None:
    async def handler(request: Request) -> Behaviour:
        if request.path.endswith(".m3u8"):
            return Answer(200, PLAYLIST.encode())
        return Answer(200, b"\0" * MiB, repeat=64)

    server = serve(handler)
    reader = PublisherReader(server.url, "app", "stream", max_part_bytes=CAP)
    try:
        playlist, url = await reader.chunklist()
        with PeakMemory() as memory:
            assert await reader.part(url, playlist.parts[0].uri) is None
    finally:
        await reader.aclose()
    assert memory.peak < MEMORY_ALLOWANCE


async def test_a_trickling_playlist_gives_up_at_its_deadline(serve) -> None:
    server = serve(Answer(200, PLAYLIST.encode(), trickle_s=0.05))  # a byte every 50 ms: ~20 s in all
    reader = PublisherReader(server.url, "app", "stream", timeout=1.0, deadline=0.3)
    try:
        with pytest.raises(PlaylistUnreadable, match=r"within 0\.3 s"):
            await reader.chunklist()
        with pytest.raises(PlaylistUnreadable, match=r"within 0\.2 s"):
            await reader.chunklist(deadline=0.2)  # a caller's own, shorter deadline
    finally:
        await reader.aclose()


async def test_a_stalled_part_is_not_had_after_its_deadline(serve) -> None:
    async def handler(request: Request) -> Behaviour:
        return Answer(200, PLAYLIST.encode()) if request.path.endswith(".m3u8") else Stall()

    reader = PublisherReader(serve(handler).url, "app", "stream", timeout=0.2)
    try:
        playlist, url = await reader.chunklist()
        assert await reader.part(url, playlist.parts[0].uri) is None
    finally:
        await reader.aclose()


async def test_playlist_uris_with_controls_and_broken_text_go_escaped_not_raw(serve) -> None:
    multivariant = '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=1x1\n\ud800 bad\x1b[2J uri.m3u8\n'

    async def handler(request: Request) -> Behaviour:
        if request.path.endswith("llhls.m3u8"):
            return Answer(200, multivariant.encode("utf-8", "surrogatepass"))
        return Answer(200, PLAYLIST.encode())

    server = serve(handler)
    reader = PublisherReader(server.url, "app", "stream")
    try:
        playlist, url = await reader.chunklist()
    finally:
        await reader.aclose()
    assert playlist.media_sequence == 10
    chunklist = server.requests[1].target
    assert "\x1b" not in chunklist and " " not in chunklist and "%1B%5B2J" in chunklist and url.endswith(chunklist)


# -- names and numbers ---------------------------------------------------------------------------------

BAD_NAMES = ["a/b", "", "\ud800", "..", "."]


async def test_unaddressable_names_are_listed_as_data_and_never_requested() -> None:
    fake = FakeOme(FakeClock(), vhosts=1, apps_per_vhost=1, streams_per_app=1)
    fake.tree["vh0"]["app0"].extend(BAD_NAMES)
    for name in BAD_NAMES:
        fake.tree[name] = {"app0": ["s0"]}
    try:
        async with fake.client() as client:
            assert await client.list_vhosts() == ["vh0", *BAD_NAMES]
            assert await client.list_streams("vh0", "app0") == ["s0", *BAD_NAMES]
            before = len(fake.requests)
            for name in BAD_NAMES:
                with pytest.raises(UnaddressableError):
                    await client.stats(NodePath("vh0", "app0", name))
                with pytest.raises(UnaddressableError):
                    await client.list_apps(name)
                with pytest.raises(UnaddressableError):
                    await client.stream_info("vh0", name, "s0")
                with pytest.raises(UnaddressableError) as refused:
                    await client.cue_out(NodePath(name, "app0", "s0"), 30_000)
                assert "nothing was sent" in refused.value.message
            assert len(fake.requests) == before  # not one of them reached the server
            assert (await client.stats(NodePath("vh0", "app0", "s0"))).invalid == frozenset()
    finally:
        await fake.aclose()


async def test_absurd_numbers_in_a_live_reply_become_invalid_fields() -> None:
    clock = FakeClock()
    fake = FakeOme(clock, vhosts=1, apps_per_vhost=1, streams_per_app=1)
    fake.overrides["vh0/app0/s0"] = {
        "providers.totalBytesIn": 10**400, "publishers.totalConnections": -3,
        "createdTime": "9999-12-31T23:59:59-23:59", "providers.lastThroughputIn": float("nan"),
    }
    try:
        async with fake.client() as client:
            stats = await client.stats(NodePath("vh0", "app0", "s0"))
    finally:
        await fake.aclose()
    assert stats.invalid == {"total_bytes_in", "total_connections", "created", "last_throughput_in_bytes"}
    assert stats.total_bytes_out is not None and stats.last_updated is not None


# -- TLS ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def untrusted_tls() -> ssl.SSLContext:
    authority = trustme.CA()  # a certificate authority nobody trusts
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    return context


async def test_tls_certificates_are_verified_unless_turned_off(serve, untrusted_tls: ssl.SSLContext) -> None:
    server = serve(Answer(200, envelope(["default"])), tls=untrusted_tls)
    async with OmeClient(server.url, TOKEN) as client:
        with pytest.raises(UnreachableError, match="certificate is not trusted"):
            await client.list_vhosts()
        with pytest.raises(UnreachableError, match="nothing was sent"):
            await client.cue_in(NodePath("default", "app", "stream"))
    assert server.requests == []  # refused before a byte of request left
    async with OmeClient(server.url, TOKEN, verify=False) as insecure:
        assert await insecure.list_vhosts() == ["default"]
