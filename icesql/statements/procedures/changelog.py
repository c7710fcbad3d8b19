"""``create_changelog_view``: Spark's ``CreateChangelogViewProcedure`` — a temporary view of
the rows inserted, deleted and updated between two snapshots.

The view's rows come from the changelog scan (``icesql.scan.changelog``) over the range the
``options`` give (``start-snapshot-id`` exclusive, ``end-snapshot-id`` inclusive, or
``start-timestamp`` / ``end-timestamp`` in epoch milliseconds, resolved as Spark's
``SparkScanBuilder`` does), then, as Spark's changelog iterators do:

* carry-overs removed: a row a snapshot deleted and inserted unchanged (copy-on-write
  rewrites) is no change; of identical rows of one snapshot, the surplus of deletes over
  inserts (or the reverse) is what changed;
* with ``net_changes``, the same across the whole range: a row inserted then deleted is no
  change, and what is left keeps the change ordinal and snapshot of the last run of changes;
* with ``compute_updates`` (the default when ``identifier_columns`` are given; else the
  table's identifier fields), a delete and an insert of the same identifier in one snapshot
  become ``UPDATE_BEFORE`` / ``UPDATE_AFTER``; two deletes of one identifier make reading the
  view fail with Spark's message.

The range is fixed when the view is made; its rows are computed by DuckDB each time the view
is read, streamed, never held whole. The view is a temporary view of the connection (a
registered object, as ``createOrReplaceTempView`` of a DataFrame), named ``changelog_view`` or
``<table>_changes``, and the output row is that name as given.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
from sqlglot import exp

from icesql.catalog.table import Table
from icesql.errors import NotSupportedError, ProgrammingError
from icesql.scan.changelog import (
    CHANGE_COLUMNS,
    CHANGE_ORDINAL,
    CHANGE_TYPE,
    COMMIT_SNAPSHOT_ID,
    change_batches,
    changelog_snapshots,
    plan_changes,
)
from icesql.scan.planner import ManifestCache
from icesql.spec.arrow import schema_to_arrow
from icesql.spec.schema import Schema
from icesql.spec.types import MapType
from icesql.sql.dialect import parse_one
from icesql.statements.procedures.base import (
    BOOLEAN,
    STRING,
    STRING_ARRAY,
    STRING_MAP,
    Call,
    Parameter,
    Procedure,
)

__all__ = ["PROCEDURES"]

_START_ID, _END_ID = "start-snapshot-id", "end-snapshot-id"
_START_TS, _END_TS = "start-timestamp", "end-timestamp"
_REFUSED_OPTIONS = ("snapshot-id", "as-of-timestamp", "branch", "tag")
_TUNING_OPTIONS = frozenset({
    "split-size", "lookback", "file-open-cost", "vectorization-enabled", "batch-size",
    "locality", "streaming-max-files-per-micro-batch", "streaming-max-rows-per-micro-batch",
})  # fmt: skip


def _long_option(call: Call, options: dict[str, str], key: str) -> int | None:
    text = options.get(key)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise call.error(f"option {key} must be a number, got {text!r}") from None


def _range(call: Call, table: Table) -> tuple[int | None, int | None, bool]:
    """(start exclusive, end inclusive, empty) as ``SparkScanBuilder.buildChangelogScan``."""
    options = {k.lower(): v for k, v in (call.args.get("options") or {}).items()}
    if any(k in options for k in _REFUSED_OPTIONS):
        raise call.error(
            "Cannot set neither snapshot-id, as-of-timestamp, branch and tag for changelogs"
        )
    known = (_START_ID, _END_ID, _START_TS, _END_TS, *_TUNING_OPTIONS)
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        raise NotSupportedError(f"procedure {call.procedure}: options {unknown}")
    start, end = _long_option(call, options, _START_ID), _long_option(call, options, _END_ID)
    start_ts, end_ts = _long_option(call, options, _START_TS), _long_option(call, options, _END_TS)
    if start is not None and start_ts is not None:
        raise call.error(f"Cannot set both {_START_ID} and {_START_TS} for changelogs")
    if end is not None and end_ts is not None:
        raise call.error(f"Cannot set both {_END_ID} and {_END_TS} for changelogs")
    if start_ts is not None and end_ts is not None and start_ts >= end_ts:
        raise call.error(f"Cannot set {_START_TS} to be greater than {_END_TS} for changelogs")
    md = table.metadata
    current = md.current_snapshot()
    empty = False
    if start_ts is not None:
        empty = current is None or start_ts > current.timestamp_ms
        start = _start_snapshot(table, start_ts)
    if end_ts is not None:
        end = next(
            (s.snapshot_id for s in _lineage(table) if s.timestamp_ms <= end_ts),
            None,
        )
        if (start is None and end is None) or (start is not None and start == end):
            empty = True
    return start, end, empty


def _lineage(table: Table) -> Iterator[Any]:
    current = table.metadata.current_snapshot()
    return iter(()) if current is None else table.metadata.ancestors_of(current.snapshot_id)


def _start_snapshot(table: Table, timestamp_ms: int) -> int | None:
    """Java's ``getStartSnapshotId``: through ``SnapshotUtil.oldestAncestorAfter``."""
    last = None
    oldest = None
    for snapshot in _lineage(table):
        if snapshot.timestamp_ms < timestamp_ms:
            oldest = last
            break
        if snapshot.timestamp_ms == timestamp_ms:
            oldest = snapshot
            break
        last = snapshot
    else:
        if last is None:
            return None
        if last.parent_snapshot_id is not None:
            raise ProgrammingError(f"Cannot find snapshot older than {timestamp_ms}")
        oldest = last
    if oldest is None:
        return None
    return oldest.snapshot_id if oldest.timestamp_ms == timestamp_ms else oldest.parent_snapshot_id


