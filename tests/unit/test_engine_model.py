"""Paths and rates: the small rules every screen and script depends on."""

from __future__ import annotations

import dataclasses
import random
from datetime import UTC, datetime, timedelta

import pytest

from omeconsole.core.polling.rates import RateWindow
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats, Sample

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def stats(bytes_in: int, bytes_out: int, updated_s: float, created: datetime = T0) -> NodeStats:
    return NodeStats(created=created, last_updated=T0 + timedelta(seconds=updated_s), total_bytes_in=bytes_in,
                     total_bytes_out=bytes_out, connections_in=None, connections_out={"llhls": 2, "file": 1},
                     total_connections=3,
                     max_total_connections=3, max_total_connection_time=T0, avg_throughput_in_bps=0,
                     avg_throughput_out_bps=0, max_throughput_in_bps=0, max_throughput_out_bps=0,
                     last_throughput_in_bytes=0, last_throughput_out_bytes=0)


@pytest.mark.parametrize(("text", "parts", "level"), [
    ("v", ("v", None, None), "vhost"), ("v/a", ("v", "a", None), "app"), ("/v/a/s/", ("v", "a", "s"), "stream"),
])
def test_paths_parse(text: str, parts: tuple[str | None, ...], level: str) -> None:
    path = NodePath.parse(text)
    assert (path.vhost, path.app, path.stream) == parts and path.level == level
    assert NodePath.parse(str(path)) == path


@pytest.mark.parametrize("text", ["", "/", "v//s", "a/b/c/d"])
def test_bad_paths_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="vhost"):
        NodePath.parse(text)


def test_paths_order_parents_before_children_and_hash() -> None:
    paths = [NodePath("v", "a", "s"), NodePath("v"), NodePath("v", "a"), NodePath("u", "z")]
    assert sorted(paths) == [NodePath("u", "z"), NodePath("v"), NodePath("v", "a"), NodePath("v", "a", "s")]
    assert NodePath("v", "a", "s").parent == NodePath("v", "a") and NodePath("v").parent is None
    assert len({NodePath("v", "a"), NodePath("v", "a")}) == 1


def feed(window: RateWindow, readings: list[tuple[float, int, int, float]]) -> list[Sample]:
    """(console time, bytes in, bytes out, server's lastUpdatedTime in seconds) -> samples."""
    return [window.sample(stats(bytes_in, bytes_out, updated), at=at) for at, bytes_in, bytes_out, updated in readings]


def test_rates_are_bytes_over_the_consoles_own_clock_whatever_the_server_stamps() -> None:
    # lastUpdatedTime jumps around (a viewer served between polls moves it): the rates do not care
    samples = feed(RateWindow(), [(10.0, 0, 0, 0.0), (11.0, 1_000_000, 4_000_000, 0.3),
                                  (12.0, 2_000_000, 8_000_000, 1.01), (13.0, 3_000_000, 12_000_000, 2.9)])
    assert [s.rate_in_bps for s in samples] == [None, None, 8_000_000, 8_000_000]
    assert [s.rate_out_bps for s in samples] == [None, None, 32_000_000, 32_000_000]
    assert samples[0].viewers == 2  # playback only: the recording is not a viewer
    assert samples[2].window_s == 2.0 and samples[3].window_s == 3.0


def test_the_window_grows_to_five_seconds_then_slides() -> None:
    window = RateWindow()
    samples = feed(window, [(float(t), t * 1_000, t * 1_000, t) for t in range(12)])
    assert [s.window_s for s in samples] == [None, None, 2.0, 3.0, 4.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0]
    assert all(s.rate_in_bps == 8_000 for s in samples[2:])
    assert window.sampled_every() == 1.0


def test_counter_resets_and_glitches_give_no_rate_rather_than_a_spike() -> None:
    window = RateWindow()
    feed(window, [(0.0, 10_000_000, 10_000_000, 0), (2.0, 10_002_000, 10_002_000, 0)])
    went_back = window.sample(stats(5_000, 5_000, 3), at=3.0)
    assert went_back.rate_in_bps is None and went_back.rate_out_bps is None  # a total below: left out
    back_on_track = window.sample(stats(10_004_000, 10_004_000, 4), at=4.0)
    assert back_on_track.rate_in_bps == 8_000  # from the totals before the glitch: no spike after it
    for at in range(5, 17):  # below for good: after GLITCH_S it is a restart the server did not announce
        below = window.sample(stats(at * 1_000, at * 1_000, at), at=float(at))
    assert below.rate_in_bps == 8_000
    restarted = window.sample(stats(20_000_000, 20_000_000, 17, created=T0 + timedelta(seconds=17)), at=17.0)
    assert restarted.rate_in_bps is None  # a new createdTime: the totals are not comparable
    glitch = RateWindow()
    feed(glitch, [(0.0, 10_000_000, 10_000_000, 0)])
    jump = glitch.sample(stats(10_000_000 + 10**14, 10_000_000, 2), at=2.0)
    assert jump.rate_in_bps is None and jump.rate_out_bps == 0.0  # faster than any link: a glitch
    still = RateWindow()
    assert feed(still, [(0.0, 7, 7, 0), (5.0, 7, 7, 0)])[-1].rate_in_bps == 0.0  # nothing moved: zero


