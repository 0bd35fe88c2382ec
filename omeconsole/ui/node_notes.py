"""What a node's row and header say besides its readings: its ad break and its alerts.

Rows get short marks (`AD 0:24`, `ADx2` on an application with two streams in a break, `⚑ 1`, and
`UNREAD_MARK` on a stream row on screen whose playlist has not been read yet, so whether it is in a
break is not known); a header gets a line in words (`ad breaks: news AD 0:24 · sports AD soon +2 more`,
on-air ones first, at most `BREAKS_NAMED` of them by name; how many streams on screen under it are not
followed yet; then the firing alerts' details).
"""

from __future__ import annotations

from collections.abc import Mapping
from weakref import WeakKeyDictionary

from rich.text import Text

from omeconsole.core.alerts.evaluator import AlertEvaluator
from omeconsole.core.alerts.state import Alert
from omeconsole.core.text import visible
from omeconsole.live.next_breaks import next_breaks
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.badges import Marks, name_text

BREAKS_NAMED = 3
"""Streams a header names in its ad-break summary; the others are counted ("+2 more")."""
UNREAD_MARK = "ad?"
"""A stream row on screen whose playlist the console has not read yet: its break state is unknown, not "no break"."""
_firing: WeakKeyDictionary[AlertEvaluator, tuple[int, dict[NodePath, list[Alert]]]] = WeakKeyDictionary()


def firing_at(alerts: AlertEvaluator, path: NodePath) -> list[Alert]:
    """The alerts firing on `path` (worked out once per evaluation pass, not once per row)."""
    cached = _firing.get(alerts)
    if cached is None or cached[0] != alerts.passes:
        cached = _firing[alerts] = (alerts.passes, alerts.firing_paths())
    return cached[1].get(path, [])


def node_marks(live: LiveSession, path: NodePath) -> Marks:
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


def playlist_note(live: LiveSession, path: NodePath) -> str:
    """What the console cannot tell of a followed stream's breaks, and why ("" when nothing to say):
    a server that writes no ad markers, a playlist that cannot be read, marker tags set aside."""
    board = live.ad_board
    if board.watch is None:
        return ""
    unseeable = board.unseeable()
    if unseeable is not None:
        return unseeable
    problem = board.watch.problem(path)
    if problem:
        return visible(f"playlist cannot be read: {problem}", limit=200)
    seen = board.watch.seen(path)
    if seen is not None and seen.ignored:
        more = f" (+{seen.ignored_count - 1} more)" if seen.ignored_count > 1 else ""
        return visible(f"playlist markers set aside: {seen.ignored[0]}{more}", limit=200)
    return ""


def unread_under(live: LiveSession, path: NodePath) -> int:
    """Streams under `path` on screen whose playlists the console follows but has not read yet."""
    watch = live.ad_board.watch
    if watch is None or path.level == "stream":
        return 0
    if path.level == "app":
        return sum(1 for stream in watch.waiting if stream.app == path.app and stream.vhost == path.vhost)
    return sum(1 for stream in watch.waiting if stream.vhost == path.vhost)


def node_notes(live: LiveSession, path: NodePath, colours: Mapping[str, str]) -> Text | None:
    """A line for the node's header, or None when there is nothing to add."""
    text = Text(no_wrap=True, overflow="ellipsis")
    accent, warn = colours.get("rate-out", ""), colours.get("state-stale", "")
    if path.level == "stream":
        badge = live.ad_board.badge(path)
        if badge is not None:
            text.append(f" {badge.text} ", style=f"reverse bold {accent}")
            if not badge.sent_here:
                text.append("  not sent from this console (seen in the playlist)", style=f"bold {accent}")
            text.append("  a: the ad-break screen", style=colours.get("muted", ""))
        elif (planned := next_breaks(live.session.adops).text(path)) is not None:
            text.append(f"{planned}  S: the schedules", style=colours.get("muted", ""))
        playlist = playlist_note(live, path)
        if playlist:
            if text:
                text.append("  ")
            text.append(playlist, style=warn)
    else:
        active = live.ad_board.active(path)
        if active:
            text.append("ad breaks: ", style="bold")
            for index, (stream, badge) in enumerate(active[:BREAKS_NAMED]):
                if index:
                    text.append(" · ")
                name = stream.name if path.level == "app" else f"{stream.app}/{stream.name}"
                text.append_text(name_text(name, colours, style=""))
                text.append(f" {badge.text}", style=f"bold {accent}")
                if not badge.sent_here:
                    text.append(" (not sent here)", style=accent)
            if len(active) > BREAKS_NAMED:
                text.append(f" +{len(active) - BREAKS_NAMED} more", style="bold")
        unread = unread_under(live, path)
        if unread:
            if text:
                text.append("  ")
            text.append(f"{UNREAD_MARK} {unread} stream{'s' if unread != 1 else ''} on screen not followed yet "
                        "(request budget): break state unknown", style=warn)
    if live.alerts is not None:
        for alert in firing_at(live.alerts, path):
            if text:
                text.append("  ")
            text.append(f"⚑ {alert.key.rule}: ", style=f"bold {warn}")
            text.append_text(name_text(alert.detail, colours, style=warn))
    return text or None
