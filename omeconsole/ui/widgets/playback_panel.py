"""A stream's playback URLs (`core/playback`), under its detail: what each is, the URL, and which of them the
server's API did not confirm (`assumed`). The URLs are built percent-encoded, so nothing here is raw server
text; `y` offers them to the terminal's clipboard."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from omeconsole.core.text import visible
from omeconsole.live.playback import Playback

TITLE = "playback (y copies)"


class PlaybackPanel(Static):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.border_title = TITLE
        self._shown: Playback | None = None

    def show(self, playback: Playback | None) -> None:
        if playback == self._shown:
            return
        self._shown = playback
        if playback is None:
            self.update("")
            return
        muted = self.app.theme_variables.get("muted", "")
        where = "" if playback.configured else " (not configured: the API's host on the default port, 3333)"
        table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False, show_header=False, expand=False,
                      title=Text(f"publisher {visible(playback.publisher, 200)}{where}", style=muted, no_wrap=True,
                                 overflow="ellipsis"), title_justify="left")
        table.add_column(no_wrap=True, style=muted)
        table.add_column(no_wrap=True, overflow="ellipsis")
        for url in playback.urls:
            label = Text(url.label)
            if url.assumed:
                label.append(" (assumed)")
            table.add_row(label, Text(url.url))
        self.update(table)
