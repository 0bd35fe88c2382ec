"""The publisher's media bytes (parts, segments, TS segments), kept for every stream in one budget.

Least recently used first out, counted in bytes, so a thousand watched streams share the memory a
single one may use. A stream's entries go at once when nobody watches it any more (`release`). A
body larger than the whole budget is built and served without being kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable

DEFAULT_BUDGET_BYTES = 32 * 1024 * 1024


class ByteCache:
    def __init__(self, budget_bytes: int = DEFAULT_BUDGET_BYTES) -> None:
        if budget_bytes < 0:
            raise ValueError(f"the cache budget must be >= 0 bytes, got {budget_bytes}")
        self.budget_bytes = budget_bytes
        self.size = 0
        """Bytes held now (never above the budget)."""
        self._entries: OrderedDict[tuple[Hashable, Hashable], bytes] = OrderedDict()
        self._owned: dict[Hashable, set[Hashable]] = {}

    def get(self, owner: Hashable, key: Hashable, build: Callable[[], bytes]) -> bytes:
        """The bytes of (owner, key), built by `build` on a miss."""
        entry = (owner, key)
        found = self._entries.get(entry)
        if found is not None:
            self._entries.move_to_end(entry)
            return found
        data = build()
        if len(data) <= self.budget_bytes:
            while self.size + len(data) > self.budget_bytes:
                self._evict_oldest()
            self._entries[entry] = data
            self._owned.setdefault(owner, set()).add(key)
            self.size += len(data)
        return data

    def release(self, owner: Hashable) -> None:
        """Forget every entry of `owner` (a stream nobody watches any more)."""
        for key in self._owned.pop(owner, ()):
            self.size -= len(self._entries.pop((owner, key)))

    def _evict_oldest(self) -> None:
        (owner, key), data = self._entries.popitem(last=False)
        self.size -= len(data)
        keys = self._owned[owner]
        keys.discard(key)
        if not keys:
            del self._owned[owner]
