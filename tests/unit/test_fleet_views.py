"""The fleet views as pure functions: who ingests, viewers per server and protocol, sums that are never a
partial total shown as whole; and the PROFILE:vhost/app/stream names they are asked with."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omeconsole.core.fleet.naming import UnknownServer, bare_profile, servers_of
from omeconsole.core.fleet.views import ServerReading, fleet_totals, fleet_view
from omeconsole.core.history.target import Target
from omeconsole.core.text import visible
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, StreamInfo

PATH = NodePath("default", "app", "stream")
PROTOCOLS = ("llhls", "hlsv3", "webrtc", "srt", "ovt", "push", "file", "thumbnail")
PLAYBACK = ("llhls", "hlsv3", "webrtc", "srt")


def stats(out: dict[str, int] | None, inputs: dict[str, int] | None = None, *, rate_in: int | None = 1000,
          rate_out: int | None = 2000, bytes_out: int | None = 10) -> NodeStats:
    return NodeStats(created=None, last_updated=None, total_bytes_in=5, total_bytes_out=bytes_out,
                     connections_in=inputs, connections_out=out,
                     total_connections=None if out is None else sum(out.values()), max_total_connections=None,
                     max_total_connection_time=None, avg_throughput_in_bps=rate_in, avg_throughput_out_bps=rate_out,
                     max_throughput_in_bps=None, max_throughput_out_bps=None, last_throughput_in_bytes=None,
                     last_throughput_out_bytes=None)


def info(source: str) -> StreamInfo:
    return StreamInfo(name="stream", source_type=source, source_url=None, created=None, tracks=())


counts = st.dictionaries(st.sampled_from(PROTOCOLS), st.integers(0, 10_000))


@given(st.lists(counts, min_size=1, max_size=6))
def test_the_fleets_viewers_are_the_sum_of_each_servers_playback_counts(servers: list[dict[str, int]]) -> None:
    readings = [ServerReading(f"s{i}", stats(out, {"ovt": 1} if i else {"rtmp": 1}), 1.0, 2.0)
                for i, out in enumerate(servers)]
    view = fleet_view(PATH, readings)
    assert view.viewers == sum(n for out in servers for name, n in out.items() if name in PLAYBACK)
    assert view.relays == sum(out.get("ovt", 0) for out in servers)
    for name in PROTOCOLS:
        assert view.by_protocol.get(name, 0) == sum(out.get(name, 0) for out in servers)
    assert [p.viewers for p in view.servers] == [sum(n for k, n in out.items() if k in PLAYBACK) for out in servers]
    words = {"ovt": "relays", "push": "pushes", "file": "recordings", "thumbnail": "thumbnails"}
    assert dict(view.others) == {words[k]: n for k in words if (n := sum(out.get(k, 0) for out in servers))}
    assert view.origins == ("s0",) and view.edges == tuple(f"s{i}" for i in range(1, len(servers)))
    assert view.rate_out_bps == 2.0 * len(servers) and view.ingest_bps == 1.0  # the origin's, not each edge's
    assert view.complete


def test_an_open_source_server_tells_its_input_by_the_streams_source_type() -> None:
    view = fleet_view(PATH, [ServerReading("origin", stats({"ovt": 1}), info=info("SRT")),
                             ServerReading("edge", stats({"llhls": 3}), info=info("Ovt")),
                             ServerReading("unknown", stats({"llhls": 1}))])
    assert [(p.role, p.inputs) for p in view.servers] == [("origin", ("srt",)), ("edge", ("ovt",)), (None, ())]
    mixed = fleet_view(PATH, [ServerReading("both", stats({}, {"ovt": 1, "rtmp": 1}))])
    assert mixed.servers[0].role == "origin"  # any input but OVT: it ingests


def test_servers_without_the_node_or_not_read_stay_out_of_the_sums_and_say_so() -> None:
    view = fleet_view(PATH, [ServerReading("origin", stats({"llhls": 4})), ServerReading("edge-1"),
                             ServerReading("edge-2", error="cannot connect"), ServerReading("edge-3", pending=True)])
    assert [p.presence for p in view.servers] == ["present", "absent", "failed", "pending"]
    assert view.present == ("origin",) and view.failed == ("edge-2",) and view.not_read == ("edge-2", "edge-3")
    assert not view.complete and view.viewers == 4
    assert view.servers[2].error == "cannot connect"


def test_a_sum_is_none_when_one_present_server_lacks_the_figure() -> None:
    first = fleet_view(PATH, [ServerReading("a", stats({"llhls": 1}), None, None),
                              ServerReading("b", stats({"llhls": 2}), 5.0, 6.0)])
    assert first.rate_out_bps is None and first.viewers == 3  # a first reading has no rate yet: not "6.0"
    broken = fleet_view(PATH, [ServerReading("a", stats(None)), ServerReading("b", stats({"llhls": 2}))])
    assert broken.viewers is None and broken.relays is None  # the server sent its counts broken
    assert broken.server_out_bps == 4000.0


def test_the_fleets_totals_add_each_servers_virtual_hosts() -> None:
    totals = fleet_totals({
        "origin": [ServerReading("origin", stats({"ovt": 2, "llhls": 1}, {"rtmp": 3})),
                   ServerReading("origin", stats({"webrtc": 5}, {"srt": 1}))],
        "edge": [ServerReading("edge", stats({"llhls": 7}, {"ovt": 4}), 3.0, 4.0)],
        "down": [ServerReading("down", error="refused")],
        "empty": [],
    })
    origin, edge, down, empty = totals.servers
    assert origin.viewers == 6 and origin.relays == 2 and origin.inputs == ("rtmp", "srt") and origin.role == "origin"
    assert origin.server_out_bps == 4000.0 and origin.bytes_out == 20
    assert edge.role == "edge" and edge.rate_out_bps == 4.0
    assert down.presence == "failed" and down.error == "refused" and empty.presence == "absent"
    assert totals.path is None and totals.viewers == 13 and totals.relays == 2 and not totals.complete
    assert totals.by_protocol == {"llhls": 8, "ovt": 2, "webrtc": 5}


names = st.text(st.characters(blacklist_characters="/", blacklist_categories=("Cs",)), min_size=1,
                max_size=8).filter(lambda n: n.strip() == n)
"""Names a user can type (a name with spaces at its ends cannot be typed back)."""


@given(st.one_of(st.none(), names.filter(lambda n: ":" not in n)), names, names, names)
def test_a_node_name_reads_back_as_it_was_printed(profile: str | None, vhost: str, app: str, stream: str) -> None:
    for path in (NodePath(vhost), NodePath(vhost, app), NodePath(vhost, app, stream)):
        if not path.addressable:
            continue
        target = Target(profile, path)
        assert Target.parse(str(target)) == target  # a vhost with ':' is written after an empty profile
        assert not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in visible(str(target)))


def test_a_name_means_its_server_or_every_server() -> None:
    profiles = ("origin", "edge-1")
    assert servers_of(Target.parse("edge-1:default/app/s"), profiles) == ("edge-1",)
    assert servers_of(Target.parse("default/app/s"), profiles) == profiles
    with pytest.raises(UnknownServer, match=r"'edge-9' is not a server of this fleet \(servers: origin, edge-1\)"):
        servers_of(Target.parse("edge-9:default/app/s"), profiles)


def test_a_profile_alone_names_a_whole_server() -> None:
    assert bare_profile("edge-1:") == "edge-1" and bare_profile(" edge-1 : ") == "edge-1"
    assert bare_profile("edge-1:default") is None and bare_profile("a/b:") is None and bare_profile(":") is None
