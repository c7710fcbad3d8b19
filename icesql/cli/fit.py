"""Fitting a table into the terminal's width by cutting its widest cells, as the DuckDB CLI's
box mode does at a terminal: a cut cell ends in "…", the table keeps one line per row.

The widest columns give way first, each down to no less than ``MIN_WIDTH`` (or its own
width, if that is less; ``LAST_RESORT`` when even that leaves no room), so a long text
column shrinks while short numbers and names stay whole; a floor (``.width``, or a column a
layout must keep whole, like a snapshot id) is never cut.

>>> fit_widths([30, 4, 12], 30)
[14, 4, 12]
>>> clip("/warehouse/db/events/data/00000-0.parquet", 20)
'/warehouse/db/event…'
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["ELLIPSIS", "LAST_RESORT", "MIN_WIDTH", "clip", "fit_widths"]

ELLIPSIS = "…"
MIN_WIDTH = 8  # a cut column still shows this much of its cells
LAST_RESORT = 4  # ... or this much, when the floors leave too little room


def fit_widths(widths: Sequence[int], room: int, floors: Sequence[int] = ()) -> list[int] | None:
    """Column widths summing to at most ``room``, the widest narrowed first; ``floors``
    are widths a column keeps (``.width``). None when even the narrowest layout needs
    more room (too many columns: the caller folds or pages instead)."""
    out = list(widths)
    for narrowest in (MIN_WIDTH, LAST_RESORT):
        least = [
            max(min(w, narrowest), floors[i] if i < len(floors) else 0) for i, w in enumerate(out)
        ]
        if sum(least) <= room:
            break
    else:
        return None
    excess = sum(out) - room
    while excess > 0:
        widest = max(w for w, low in zip(out, least) if w > low)
        at = [i for i, (w, low) in enumerate(zip(out, least)) if w == widest and w > low]
        below = max([w for w in out if w < widest] + [max(least[i] for i in at)])
        # narrow every widest column together, down to the next width (or their floor)
        step = min(widest - below, max(excess // len(at), 1))
        for i in at:
            cut = min(step, out[i] - least[i], excess)
            out[i] -= cut
            excess -= cut
    return out


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, ending in "…" when it was cut."""
    if len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + ELLIPSIS if width > 0 else ""
