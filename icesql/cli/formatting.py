"""Result sets as text in the DuckDB CLI's output modes.

Human modes (``table``, ``box``, ``markdown``, ``line``, ``html``) show NULL as the null value
(``NULL`` unless ``.nullvalue`` says otherwise) and right-align numbers; data modes (``csv``,
``tsv``, ``json``, ``jsonl``) write values a program reads back (NULL is an empty field or
``null``). Each function takes the column names and the rows already fetched, so one code
path serves ``-c``, piped scripts and the prompt.

>>> print(render(["id", "name"], [(1, "a"), (10, None)], Format("markdown")))
| id | name |
|---:|------|
|  1 | a    |
| 10 | NULL |
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from icesql.cli.fit import clip, fit_widths
from icesql.text_table import RULE, cell_text, is_numeric, json_value, text_table

MODES = ("table", "box", "csv", "tsv", "json", "jsonl", "markdown", "line", "html")
# modes whose output a person reads: row limits, footers and NULL markers apply to them
HUMAN_MODES = frozenset({"table", "box", "markdown", "line", "html"})
# modes a wide table can be folded into at a terminal
TABULAR_MODES = frozenset({"table", "box", "markdown"})

Rows = Sequence[Sequence[object]]


@dataclass(frozen=True)
class Format:
    """How to print a result set: the mode, whether to print the header, the text of NULL,
    and ``.width``'s column widths for aligned modes (the DuckDB CLI's: ``n`` at least n wide
    and left-aligned, ``-n`` at least n wide and right-aligned, 0 or none as the data asks).
    ``max_width`` (the terminal's, set by the shell) cuts the widest cells of ``table`` and
    ``box`` with "…" so each row keeps to one line of the screen (``icesql.cli.fit``)."""

    mode: str = "table"
    headers: bool = True
    nullvalue: str | None = None  # None: the mode's own (NULL, empty field, null)
    widths: tuple[int, ...] = ()
    max_width: int | None = None

    def null_text(self) -> str:
        if self.nullvalue is not None:
            return self.nullvalue
        return "" if self.mode in ("csv", "tsv") else "NULL"


def render(columns: Sequence[str], rows: Rows, fmt: Format) -> str:
    """The whole result set in ``fmt.mode``, without a trailing newline."""
    try:
        renderer = _RENDERERS[fmt.mode]
    except KeyError:
        raise ValueError(f"unknown output mode {fmt.mode!r}; one of {', '.join(MODES)}") from None
    return renderer(list(columns), rows, fmt)


def numeric_columns(width: int, rows: Rows) -> list[bool]:
    """A column is right-aligned when it has a number and nothing but numbers and NULLs."""
    out = []
    for i in range(width):
        values = [r[i] for r in rows if r[i] is not None]
        out.append(bool(values) and all(is_numeric(v) for v in values))
    return out


def _escape_cell(text: str) -> str:
    # an aligned table keeps its columns: tabs and carriage returns are shown, not obeyed
    return text.replace("\t", "\\t").replace("\r", "\\r")


def _grid(
    columns: list[str], rows: Rows, fmt: Format, fit: bool = False
) -> tuple[list[str], list[list[str]], list[int], list[bool]]:
    """The header, each row as its printed lines (a cell with line breaks, like an EXPLAIN
    plan, spans several), the column widths and which columns are numeric; with ``fit``,
    cells cut to keep within ``fmt.max_width``."""
    null = fmt.null_text()
    lines: list[list[str]] = []
    for row in rows:
        parts = [_escape_cell(cell_text(v, null)).split("\n") for v in row]
        height = max((len(p) for p in parts), default=1)
        lines += [[p[i] if i < len(p) else "" for p in parts] for i in range(height)]
    widths = [len(c) if fmt.headers else 0 for c in columns]
    for line in lines:
        for i, text in enumerate(line):
            widths[i] = max(widths[i], len(text))
    numeric = numeric_columns(len(columns), rows)
    for i, asked in enumerate(fmt.widths[: len(columns)]):
        if asked:
            widths[i] = max(widths[i], abs(asked))
            numeric[i] = asked < 0
    if fit and fmt.max_width is not None and columns:
        frame = 3 * len(columns) + 1  # "| " ... " | " ... " |"
        floors = [abs(w) for w in fmt.widths[: len(columns)]]
        fitted = fit_widths(widths, fmt.max_width - frame, floors)
        if fitted is not None and fitted != widths:
            columns = [clip(c, w) for c, w in zip(columns, fitted)]
            lines = [[clip(c, w) for c, w in zip(line, fitted)] for line in lines]
            widths = fitted
    return columns, lines, widths, numeric


def _align(values: Sequence[str], widths: Sequence[int], numeric: Sequence[bool]) -> list[str]:
    return [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)]


def _table(columns: list[str], rows: Rows, fmt: Format) -> str:
    columns, cells, widths, numeric = _grid(columns, rows, fmt, fit=True)
    head: list[Sequence[str] | None] = [columns, RULE] if fmt.headers else []
    tail: list[Sequence[str] | None] = [RULE] if cells else []
    return text_table([RULE, *head, *cells, *tail], numeric, widths=widths)


def _box(columns: list[str], rows: Rows, fmt: Format) -> str:
    columns, cells, widths, numeric = _grid(columns, rows, fmt, fit=True)

    def rule(left: str, mid: str, right: str) -> str:
        return left + mid.join("─" * (w + 2) for w in widths) + right

    lines = [rule("┌", "┬", "┐")]
    if fmt.headers:
        lines += ["│ " + " │ ".join(_align(columns, widths, numeric)) + " │", rule("├", "┼", "┤")]
    lines += ["│ " + " │ ".join(_align(r, widths, numeric)) + " │" for r in cells]
    lines.append(rule("└", "┴", "┘"))
    return "\n".join(lines)


def _markdown(columns: list[str], rows: Rows, fmt: Format) -> str:
    columns, cells, widths, numeric = _grid(columns, rows, fmt)
    cells = [[c.replace("|", "\\|") for c in row] for row in cells]
    rule = ["-" * (w + 1) + ":" if num else "-" * (w + 2) for w, num in zip(widths, numeric)]
    lines = ["| " + " | ".join(_align(columns, widths, numeric)) + " |"]
    lines.append("|" + "|".join(rule) + "|")
    lines += ["| " + " | ".join(_align(r, widths, numeric)) + " |" for r in cells]
    return "\n".join(lines)


def _line(columns: list[str], rows: Rows, fmt: Format) -> str:
    null = fmt.null_text()
    width = max((len(c) for c in columns), default=0)
    blocks = []
    for row in rows:
        blocks.append(
            "\n".join(f"{c.rjust(width)} = {cell_text(v, null)}" for c, v in zip(columns, row))
        )
    return "\n\n".join(blocks)


def _html(columns: list[str], rows: Rows, fmt: Format) -> str:
    null = fmt.null_text()
    lines = ["<table>"]
    if fmt.headers:
        lines.append("<tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in columns) + "</tr>")
    for row in rows:
        tds = "".join(
            f'<td align="right">{html.escape(cell_text(v, null))}</td>'
            if is_numeric(v)
            else f"<td>{html.escape(cell_text(v, null))}</td>"
            for v in row
        )
        lines.append(f"<tr>{tds}</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def _delimited(delimiter: str) -> Callable[[list[str], Rows, Format], str]:
    def render_delimited(columns: list[str], rows: Rows, fmt: Format) -> str:
        null = fmt.null_text()
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
        if fmt.headers:
            writer.writerow(columns)
        for row in rows:
            writer.writerow([null if v is None else cell_text(v) for v in row])
        return buffer.getvalue().rstrip("\n")

    return render_delimited


def _json_lines(columns: list[str], rows: Rows) -> list[str]:
    return [
        json.dumps({c: json_value(v) for c, v in zip(columns, row)}, ensure_ascii=False)
        for row in rows
    ]


def _json(columns: list[str], rows: Rows, fmt: Format) -> str:
    lines = _json_lines(columns, rows)
    if not lines:
        return "[]"
    return "[" + ",\n".join(lines) + "]"


def _jsonl(columns: list[str], rows: Rows, fmt: Format) -> str:
    return "\n".join(_json_lines(columns, rows))


_RENDERERS: dict[str, Callable[[list[str], Rows, Format], str]] = {
    "table": _table,
    "box": _box,
    "markdown": _markdown,
    "line": _line,
    "html": _html,
    "csv": _delimited(","),
    "tsv": _delimited("\t"),
    "json": _json,
    "jsonl": _jsonl,
}
