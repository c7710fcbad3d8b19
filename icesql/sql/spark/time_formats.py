"""Spark's datetime patterns (``yyyy-MM-dd HH:mm:ss.SSS``) as DuckDB strftime formats.

Spark 3 formats and parses with java.time patterns: runs of a letter (``MM``, ``EEEE``),
quoted text (``'T'``, ``''`` for a quote) and other characters as themselves. Each run is
translated exactly or refused by name: a letter with no strftime equivalent (quarters, week
fields, zones, eras) would otherwise come out of DuckDB as the letters themselves.

>>> spark_to_strftime("yyyy-MM-dd'T'HH:mm:ss.SSS")
'%Y-%m-%dT%H:%M:%S.%g'
>>> spark_to_strftime("EEEE, MMM d, yyyy h:mm a")
'%A, %b %-d, %Y %-I:%M %p'
"""

from __future__ import annotations

from icesql.sql.spark.base import refuse

# letter -> {run length: strftime}
_RUNS: dict[str, dict[int, str]] = {
    "y": {1: "%Y", 2: "%y", 3: "%Y", 4: "%Y"},
    "M": {1: "%-m", 2: "%m", 3: "%b", 4: "%B"},
    "L": {1: "%-m", 2: "%m", 3: "%b", 4: "%B"},
    "d": {1: "%-d", 2: "%d"},
    "D": {1: "%-j", 3: "%j"},
    "H": {1: "%-H", 2: "%H"},
    "h": {1: "%-I", 2: "%I"},
    "m": {1: "%-M", 2: "%M"},
    "s": {1: "%-S", 2: "%S"},
    "S": {3: "%g", 6: "%f", 9: "%n"},
    "a": {1: "%p"},
    "E": {1: "%a", 2: "%a", 3: "%a", 4: "%A"},
}
_RESERVED = set("[]{}#")


def spark_to_strftime(pattern: str) -> str:
    """The strftime format of a Spark datetime pattern; NotSupportedError names what has none."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "'":
            end = _closing_quote(pattern, i + 1)
            if end == -1:
                refuse(f"datetime pattern {pattern!r}", "an unterminated quote")
            # '' alone is a quote; inside quoted text, '' is a quote too (o''clock)
            text = pattern[i + 1 : end].replace("''", "'") if end > i + 1 else "'"
            out.append(text.replace("%", "%%"))
            i = end + 1
            continue
        if char.isascii() and char.isalpha():
            run = len(pattern) - i - len(pattern[i:].lstrip(char))
            strftime = _RUNS.get(char, {}).get(run)
            if strftime is None:
                refuse(
                    f"datetime pattern letter {char * run!r} (in {pattern!r})",
                    "DuckDB has no format for it",
                )
            out.append(strftime)
            i += run
            continue
        if char in _RESERVED:
            refuse(f"datetime pattern {pattern!r}", f"{char!r} is reserved or optional")
        out.append("%%" if char == "%" else char)
        i += 1
    return "".join(out)


def _closing_quote(pattern: str, start: int) -> int:
    """The position of the quote that ends quoted text begun before ``start`` (a doubled
    quote inside it is text, as java.time reads it), or -1."""
    i = start
    while i < len(pattern):
        if pattern[i] == "'":
            if pattern[i + 1 : i + 2] != "'":
                return i
            i += 2
            continue
        i += 1
    return -1
