"""Truthful, compact text for numbers, the same in the console and on the command line.

One convention: rates in bits per second with SI prefixes (`kb/s`, `Mb/s`, `Gb/s`: networks count in
powers of ten), totals in bytes with IEC prefixes (`KiB`, `MiB`, `GiB`: files count in powers of
two), "n/a" for what the server does not report (never 0), "invalid" for what it reported wrongly.
"""

from __future__ import annotations

import math
from datetime import datetime

NA = "n/a"
"""What the console shows for a value the server does not report (never 0)."""
INVALID = "invalid"

_RATE_UNITS = (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3))
_BYTE_UNITS = (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))


def rate(bits_per_second: float | None) -> str:
    """A bit rate in decimal units (as networks count), e.g. `4.50 Mb/s`."""
    if bits_per_second is None:
        return NA
    if not math.isfinite(bits_per_second):
        return INVALID
    for unit, size in _RATE_UNITS:
        if abs(bits_per_second) >= size:
            return f"{bits_per_second / size:.2f} {unit}"
    return f"{bits_per_second:.0f} b/s"


def size(nbytes: int | None) -> str:
    """A byte total in binary units (as files are counted), e.g. `1.21 GiB`."""
    if nbytes is None:
        return NA
    for unit, scale in _BYTE_UNITS:
        if abs(nbytes) >= scale:
            return f"{nbytes / scale:.2f} {unit}"
    return f"{nbytes} B"


def count(value: int | None) -> str:
    """An integer count with thousands separators."""
    return NA if value is None else f"{value:,}"


def age(seconds: float | None) -> str:
    """How old the data is: `0.4 s`, `12 s`, `3 min 05 s`, `2 h 01 min`."""
    if seconds is None:
        return NA
    seconds = max(0.0, seconds)
    if seconds < 10:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def uptime(seconds: float | None) -> str:
    """How long a stream has been up: `45 s`, `12 min 05 s`, `3 h 04 min`, `2 d 03 h`; `—` when not known
    (no `createdTime`, one after the server's own clock, an ended stream)."""
    if seconds is None or seconds < 0:
        return "—"
    whole = int(seconds)
    if whole < 3600:
        return age(whole)
    if whole < 86_400:
        return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
    return f"{whole // 86_400} d {whole % 86_400 // 3600:02d} h"


def timestamp(moment: datetime | None) -> str:
    """A server timestamp in the local time zone, to the second, with its offset."""
    if moment is None:
        return NA
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S %z")


def interval(seconds: float) -> str:
    """The refresh interval, e.g. `1 s` or `0.5 s`."""
    return f"{seconds:g} s"