def test_invalid_totals_are_left_out_and_never_poison_later_rates() -> None:
    window = RateWindow()
    window.sample(stats(0, 0, 0), at=0.0)
    for at, bad in ((1.0, None), (2.0, 10**400), (3.0, -5)):
        sample = window.sample(dataclasses.replace(stats(0, int(at) * 1000, at), total_bytes_in=bad), at=at)
        assert sample.rate_in_bps is None  # no value, no rate
        assert sample.rate_out_bps is None or sample.rate_out_bps == 8_000
    recovered = window.sample(stats(4_000, 4_000, 4), at=4.0)
    assert recovered.rate_in_bps == 8_000 and recovered.rate_out_bps == 8_000  # from the last valid total


def test_the_sample_says_when_the_servers_own_figures_disagree() -> None:
    def reading(at: float, total: int, avg: int, peak: int) -> NodeStats:
        return dataclasses.replace(stats(total, total, at), avg_throughput_in_bps=avg, max_throughput_in_bps=peak,
                                   avg_throughput_out_bps=avg, max_throughput_out_bps=peak)

    agree = RateWindow()
    for t in range(6):
        last = agree.sample(reading(t, t * 1_000_000, 8_000_000, 9_000_000), at=float(t))
    assert last.rate_in_bps == 8_000_000 and last.disagree == frozenset()
    above_peak = RateWindow()
    above_peak.sample(reading(0, 0, 2_000_000, 2_230_000), at=0.0)
    spike = above_peak.sample(reading(2, 1_400_000, 2_000_000, 2_230_000), at=2.0)
    assert spike.rate_in_bps == 5_600_000 and spike.disagree == {"in", "out"}  # the 5.49 vs max 2.23
    far = RateWindow()
    for t in range(6):
        last = far.sample(reading(t, t * 1_000_000, 16_000_000, 20_000_000), at=float(t))
    assert last.disagree == {"in", "out"}  # the server says 16 Mb/s each second, the bytes say 8
    sparse = RateWindow()
    for t in range(0, 12, 3):
        last = sparse.sample(reading(t, t * 1_000_000, 16_000_000, 20_000_000), at=float(t))
    assert last.disagree == frozenset()  # polled every 3 s: one server figure in three is no basis


def stepped(at: float, step: int, per_step: int, created: datetime = T0) -> NodeStats:
    """A server that counts in one-second steps and stamps lastRecvTime at each step."""
    return dataclasses.replace(stats(step * per_step, 2 * step * per_step, at), last_recv=T0 + timedelta(seconds=step),
                               created=created)


def test_on_the_servers_ingress_clock_a_window_holds_whole_counter_steps_at_any_poll_phase() -> None:
    window = RateWindow()
    rng = random.Random(5)
    at = 0.0
    for _ in range(40):
        at += rng.uniform(0.4, 1.7)  # the console polls whenever it can
        sample = window.sample(stepped(at, int(at), 1_000), at=at)
        if sample.window_s is None:
            continue
        assert sample.window_clock == "server"
        assert sample.rate_in_bps == 8_000 and sample.rate_out_bps == 16_000  # never 5 or 6 steps in 5.6 s


def test_ingest_that_stopped_reads_zero_on_the_consoles_clock() -> None:
    window = RateWindow()
    for at in range(4):
        window.sample(stepped(float(at), at, 1_000), at=float(at))
    for at in range(4, 10):  # lastRecvTime and the totals stand still
        sample = window.sample(stepped(float(at), 3, 1_000), at=float(at))
    assert sample.window_clock == "console" and sample.rate_in_bps == 0.0 and sample.window_s == 5.0


@pytest.mark.parametrize("stamp", [T0 - timedelta(hours=1), T0 + timedelta(hours=5), None,
                                   datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, tzinfo=UTC)],
                         ids=["set back", "set forward", "missing", "year 1", "year 9999"])
def test_a_server_clock_that_jumped_or_is_unreadable_falls_back_to_the_consoles(stamp: datetime | None) -> None:
    window = RateWindow()
    for at in range(6):
        window.sample(stepped(float(at), at, 1_000), at=float(at))
    sample = window.sample(dataclasses.replace(stepped(6.0, 6, 1_000), last_recv=stamp), at=6.0)
    assert sample.window_clock == "console" and sample.rate_in_bps == 8_000
