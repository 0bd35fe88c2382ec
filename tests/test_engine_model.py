"""Paths and rates: the small rules every screen and script depends on."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from omeconsole.core.polling.rates import make_sample
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def stats(bytes_in: int, bytes_out: int, updated_s: float, created: datetime = T0) -> NodeStats:
    return NodeStats(created=created, last_updated=T0 + timedelta(seconds=updated_s), total_bytes_in=bytes_in,
                     total_bytes_out=bytes_out, connections_in=None, connections_out={}, total_connections=3,
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


def test_rates_use_the_servers_clock_so_polling_jitter_does_not_show() -> None:
    first = make_sample(None, stats(0, 0, 0), at=10.0)
    assert first.rate_in_bps is None and first.viewers == 3
    # the console's poll came 1.3 s later, but the counters moved over exactly 2 s of server time
    second = make_sample(first, stats(1_000_000, 4_000_000, 2), at=11.3)
    assert second.rate_in_bps == 4_000_000 and second.rate_out_bps == 16_000_000


def test_counter_resets_and_glitches_give_no_rate_rather_than_a_spike() -> None:
    base = make_sample(None, stats(10_000_000, 10_000_000, 0), at=0.0)
    went_back = make_sample(base, stats(5_000, 5_000, 1), at=1.0)
    assert went_back.rate_in_bps is None and went_back.rate_out_bps is None
    restarted = make_sample(base, stats(20_000_000, 20_000_000, 1, created=T0 + timedelta(seconds=1)), at=1.0)
    assert restarted.rate_in_bps is None  # a new createdTime: the totals are not comparable
    glitch = make_sample(base, stats(10_000_000 + 10**14, 10_000_000, 1), at=1.0)
    assert glitch.rate_in_bps is None and glitch.rate_out_bps == 0.0
    still = make_sample(base, dataclasses.replace(base.stats), at=5.0)
    assert still.rate_in_bps == 0.0  # nothing moved: zero, even though the server's clock did not move either
