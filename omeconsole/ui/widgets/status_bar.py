"""The connection banner and the one-line status bar.

The banner appears only when something is wrong (unreachable, refused token, server error) and says
why in plain words with the time to the next attempt. The status bar always shows the connection,
the server edition, the refresh interval, PAUSED, the data's age, the sort order and the filter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import Static

from omeconsole.model.server import LinkState
from omeconsole.ui import format as fmt

CONNECTION_MARKS: dict[str, tuple[str, str]] = {
    "connecting": ("…", "connecting"),
    "connected": ("●", "connected"),
    "unreachable": ("✖", "unreachable"),
    "unauthorized": ("✖", "unauthorized"),
    "error": ("▲", "error"),
}


def without_countdown(message: str) -> str:
    """The engine's message without its frozen "retrying in N s" (the banner shows a live countdown)."""
    return re.sub(r"\s*\(retrying in [^)]*\)\s*$", "", message)


def banner_text(connection: LinkState, now: float) -> str | None:
    """None while connected (or still trying the first time); otherwise what happened and what next."""
    if connection.status in ("connected", "connecting"):
        return None
    symbol, word = CONNECTION_MARKS[connection.status]
    text = f"{symbol} {word.upper()}: {without_countdown(connection.message)}"
    if connection.status == "unauthorized":
        return text + " (enter a token in the prompt, or ctrl+p → connect)"
    if connection.next_retry_at is not None:
        text += f" (retrying in {fmt.age(max(0.0, connection.next_retry_at - now))})"
    return text


class Banner(Static):
    """Hidden while there is nothing to say."""

    _shown: str | None = None

    def show(self, connection: LinkState, now: float) -> None:
        text = banner_text(connection, now)
        self.display = text is not None
        if text is not None and text != self._shown:
            self.update(Text(text, style=self.app.theme_variables.get("state-stale", "")),
                        layout=self._shown is None or len(text) != len(self._shown))
        self._shown = text


@dataclass(frozen=True)
class StatusLine:
    connection: LinkState
    selected: str
    paused: bool
    interval: float
    data_age: float | None
    sort: str
    filter: str


def status_text(line: StatusLine, colours: Mapping[str, str]) -> Text:
    muted = colours.get("muted", "")
    symbol, word = CONNECTION_MARKS[line.connection.status]
    text = Text(f"{symbol} {word}")
    server = line.connection.server
    if server is not None:
        text.append(f"  {server.edition} {server.version} ({server.stats_api})", style=muted)
    if line.paused:
        text.append("  ‖ PAUSED", style="reverse bold")
    text.append(f"  every {fmt.interval(line.interval)}")
    text.append(f"  age {fmt.age(line.data_age)}")
    text.append(f"  sort: {line.sort}", style=muted)
    if line.filter:
        text.append(f"  filter: {line.filter}", style="bold")
    if line.selected:
        text.append(f"  {line.selected}", style="bold")
    return text


class StatusBar(Static):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._line: StatusLine | None = None

    def show(self, line: StatusLine) -> None:
        if line == self._line:
            return
        self._line = line
        # One line, always: no need to lay out the screen.
        self.update(status_text(line, self.app.theme_variables), layout=False)
