"""The bounded least-recently-used map every long-lived cache of icesql keeps its values in."""

from __future__ import annotations

from icesql.spec.lru import Lru


def test_a_use_keeps_a_value_and_a_peek_does_not() -> None:
    kept: Lru[str, int] = Lru()
    for key in "abc":
        kept.put(key, ord(key))
    assert kept.get("a") == ord("a")  # now the newest
    assert kept.peek("b") == ord("b")  # still the oldest
    kept.trim(max_items=2)
    assert list(kept) == ["c", "a"]
    assert kept.get("b") is None and kept.peek("b") is None


def test_the_weight_bound_drops_the_oldest_until_it_holds() -> None:
    kept: Lru[int, str] = Lru()
    for i in range(5):
        kept.put(i, str(i), weight=10 * (i + 1))
    assert kept.weight == 150
    kept.trim(max_items=100, max_weight=100)
    assert list(kept) == [3, 4] and kept.weight == 90
    kept.put(4, "again", weight=1)  # replacing a value replaces its weight
    assert kept.weight == 41 and kept.get(4) == "again"
    assert kept.pop(3) == "3" and kept.pop(3) is None and kept.weight == 1
    kept.trim(max_items=0)
    assert len(kept) == 0 and kept.weight == 0 and kept.items() == []


def test_one_value_heavier_than_the_bound_is_not_kept() -> None:
    kept: Lru[str, bytes] = Lru()
    kept.put("small", b"x", weight=1)
    kept.put("huge", b"y" * 100, weight=100)
    kept.trim(max_items=10, max_weight=50)
    assert "huge" not in kept and "small" not in kept and kept.weight == 0
