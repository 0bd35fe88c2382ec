"""A stream's source and tracks (codec, resolution, frame rate, bit rate, keyframe interval)."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from omeconsole.model.readings import StreamInfo, TrackInfo
from omeconsole.ui import format as fmt


def track_cells(track: TrackInfo) -> tuple[str, str, str, str, str, str]:
    """type, codec, resolution, frame rate, bit rate, keyframe interval in frames ("n/a" where not reported)."""
    resolution = f"{track.width}x{track.height}" if track.width and track.height else fmt.NA
    framerate = f"{track.framerate:g}" if track.framerate else fmt.NA
    keyframes = f"{track.keyframe_interval:g} frames" if track.keyframe_interval else fmt.NA
    codec = track.codec or fmt.NA
    if track.samplerate:
        codec += f" {track.samplerate / 1000:g}kHz"
    if track.channels:
        codec += f" {track.channels}ch"
    return (track.type.lower(), codec, resolution, framerate,
            fmt.rate(track.bitrate) if track.bitrate else fmt.NA, keyframes)


class StreamInfoPanel(Static):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.border_title = "source and tracks"
        self._shown: StreamInfo | bool | None = False

    def show(self, info: StreamInfo | None) -> None:
        if info == self._shown:
            return
        self._shown = info
        muted = self.app.theme_variables.get("muted", "")
        if info is None:
            self.update(Text(f"{fmt.NA} (no stream information yet)", style=muted))
            return
        table = Table(box=None, padding=(0, 1), show_edge=False, expand=False,
                      title=Text(f"source {info.source_type or fmt.NA}  {info.source_url or ''}".rstrip(),
                                 justify="left"), title_justify="left")
        for heading in ("track", "codec", "size", "fps", "bit rate", "keyframes"):
            table.add_column(heading, no_wrap=True, header_style=muted)
        for track in info.tracks:
            table.add_row(*track_cells(track))
        self.update(table)
