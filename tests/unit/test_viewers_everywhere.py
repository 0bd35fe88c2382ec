"""Viewers are playback sessions on every surface: for any map of publisher connections, what the tree,
the header, the fleet, `stats` (text, line, JSON), the fleet's table and JSON, an export, the history
store and the viewer alerts call "viewers" is llhls + hlsv3 + webrtc + srt, and relays, pushes,
recordings and thumbnail readers are named as what they are."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from omeconsole.cli import fleet_format
from omeconsole.cli import format as fmt
from omeconsole.core.alerts.conditions import NoViewers, ViewersAbove
from omeconsole.core.alerts.rules import AlertRule
from omeconsole.core.export import _row
from omeconsole.core.fleet.views import ServerReading, fleet_totals, fleet_view
from omeconsole.core.history import codec
from omeconsole.core.polling.rates import RateWindow
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats
from omeconsole.ui.badges import others_text, viewers_text

PATH = NodePath("default", "app", "stream")
PLAYBACK = ("llhls", "hlsv3", "webrtc", "srt")
WORDS = {"ovt": "relays", "push": "pushes", "file": "recordings", "thumbnail": "thumbnails"}
SINGULAR = {"relays": "relay", "pushes": "push", "recordings": "recording", "thumbnails": "thumbnail"}
PROTOCOLS = (*PLAYBACK, *WORDS)

connection_maps = st.dictionaries(st.sampled_from(PROTOCOLS), st.integers(0, 5_000))


def stats(out: dict[str, int]) -> NodeStats:
    return NodeStats(created=datetime(2026, 1, 1, tzinfo=UTC), last_updated=None, total_bytes_in=1_000,
                     total_bytes_out=2_000, connections_in={"rtmp": 1}, connections_out=out,
                     total_connections=sum(out.values()), max_total_connections=sum(out.values()),
                     max_total_connection_time=None, avg_throughput_in_bps=None, avg_throughput_out_bps=None,
                     max_throughput_in_bps=None, max_throughput_out_bps=None, last_throughput_in_bytes=None,
                     last_throughput_out_bytes=None)


def playback(out: dict[str, int]) -> int:
    return sum(out.get(name, 0) for name in PLAYBACK)


def named_others(out: dict[str, int]) -> list[str]:
    """`16 relays`, `1 recording`: how each not-viewer count must read wherever it is named."""
    return [f"{count:,} {SINGULAR[word] if count == 1 else word}"
            for protocol, word in WORDS.items() if (count := out.get(protocol, 0))]


@settings(max_examples=150, deadline=None)
@given(connection_maps, st.lists(connection_maps, min_size=1, max_size=4))
def test_viewers_on_every_surface_are_the_four_playback_protocols(out: dict[str, int],
                                                                  fleet: list[dict[str, int]]) -> None:
    reading = stats(out)
    expected = playback(out)
    assert reading.viewers == expected

    sample = RateWindow().sample(reading, 10.0)
    assert sample.viewers == expected
    view = NodeView(PATH, NodeState.LIVE, latest=sample)

    # The tree row and the header (one badge function for both).
    assert viewers_text(view) == (f"{expected:,} viewer" if expected == 1 else f"{expected:,} viewers")
    assert others_text(view).split(" · ") == (named_others(out) or [""])

    # `omeconsole stats`: text, line and JSON.
    text = fmt.stats_text(PATH, reading, None, sample)
    assert re.search(rf"^  viewers +{expected:,} now", text, re.M), text
    for named in named_others(out):
        assert named in text
    line = fmt.stats_line(PATH, reading, sample, datetime(2026, 1, 1, tzinfo=UTC))
    assert f"viewers {expected:,}" in line
    document = json.loads(fmt.sample_json(PATH, sample))
    assert document["viewers"] == expected
    assert {word: document[word] for word in WORDS.values()} == {w: out.get(p, 0) for p, w in WORDS.items()}

    # An export row and the history store (written and read back).
    row = _row(sample, datetime(2026, 1, 1, tzinfo=UTC), 10.0)
    assert row["viewers"] == expected and row["relays"] == out.get("ovt", 0)
    assert row["total_connections"] == sum(out.values())
    back = codec.stats_from_row(1_000, 2_000, sample.viewers, codec.stats_detail(reading))
    assert back.viewers == expected and back.total_connections == sum(out.values())

    # The viewer alerts judge viewers only.
    above = ViewersAbove(AlertRule(kind="viewers_above", viewers=expected))
    assert above.judge(view).holds is False
    none = NoViewers(AlertRule(kind="no_viewers", after=0.0))
    assert none.judge(view).holds is (expected == 0)

    # The fleet: each server's part, the sums, the whole fleet's totals, and the CLI's table and JSON.
    readings = [ServerReading(f"s{i}", stats(counts), 1.0, 2.0) for i, counts in enumerate(fleet)]
    node = fleet_view(PATH, readings)
    assert [part.viewers for part in node.servers] == [playback(counts) for counts in fleet]
    assert node.viewers == sum(playback(counts) for counts in fleet)
    totals = fleet_totals({reading.profile: [reading] for reading in readings})
    assert totals.viewers == node.viewers
    shown = json.loads(fleet_format.view_json("lab", node))
    assert shown["sum"]["viewers"] == node.viewers
    assert [server["viewers"] for server in shown["servers"]] == [playback(counts) for counts in fleet]
    assert shown["sum"]["recordings"] == sum(counts.get("file", 0) for counts in fleet)
    table = fleet_format.view_text("lab", node, server_figures=False)
    fleet_row = next(line for line in table.splitlines() if line.startswith("  fleet "))
    assert fleet_row.split()[1] == f"{node.viewers:,}"


def test_a_stream_watched_by_nobody_but_recorded_pushed_and_thumbnailed_has_no_viewers() -> None:
    """The issue's case: 1 recording, 2 pushes, 1 thumbnail reader are 0 viewers, each named."""
    reading = stats({"file": 1, "push": 2, "thumbnail": 1, "llhls": 0})
    sample = RateWindow().sample(reading, 1.0)
    view = NodeView(PATH, NodeState.LIVE, latest=sample)
    assert viewers_text(view) == "0 viewers"
    assert others_text(view) == "2 pushes · 1 recording · 1 thumbnail"
    text = fmt.stats_text(PATH, reading, None, sample)
    assert "  viewers           0 now" in text and "2 pushes · 1 recording · 1 thumbnail" in text
    assert "connections       4 now" in text


def test_info_gives_every_figure_its_unit() -> None:
    """`omeconsole info`: the keyframe interval the server gives in frames, in seconds and frames."""
    from omeconsole.model.readings import StreamInfo, TrackInfo

    video = TrackInfo(id=0, type="Video", codec="H264", width=640, height=360, framerate=29.97,
                      keyframe_interval=29.9619, bitrate=800_000)
    text = fmt.info_text(StreamInfo(name="stream", source_type="Rtmp", source_url=None, created=None,
                                    tracks=(video, TrackInfo(id=1, type="Audio", samplerate=44100, channels=1))))
    assert "keyframe every 1.0 s (29.96 frames)" in text and "29.97 fps" in text
    assert "44100 Hz" in text and "1 ch" in text and "800.00 kb/s" in text
    unknown_rate = TrackInfo(id=0, type="Video", keyframe_interval=60.0)
    assert "keyframe every 60.00 frames" in fmt.info_text(StreamInfo("s", None, None, None, (unknown_rate,)))
