"""What a node's row and header say besides its readings: its ad break and its alerts.

Rows get short marks (`live/row_marks.py`); a header gets a line in words (`ad breaks: news AD 0:24 ·
sports AD soon +2 more`, on-air ones first, at most `BREAKS_NAMED` of them by name; how many streams on
screen under it are not followed yet; then the firing alerts' details).
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from omeconsole.core.text import visible
from omeconsole.live.next_breaks import next_breaks
from omeconsole.live.row_marks import UNREAD_MARK, firing_at
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.badges import name_text

BREAKS_NAMED = 3
"""Streams a header names in its ad-break summary; the others are counted ("+2 more")."""


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
