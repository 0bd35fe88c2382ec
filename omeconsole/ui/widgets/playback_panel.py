"""A stream's playback URLs (`core/playback`), under its detail: what each is, the URL, which of them the
server's API did not confirm (`assumed`, each reason said once under the URLs), and, when the application's
configuration was not read, why. The URLs are built percent-encoded and the one server text (a read's error) is
shown through `visible`; `y` offers the URLs to the terminal's clipboard."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from omeconsole.core.text import visible
from omeconsole.live.playback import Playback
from omeconsole.ui.palette import PaletteStatic

TITLE = "playback (y copies)"


class PlaybackPanel(PaletteStatic):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.border_title = TITLE
        self._shown: Playback | None = None

    def show(self, playback: Playback | None) -> None:
        if playback == self._shown:
            return
        self._shown = playback
        self._draw()

    def _draw(self) -> None:
        playback = self._shown
        if playback is None:
            self.update("")
            return
        muted = self._palette.built_with()["muted"]
        where = "" if playback.configured else " (not configured: the API's host on the default port, 3333)"
        notes = [visible(playback.unconfirmed, 300)] if playback.unconfirmed else []
        notes += [f"assumed: {reason}" for reason in dict.fromkeys(url.assumed for url in playback.urls if url.assumed)]
        table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False, show_header=False, expand=False,
                      title=Text(f"publisher {visible(playback.publisher, 200)}{where}", style=muted, no_wrap=True,
                                 overflow="ellipsis"), title_justify="left",
                      caption=Text("\n".join(notes), style=muted) if notes else None, caption_justify="left")
        labels = [url.described for url in playback.urls]
        table.add_column(no_wrap=True, style=muted, min_width=max(map(len, labels), default=0))
        table.add_column(overflow="fold")  # a URL is shown whole, folded over lines when the panel is narrow
        for label, url in zip(labels, playback.urls, strict=True):
            table.add_row(Text(label), Text(url.url))
        self.update(table)
