"""The redraw policy (`live/pace.py`): the selected node draws now; everything else waits for one interval."""

from __future__ import annotations

import pytest

from omeconsole.live.pace import OTHERS_HOLD, SETTLE_S, Interval, Pace, ScreenPace, chart_gap_for

TERMINAL = Pace(redraw_gap=0.9, chart_gap=2.0)


def test_tests_pace_draws_every_report_at_once() -> None:
    pace = ScreenPace(Pace())
    assert pace.report(10.0, selected=False) == 0.0
    pace.data_drawn(10.0, selected=False)
    assert pace.report(10.0, selected=False) == 0.0


def test_the_selected_nodes_reading_draws_now_the_others_wait_for_its_next() -> None:
    pace = ScreenPace(TERMINAL)
    assert pace.report(100.0, selected=True) == 0.0
    pace.data_drawn(100.0, selected=True)
    # Another node's report while the selected node is being read: held for its next reading.
    assert pace.report(100.2, selected=False) == pytest.approx(0.9 * OTHERS_HOLD - 0.2)
    # The selected node's second change in the same round (less than half a gap later) waits too.
    assert pace.report(100.3, selected=True) > 0
    # Its next reading, a gap later, draws at once.
    assert pace.report(101.0, selected=True) == 0.0


def test_without_the_selected_nodes_readings_the_rest_waits_at_most_one_gap() -> None:
    pace = ScreenPace(TERMINAL)
    pace.data_drawn(50.0, selected=False)
    assert pace.report(50.3, selected=False) == pytest.approx(0.6)
    assert pace.report(60.0, selected=False) == SETTLE_S  # long after the last redraw: at once, with its round


def test_a_tick_draws_ages_only_when_nothing_drew_lately() -> None:
    pace = ScreenPace(TERMINAL)
    pace.drawn(10.0)
    assert not pace.tick_due(10.5)
    assert pace.tick_due(10.9)
    pace.report(20.0, selected=True)  # the selected node is being read: its next reading draws the ages
    pace.drawn(20.0)
    assert not pace.tick_due(21.0)
    assert pace.tick_due(20.0 + 0.9 * OTHERS_HOLD)


def test_a_chart_draws_a_node_just_selected_at_once_and_the_same_node_once_per_gap() -> None:
    assert chart_gap_for(2.0, same_node=False) == 0.0
    assert chart_gap_for(2.0, same_node=True) == 2.0
    chart = Interval()
    assert chart.due(5.0, 2.0)
    chart.drawn(5.0)
    assert not chart.due(6.0, 2.0) and chart.wait(6.0, 2.0) == pytest.approx(1.0)
    assert chart.due(6.0, chart_gap_for(2.0, same_node=False))
    chart.drawn(None)  # drawn outside the pace: the next is due at once
    assert chart.due(5.5, 2.0)
