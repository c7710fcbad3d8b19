"""Values as a person reads them, and the one aligned text table every front prints them in.

The shell's ``table`` mode, a relation's ``repr`` and a data check's failure message each show
rows as columns of text; ``text_table`` draws all three, so their alignment rules live in one
place. It imports nothing of icesql, so any front (the shell, ``con.sql()`` relations, the data
checks) can use it without importing another.

>>> print(text_table([RULE, ["id", "name"], RULE, ["1", "a"], ["10", "b"], RULE], [True, False]))
+----+------+
| id | name |
+----+------+
|  1 | a    |
| 10 | b    |
+----+------+
>>> print(text_table([["id", "name"], RULE, ["1", "a"]], framed=False))
id | name
---+-----
1  | a
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
from collections.abc import Collection, Sequence
from typing import Final

__all__ = ["RULE", "cell_text", "is_numeric", "json_value", "text_table"]

RULE: Final = None  # a line of ``text_table`` drawn as a horizontal rule


def text_table(
    lines: Sequence[Sequence[str] | None],
    right: Sequence[bool] = (),
    *,
    left: Collection[int] = (),
    widths: Sequence[int] = (),
    framed: bool = True,
) -> str:
    """``lines`` of cells in columns as wide as their widest cell (at least ``widths``), a
    ``RULE`` drawn as a rule. A column marked in ``right`` is right-aligned, except on the lines
    whose index is in ``left`` (headers that stay left). ``framed`` draws ``| ... |`` and
    ``+-...-+``; otherwise columns are parted by `` | `` and lines keep no trailing blanks."""
    rows = [line for line in lines if line is not RULE]
    count = max((len(r) for r in rows), default=len(widths))
    width = [
        max([*(len(r[i]) for r in rows), widths[i] if i < len(widths) else 0]) for i in range(count)
    ]
    out = []
    for index, line in enumerate(lines):
        if line is RULE:
            dashes = "-+-".join("-" * w for w in width)
            out.append(f"+-{dashes}-+" if framed else dashes)
            continue
        aligned = index not in left
        parts = [
            v.rjust(w) if aligned and i < len(right) and right[i] else v.ljust(w)
            for i, (v, w) in enumerate(zip(line, width))
        ]
        out.append("| " + " | ".join(parts) + " |" if framed else " | ".join(parts).rstrip())
    return "\n".join(out)


def cell_text(value: object, null: str = "NULL") -> str:
    """One value as a person reads it: bytes in hex, nested values as JSON-like text."""
    if value is None:
        return null
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "0x" + bytes(value).hex()
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(json_value(value), ensure_ascii=False, separators=(",", ":"))
    return str(value)


def is_numeric(value: object) -> bool:
    return isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)


def json_value(value: object) -> object:
    """A value as JSON has it: numbers stay numbers, NaN and infinities become strings."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else cell_text(value)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return str(value)
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return cell_text(value)
    if isinstance(value, (dt.date, dt.time, dt.datetime)):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    return str(value)
