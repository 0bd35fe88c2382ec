"""The viewers chart's arithmetic: whole-number ticks, a legend that never hides a line, one line per playback
protocol (relays are not viewers), gaps and not zeros where per-protocol counts were not kept; and the
history's viewers per protocol for each point."""

from __future__ import annotations

from omeconsole.core.chart_scale import count_axis
from omeconsole.core.history.points import HistoryPoint
from omeconsole.core.history.protocol_viewers import per_point, playback_counts
from omeconsole.model.nodes import NodeState, NodeView
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample
from omeconsole.ui.widgets.throughput_chart import COUNT, Panel, Series, legend_top
from omeconsole.ui.widgets.viewers_series import coverage_note, labelled, protocol_lines, viewers_chart

STREAM = NodePath("default", "app", "news")


def stats(out: dict[str, int] | None) -> NodeStats:
    return NodeStats(created=None, last_updated=None, total_bytes_in=None, total_bytes_out=None,
                     connections_in=None, connections_out=out, total_connections=None, max_total_connections=None,
                     max_total_connection_time=None, avg_throughput_in_bps=None, avg_throughput_out_bps=None,
                     max_throughput_in_bps=None, max_throughput_out_bps=None, last_throughput_in_bytes=None,
                     last_throughput_out_bytes=None)


def reading(at: float, out: dict[str, int] | None, viewers: int | None = None) -> Sample:
    total = viewers if viewers is not None or out is None else sum(
        out.get(p, 0) for p in ("llhls", "hlsv3", "webrtc", "srt"))
    return Sample(at=at, rate_in_bps=None, rate_out_bps=None, viewers=total, stats=stats(out))


def test_count_ticks_are_whole_numbers_in_one_two_five_steps() -> None:
    assert count_axis(3.3, 5).labels == ["0", "1", "2", "3", "4"], "a count has no halves"
    assert count_axis(25.3, 2).ticks == [0.0, 20.0, 40.0]
    assert count_axis(1320.0, 3).labels == ["0", "500", "1,000", "1,500"]
    assert count_axis(0.0, 3).labels == ["0", "1"], "nobody watching: 0 to 1, not a made-up scale"
    for top in (0.4, 7.0, 99.0, 12_345.0):
        axis = count_axis(top, 4)
        assert axis.top >= top and all(tick == int(tick) for tick in axis.ticks)


def test_the_legend_keeps_the_lines_under_it() -> None:
    assert legend_top(20.0, 10, 4) == 20.0 * 10 / 6, "4 legend rows of 10: the line stays in the lower 6"
    assert legend_top(20.0, 5, 4) == 20.0, "no room for both: the scale is not squashed to nothing"
    assert legend_top(20.0, 10, 0) == 20.0


def test_one_line_per_playback_protocol_with_viewers_named_with_its_latest_count() -> None:
    samples = [reading(-2.0, {"llhls": 3, "webrtc": 0, "ovt": 9}), reading(-1.0, {"llhls": 4, "webrtc": 2, "ovt": 9}),
               reading(0.0, {"llhls": 5, "webrtc": 1, "ovt": 9, "push": 2})]
    lines = protocol_lines(samples, now=0.0)
    assert [line.label for line in lines] == ["llhls 5", "webrtc 1"], "relays and pushes are not viewers"
    assert lines[0].ys == [3.0, 4.0, 5.0] and lines[1].ys == [0.0, 2.0, 1.0] and lines[0].xs == [-2.0, -1.0, 0.0]
    assert all(line.axis == COUNT for line in lines)
    unknown = protocol_lines([reading(-1.0, {"llhls": 2}), reading(0.0, None, viewers=3)], now=0.0)
    assert unknown[0].ys == [2.0, None], "no per-protocol counts: a gap, never a zero"
    assert labelled("llhls", [2.0, None]) == "llhls 2" and labelled("total", [None]) == "total"
    assert labelled("total", [1204.0]) == "total 1,204"


def view(level_path: NodePath, history: list[Sample]) -> NodeView:
    return NodeView(path=level_path, state=NodeState.LIVE, latest=history[-1], history=history)


def test_a_stream_shows_its_protocols_and_total_and_other_nodes_their_total() -> None:
    history = [reading(float(t), {"llhls": 10 + t, "hlsv3": 2}) for t in range(-30, 1)]
    chart = viewers_chart(view(STREAM, history), now=0.0, window=60.0)
    assert isinstance(chart, Panel) and chart.title == "viewers" and chart.note == ""
    assert [line.label for line in chart.lines] == ["llhls 10", "hlsv3 2", "total 12"]
    assert chart.lines[-1].ys[0] == 2.0 + 10 - 30
    alone = viewers_chart(view(STREAM, [reading(float(t), {"webrtc": 4}) for t in range(-5, 1)]), 0.0, 60.0)
    assert isinstance(alone, Panel) and [line.label for line in alone.lines] == ["webrtc 4"], "one protocol: no twin"
    app = viewers_chart(view(NodePath("default", "app"), history), now=0.0, window=60.0)
    assert isinstance(app, Series) and app.label == "viewers" and app.ys[-1] == 12.0 and app.axis == COUNT


def test_what_the_per_protocol_lines_lack_is_said() -> None:
    total = Series("total", [-3000.0, -600.0, 0.0], [5.0, 6.0, 7.0], "foreground", COUNT)
    recent = [reading(t, {"llhls": 7}) for t in (-600.0, -300.0, 0.0)]
    assert coverage_note(total, recent, 0.0) == "per protocol: last 10 min"
    assert coverage_note(total, [reading(t, None, 5) for t in (-3000.0, 0.0)], 0.0) == "per protocol not recorded"
    whole = [reading(t, {"llhls": 7}) for t in (-3000.0, -600.0, 0.0)]
    assert coverage_note(total, whole, 0.0) == ""


def test_history_points_get_the_per_protocol_counts_of_their_last_reading() -> None:
    samples = [reading(100.0, {"llhls": 1}), reading(101.0, {"llhls": 2, "srt": 1}), reading(112.0, None, 4)]
    as_taken = [HistoryPoint(at=100.0, span=0.0, samples=1), HistoryPoint(at=101.0, span=0.0, samples=1),
                HistoryPoint(at=106.0, span=0.0, samples=0), HistoryPoint(at=112.0, span=0.0, samples=1)]
    assert per_point(as_taken, samples) == [{"llhls": 1, "hlsv3": 0, "webrtc": 0, "srt": 0},
                                            {"llhls": 2, "hlsv3": 0, "webrtc": 0, "srt": 1}, None, None]
    buckets = [HistoryPoint(at=100.0, span=10.0, samples=2), HistoryPoint(at=110.0, span=10.0, samples=1),
               HistoryPoint(at=120.0, span=10.0, samples=0)]
    assert per_point(buckets, samples) == [{"llhls": 2, "hlsv3": 0, "webrtc": 0, "srt": 1}, None, None]
    assert playback_counts(reading(0.0, {"ovt": 3})) == {"llhls": 0, "hlsv3": 0, "webrtc": 0, "srt": 0}
