"""Giving memory back to the operating system once the publisher released much of it.

CPython frees a released part at once, but glibc keeps the freed heap pages of many small blocks
(a part is a few kB) mapped until it is asked to trim, so a simulator that served 100 streams would
keep their memory after the last viewer left. `malloc_trim(0)` returns those pages; elsewhere (musl,
macOS) there is nothing to call and nothing happens.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

TRIM_AFTER_BYTES = 4 * 1024 * 1024
"""Releases smaller than this are left to the allocator (a trim walks the whole heap)."""


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, looked up among the symbols the process already has (nothing is opened)."""
    try:
        trim: Callable[[int], int] | None = getattr(ctypes.CDLL(None), "malloc_trim", None)
    except OSError:
        return None
    return trim


def give_back(released_bytes: int) -> None:
    """After `released_bytes` were dropped: return free heap pages to the system if it is worth it."""
    if released_bytes < TRIM_AFTER_BYTES:
        return
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
