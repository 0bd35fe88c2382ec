"""Every use of Textual's private API, in one place, for the Textual versions it was written for.

Textual 8.2.8's `Strip.divide` with its one cut at the strip's end caches `[self]` in the strip's own
`_divide_cache`, and `Strip.crop_extend` to the strip's own length caches `self` in
`_crop_extend_cache`. Every line the compositor paints goes through `divide`, so every strip a widget
drew held itself and only the cycle collector could free it: on the demo's stream view (Python's default
thresholds) a full collection ran every ~28 s, walking ~40,000 live objects for 17-60 ms and finding
7,000-10,000 dead ones, nearly all strips (BENCHMARKS.md). `uncycle_strips` replaces both methods with
ones that return the strip itself without caching it; what they return is unchanged.

The replacement reads private attributes of a class Textual may change at any release, so it is applied
only to the versions listed in `WRITTEN_FOR` (each one checked by tests/sim/test_gc_policy.py); on
any other version Textual is left as it is and the console says so (`omeconsole --debug`). The
garbage-collection policy that calls this is `cli/gc_policy.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from textual.strip import Strip

WRITTEN_FOR = frozenset({"8.2.8"})
"""Textual versions whose `Strip.divide` and `Strip.crop_extend` this module was written for (and tested on)."""


@dataclass(frozen=True)
class Compat:
    """What `uncycle_strips` did, in words for `--debug`."""

    applied: bool
    words: str


def installed_textual() -> str:
    return metadata.version("textual")


def uncycle_strips(version: str | None = None) -> Compat:
    """Textual's strips no longer cache themselves, if `version` (the installed Textual's by default) is one
    this was written for; otherwise nothing is changed. Idempotent."""
    version = version or installed_textual()
    if version not in WRITTEN_FOR:
        return Compat(False, f"Textual {version} is not a version ui/textual_compat.py was written for "
                             f"({', '.join(sorted(WRITTEN_FOR))}): its strips are left as they are")
    if not getattr(Strip.divide, "_no_self_reference", False):
        _replace_strip_methods()
    return Compat(True, f"Textual {version}: strips that would cache themselves are not kept in their own caches")


def _replace_strip_methods() -> None:
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
