"""The connection banner and the one-line status bar, drawn from plain data.

The banner appears only when something is wrong (unreachable, refused token, server error) and says
why in plain words with the time to the next attempt. The status bar is on every screen: which
server and profile (DEMO and READ-ONLY as badges), the link with its errors per minute and the last
error, PAUSED, the ad break (`AD 0:24`), alerts, the refresh interval and the data's age, and what
the last key did. It is one line: when the terminal is too narrow for all of it, the least useful
parts go first (the selection, the sort, the edition), never the server, the badges or the link.

Screens (the ad-ops ones too) describe what to show as a `StatusLine` and call `StatusBar.show`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from omeconsole.core import units
from omeconsole.core.text import visible
from omeconsole.model.server import LinkState
from omeconsole.ui.palette import PALETTE_CLASSES, PALETTE_CSS, PaletteFollower, palette_classes, palette_css

CONNECTION_MARKS: dict[str, tuple[str, str]] = {
    "connecting": ("…", "connecting"),
    "connected": ("●", "connected"),
    "unreachable": ("✖", "unreachable"),
    "unauthorized": ("✖", "unauthorized"),
    "error": ("▲", "error"),
}
SEPARATOR = "  "
LAST_ERROR_MIN = 12
"""Columns the last error needs to be worth showing (cut with … to what is left of the line)."""


def without_countdown(message: str) -> str:
    """The engine's message without its frozen "retrying in N s" (the banner shows a live countdown)."""
    return re.sub(r"\s*\(retrying in [^)]*\)\s*$", "", message)


def banner_text(connection: LinkState, now: float) -> str | None:
    """None while connected (or still trying the first time); otherwise what happened and what next.

    The message is the server's or the network's words: shown as data (escapes, never markup)."""
    if connection.status in ("connected", "connecting"):
        return None
    symbol, word = CONNECTION_MARKS[connection.status]
    text = f"{symbol} {word.upper()}: {visible(without_countdown(connection.message))}"
    if connection.status == "unauthorized":
        return text + " (enter a token in the prompt, or ctrl+p → connect)"
    if connection.next_retry_at is not None:
        text += f" (retrying in {units.age(max(0.0, connection.next_retry_at - now))})"
    return text


class Banner(Static):
    """Hidden while there is nothing to say."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(palette_classes("state-stale"))
    DEFAULT_CSS = palette_css("state-stale")

    _shown: str | None = None

    def __init__(self, **options: Any) -> None:
        self._palette = PaletteFollower(self, lambda: self._paint(layout=False))
        super().__init__(**options)

    def show(self, connection: LinkState, now: float) -> None:
        text = banner_text(connection, now)
        self.display = text is not None
        changed = text is not None and text != self._shown
        layout = self._shown is None or text is None or len(text) != len(self._shown)
        self._shown = text
        if changed:
            self._paint(layout=layout)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette.styles_changed()

    def _paint(self, *, layout: bool) -> None:
        if self._shown is not None:
            self.update(Text(self._shown, style=self._palette.built_with()["state-stale"]), layout=layout)


@dataclass(frozen=True)
class StatusLine:
    """What the status bar shows; every field but the connection has a default, so a screen says
    only what it knows. Text fields that came from a server are shown through `text.visible`."""

    connection: LinkState
    selected: str = ""
    paused: bool = False
    interval: float | None = None
    data_age: float | None = None
    """Seconds since the selected node's latest reading (None: never read, or nothing selected)."""
    sort: str = ""
    filter: str = ""
    server: str = ""
    """`host:port` of the management API."""
    profile: str | None = None
    read_only: bool = False
    demo: bool = False
    ad: str = ""
    """The selected stream's break (`AD 0:24`, `AD sending`), or empty."""
    ads_elsewhere: int = 0
    """Other streams with a break going on."""
    alerts: int = 0
    """Alerts firing now."""
    note: str = ""
    """What the last key did, for a few seconds ("paused: polling once now")."""
    now: float | None = None
    """The console clock's now, for "last error 4 s ago"."""
    replay: str = ""
    """A replay's moment and speed ("14:02:10, 2 h ago  ▶ 10x"): shown behind a REPLAY badge instead of the link."""


@dataclass(frozen=True)
class _Part:
    text: Text
    priority: int
    """0 is always shown; higher numbers go first when the line is too narrow."""


