"""A least-recently-used map bounded by entries and by a weight the caller gives each value.

The caches of a long-lived connection or process (parsed metadata, manifests, plans, kept
queries) all need the same thing: keep what was used last, and never grow without bound
whatever the tables look like. Not thread-safe: callers hold their own lock.

>>> kept = Lru()
>>> kept.put("a", 1, weight=10); kept.put("b", 2, weight=10); kept.put("c", 3, weight=10)
>>> kept.get("a")
1
>>> kept.trim(max_items=5, max_weight=20)  # "b" was used least recently
>>> sorted(kept), kept.weight
(['a', 'c'], 20)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Generic, TypeVar

__all__ = ["Lru"]

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """Values by key, oldest use first, with the total weight of what is held."""

    def __init__(self) -> None:
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.weight = 0

    def get(self, key: K) -> V | None:
        """The value under ``key`` (now the most recently used), or None."""
        held = self._items.get(key)
        if held is None:
            return None
        self._items.move_to_end(key)
        return held[0]

    def peek(self, key: K) -> V | None:
        """The value under ``key`` without counting it as a use."""
        held = self._items.get(key)
        return None if held is None else held[0]

    def put(self, key: K, value: V, weight: int = 1) -> None:
        self.pop(key)
        self._items[key] = (value, weight)
        self.weight += weight

    def pop(self, key: K) -> V | None:
        held = self._items.pop(key, None)
        if held is None:
            return None
        self.weight -= held[1]
        return held[0]

    def trim(self, max_items: int, max_weight: int | None = None) -> None:
        """Forget the least recently used values until both bounds hold."""
        while self._items and (
            len(self._items) > max_items or (max_weight is not None and self.weight > max_weight)
        ):
            _, (_, weight) = self._items.popitem(last=False)
            self.weight -= weight

    def items(self) -> list[tuple[K, V]]:
        return [(k, v) for k, (v, _) in self._items.items()]

    def values(self) -> list[V]:
        return [v for v, _ in self._items.values()]

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)
