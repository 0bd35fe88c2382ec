"""Whether a stream's picture is alive: frozen (unchanged for a while) or black (nearly uniform).

Statistics cannot tell either; the picture can. Each picture is reduced to a 32x18 grey signature:
two pictures are "the same" when their signatures differ by less than `SAME_LEVEL` on average (a server
that encodes one frozen frame again writes nearly the same bytes, not always the very same). The picture
is frozen once it has been the same for `frozen_after_s` seconds of the console's clock, and says since
when; it is black when its signature's spread is under `UNIFORM_SPREAD` (a capped camera, a black input,
a test card of one colour: "black" when dark, "uniform" otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from omeconsole.core.thumbnails.decode import Picture

SIGNATURE = (18, 32)
SAME_LEVEL = 1.5
"""Mean absolute difference (0-255) under which two signatures are one picture."""
UNIFORM_SPREAD = 6.0
"""Standard deviation (0-255) under which a picture is one flat colour."""
DARK_LEVEL = 40.0
DEFAULT_FROZEN_AFTER_S = 10.0

Look = Literal["moving", "frozen", "black", "uniform"]


@dataclass(frozen=True)
class Verdict:
    look: Look
    unchanged_s: float
    """Seconds since the picture last changed (0 when it just did)."""


def signature(picture: Picture) -> npt.NDArray[np.float32]:
    pixels = np.frombuffer(picture.rgb, dtype=np.uint8).reshape(picture.height, picture.width, 3)
    grey = pixels.astype(np.float32) @ np.array([0.299, 0.587, 0.114], dtype=np.float32)
    rows = np.linspace(0, picture.height, SIGNATURE[0] + 1).astype(int)
    cols = np.linspace(0, picture.width, SIGNATURE[1] + 1).astype(int)
    cells = np.add.reduceat(np.add.reduceat(grey, rows[:-1], axis=0), cols[:-1], axis=1)
    counts = np.outer(np.diff(rows), np.diff(cols)).astype(np.float32)
    return (cells / np.maximum(counts, 1)).astype(np.float32)


class PictureWatch:
    """Fed each new picture of one stream with the console clock's time; says how the picture looks."""

    def __init__(self, frozen_after_s: float = DEFAULT_FROZEN_AFTER_S) -> None:
        self.frozen_after_s = frozen_after_s
        self._last: npt.NDArray[np.float32] | None = None
        self._changed_at = 0.0

    def observe(self, picture: Picture, now: float) -> Verdict:
        current = signature(picture)
        if self._last is None or float(np.abs(current - self._last).mean()) >= SAME_LEVEL:
            self._changed_at = now
        self._last = current
        return self.verdict(current, now)

    def verdict(self, current: npt.NDArray[np.float32], now: float) -> Verdict:
        unchanged = max(0.0, now - self._changed_at)
        if float(current.std()) < UNIFORM_SPREAD:
            return Verdict("black" if float(current.mean()) < DARK_LEVEL else "uniform", unchanged)
        return Verdict("frozen" if unchanged >= self.frozen_after_s else "moving", unchanged)
