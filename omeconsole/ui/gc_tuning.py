"""Garbage collection in a running console: drawing leaves no garbage for the collector, and what the
screen caches for a second or two dies young instead of filling the oldest generation.

Measured on the demo's stream view (`bench/bench_tui.py --phase history`, the collector's census at
each full collection): with Textual 8.2.8 and Python's default thresholds a full collection ran every
~28 s, each one walking ~40,000 live objects (mostly Textual's and Rich's render caches) for 17-60 ms,
a visible stall, and finding 7,000-10,000 dead ones, nearly all strips with their caches:

1. `Strip.divide` with one cut at the strip's end caches `[self]` in the strip's own `_divide_cache`,
   and `Strip.crop_extend` to the strip's own length caches `self` in `_crop_extend_cache`: every line
   the compositor paints goes through `divide`, so every strip a widget drew held itself and could only
   be freed by the cycle collector. `drop_strip_self_references` returns the strip without keeping it
   in its own cache; what the methods return is unchanged, and a dropped strip is freed at once.
2. A widget's strips live as long as its content (a second or two here): long enough to outlive two
   young collections at Python's default pace and be moved into the oldest generation, where every
   ~9,000 moved set off a full collection. The middle generation is examined once per
   `MIDDLE_EVERY` young collections (Python's default: 10), so they die there.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Sequence
from typing import Any

from textual.strip import Strip

MIDDLE_EVERY = 100
"""Young collections between two collections of the middle generation (about ten seconds of drawing)."""


def quiet_collections() -> None:
    """Both measures, for a console process (idempotent)."""
    drop_strip_self_references()
    young, _middle, old = gc.get_threshold()
    gc.set_threshold(young, MIDDLE_EVERY, old)


def drop_strip_self_references() -> None:
    """Textual's `Strip.divide` and `Strip.crop_extend` return the strip itself, uncached, where they
    would have cached it in its own caches (idempotent)."""
    if getattr(Strip.divide, "_no_self_reference", False):
        return
    divide, crop_extend = Strip.divide, Strip.crop_extend

    def divide_uncycled(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
        length = self.cell_length
        kept = [cut for cut in cuts if cut <= length]
        if kept == [length]:
            return [self]
        return divide(self, kept)

    def crop_extend_uncycled(self: Strip, start: int, end: int, style: Any) -> Strip:
        if start <= 0 and end == self.cell_length:
            return self
        return crop_extend(self, start, end, style)

    divide_uncycled._no_self_reference = True  # type: ignore[attr-defined]
    Strip.divide = divide_uncycled  # type: ignore[method-assign]
    Strip.crop_extend = crop_extend_uncycled  # type: ignore[method-assign]
