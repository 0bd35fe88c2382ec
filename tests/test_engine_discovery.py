"""Discovery: the listing walk, what it reports as gone or back, and trees that never change under a reader."""

from __future__ import annotations

from omeconsole.core.polling.discovery import ListingJob, ListingWalker
from omeconsole.model.paths import NodePath


def full_pass(walker: ListingWalker, server: dict[str, dict[str, list[str]]]) -> list[NodePath]:
    walker.start_pass(0.0)
    gone: list[NodePath] = []
    while walker.active:
        for job in walker.take(3):
            if job.vhost is None:
                names = list(server)
            elif job.app is None:
                names = list(server[job.vhost])
            else:
                names = server[job.vhost][job.app]
            gone += walker.apply(job, names).gone
    return gone


def test_a_pass_builds_the_tree_and_counts_requests_per_level() -> None:
    walker = ListingWalker()
    server = {"v": {"a": ["s1", "s2"], "b": []}, "w": {"c": ["s3"]}}
    assert full_pass(walker, server) == []
    assert walker.tree == server
    assert walker.stream_count() == 3


def test_removed_apps_and_streams_are_reported_gone_and_old_trees_stay_intact() -> None:
    walker = ListingWalker()
    full_pass(walker, {"v": {"a": ["s1", "s2"], "b": ["s3"]}})
    before = walker.tree
    gone = full_pass(walker, {"v": {"a": ["s2", "s4"]}})
    assert set(gone) == {NodePath("v", "a", "s1"), NodePath("v", "b", "s3"), NodePath("v", "b")}
    assert walker.tree == {"v": {"a": ["s2", "s4"]}}
    assert before == {"v": {"a": ["s1", "s2"], "b": ["s3"]}}  # a reader's copy did not change


def test_a_stream_listed_again_is_reported_as_appeared() -> None:
    walker = ListingWalker()
    full_pass(walker, {"v": {"a": ["s1"]}})
    outcome = walker.apply(ListingJob("v", "a"), ["s1", "s9"])
    assert outcome.appeared == [NodePath("v", "a", "s9")] and outcome.changed
    assert outcome.listed == [NodePath("v", "a", "s1"), NodePath("v", "a", "s9")]  # all it lists, old or new


def test_every_level_reports_what_it_lists() -> None:
    walker = ListingWalker()
    full_pass(walker, {"v": {"a": ["s1"]}, "w": {}})
    assert walker.apply(ListingJob(), ["v", "w"]).listed == [NodePath("v"), NodePath("w")]
    assert walker.apply(ListingJob("v"), ["a"]).listed == [NodePath("v", "a")]
    assert walker.apply(ListingJob("v", "a"), ["s1"]).listed == [NodePath("v", "a", "s1")]


def test_a_missing_vhost_drops_everything_under_it() -> None:
    walker = ListingWalker()
    full_pass(walker, {"v": {"a": ["s1"]}, "w": {"b": ["s2"]}})
    outcome = walker.apply_missing(ListingJob("w"))
    assert set(outcome.gone) == {NodePath("w"), NodePath("w", "b"), NodePath("w", "b", "s2")}
    assert walker.tree == {"v": {"a": ["s1"]}}
