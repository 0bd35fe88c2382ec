"""The short marks a node's row shows after its name: its ad break and its alerts, headless.

`AD 0:24` (a stream in a break), `AD 14:24` (its next planned break), `ADx2` (an application or host with two
streams in a break), `⚑ 1` (alerts firing), and `UNREAD_MARK` on a stream row on screen whose playlist has
not been read yet, so whether it is in a break is not known. The tree asks for them row by row
(`node_marks`); the header's line in words is `ui/node_notes.py`'s.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from omeconsole.core.alerts.evaluator import AlertEvaluator
from omeconsole.core.alerts.state import Alert
from omeconsole.live.next_breaks import next_breaks
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath

UNREAD_MARK = "ad?"
"""A stream row on screen whose playlist the console has not read yet: its break state is unknown, not "no break"."""
_firing: WeakKeyDictionary[AlertEvaluator, tuple[int, dict[NodePath, list[Alert]]]] = WeakKeyDictionary()


def firing_at(alerts: AlertEvaluator, path: NodePath) -> list[Alert]:
    """The alerts firing on `path` (worked out once per evaluation pass, not once per row)."""
    cached = _firing.get(alerts)
    if cached is None or cached[0] != alerts.passes:
        cached = _firing[alerts] = (alerts.passes, alerts.firing_paths())
    return cached[1].get(path, [])


def node_marks(live: LiveSession, path: NodePath) -> tuple[str, ...]:
    marks: list[str] = []
    if path.level == "stream":
        badge = live.ad_board.badge(path)
        if badge is not None:
            marks.append(badge.text)
        elif (planned := next_breaks(live.session.adops).text(path)) is not None:
            marks.append(planned)
        elif live.ad_board.watch is not None and live.ad_board.watch.unread(path):
            marks.append(UNREAD_MARK)
    else:
        on_air = len(live.ad_board.active(path))
        if on_air:
            marks.append(f"ADx{on_air}")
    if live.alerts is not None and (firing := firing_at(live.alerts, path)):
        marks.append(f"⚑ {len(firing)}")
    return tuple(marks)