def status_parts(line: StatusLine, colours: Mapping[str, str]) -> list[_Part]:
    """The pieces of the line in the order they are shown, each with how much it matters."""
    muted, warn = colours.get("muted", ""), colours.get("state-stale", "")
    connection = line.connection
    symbol, word = CONNECTION_MARKS[connection.status]
    if line.replay:
        parts = [_Part(Text(" REPLAY ", style=f"reverse bold {colours.get('accent', '')}"), 0),
                 _Part(Text(line.replay, style="bold"), 0)]
    else:
        parts = [_Part(Text(f"{symbol} {word}", style="" if connection.status == "connected" else warn), 0)]
    if line.server:
        parts.append(_Part(Text(visible(line.server), style="bold"), 0))
    if line.profile:
        parts.append(_Part(Text(f"profile {visible(line.profile)}", style=muted), 5))
    if line.demo:
        parts.append(_Part(Text(" DEMO ", style=f"reverse bold {colours.get('accent', '')}"), 0))
    if line.read_only:
        parts.append(_Part(Text(" READ-ONLY ", style=f"reverse bold {warn}"), 0))
    if line.paused:
        parts.append(_Part(Text(" ‖ PAUSED ", style="reverse bold"), 0))
    if line.ad:
        parts.append(_Part(Text(f" {line.ad} ", style=f"reverse bold {colours.get('rate-out', '')}"), 1))
    if line.ads_elsewhere:
        parts.append(_Part(Text(f"+{line.ads_elsewhere} AD", style="bold"), 4))
    if line.alerts:
        parts.append(_Part(Text(f"⚑ {line.alerts} alert{'s' if line.alerts != 1 else ''}", style=f"bold {warn}"), 2))
    if connection.errors_per_minute > 0:
        parts.append(_Part(Text(f"▲ {connection.errors_per_minute:.0f} err/min", style=warn), 2))
    if line.note:
        parts.append(_Part(Text(visible(line.note), style="bold"), 2))
    if line.interval is not None and not line.replay:
        parts.append(_Part(Text(f"every {units.interval(line.interval)}"), 3))
    parts.append(_Part(Text(f"age {units.age(line.data_age)}"), 3))
    if line.filter:
        parts.append(_Part(Text(f"filter: {visible(line.filter)}", style="bold"), 3))
    if connection.server is not None:
        server = connection.server
        parts.append(_Part(Text(visible(f"{server.edition} {server.version} ({server.stats_api})"), style=muted), 6))
    if line.sort:  # the usual order only matters a little; another one changes what the tree shows
        parts.append(_Part(Text(f"sort: {line.sort}", style=muted), 8 if line.sort == "name" else 3))
    if line.selected:
        parts.append(_Part(Text(visible(line.selected), style="bold"), 9))
    return parts


def last_error_text(line: StatusLine) -> str:
    connection = line.connection
    if connection.last_error is None:
        return ""
    when = ""
    if line.now is not None and connection.last_error_at is not None:
        when = f" ({units.age(line.now - connection.last_error_at)} ago)"
    return f"last error{when}: {visible(connection.last_error)}"


def status_text(line: StatusLine, colours: Mapping[str, str], width: int | None = None) -> Text:
    """The line, fitted to `width` columns: the least important parts are left out first, and the
    last error takes what room is left (cut with …)."""
    parts = status_parts(line, colours)
    budget = width if width is not None else 10_000
    chosen: set[int] = set()
    used = 0
    for index in sorted(range(len(parts)), key=lambda i: (parts[i].priority, i)):
        cost = parts[index].text.cell_len + (len(SEPARATOR) if chosen else 0)
        if parts[index].priority == 0 or used + cost <= budget:
            chosen.add(index)
            used += cost
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    for index, part in enumerate(parts):
        if index in chosen:
            if index != min(chosen):
                text.append(SEPARATOR)
            text.append_text(part.text)
    error = last_error_text(line)
    room = budget - text.cell_len - len(SEPARATOR)
    if error and room >= LAST_ERROR_MIN:
        shown = error if cell_len(error) <= room else error[:room - 1] + "…"
        text.append(SEPARATOR)
        text.append(shown, style=colours.get("state-stale", ""))
    return text


class StatusBar(Widget):
    """`show(StatusLine(...))`; the line is fitted to the bar's width each time it is drawn."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(PALETTE_CLASSES)
    DEFAULT_CSS = PALETTE_CSS

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._line: StatusLine | None = None
        self._palette = PaletteFollower(self, self.refresh)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette.styles_changed()

    @property
    def line(self) -> StatusLine | None:
        return self._line

    def show(self, line: StatusLine) -> None:
        if line != self._line:
            self._line = line
            self.refresh()

    def render(self) -> Text:
        if self._line is None:
            return Text("")
        return status_text(self._line, self._palette.built_with(), self.size.width or None)
