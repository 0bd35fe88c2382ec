"""The pure planner, fed a node store by hand (no network, no clock): what goes out first, what waits,
what is never asked, and when the next thing is due."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from omeconsole.api.errors import NotFoundError, ServerError
from omeconsole.core.polling.jobs import Failed, InfoJob, Listed, ListingJob, StatsJob, StatsRead
from omeconsole.core.polling.listing import ROOT
from omeconsole.core.polling.planner import Room, Screen, next_due, plan
from omeconsole.core.polling.settings import PollSettings
from omeconsole.core.polling.store import NodeStore
from omeconsole.model.paths import NodePath
from omeconsole.model.readings import NodeStats

SETTINGS = PollSettings()
T0 = datetime(2026, 1, 1, tzinfo=UTC)
READING = NodeStats(created=T0, last_updated=T0, total_bytes_in=0, total_bytes_out=0, connections_in=None,
                    connections_out={}, total_connections=0, max_total_connections=0, max_total_connection_time=T0,
                    avg_throughput_in_bps=0, avg_throughput_out_bps=0, max_throughput_in_bps=0,
                    max_throughput_out_bps=0, last_throughput_in_bytes=0, last_throughput_out_bytes=0)


def s(name: str, app: str = "a") -> NodePath:
    return NodePath("v", app, name)


def listed_store(now: float = 0.0, apps: dict[str, tuple[str, ...]] | None = None) -> NodeStore:
    """A store that has listed `v` with `apps` (default a: s0-s9, b: t0-t9) at `now`."""
    store = NodeStore(SETTINGS, random.Random(1))
    apps = apps or {"a": tuple(f"s{i}" for i in range(10)), "b": tuple(f"t{i}" for i in range(10))}
    for job, names in [(ROOT, ("v",)), (ListingJob("v"), tuple(apps)),
                       *((ListingJob("v", app), streams) for app, streams in apps.items())]:
        store.sent(job, now)
        store.apply(Listed(job, names, now), SETTINGS.interval)
    return store


def polled(store: NodeStore, paths: list[NodePath], at: float) -> None:
    for path in paths:
        store.sent(StatsJob(path), at)
        store.apply(StatsRead(StatsJob(path), READING, at), SETTINGS.interval)


def room(now: float, tokens: int = 20, link_up: bool = True, interval: float = 1.0) -> Room:
    return Room(now=now, tokens=tokens, interval=interval, link_up=link_up)


def test_the_selected_node_and_its_info_go_first_then_listings_on_screen_then_visible_oldest_first() -> None:
    store = listed_store()
    visible = [s(f"s{i}") for i in range(6)]
    polled(store, visible[3:], at=60.2)  # asked more recently than the others
    polled(store, visible[:3], at=60.5)
    screen = Screen(selected=s("s9"), visible=tuple(visible), expanded=frozenset({NodePath("v", "a")}))
    jobs = plan(store, screen, room(61.5), SETTINGS)
    assert jobs[:2] == [StatsJob(s("s9")), InfoJob(s("s9"))]
    assert jobs[2:5] == [ROOT, ListingJob("v"), ListingJob("v", "a")]  # what is on screen is listed first
    stats = [job.path for job in jobs[5:] if isinstance(job, StatsJob)]
    assert stats == visible[3:] + visible[:3]  # least recently asked first: round-robin under a tight budget
    assert jobs[5:].count(ListingJob("v", "b")) == 1  # an app not expanded: a background listing


def test_a_tight_budget_keeps_the_order_and_background_listings_get_only_a_share() -> None:
    store = listed_store()
    visible = tuple(s(f"s{i}") for i in range(10))
    screen = Screen(selected=visible[0], visible=visible)
    jobs = plan(store, screen, room(100.0, tokens=4), SETTINGS)
    assert jobs == [StatsJob(visible[0]), InfoJob(visible[0]), ROOT, ListingJob("v")]
    jobs = plan(store, screen, room(100.0, tokens=12), SETTINGS)
    background = [job for job in jobs if isinstance(job, ListingJob) and job.app is not None]
    assert 1 <= len(background) <= 4  # at most half of what is left while visible nodes wait
    assert len(jobs) == 12


def test_nothing_is_due_again_before_its_interval_and_the_interval_in_force_counts_at_once() -> None:
    store = listed_store()
    path = s("s1")
    polled(store, [path], at=0.0)
    screen = Screen(visible=(path,))
    assert plan(store, screen, room(0.5), SETTINGS) == [InfoJob(path)]  # v1 statistics do not tell its input
    store.sent(InfoJob(path), 0.5)  # asked once, whatever the answer
    assert plan(store, screen, room(0.5), SETTINGS) == []
    assert plan(store, screen, room(0.5, interval=60.0), SETTINGS) == []
    assert StatsJob(path) in plan(store, screen, room(1.0), SETTINGS)
    polled(store, [path], at=1.0)
    assert next_due(store, screen, 1.0, 60.0, SETTINGS) == 10.0  # the vhost listings, every 10 s
    assert StatsJob(path) not in plan(store, screen, room(30.0, interval=60.0), SETTINGS)
    # back to one second: the due time follows at once, whatever the 60 s interval had promised
    assert StatsJob(path) in plan(store, screen, room(30.0, interval=1.0), SETTINGS)


def test_an_app_newly_expanded_is_listed_at_once_and_then_every_listing_interval() -> None:
    store = listed_store(now=0.0)
    collapsed = Screen(visible=(NodePath("v", "b"),))
    expanded = Screen(visible=(NodePath("v", "b"), s("t0", "b")), expanded=frozenset({NodePath("v", "b")}))
    assert ListingJob("v", "b") not in plan(store, collapsed, room(20.0), SETTINGS)  # every 60 s
    assert ListingJob("v", "b") in plan(store, expanded, room(20.0), SETTINGS)  # at once
    store.sent(ListingJob("v", "b"), 20.0)
    assert ListingJob("v", "b") not in plan(store, expanded, room(25.0), SETTINGS)
    assert ListingJob("v", "b") in plan(store, expanded, room(30.0), SETTINGS)
    assert ListingJob("v", "b") in plan(store, collapsed, room(80.0), SETTINGS)


def test_unaddressable_names_are_never_asked_about() -> None:
    store = listed_store(apps={"a": ("ok", "", "x/y", "\ud800", ".."), "b/c": ("s",)})
    bad = [s(""), s("x/y"), s("\ud800"), s(".."), NodePath("v", "b/c"), NodePath("v", "b/c", "s")]
    screen = Screen(selected=bad[0], visible=(*bad, s("ok")), expanded=frozenset({NodePath("v", "b/c")}))
    jobs = plan(store, screen, room(100.0), SETTINGS)
    assert StatsJob(s("ok")) in jobs
    assert not [job for job in jobs if isinstance(job, StatsJob | InfoJob) and not job.path.addressable]
    assert ListingJob("v", "b/c") not in jobs
    for job in jobs:
        store.sent(job, 100.0)
    assert plan(store, screen, room(100.5), SETTINGS) == []  # nothing is due for the names it cannot ask about
    assert next_due(store, screen, 100.5, 1.0, SETTINGS) == 101.0


def test_an_ended_node_is_left_alone_unless_selected_and_a_failing_one_backs_off() -> None:
    store = listed_store()
    gone, failing = s("s1"), s("s2")
    store.sent(StatsJob(gone), 0.0)
    store.apply(Failed(StatsJob(gone), NotFoundError("gone"), 0.0), 1.0)
    assert StatsJob(gone) not in plan(store, Screen(visible=(gone,)), room(50.0), SETTINGS)
    assert StatsJob(gone) in plan(store, Screen(selected=gone), room(50.0), SETTINGS)  # a probe per interval
    for attempt in range(6):
        at = 100.0 + 10 * attempt
        store.sent(StatsJob(failing), at)
        store.apply(Failed(StatsJob(failing), ServerError("[HTTP] Bad Gateway (502)", 502), at), 1.0)
    later = store.due_at(failing, 1.0)
    assert later is not None and later - 150.0 >= 4.0  # backed off well past the interval
    assert store.due_at(failing, 1.0, probe=True) == 151.0  # the selected node: never beyond one interval
    assert StatsJob(failing) in plan(store, Screen(selected=failing), room(151.0), SETTINGS)  # selected: capped


def test_while_the_link_is_down_one_probe_goes_out() -> None:
    store = listed_store()
    screen = Screen(selected=s("s1"), visible=tuple(s(f"s{i}") for i in range(10)))
    assert plan(store, screen, room(50.0, link_up=False), SETTINGS) == [StatsJob(s("s1"))]
    assert plan(store, Screen(), room(50.0, link_up=False), SETTINGS) == [ROOT]
    busy = {StatsJob(s("s1"))}
    assert StatsJob(s("s1")) not in plan(store, screen, room(50.0), SETTINGS, busy)  # in flight: not twice


def test_a_visible_stream_whose_statistics_do_not_tell_its_input_has_its_info_read_once() -> None:
    """Open source v1 statistics have no inbound counts: the tree shows the input from the stream's info,
    read once per stream on screen (after every visible node's statistics), not only when it is opened."""
    store = listed_store()
    visible = [s("s1"), s("s2")]
    screen = Screen(visible=tuple(visible))
    assert not any(isinstance(job, InfoJob) for job in plan(store, screen, room(0.0), SETTINGS))  # not read yet
    polled(store, visible, at=0.0)
    jobs = plan(store, screen, room(0.5), SETTINGS)
    assert jobs == [InfoJob(visible[0]), InfoJob(visible[1])]
    for job in jobs:
        store.sent(job, 0.5)
    assert [job for job in plan(store, screen, room(100.0), SETTINGS) if isinstance(job, InfoJob)] == []