def _view_name(call: Call, table_name: str) -> tuple[str, str]:
    """(the name as given, the view's name)."""
    given = call.args.get("changelog_view", f"`{table_name}_changes`")
    try:
        node = parse_one(f"SELECT * FROM {given}").find(exp.Table)
    except ProgrammingError:
        node = None
    if node is None or not given.strip():
        raise call.error(f"cannot parse changelog_view {given!r} as a view name")
    if node.args.get("db") or node.args.get("catalog"):
        raise call.error(
            "[TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS] CREATE TEMPORARY VIEW or the corresponding"
            f" Dataset APIs only accept single-part view names, but got: {given}."
        )
    return given, node.name


def _identifiers(call: Call, schema: Schema) -> list[str]:
    given = call.args.get("identifier_columns")
    if given is not None:
        names = {f.name for f in schema.fields}
        for name in given:
            if name not in names:
                raise call.error(f"identifier column {name} is not a column of the table")
        return list(given)
    ids = set(schema.identifier_field_ids)
    return [f.name for f in schema.fields if f.field_id in ids]


def _create_changelog_view(call: Call) -> Sequence[Sequence[Any]]:
    _, table = call.table()
    schema = table.metadata.schema()
    start, end, empty = _range(call, table)
    snapshots = [] if empty else changelog_snapshots(table, start, end)
    net = bool(call.args.get("net_changes", False))
    identifiers = _identifiers(call, schema)
    unorderable = [f.name for f in schema.fields if isinstance(f.type, MapType)]
    if not identifiers and unorderable:
        raise call.error(
            "Identifier field is required as table contains unorderable columns:"
            f" [{', '.join(unorderable)}]"
        )
    updates = bool(call.args.get("compute_updates", "identifier_columns" in call.args))
    if updates and net:
        raise call.error("Not support net changes with update images")
    if updates and not identifiers:
        raise call.error("Cannot compute the update images because identifier columns are not set")
    if unorderable and not updates:
        raise NotSupportedError(
            f"procedure {call.procedure}: carry-over removal over map columns {unorderable}"
        )
    given, name = _view_name(call, table.identifier[-1])
    rows = ChangelogRows(
        table,
        schema,
        snapshots,
        call.session.manifest_cache,
        _sql(schema, net, identifiers if updates else None),
    )
    views = call.session.temp_views
    views.replaced_by_object(name)
    views.forget_registered(name)
    views.registered[name] = rows
    views.generation += 1
    return [(given,)]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sql(schema: Schema, net: bool, identifiers: list[str] | None) -> str:
    """DuckDB's query over the raw changes (``raw``) that Spark's changelog iterators mirror."""
    data = [_quote(f.name) for f in schema.fields]
    ctype, ordinal, snap = _quote(CHANGE_TYPE), _quote(CHANGE_ORDINAL), _quote(COMMIT_SNAPSHOT_ID)
    out = ", ".join([*data, ctype, ordinal, snap])
    if net:
        part = ", ".join(data)
        return f"""
        WITH r AS (
            SELECT *, CASE WHEN {ctype} = 'INSERT' THEN 1 ELSE -1 END AS __v FROM raw),
        w AS (
            SELECT *,
                sum(__v) OVER (PARTITION BY {part} ORDER BY {ordinal}, {ctype}
                               ROWS UNBOUNDED PRECEDING) AS __s,
                sum(__v) OVER (PARTITION BY {part}) AS __net,
                row_number() OVER (PARTITION BY {part} ORDER BY {ordinal}, {ctype}) AS __k
            FROM r),
        s AS (
            SELECT *, max(CASE WHEN __s - __v = 0 THEN __k END) OVER (PARTITION BY {part})
                AS __start
            FROM w)
        SELECT {out} FROM s, range(CAST(abs(__net) AS BIGINT))
        WHERE __net <> 0 AND __k = __start"""
    group = ", ".join([*data, ordinal, snap])
    kept = f"""
        SELECT {group},
            CASE WHEN __d > __i THEN 'DELETE' ELSE 'INSERT' END AS {ctype}
        FROM (
            SELECT {group},
                count(*) FILTER (WHERE {ctype} = 'DELETE') AS __d,
                count(*) FILTER (WHERE {ctype} = 'INSERT') AS __i
            FROM raw GROUP BY {group}),
            range(abs(__d - __i))
        WHERE __d <> __i"""
    if identifiers is None:
        return f"SELECT {out} FROM ({kept})"
    ids = ", ".join(_quote(i) for i in identifiers)
    listed = ",".join(identifiers).replace("'", "''")
    message = (
        "Cannot compute updates because there are multiple rows with the same identifier"
        f" fields([{listed}]). Please make sure the rows are unique."
    )
    return f"""
        WITH k AS ({kept}),
        g AS (
            SELECT *,
                count(*) FILTER (WHERE {ctype} = 'DELETE') OVER (PARTITION BY {ids}, {ordinal})
                    AS __d,
                count(*) FILTER (WHERE {ctype} = 'INSERT') OVER (PARTITION BY {ids}, {ordinal})
                    AS __i,
                row_number() OVER (PARTITION BY {ids}, {ordinal}, {ctype}) AS __n
            FROM k)
        SELECT {", ".join(data)},
            CASE
                WHEN __d > 1 THEN error('{message}')
                WHEN __d = 1 AND __i > 0 AND {ctype} = 'DELETE' THEN 'UPDATE_BEFORE'
                WHEN __d = 1 AND {ctype} = 'INSERT' AND __n = 1 THEN 'UPDATE_AFTER'
                ELSE {ctype}
            END AS {ctype},
            {ordinal}, {snap}
        FROM g"""


