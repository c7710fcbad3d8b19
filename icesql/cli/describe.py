"""``.describe TABLE`` laid out as psql's ``\\d``: a title line, the columns as a table, then
short sections (partitioning, sort order, properties, current snapshot, refs), each line
within the terminal's width so nothing folds because one value is long.

The snapshot section tells the rows a query reads (the live rows, counted) apart from the
rows the data files hold: with merge-on-read deletes the snapshot's ``total-records`` counts
rows that position and equality deletes remove, and the section says so in words.

It lays out metadata already loaded (``TableMetadata``) and a count; it runs nothing. The
engine's modules it names (Spark's type and transform names, which bring sqlglot) load with
the first ``.describe``, so the prompt starts without them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from icesql.cli.fit import clip, fit_widths
from icesql.text_table import RULE, text_table

if TYPE_CHECKING:
    from icesql.metadata.table_metadata import TableMetadata

__all__ = ["committed_at", "describe_table", "human_size", "summary_int"]

_INDENT = "    "


def describe_table(name: str, md: TableMetadata, live_rows: int | None, width: int | None) -> str:
    """The whole layout; ``live_rows`` is what ``SELECT count(*)`` reads now (None: no
    snapshot), ``width`` the terminal's (None: nothing is cut)."""
    from icesql.statements.show import describe_sort_order

    lines = [f"Table {name} (Iceberg format v{md.format_version})  {md.location}"]
    lines += _columns(md, width)
    lines += _section("Partitioning", _partitioning(md) or ["(unpartitioned)"], width)
    order = md.sort_order()
    sort = describe_sort_order(order, md.schema()) if order.fields else "(unsorted)"
    lines += _section("Sort order", [sort], width)
    props = [f"{k} = {v}" for k, v in sorted(md.properties.items())] or ["(none)"]
    lines += _section("Properties", props, width)
    lines += _section("Current snapshot", _snapshot(md, live_rows), width)
    lines += _section("Refs", _refs(md), width)
    return "\n".join(line[:width] if width else line for line in lines)


def _columns(md: TableMetadata, width: int | None) -> list[str]:
    from icesql.sql.spark_type_names import spark_type

    header = ["Column", "Type", "Nullable", "Comment"]
    rows = [
        [f.name, spark_type(f.type), "not null" if f.required else "", f.doc or ""]
        for f in md.schema().fields
    ]
    if width:
        natural = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
        fitted = fit_widths(natural, width - 3 * 3 - 1) or natural
        rows = [[clip(c, w) for c, w in zip(r, fitted)] for r in rows]
    table = text_table([header, RULE, *rows], framed=False)
    return [" " + line for line in table.splitlines()]


def _section(title: str, items: Sequence[str], width: int | None) -> list[str]:
    room = width - len(_INDENT) if width else None
    return [f"{title}:", *(_INDENT + (clip(i, room) if room else i) for i in items)]


def _partitioning(md: TableMetadata) -> list[str]:
    from icesql.statements.show import transform_sql

    schema = md.schema()
    return [f"{transform_sql(f, schema)} as {f.name}" for f in md.spec().fields]


def _snapshot(md: TableMetadata, live_rows: int | None) -> list[str]:
    snapshot = md.current_snapshot()
    if snapshot is None:
        return ["(none: the table has no rows yet)"]
    summary = snapshot.summary
    records = summary_int(summary, "total-records")
    data_files = summary_int(summary, "total-data-files")
    position = summary_int(summary, "total-position-deletes")
    equality = summary_int(summary, "total-equality-deletes")
    delete_files = summary_int(summary, "total-delete-files")
    lines = [
        f"{snapshot.snapshot_id} committed {committed_at(snapshot.timestamp_ms)} UTC"
        f" ({snapshot.operation or 'unknown operation'})"
    ]
    if live_rows is not None:
        lines.append(f"{live_rows:,} live rows (what a query reads now)")
    size = human_size(summary_int(summary, "total-files-size"))
    lines.append(f"{records:,} rows in {data_files:,} data files ({size} in all files)")
    if position or equality or delete_files:
        lines.append(
            f"deletes subtracted from the rows in files: {position:,} position deletes,"
            f" {equality:,} equality deletes, in {delete_files:,} delete files"
        )
    else:
        lines.append("no delete files: every row in the data files is live")
    return lines


def _refs(md: TableMetadata) -> list[str]:
    refs = sorted(md.refs.items(), key=lambda kv: (kv[0] != "main", kv[1].type, kv[0]))
    if not refs:
        return ["(none)"]
    width = max(len(n) for n, _ in refs)
    return [f"{n.ljust(width)}  {r.type.lower():6}  {r.snapshot_id}" for n, r in refs]


def committed_at(timestamp_ms: int) -> str:
    """A snapshot's time as a person reads it, in UTC to the second (19 characters)."""
    return dt.datetime.fromtimestamp(timestamp_ms // 1000, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def summary_int(summary: Mapping[str, str], key: str) -> int:
    """A count of a snapshot summary (0 when missing or not a number)."""
    try:
        return int(summary.get(key, 0))
    except ValueError:
        return 0


def human_size(size: int) -> str:
    """Bytes in binary units: ``812 B``, ``24.9 KiB``, ``1.2 GiB``.

    >>> human_size(812), human_size(25453), human_size(3 << 30)
    ('812 B', '24.9 KiB', '3.0 GiB')
    """
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"
