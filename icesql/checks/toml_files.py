"""``*.checks.toml`` files: the common checks declared per table, each one test item.

TOML because Python reads it with the standard library (``tomllib``, Python 3.11+, icesql's
floor): no new dependency, unlike YAML. One table per ``[tables."<name>"]`` section::

    [tables."db.orders"]
    not_null = ["id", "customer_id"]                 # one item per column
    unique = ["id", ["customer_id", "day"]]          # a column, or columns taken together
    accepted_values = { status = ["new", "shipped"] }
    relationships = { customer_id = "db.customers.id" }
    row_count = { min = 1, max = 1000000 }
    freshness = { max_age = "24h" }                  # newest snapshot; or column = "updated_at"
    schema = { id = "bigint", status = "string" }    # exact_schema = {...}: no other columns
    expression = ["amount >= 0"]                     # every row satisfies it (NULL passes)
    marks = ["nightly"]                              # pytest markers for the table's items

Each check becomes a :class:`TomlCheck`: a name, the line it is written on, and the
``icesql.testing.DataChecks`` check with its arguments.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from icesql.checks import CheckFileError

__all__ = ["TomlCheck", "TomlCheckFileError", "read_toml_checks"]

KINDS = (
    "not_null",
    "unique",
    "accepted_values",
    "relationships",
    "row_count",
    "freshness",
    "schema",
    "exact_schema",
    "expression",
)


class TomlCheckFileError(CheckFileError):
    """A *.checks.toml file that cannot be read as checks."""


@dataclass(frozen=True)
class TomlCheck:
    """One declared check: ``check`` and ``arguments`` as ``DataChecks.failure`` takes them."""

    name: str
    line: int
    check: str
    arguments: dict[str, Any] = field(hash=False)
    marks: tuple[str, ...] = ()
    table: str = ""  # the table section the check is declared in

    @property
    def check_name(self) -> str:
        """The name without its table: the item's name under the table's collector."""
        return self.name[len(self.table) + 2 :] if self.table else self.name


def read_toml_checks(text: str) -> list[TomlCheck]:
    """The checks of a ``*.checks.toml`` file, table by table in file order.

    >>> [c.name for c in read_toml_checks('[tables."db.t"]\\nnot_null = ["a", "b"]')]
    ['db.t::not_null(a)', 'db.t::not_null(b)']
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        line = re.search(r"line (\d+)", str(e))
        raise TomlCheckFileError(str(e), int(line.group(1)) if line else 0) from None
    unknown = set(document) - {"tables"}
    if unknown:
        raise TomlCheckFileError(
            f'unknown top-level key(s) {sorted(unknown)}: write [tables."<name>"]'
        )
    lines = text.splitlines()
    out: list[TomlCheck] = []
    for table, spec in document.get("tables", {}).items():
        where = _Lines(lines, table)
        if not isinstance(spec, dict):
            raise TomlCheckFileError(f"tables.{table} must be a table of checks", where.table)
        marks = (
            tuple(_strings(spec["marks"], "marks", where.of("marks"))) if "marks" in spec else ()
        )
        for kind, value in spec.items():
            if kind == "marks":
                continue
            if kind not in KINDS:
                raise TomlCheckFileError(
                    f"unknown check {kind!r} on {table}; known: {', '.join(KINDS)}", where.of(kind)
                )
            for name, check, arguments in _expand(table, kind, value, where.of(kind)):
                out.append(
                    TomlCheck(f"{table}::{name}", where.of(kind), check, arguments, marks, table)
                )
    return out


