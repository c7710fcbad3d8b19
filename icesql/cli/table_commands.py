"""The Iceberg dot-commands that lay a table out for a person: ``.describe``, ``.snapshots``
(one line per snapshot), ``.files`` (one line per file) and ``.health`` (the table health
report with its advice), fitted to the terminal.

``.describe`` reads the table's metadata and counts its live rows with icesql's own SQL;
``.files`` asks the ``files`` metadata table, so its WHERE is any a query could use;
``.snapshots`` reads the snapshots and refs of the metadata. Each runs as a statement does
(interruptible, with the progress bar), and prints in the current mode, so a script gets
its rows as csv or json too.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from icesql.cli.describe import committed_at, describe_table, human_size, summary_int
from icesql.cli.fit import ELLIPSIS, fit_widths
from icesql.cli.formatting import render
from icesql.text_table import cell_text

if TYPE_CHECKING:
    from icesql.cli.runner import Shell
    from icesql.metadata.table_metadata import TableMetadata

__all__ = ["describe", "file_rows", "files", "health", "snapshot_rows", "snapshots", "table_name"]

_TABLE_NAME = re.compile(r"^(`[^`]+`|[\w$]+)(\.(`[^`]+`|[\w$]+))*$")
_PART = re.compile(r"`([^`]+)`|([\w$]+)")
CONTENT = {0: "data", 1: "position deletes", 2: "equality deletes"}
SNAPSHOT_COLUMNS = ["committed (UTC)", "snapshot_id", "operation", "rows", "data files",
                    "delete files", "refs"]  # fmt: skip
FILE_COLUMNS = ["content", "path", "format", "partition", "records", "size"]
HEALTH_WIDTH = 80  # the health report's lines at most
_FILE_KEEP = (0, 0, 0, 0, -7, -8)  # counts and sizes are never cut (right-aligned)


def table_name(args: str) -> str:
    """The table name a command's arguments start with (``db.t``, ``` `my db`.t ```)."""
    name = args.split()[0] if args.split() else ""
    if not _TABLE_NAME.match(name):
        raise ValueError(f"takes a table name (db.table), got {args!r}")
    return name


def describe(shell: Shell, args: str) -> bool:
    """``.describe TABLE``: the layout of ``icesql.cli.describe``, with the live rows a
    ``count(*)`` reads now (after deletes)."""
    name = table_name(args)

    def work() -> None:
        md = _metadata(shell, name)
        live = None
        if md.current_snapshot() is not None:
            (live,) = shell.con.execute(f"SELECT count(*) FROM {name}").fetchone() or (None,)
        shell.output.write(describe_table(name, md, live, _terminal_width(shell)))

    return shell.interruptible(work, args, progress=True)


def snapshots(shell: Shell, args: str) -> bool:
    """``.snapshots TABLE``: one line per snapshot, oldest first."""
    name = table_name(args)

    def work() -> None:
        rows = snapshot_rows(_metadata(shell, name))
        _write(shell, SNAPSHOT_COLUMNS, rows, "snapshot(s)", keep=(19, -19))

    return shell.interruptible(work, args, progress=True)


def health(shell: Shell, args: str) -> bool:
    """``.health TABLE [orphans]``: the table's health report (``icesql.health``) as text
    fitted to the terminal and 80 columns, or its JSON in the json modes."""
    name = table_name(args)
    rest = args.split()[1:]
    if rest not in ([], ["orphans"]):
        raise ValueError(f"takes TABLE [orphans], got {args!r}")

    def work() -> None:
        import json

        from icesql.health.text import render_text

        report = shell.con.health(name, orphans=bool(rest))
        if shell.settings.format.mode in ("json", "jsonl"):
            indent = 2 if shell.settings.format.mode == "json" else None
            shell.output.write(json.dumps(report.to_dict(), indent=indent))
            return
        width = min(_terminal_width(shell) or HEALTH_WIDTH, HEALTH_WIDTH)
        shell.output.write(render_text(report, width))

    return shell.interruptible(work, args, progress=True)


def files(shell: Shell, args: str) -> bool:
    """``.files TABLE [WHERE]``: one line per live file, data and delete files."""
    name = table_name(args)
    where = args[len(args.split()[0]) :].strip()

    def work() -> None:
        md = _metadata(shell, name)
        partitioned = any(spec.fields for spec in md.specs)
        sql = (
            "SELECT content, file_path, file_format,"
            f" {'partition' if partitioned else 'NULL'}, record_count, file_size_in_bytes"
            f" FROM {name}.files{f' WHERE {where}' if where else ''} ORDER BY file_path"
        )
        found = shell.con.execute(sql).fetchall()
        rows = file_rows(found, md.location, shell.output.fit_width())
        _write(shell, FILE_COLUMNS, rows, "file(s)", keep=_FILE_KEEP)

    return shell.interruptible(work, args, progress=True)


