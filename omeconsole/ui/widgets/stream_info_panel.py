"""A stream's source and tracks (codec, resolution, frame rate, bit rate, keyframe interval).

Everything here came from the server: each cell is a `Text` built through `text.visible`, so a codec
or a source URL can neither carry markup nor reach the terminal as control characters.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from omeconsole.core import units
from omeconsole.core.text import visible
from omeconsole.model.readings import StreamInfo, TrackInfo
from omeconsole.ui.palette import PaletteStatic

FIELD_LIMIT = 200
"""Characters of one server string shown (a longer one ends with …)."""


def track_cells(track: TrackInfo) -> tuple[str, str, str, str, str, str]:
    """type, codec, resolution, frame rate, bit rate, keyframe interval in frames ("n/a" where not reported)."""
    resolution = f"{track.width}x{track.height}" if track.width and track.height else units.NA
    framerate = f"{track.framerate:g}" if track.framerate else units.NA
    keyframes = f"{track.keyframe_interval:g} frames" if track.keyframe_interval else units.NA
    codec = visible(track.codec, FIELD_LIMIT) if track.codec else units.NA
    if track.samplerate:
        codec += f" {track.samplerate / 1000:g}kHz"
    if track.channels:
        codec += f" {track.channels}ch"
    return (visible(track.type.lower(), FIELD_LIMIT), codec, resolution, framerate,
            units.rate(track.bitrate) if track.bitrate else units.NA, keyframes)


def source_text(info: StreamInfo) -> Text:
    source = visible(info.source_type, FIELD_LIMIT) if info.source_type else units.NA
    url = visible(info.source_url, FIELD_LIMIT) if info.source_url else ""
    return Text(f"source {source}  {url}".rstrip(), justify="left", no_wrap=True, overflow="ellipsis")


TITLE = "source and tracks"


class StreamInfoPanel(PaletteStatic):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.border_title = TITLE
        self._shown: StreamInfo | None = None
        self._drawn = False

    def show(self, info: StreamInfo | None, last_known: str | None = None) -> None:
        """`last_known`: the stream ended (when, in words): what is shown is what was last known of it."""
        title = TITLE if last_known is None else f"{TITLE}, last known ({last_known})"
        if self._drawn and info == self._shown and title == self.border_title:
            return
        self.border_title = title
        self._shown = info
        self._drawn = True
        self._draw()

    def _draw(self) -> None:
        info = self._shown
        if not self._drawn:
            return  # nothing shown yet
        muted = self._palette.built_with()["muted"]
        if info is None:
            ended = self.border_title != TITLE
            self.update(Text(f"{units.NA} (" + ("none was read before the stream ended" if ended else
                                                 "no stream information yet") + ")", style=muted))
            return
        table = Table(box=None, padding=(0, 1), collapse_padding=True, pad_edge=False, show_edge=False,
                      expand=False, title=source_text(info),
                      title_justify="left")
        for heading in ("track", "codec", "size", "fps", "bit rate", "keyframes"):
            table.add_column(heading, no_wrap=True, header_style=muted, overflow="ellipsis")
        for track in info.tracks:
            table.add_row(*(Text(cell) for cell in track_cells(track)))
        self.update(table)