def _expand(table: str, kind: str, value: Any, line: int) -> list[tuple[str, str, dict[str, Any]]]:
    """(item name, DataChecks check, arguments) for each check one key declares."""
    if kind == "not_null":
        return [
            (f"not_null({c})", "not_null", {"table": table, "columns": c})
            for c in _strings(value, kind, line)
        ]
    if kind == "unique":
        items = value if isinstance(value, list) else [value]
        out = []
        for item in items:
            cols = _strings(item, kind, line)
            out.append((f"unique({','.join(cols)})", "unique", {"table": table, "columns": cols}))
        return out
    if kind == "accepted_values":
        _need_table(value, kind, line)
        return [
            (
                f"accepted_values({c})",
                "accepted_values",
                {"table": table, "column": c, "values": _list(v, kind, line)},
            )
            for c, v in value.items()
        ]
    if kind == "relationships":
        _need_table(value, kind, line)
        out = []
        for column, target in value.items():
            if not isinstance(target, str) or "." not in target:
                raise TomlCheckFileError(
                    f"relationships.{column} names '<table>.<column>', got {target!r}", line
                )
            to_table, to_column = target.rsplit(".", 1)
            out.append(
                (
                    f"relationships({column})",
                    "relationship",
                    {
                        "table": table,
                        "column": column,
                        "to_table": to_table,
                        "to_column": to_column,
                    },
                )
            )
        return out
    if kind == "row_count":
        _need_table(value, kind, line, {"min", "max", "where"})
        return [("row_count", "row_count", {"table": table, **value})]
    if kind == "freshness":
        _need_table(value, kind, line, {"max_age", "column"})
        if "max_age" not in value:
            raise TomlCheckFileError('freshness needs max_age (e.g. "24h")', line)
        return [("freshness", "fresh", {"table": table, **value})]
    if kind in ("schema", "exact_schema"):
        _need_table(value, kind, line)
        return [
            (
                kind,
                "schema",
                {
                    "table": table,
                    "columns": {k: str(v) for k, v in value.items()},
                    "exact": kind == "exact_schema",
                },
            )
        ]
    # expression
    return [
        (
            f"expression({e})",
            "no_rows",
            {
                "sql": f"SELECT * FROM {table} WHERE NOT ({e})",
                "name": f"expression({e}) on {table}",
            },
        )
        for e in _strings(value, kind, line)
    ]


def _strings(value: Any, kind: str, line: int) -> list[str]:
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, str) and v for v in items):
        raise TomlCheckFileError(f"{kind} takes a name or a list of names, got {value!r}", line)
    return items


def _list(value: Any, kind: str, line: int) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise TomlCheckFileError(f"{kind} takes a non-empty list of values, got {value!r}", line)
    return value


def _need_table(value: Any, kind: str, line: int, keys: set[str] | None = None) -> None:
    if not isinstance(value, dict) or not value:
        raise TomlCheckFileError(f"{kind} takes a table ({{ key = value }}), got {value!r}", line)
    if keys is not None and set(value) - keys:
        raise TomlCheckFileError(
            f"{kind} takes {', '.join(sorted(keys))}; unknown: {', '.join(sorted(set(value) - keys))}",
            line,
        )


_SECTION = re.compile(r"^\s*\[+\s*tables\s*\.")


class _Lines:
    """Where a table's section and its keys are written (tomllib keeps no positions)."""

    def __init__(self, lines: list[str], table: str):
        self.lines = lines
        quoted = re.escape(table)
        header = re.compile(rf"^\s*\[+\s*tables\s*\.\s*(\"{quoted}\"|'{quoted}'|{quoted})\s*[\].]")
        self.table = next((i + 1 for i, t in enumerate(lines) if header.match(t)), 0)
        self.header = header

    def of(self, key: str) -> int:
        """The line of ``key =`` (or ``[...key]``) after the section header."""
        pattern = re.compile(rf"^\s*({re.escape(key)}\s*=|\[+[^\]]*\.\s*{re.escape(key)}\s*\])")
        for i in range(max(self.table - 1, 0), len(self.lines)):
            if (
                i >= self.table
                and _SECTION.match(self.lines[i])
                and not self.header.match(self.lines[i])
            ):
                break  # the next table's section
            if pattern.match(self.lines[i]):
                return i + 1
        return self.table
