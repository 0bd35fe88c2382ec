"""Faults of the picture itself: a stream's thumbnail frozen on one frame, or black.

Statistics cannot show either (the bytes keep flowing); only someone looking at the picture can. The
windows are the spec's `picture-freeze` / `picture-black` (world time since the world started), on the
streams `streams=` names (every stream without it). A frozen picture is the frame of the moment the
window opened (for a repeating window, the moment its current period opened).
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal

from simulator.world.fault_spec import FaultSpec, Window

PictureKind = Literal["live", "frozen", "black"]


@dataclass(frozen=True)
class PictureState:
    kind: PictureKind
    frame_ms: int
    """World time of the frame to show: now when live, the window's opening when frozen."""


class PictureFaults:
    """What each stream's picture is at a moment; a world without picture faults shows every picture live."""

    def __init__(self, spec: FaultSpec | None = None, start_ms: int = 0) -> None:
        self._freeze = spec.picture_freeze if spec is not None else None
        self._black = spec.picture_black if spec is not None else None
        self._patterns = spec.streams if spec is not None else ()
        self._start_ms = start_ms

    def state(self, vhost: str, app: str, stream: str, now_ms: int) -> PictureState:
        if (self._freeze is None and self._black is None) or not self._chosen(f"{vhost}/{app}/{stream}"):
            return PictureState("live", now_ms)
        elapsed = now_ms - self._start_ms
        if self._black is not None and self._black.active(elapsed):
            return PictureState("black", now_ms)
        if self._freeze is not None and self._freeze.active(elapsed):
            return PictureState("frozen", self._start_ms + _opened(self._freeze, elapsed))
        return PictureState("live", now_ms)

    def _chosen(self, path: str) -> bool:
        return not self._patterns or any(fnmatchcase(path, pattern) for pattern in self._patterns)


def _opened(window: Window, elapsed_ms: int) -> int:
    """When the window around `elapsed_ms` opened (it is active then)."""
    if window.period_ms is None:
        return window.start_ms
    return window.start_ms + (elapsed_ms - window.start_ms) // window.period_ms * window.period_ms
