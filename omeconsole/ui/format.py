"""The console's number formats, which live in the core so the command line shares them."""

from omeconsole.core.units import NA, age, count, interval, rate, size, timestamp

__all__ = ["NA", "age", "count", "interval", "rate", "size", "timestamp"]
