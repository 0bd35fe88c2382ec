"""The per-node timeline of chart events: spans opened and closed, instants, what ancestors show, bounds."""

from __future__ import annotations

from datetime import UTC, datetime

from omeconsole.core.timeline import EventKind, NodeEvent, Timeline, name_under, wall_at
from omeconsole.model.paths import NodePath

HOST = NodePath("default")
APP = NodePath("default", "app")
NEWS = NodePath("default", "app", "news")
SPORTS = NodePath("default", "app", "sports")
OTHER_APP = NodePath("default", "other")


def test_a_span_is_open_until_closed_and_never_ends_before_it_began() -> None:
    timeline = Timeline(began=100.0)
    timeline.open("break", EventKind.AD_BREAK, NEWS, 110.0)
    (event,) = timeline.events(NEWS)
    assert event.is_open and event.end is None and timeline.is_open("break")
    timeline.close("break", 105.0)  # a clock read before the start: the span is empty, not negative
    (event,) = timeline.events(NEWS)
    assert event == NodeEvent(EventKind.AD_BREAK, NEWS, 110.0, 110.0) and not event.is_open
    timeline.close("break", 200.0)  # closed already: nothing changes
    assert timeline.events(NEWS)[0].end == 110.0
    timeline.close("never opened", 1.0)
    assert len(timeline.events(NEWS)) == 1


def test_opening_the_same_key_again_corrects_the_span_instead_of_adding_one() -> None:
    timeline = Timeline(began=0.0)
    timeline.open("a", EventKind.ALERT, NEWS, 10.0, "stall")
    timeline.open("a", EventKind.ALERT, NEWS, 9.5, "stall")
    assert [(e.start, e.label) for e in timeline.events(NEWS)] == [(9.5, "stall")]
    assert [e.start for e in timeline.events(APP)] == [9.5], "the correction reaches the ancestors' copies"
    timeline.close("a", 20.0)
    assert timeline.events(HOST)[0].end == 20.0 and timeline.open_keys() == []


def test_newest_first_and_since_keeps_what_goes_on() -> None:
    timeline = Timeline(began=0.0)
    timeline.point(EventKind.RESTART, NEWS, 50.0)
    timeline.open("old", EventKind.ALERT, NEWS, 10.0)
    timeline.point(EventKind.RESTART, NEWS, 5.0)
    assert [e.start for e in timeline.events(NEWS)] == [50.0, 10.0, 5.0]
    assert [e.start for e in timeline.events(NEWS, since=40.0)] == [50.0, 10.0], "the alert still firing stays"


def test_a_streams_events_reach_its_application_and_host_named_below_them() -> None:
    timeline = Timeline(began=100.0)
    timeline.point(EventKind.RESTART, NEWS, 120.0)
    timeline.point(EventKind.END, SPORTS, 130.0)
    timeline.open("b", EventKind.AD_BREAK, NEWS, 140.0)
    timeline.open("alert", EventKind.ALERT, APP, 150.0, "viewers")
    assert [e.kind for e in timeline.events(APP)] == [EventKind.ALERT, EventKind.AD_BREAK, EventKind.END,
                                                      EventKind.RESTART]
    assert [e.kind for e in timeline.events(NEWS)] == [EventKind.AD_BREAK, EventKind.RESTART], "not its sibling's"
    assert len(timeline.events(HOST)) == 4 and timeline.events(OTHER_APP) == []
    restart = timeline.events(HOST)[-1]
    assert (name_under(restart, NEWS), name_under(restart, APP), name_under(restart, HOST)) == ("", "news", "app/news")


def test_a_start_reaches_the_ancestors_only_when_the_stream_started_after_the_console_began() -> None:
    timeline = Timeline(began=100.0)
    timeline.point(EventKind.START, NEWS, 40.0)  # found up: its own chart only
    timeline.point(EventKind.START, SPORTS, 160.0)
    assert [e.path for e in timeline.events(APP)] == [SPORTS]
    assert [e.start for e in timeline.events(NEWS)] == [40.0]


def test_a_server_alert_is_on_every_nodes_chart() -> None:
    timeline = Timeline(began=0.0)
    timeline.open("link", EventKind.ALERT, None, 5.0, "link down")
    for path in (HOST, APP, NEWS):
        (event,) = timeline.events(path)
        assert event.label == "link down" and name_under(event, path) == ""
    assert len(timeline) == 1


def test_each_node_keeps_its_newest_events_and_the_oldest_nodes_are_forgotten() -> None:
    timeline = Timeline(began=0.0, per_node=3, max_nodes=4)
    for second in range(10):
        timeline.point(EventKind.RESTART, NEWS, float(second))
    assert [e.start for e in timeline.events(NEWS)] == [9.0, 8.0, 7.0]
    assert [e.start for e in timeline.events(APP)] == [9.0, 8.0, 7.0]
    timeline.open("x", EventKind.AD_BREAK, SPORTS, 20.0)  # news, app, host, sports: four nodes
    timeline.point(EventKind.RESTART, NodePath("default", "other", "a"), 30.0)  # two more: news and sports go
    assert len(timeline) == 4
    assert timeline.events(NEWS) == [] and timeline.events(SPORTS) == []
    timeline.close("x", 25.0)  # its node is forgotten; its copies on the ancestors still end
    assert [e.end for e in timeline.events(APP) if e.kind is EventKind.AD_BREAK] == [25.0]


def test_wall_times_come_from_one_instant_of_both_clocks() -> None:
    now_wall = datetime(2026, 1, 1, 12, 0, 30, tzinfo=UTC)
    assert wall_at(970.0, 1000.0, now_wall) == datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