# -- rows ---------------------------------------------------------------------------------------
def snapshot_rows(md: TableMetadata) -> list[tuple[object, ...]]:
    """Per snapshot: its time, id, operation, rows and files added/removed (``+N/-M`` from
    its summary; rows removed count position and equality delete records too) and the refs
    that point at it."""
    pointing: dict[int, list[str]] = {}
    for ref_name, ref in sorted(md.refs.items(), key=lambda kv: (kv[0] != "main", kv[0])):
        label = ref_name if ref_name == "main" else f"{ref.type.lower()} {ref_name}"
        pointing.setdefault(ref.snapshot_id, []).append(label)
    out: list[tuple[object, ...]] = []
    for snap in sorted(md.snapshots, key=lambda s: (s.timestamp_ms, s.sequence_number)):
        s = snap.summary
        removed = sum(
            summary_int(s, k)
            for k in ("deleted-records", "added-position-deletes", "added-equality-deletes")
        )
        data = (summary_int(s, "added-data-files"), summary_int(s, "deleted-data-files"))
        deletes = (summary_int(s, "added-delete-files"), summary_int(s, "removed-delete-files"))
        out.append(
            (
                committed_at(snap.timestamp_ms),
                snap.snapshot_id,
                snap.operation or "",
                f"+{summary_int(s, 'added-records'):,}/-{removed:,}",
                f"+{data[0]:,}/-{data[1]:,}",
                f"+{deletes[0]:,}/-{deletes[1]:,}",
                ", ".join(pointing.get(snap.snapshot_id, ())),
            )
        )
    return out


def file_rows(
    found: Sequence[Sequence[object]], location: str, width: int | None = None
) -> list[tuple[object, ...]]:
    """Per file: what it holds, its path below the table's folder (cut in the middle to
    ``width`` so its distinct end stays), format, partition, rows and size."""
    rows: list[tuple[object, ...]] = []
    for content, path, file_format, partition, records, size in found:
        rows.append(
            (
                CONTENT.get(content, str(content)) if isinstance(content, int) else content,
                _below(str(path), location),
                str(file_format).lower(),
                _partition_text(partition),
                records,
                human_size(size) if isinstance(size, int) else size,
            )
        )
    sizes = max((len(str(r[5])) for r in rows), default=0)
    rows = [(*r[:5], str(r[5]).rjust(sizes)) for r in rows]  # sizes line up to the right
    if width and rows:
        keep = [abs(k) for k in _FILE_KEEP]
        natural = [
            max(len(c), keep[i], *(len(cell_text(r[i])) for r in rows))
            for i, c in enumerate(FILE_COLUMNS)
        ]  # as the table measures them, so the path needs no second cut
        fitted = fit_widths(natural, width - 3 * len(FILE_COLUMNS) - 1, keep)
        if fitted is not None:
            rows = [(r[0], _clip_middle(str(r[1]), fitted[1]), *r[2:]) for r in rows]
    return rows


def _below(path: str, location: str) -> str:
    for prefix in (location, location.removeprefix("file:")):
        prefix = prefix.rstrip("/") + "/"
        if path.startswith(prefix):
            return path[len(prefix) :]
        if path.startswith("file:" + prefix):
            return path[len(prefix) + 5 :]
    return path


def _partition_text(partition: object) -> str:
    if isinstance(partition, dict):
        return ", ".join(f"{k}={cell_text(v)}" for k, v in partition.items())
    return "" if partition is None else cell_text(partition)


def _clip_middle(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    head = (width - 1) // 2
    return text[:head] + ELLIPSIS + text[len(text) - (width - 1 - head) :]


# -- helpers --------------------------------------------------------------------------------
def _metadata(shell: Shell, name: str) -> TableMetadata:
    """The table's current metadata, the name resolved as a query resolves it."""
    from icesql.sql.identifiers import catalog_and_table  # sqlglot: not before it is needed

    engine = shell.con.engine
    parts = [quoted or plain for quoted, plain in _PART.findall(name)]
    catalog, identifier = catalog_and_table(
        parts, engine.catalogs, engine.catalog, engine.default_namespace
    )
    return catalog.load_table(identifier).metadata


def _terminal_width(shell: Shell) -> int | None:
    """The width ``.describe`` keeps to: the terminal's, pager or not (it is never paged)."""
    return shutil.get_terminal_size().columns if shell.output.at_terminal() else None


def _write(
    shell: Shell,
    columns: list[str],
    rows: list[tuple[object, ...]],
    what: str,
    keep: tuple[int, ...] = (),
) -> None:
    """The rows in the current mode; table and box cut to the terminal (never below the
    widths in ``keep``, negative: right-aligned) and say how many."""
    fmt = replace(shell.settings.format, max_width=shell.output.fit_width(), widths=keep)
    footer = f"\n{len(rows)} {what}" if fmt.mode in ("table", "box") else ""
    fold = lambda: render(columns, rows, replace(fmt, mode="line")) + footer  # noqa: E731
    shell.output.write(render(columns, rows, fmt) + footer, fold=fold)