class ChangelogRows:
    """The view's rows as an Arrow stream, computed again at each scan (a fixed range)."""

    def __init__(
        self,
        table: Table,
        schema: Schema,
        snapshots: list[Any],
        cache: ManifestCache,
        sql: str,
    ):
        self.table = table
        self.read_schema = schema
        self.schema = pa.schema([*schema_to_arrow(schema), *CHANGE_COLUMNS])
        self._tasks = plan_changes(table, snapshots)
        self._cache = cache
        self._sql = sql

    def batches(self) -> Iterator[pa.RecordBatch]:
        import duckdb

        raw = pa.RecordBatchReader.from_batches(
            self.schema,
            change_batches(self.table, self.read_schema, self._tasks, self._cache, self.schema),
        )
        con = duckdb.connect(":memory:")
        try:
            con.register("raw", raw)
            reader = con.sql(self._sql).to_arrow_reader(64 * 1024)
            for batch in reader:
                yield pa.RecordBatch.from_arrays(
                    [c.cast(f.type) for c, f in zip(batch.columns, self.schema, strict=True)],
                    schema=self.schema,
                )
        finally:
            con.close()

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        reader = pa.RecordBatchReader.from_batches(self.schema, self.batches())
        return reader.__arrow_c_stream__(requested_schema)


PROCEDURES = (
    Procedure(
        "create_changelog_view",
        (
            Parameter("table", STRING),
            Parameter("changelog_view", STRING, required=False),
            Parameter("options", STRING_MAP, required=False),
            Parameter("compute_updates", BOOLEAN, required=False),
            Parameter("identifier_columns", STRING_ARRAY, required=False),
            Parameter("net_changes", BOOLEAN, required=False),
        ),
        pa.schema([pa.field("changelog_view", pa.string(), nullable=False)]),
        _create_changelog_view,
    ),
)
