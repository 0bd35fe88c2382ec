"""Giving memory back to the operating system once the publisher released much of it.

CPython frees a released part at once, but glibc keeps the freed heap pages of many small blocks
(a part is a few kB) mapped until it is asked to trim, so a simulator that served 100 streams would
keep their memory after the last viewer left. `malloc_trim(0)` returns those pages; elsewhere (musl,
macOS) there is nothing to call and nothing happens.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable

TRIM_AFTER_BYTES = 4 * 1024 * 1024
"""Releases smaller than this are left to the allocator (a trim walks the whole heap)."""


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


def give_back(released_bytes: int) -> None:
    """After `released_bytes` were dropped: return free heap pages to the system if it is worth it."""
    trim = _malloc_trim()
    if trim is not None and released_bytes >= TRIM_AFTER_BYTES:
        trim(0)
