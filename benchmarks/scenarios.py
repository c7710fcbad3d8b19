"""The scenarios of issue 7: what icesql is compared with, and the target for each.

Each scenario names the worker requests of its sides (icesql, the baseline that carries the
target, PyIceberg for context) and how its figure is judged:

* ``ratio`` — median icesql seconds / median baseline seconds <= ``target``;
* ``rss`` — icesql's peak RSS / the baseline's peak RSS (taken from another scenario's runs);
* ``files`` — data files read (from EXPLAIN) equal the files whose metrics overlap the filter;
* ``stream`` — completes under a memory limit the parent enforces, with the right count;
* ``info`` — no target: the figures side by side with their floor (``icesql serve``).
* ``overhead`` — (median icesql seconds - median baseline seconds) / ``extra["checks"]``, in
  milliseconds, <= ``target``: the cost each data check adds over running its query in DuckDB.

A delete scenario's baseline is icesql itself on the same data files without deletes,
measured again in the same interleaved rounds. Both go to DuckDB's own ``read_parquet``,
the deletes applied inside DuckDB (``icesql.scan.native_deletes``); the reference side
applies the same deletes in icesql's Arrow stream instead, the route of a scan DuckDB's
reader cannot take.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from benchmarks import config
from benchmarks.config import BASE, DV, EQ, MANY, NAMESPACE, ORC, POS, SCRATCH, Sizes
from benchmarks.datagen import Dataset
from benchmarks.lineitem import COLUMNS_DDL

Request = dict[str, Any]
RequestFn = Callable[[Dataset, Sizes], Request]


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    kind: str  # ratio | rss | files | stream | info
    target: float | None
    target_text: str
    icesql: RequestFn | None
    baseline_label: str
    baseline: RequestFn | None = None
    baseline_from: str | None = None  # "<scenario>:<side>": reuse those runs as the baseline
    pyiceberg: RequestFn | None = None
    repeats: int | None = None  # None: the command's --repeats
    expected_rows: Callable[[Dataset], int] | None = None  # the sum of the result's "n"
    same_answer: bool = True  # the baseline's result must equal icesql's
    reference: RequestFn | None = None  # a diagnostic side, reported in the notes
    reference_label: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    # the query the peers of benchmarks.peers run: (table, sql with {t}), or None
    peer_query: tuple[str, str | Callable[[Sizes], str]] | None = None


def _table(name: str) -> str:
    return f"{NAMESPACE}.{name}"


def _icesql(
    table: str, sql: str | Callable[[Sizes], str], settings: tuple[str, ...] = ()
) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        text = sql(sizes) if callable(sql) else sql
        args = {"warehouse": ds.warehouse, "sql": text.format(t=_table(table))}
        return {"task": "icesql_query", "args": {**args, "settings": list(settings)}}

    return make


# Every file through icesql's Arrow stream, deletes applied in Python/Arrow
STREAM_ONLY = ("SET icesql.scan.nativeParquet = false",)


def _duckdb(
    sql: str | Callable[[Sizes], str], files: Callable[[Dataset, Sizes], list[str]]
) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        text = sql(sizes) if callable(sql) else sql
        return {"task": "duckdb_parquet", "args": {"files": files(ds, sizes), "sql": text}}

    return make


def _pyiceberg(
    table: str,
    sql: str | Callable[[Sizes], str],
    columns: tuple[str, ...],
    row_filter: Callable[[Sizes], str] | None = None,
) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        text = sql(sizes) if callable(sql) else sql
        args = {
            "metadata": ds.metadata(table),
            "sql": text,
            "columns": list(columns),
            "row_filter": row_filter(sizes) if row_filter else "",
        }
        return {"task": "pyiceberg_query", "args": args}

    return make


def _arrow_stream(sql: str, columns: tuple[str, ...]) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        args = {"files": ds.files(BASE), "sql": sql, "columns": list(columns)}
        return {"task": "duckdb_arrow_stream", "args": args}

    return make


def _all_files(ds: Dataset, sizes: Sizes) -> list[str]:
    return ds.files(BASE)


def _window_files(ds: Dataset, sizes: Sizes) -> list[str]:
    lo, _, count = config.partition_window(sizes)
    first = sizes.months // 2
    return [f["path"] for f in ds.file_rows(BASE) if first <= f["month"] < first + count]


def _many_glob(ds: Dataset, sizes: Sizes) -> list[str]:
    """The many-files table's data files as one glob: 10,000 paths do not fit in the worker's
    command line."""
    data = os.path.dirname(os.path.dirname(ds.files(MANY)[0]))
    return [os.path.join(data, "*", "*.parquet")]


def _many_key_file(ds: Dataset, sizes: Sizes) -> list[str]:
    """The many-files table's file holding the point lookup's key (rows are numbered in file
    order, ``many_rows_per_file`` each; ``benchmarks.lineitem``)."""
    key = config.many_files_key(sizes)
    first_row = (key - 1) * config.LINES_PER_ORDER
    return [ds.files(MANY)[first_row // sizes.many_rows_per_file]]


def orderkey_files(ds: Dataset, sizes: Sizes) -> list[str]:
    """The data files whose [min, max] l_orderkey overlaps the filter: what metrics pruning
    should leave."""
    lo, hi = config.orderkey_window(sizes)
    return [
        f["path"] for f in ds.file_rows(BASE) if f["orderkey_min"] < hi and f["orderkey_max"] >= lo
    ]


def _date_filter(sizes: Sizes) -> str:
    lo, hi, _ = config.partition_window(sizes)
    return f"l_shipdate >= '{lo}' and l_shipdate < '{hi}'"


def _key_filter(sizes: Sizes) -> str:
    lo, hi = config.orderkey_window(sizes)
    return f"l_orderkey >= {lo} and l_orderkey < {hi}"


def _rows_of(table: str) -> Callable[[Dataset], int]:
    return lambda ds: ds.info["tables"][table]["rows"]


def _plan(task: str) -> RequestFn:
    return lambda ds, sizes: {"task": task, "args": {"metadata": ds.metadata(MANY)}}


def _point_plan(task: str, files: int, smoke_files: int) -> RequestFn:
    """A point lookup planned on the metadata-only table of ``files`` files (``smoke_files``
    below the full data size), generated on first use (``benchmarks.planning_tables``)."""

    def make(ds: Dataset, sizes: Sizes) -> Request:
        from benchmarks.planning_tables import planning_table, point_key

        n = files if sizes.rows >= 1_000_000 else smoke_files
        args = {"metadata": planning_table(ds.root, n), "key": point_key(n)}
        return {"task": task, "args": args}

    return make


def _planning_scaling(label: str, files: int, smoke_files: int) -> Scenario:
    return Scenario(
        f"planning_point_{label}_files",
        f"plan_scan of l_orderkey = k on {files:,} files / {files // 100:,} manifests"
        f" ({smoke_files:,} in smoke), one file matching by metrics (metadata only)",
        "info",
        None,
        "informational: planning cost by table size (CPU time and warm re-plan in the notes)",
        _point_plan("icesql_plan", files, smoke_files),
        "PyIceberg plan_files(EqualTo)",
        _point_plan("pyiceberg_plan", files, smoke_files),
    )


WARM_RUNS = 20  # timed runs of a warm scenario, after one untimed


def _icesql_warm(table: str, sql: Callable[[Sizes], str]) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        args = {
            "warehouse": ds.warehouse,
            "sql": sql(sizes).format(t=_table(table)),
            "runs": WARM_RUNS,
        }
        return {"task": "icesql_warm", "args": args}

    return make


def _duckdb_warm(
    sql: Callable[[Sizes], str], files: Callable[[Dataset, Sizes], list[str]]
) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        args = {"files": files(ds, sizes), "sql": sql(sizes), "runs": WARM_RUNS}
        return {"task": "duckdb_warm", "args": args}

    return make


def _explain(ds: Dataset, sizes: Sizes) -> Request:
    sql = config.orderkey_query(sizes).format(t=_table(BASE))
    return {"task": "icesql_explain", "args": {"warehouse": ds.warehouse, "sql": sql}}


def _insert(ds: Dataset, sizes: Sizes) -> Request:
    args = {
        "warehouse": ds.warehouse,
        "target": f"{SCRATCH}.insert_target",
        "columns_ddl": COLUMNS_DDL,
        "source": _table(BASE),
    }
    return {"task": "icesql_insert", "args": args}


def _pyarrow_write(ds: Dataset, sizes: Sizes) -> Request:
    return {
        "task": "pyarrow_write",
        "args": {"files": ds.files(BASE), "out": os.path.join(ds.root, "pyarrow_out")},
    }


REWRITE_OPTIONS = "map('min-input-files', '2')"


def _rewrite(task: str) -> RequestFn:
    def request(ds: Dataset, sizes: Sizes) -> Request:
        args = {
            "warehouse": ds.warehouse,
            "source": _table(POS),
            "target": f"{SCRATCH}.rewrite_target_{task}",
            "options": REWRITE_OPTIONS,
        }
        if task == "icesql_rewrite":
            args["read_sql"] = config.AGGREGATE
        return {"task": task, "args": args}

    return request


def merge_inserts(sizes: Sizes) -> int:
    """Single-row INSERTs of the manifest-merging scenario: 1,000 at full size, 50 in smoke."""
    return 1000 if sizes.rows >= 1_000_000 else 50


def _manifest_merge(task: str) -> RequestFn:
    def request(ds: Dataset, sizes: Sizes) -> Request:
        folder = os.path.join(ds.root, f"manifest-merge-{task}")
        return {"task": task, "args": {"folder": folder, "inserts": merge_inserts(sizes)}}

    return request


def _s3(ds: Dataset) -> dict[str, Any]:
    """The base table's copy in a bucket of the local S3 server (``benchmarks.s3``)."""
    return ds.info["s3"]


def _icesql_s3(sql: str | Callable[[Sizes], str]) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        text = sql(sizes) if callable(sql) else sql
        s3 = _s3(ds)
        args = {
            "warehouse": s3["warehouse"],
            "sql": text.format(t=_table(BASE)),
            "properties": s3["properties"],
        }
        return {"task": "icesql_query", "args": args}

    return make


def _duckdb_s3(
    sql: str | Callable[[Sizes], str], files: Callable[[Dataset, Sizes], list[str]]
) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        text = sql(sizes) if callable(sql) else sql
        args = {"files": files(ds, sizes), "sql": text, "properties": _s3(ds)["properties"]}
        return {"task": "duckdb_parquet", "args": args}

    return make


def _pyiceberg_s3(sql: str, columns: tuple[str, ...]) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        s3 = _s3(ds)
        args = {
            "metadata": s3["metadata"],
            "sql": sql,
            "columns": list(columns),
            "row_filter": "",
            "properties": s3["properties"],
        }
        return {"task": "pyiceberg_query", "args": args}

    return make


def _s3_files(ds: Dataset, sizes: Sizes) -> list[str]:
    return _s3(ds)["files"]


def rest_history_snapshots(sizes: Sizes) -> int:
    """Snapshots of the REST scenarios' history table: 1,000 at full size, a few in smoke."""
    return 1000 if sizes.rows >= 1_000_000 else 20


def _commits_per_writer(sizes: Sizes, writers: int) -> int:
    return (400 // writers) if sizes.rows >= 1_000_000 else 5


def _rest_commits(via: str, writers: int) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        folder = os.path.join(ds.root, f"rest-commits-{via}-{writers}")
        args = {
            "folder": folder,
            "via": via,
            "writers": writers,
            "commits": _commits_per_writer(sizes, writers),
        }
        return {"task": "rest_commits", "args": args}

    return make


def _history_args(ds: Dataset, sizes: Sizes) -> dict[str, Any]:
    h = ds.info["rest_history"]
    return {"db_uri": h["db_uri"], "warehouse": h["warehouse"], "table": h["table"]}


def _rest_load(task: str) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        loads = 50 if sizes.rows >= 1_000_000 else 3
        return {"task": task, "args": {**_history_args(ds, sizes), "loads": loads}}

    return make


def _select_via(via: str) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        queries = 20 if sizes.rows >= 1_000_000 else 2
        args = {**_history_args(ds, sizes), "via": via, "queries": queries}
        return {"task": "icesql_select_via", "args": args}

    return make


def _rest_commit_scenario(writers: int) -> Scenario:
    return Scenario(
        f"rest_commits_{writers}w",
        f"single-row INSERT commits to one table through icesql serve, {writers} writer"
        f" process{'es' if writers > 1 else ''} at once",
        "info",
        None,
        "informational: commits/s in the notes",
        _rest_commits("rest", writers),
        "the same commits to the SQL catalog directly (floor)",
        _rest_commits("sql", writers),
        extra={
            "commits": lambda sizes: writers * _commits_per_writer(sizes, writers),
            "labels": ("through icesql serve", "to the SQL catalog directly"),
        },
    )


def _spark_commits(ds: Dataset, sizes: Sizes) -> Request:
    folder = os.path.join(ds.root, "rest-commits-spark")
    return {
        "task": "spark_rest_commits",
        "args": {"folder": folder, "commits": _commits_per_writer(sizes, 1)},
    }


def _checks(sizes: Sizes) -> list[list[str]]:
    return [list(c) for c in config.data_checks(sizes)]


def _pytest_checks(ds: Dataset, sizes: Sizes) -> Request:
    args = {
        "warehouse": ds.warehouse,
        "folder": os.path.join(ds.root, "data_checks"),
        "checks": _checks(sizes),
        "table": _table(BASE),
    }
    return {"task": "icesql_pytest_checks", "args": args}


def _duckdb_checks(ds: Dataset, sizes: Sizes) -> Request:
    return {"task": "duckdb_checks", "args": {"files": ds.files(BASE), "checks": _checks(sizes)}}


def _spark_checks(ds: Dataset, sizes: Sizes) -> Request:
    args = {
        "warehouse": ds.warehouse,
        "checks": _checks(sizes),
        "table": _table(BASE),
        "scratch": os.path.join(ds.root, "spark_scratch"),
    }
    return {"task": "spark_checks", "args": args}


AGG_COLS = config.AGGREGATE_COLUMNS
PART_COLS = ("l_shipmode", "l_extendedprice", "l_shipdate")
KEY_COLS = ("l_orderkey", "l_quantity")


def _delete_scenario(name: str, table: str, what: str, target: float) -> Scenario:
    return Scenario(
        name,
        f"full aggregate, {what}",
        "ratio",
        target,
        f"<= {target}x icesql without deletes",
        _icesql(table, config.AGGREGATE),
        "icesql, no deletes",
        _icesql(BASE, config.AGGREGATE),  # measured again, interleaved: same load on both
        same_answer=False,
        pyiceberg=_pyiceberg(table, config.AGGREGATE, AGG_COLS),
        expected_rows=_rows_of(table),
        reference=_icesql(table, config.AGGREGATE, STREAM_ONLY),
        reference_label=(
            "icesql with the same deletes applied in the Arrow stream instead of DuckDB"
            " (SET icesql.scan.nativeParquet = false)"
        ),
        peer_query=(table, config.AGGREGATE),
    )


def peer_request(s: Scenario, peer: str, python: str, ds: Dataset, sizes: Sizes) -> Request:
    """The worker request of ``peer`` (run by its own virtualenv's ``python``) on ``s``."""
    assert s.peer_query is not None
    table, sql = s.peer_query
    text = sql(sizes) if callable(sql) else sql
    args = {"peer": peer, "metadata": ds.metadata(table), "sql": text}
    return {"task": "peer_query", "python": python, "args": args}


def _dml(task: str, name: str) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        args = {
            "warehouse": ds.warehouse,
            "source": _table(BASE),
            "target": f"{SCRATCH}.{name}_{task.split('_')[0]}",
            "statements": list(config.dml_statements(sizes)[name]),
            "check": config.DML_CHECK,
        }
        return {"task": task, "args": args}

    return make


def dml_peer_request(s: Scenario, peer: str, python: str, ds: Dataset, sizes: Sizes) -> Request:
    """The worker request of ``peer`` (one of ``benchmarks.peers.DML_PEERS``) on the DML
    scenario ``s``: the same statements on a metadata copy of its own."""
    name = s.extra["dml"]
    args = {
        "peer": peer,
        "warehouse": ds.warehouse,
        "source": _table(BASE),
        "target": f"{SCRATCH}.{name}_{peer}",
        "statements": list(config.dml_statements(sizes)[name]),
        "check": config.DML_CHECK,
    }
    return {"task": "peer_dml", "python": python, "args": args}


def _pyiceberg_dml(name: str, operation: str, mode: str = "") -> RequestFn:
    """PyIceberg's call for the DML scenario ``name`` (``benchmarks.worker.pyiceberg_dml``)."""

    def make(ds: Dataset, sizes: Sizes) -> Request:
        lo, hi = config.overwrite_month(sizes)
        row_filter = {
            "delete": config.DML_FILTER,
            "overwrite": f"l_shipdate >= '{lo}' and l_shipdate < '{hi}'",
            "upsert": "",
        }[operation]
        args = {
            "warehouse": ds.warehouse,
            "source": _table(BASE),
            "target": f"{SCRATCH}.{name}_pyiceberg",
            "operation": operation,
            "mode": mode,
            "row_filter": row_filter,
            "rows_sql": config.merge_source_rows(sizes) if operation == "upsert" else "",
            "check": config.DML_CHECK,
        }
        return {"task": "pyiceberg_dml", "args": args}

    return make


def _find_rows(ds: Dataset, sizes: Sizes) -> Request:
    return {
        "task": "duckdb_find_rows",
        "args": {"files": ds.files(BASE), "predicate": config.DML_FILTER},
    }


# Issue 27's target on every DML scenario: icesql at or below repark's time
REPARK_TARGET = ("peer:repark", 1.0, "<= 1x repark 1.5.5 (issue 27)")


def _dml_scenario(
    name: str,
    what: str,
    pyiceberg: RequestFn | None,
    targets: tuple[tuple[str, float, str], ...] = (),
    reference: RequestFn | None = None,
    reference_label: str = "",
) -> Scenario:
    """A DML statement on a metadata copy of lineitem, icesql against Spark local (the table's
    target), beside PyIceberg's call where it has one and the DML peers; ``targets`` are the
    further (side, factor, text) targets judged on the same runs."""
    return Scenario(
        name,
        f"{what} on a metadata copy of lineitem (each engine its own copy)",
        "ratio",
        0.2,
        "<= 0.2x Spark local (issue 21)",
        _dml("icesql_dml", name),
        "Spark local[2] (session start not timed)",
        _dml("spark_dml", name),
        pyiceberg=pyiceberg,
        reference=reference,
        reference_label=reference_label,
        extra={"spark_baseline": True, "dml": name, "targets": (*targets, REPARK_TARGET)},
    )


def _partition_delete_scenario(name: str, table: str, what: str) -> Scenario:
    return Scenario(
        name,
        f"~5% of the month partitions, {what}",
        "ratio",
        1.25,
        "<= 1.25x DuckDB on matching files",
        _icesql(table, config.partition_query),
        "DuckDB read_parquet, matching files (no deletes)",
        _duckdb(config.partition_query, _window_files),
        same_answer=False,
        pyiceberg=_pyiceberg(table, config.partition_query, PART_COLS, _date_filter),
        peer_query=(table, config.partition_query),
    )


def _python_insert(task: str, kind: str) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        args = {
            "files": ds.files(BASE),
            "rows": config.python_rows(sizes),
            "kind": kind,
            "scratch": os.path.join(ds.root, f"scratch_{task}_{kind}"),
        }
        return {"task": task, "args": args}

    return make


def _python_scenario(kind: str, what: str) -> Scenario:
    return Scenario(
        f"insert_{kind}",
        f"INSERT INTO t SELECT * FROM <{what} in scope>, half the lineitem rows",
        "ratio",
        1.0,
        "<= 1x PyIceberg table.append()",
        _python_insert("icesql_insert_python", kind),
        "PyIceberg table.append() of the same data",
        _python_insert("pyiceberg_append", kind),
    )


def _frame(task: str) -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        sql = config.frame_query(sizes)
        if task == "icesql_df":
            return {
                "task": task,
                "args": {"warehouse": ds.warehouse, "sql": sql.format(t=_table(BASE))},
            }
        return {"task": task, "args": {"files": ds.files(BASE), "sql": sql}}

    return make


def _rows_out(task: str, how: str = "") -> RequestFn:
    def make(ds: Dataset, sizes: Sizes) -> Request:
        sql = config.rows_out_query(sizes)
        if task in ("duckdb_rows", "duckdb_records_frame"):
            return {"task": task, "args": {"files": ds.files(BASE), "sql": sql}}
        args = {"warehouse": ds.warehouse, "sql": sql.format(t=_table(BASE))}
        return {"task": task, "args": {**args, **({"how": how} if how else {})}}

    return make


def _rows_out_scenario(how: str, what: str) -> Scenario:
    return Scenario(
        f"cursor_{how}",
        f"{what} of seven columns of a twentieth of the lineitem rows, as Python tuples",
        "ratio",
        1.2,
        "<= 1.2x DuckDB fetchall() of the same query (issue 43)",
        _rows_out("icesql_rows", how),
        "DuckDB fetchall(), read_parquet of the same files",
        _rows_out("duckdb_rows"),
    )


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "full_aggregate",
        "GROUP BY returnflag, linestatus over the whole table",
        "ratio",
        1.15,
        "<= 1.15x DuckDB read_parquet (issue 21)",
        _icesql(BASE, config.AGGREGATE),
        "DuckDB read_parquet",
        _duckdb(config.AGGREGATE, _all_files),
        pyiceberg=_pyiceberg(BASE, config.AGGREGATE, AGG_COLS),
        expected_rows=_rows_of(BASE),
        reference=_arrow_stream(config.AGGREGATE, AGG_COLS),
        reference_label="DuckDB over a pyarrow scanner stream of the same files (floor of an Arrow-stream reader)",
        peer_query=(BASE, config.AGGREGATE),
        extra={"cpu_utilisation": True},
    ),
    Scenario(
        "full_aggregate_rss",
        "peak RSS of the full aggregate (same runs)",
        "rss",
        1.3,
        "<= 1.3x DuckDB read_parquet RSS (issue 21)",
        None,
        "DuckDB read_parquet",
        baseline_from="full_aggregate:baseline",
        extra={"from": "full_aggregate"},
    ),
    Scenario(
        "partition_filter",
        "~5% of the month partitions",
        "ratio",
        1.25,
        "<= 1.25x DuckDB on matching files",
        _icesql(BASE, config.partition_query),
        "DuckDB read_parquet, matching files",
        _duckdb(config.partition_query, _window_files),
        pyiceberg=_pyiceberg(BASE, config.partition_query, PART_COLS, _date_filter),
        peer_query=(BASE, config.partition_query),
    ),
    Scenario(
        "warm_partition_filter",
        f"the ~5% partitions query repeated on one connection ({WARM_RUNS} timed runs after"
        " one), vs DuckDB repeating it over the matching files",
        "warm",
        3.0,
        "issue 21: a warm repeat adds <= 3 ms over DuckDB's",
        _icesql_warm(BASE, config.partition_query),
        "DuckDB read_parquet, matching files, warm",
        _duckdb_warm(config.partition_query, _window_files),
        extra={"runs": WARM_RUNS},
    ),
    Scenario(
        "warm_many_files_point",
        f"the point lookup on 10,000 files repeated on one connection ({WARM_RUNS} timed"
        " runs after one)",
        "warm",
        5.0,
        "issue 21: <= 5 ms per warm query",
        _icesql_warm(MANY, config.many_point_query),
        "DuckDB read_parquet of the one matching file, warm",
        _duckdb_warm(config.many_point_query, _many_key_file),
        extra={"runs": WARM_RUNS, "absolute": True},
    ),
    Scenario(
        "orc_full_aggregate",
        "the full aggregate over the ORC copy of lineitem (same rows, ORC files)",
        "info",
        None,
        "informational: ORC / Parquet seconds as the ratio",
        _icesql(ORC, config.AGGREGATE),
        "icesql on the Parquet table",
        _icesql(BASE, config.AGGREGATE),
        expected_rows=_rows_of(ORC),
    ),
    Scenario(
        "orc_partition_filter",
        "~5% of the month partitions of the ORC copy of lineitem",
        "info",
        None,
        "informational: ORC / Parquet seconds as the ratio",
        _icesql(ORC, config.partition_query),
        "icesql on the Parquet table",
        _icesql(BASE, config.partition_query),
    ),
    Scenario(
        "metrics_pruning",
        "narrow l_orderkey range (sorted column), pruned by file metrics",
        "files",
        None,
        "files read = files overlapping",
        _icesql(BASE, config.orderkey_query),
        "DuckDB read_parquet, overlapping files",
        _duckdb(config.orderkey_query, orderkey_files),
        pyiceberg=_pyiceberg(BASE, config.orderkey_query, KEY_COLS, _key_filter),
    ),
    _delete_scenario("position_deletes_10pct", POS, "10% position deletes", 1.15),
    _delete_scenario("deletion_vectors_10pct", DV, "10% deletion vectors (v3)", 1.15),
    _delete_scenario("equality_deletes_1pct", EQ, "1% equality deletes", 1.3),
    _partition_delete_scenario("partition_filter_pos_deletes", POS, "10% position deletes"),
    _partition_delete_scenario("partition_filter_dv", DV, "10% deletion vectors (v3)"),
    Scenario(
        "planning_10k_files",
        "plan_files on 10,000 files / 100 manifests (metadata only)",
        "ratio",
        0.5,
        "<= 0.5x PyIceberg plan_files()",
        _plan("icesql_plan"),
        "PyIceberg plan_files()",
        _plan("pyiceberg_plan"),
    ),
    _planning_scaling("1k", 1_000, 100),
    _planning_scaling("10k", 10_000, 1_000),
    _planning_scaling("100k", 100_000, 2_000),
    Scenario(
        "many_files_point_lookup",
        "one l_orderkey in the table of 10,000 small files / 100 manifests, fresh process"
        " (planning dominates)",
        "info",
        None,
        "issue 21: <= the DuckDB 1.5.5 iceberg_scan peer (see its note)",
        _icesql(MANY, config.many_point_query),
        "DuckDB read_parquet of the one matching file",
        _duckdb(config.many_point_query, _many_key_file),
        peer_query=(MANY, config.many_point_query),
    ),
    Scenario(
        "many_files_scan",
        "count and sums over all 10,000 small files, fresh process",
        "info",
        None,
        "issue 27: <= the polars peer (see its note)",
        _icesql(MANY, config.MANY_SCAN),
        "DuckDB read_parquet of the 10,000 files",
        _duckdb(config.MANY_SCAN, _many_glob),
        expected_rows=None,
        peer_query=(MANY, config.MANY_SCAN),
    ),
    _dml_scenario(
        "dml_delete_cow",
        "DELETE 1% of rows (spread over every file), copy-on-write",
        _pyiceberg_dml("dml_delete_cow", "delete", "copy-on-write"),
    ),
    _dml_scenario(
        "dml_delete_mor",
        "DELETE 1% of rows (spread over every file), merge-on-read",
        _pyiceberg_dml("dml_delete_mor", "delete", "merge-on-read"),
        targets=(("reference", 2.0, "<= 2x DuckDB finding the rows (issue 21)"),),
        reference=_find_rows,
        reference_label=(
            "DuckDB read_parquet finding the rows the DELETE matches (file name and"
            " row position of each, as Arrow)"
        ),
    ),
    _dml_scenario("dml_update_mor", "UPDATE 1% of rows, merge-on-read", None),
    _dml_scenario(
        "dml_merge_mor",
        "MERGE INTO of 5% of the rows (half matched, half new), merge-on-read",
        _pyiceberg_dml("dml_merge_mor", "upsert"),
        targets=(("pyiceberg", 0.1, "<= 0.1x PyIceberg upsert (issue 21)"),),
    ),
    _dml_scenario(
        "dml_overwrite_month",
        "INSERT OVERWRITE of one month (dynamic overwrite)",
        _pyiceberg_dml("dml_overwrite_month", "overwrite"),
    ),
    Scenario(
        "insert",
        "INSERT INTO a months()-partitioned table SELECT * FROM lineitem",
        "ratio",
        1.3,
        "<= 1.3x pyarrow writing the same Parquet",
        _insert,
        "pyarrow read + write Parquet",
        _pyarrow_write,
        repeats=None,
    ),
    Scenario(
        "s3_full_aggregate",
        "the full aggregate on s3:// (a local S3-compatible server)",
        "ratio",
        1.25,
        "<= 1.25x DuckDB read_parquet of the same objects",
        _icesql_s3(config.AGGREGATE),
        "DuckDB read_parquet over the same S3 objects (through fsspec)",
        _duckdb_s3(config.AGGREGATE, _s3_files),
        pyiceberg=_pyiceberg_s3(config.AGGREGATE, AGG_COLS),
        expected_rows=_rows_of(BASE),
        extra={"s3": True},
    ),
    _rest_commit_scenario(1),
    _rest_commit_scenario(4),
    Scenario(
        "rest_commits_spark",
        "single-row INSERT commits through icesql serve with Spark 3.5's RESTCatalog as the"
        " client, 1 writer",
        "info",
        None,
        "informational: commits/s in the notes",
        _spark_commits,
        "the same commits from one icesql process through icesql serve",
        _rest_commits("rest", 1),
        extra={
            "commits": lambda sizes: _commits_per_writer(sizes, 1),
            "labels": ("Spark through icesql serve", "icesql through icesql serve"),
            "spark": True,
        },
    ),
    Scenario(
        "rest_load_table",
        "GET .../tables/t?snapshots=all, 1,000 snapshots (20 in smoke), per load",
        "info",
        None,
        "informational",
        _rest_load("rest_load_http"),
        "SqlCatalog.load_table directly (floor: its row + the metadata JSON)",
        _rest_load("sql_load"),
        extra={"rest_history": True},
    ),
    Scenario(
        "rest_select_tiny",
        "icesql SELECT * of a 1-row table, 1,000 snapshots, via catalog=rest, per query",
        "info",
        None,
        "informational",
        _select_via("rest"),
        "the same SELECT with catalog=sql on the same database (floor)",
        _select_via("sql"),
        extra={"rest_history": True},
    ),
    _python_scenario("pandas", "a pandas DataFrame"),
    _python_scenario("arrow", "a pyarrow Table"),
    Scenario(
        "cursor_df",
        "cur.df() of every column of half the lineitem rows (pandas, Arrow-backed dtypes)",
        "ratio",
        1.5,
        "<= 1.5x DuckDB df() of the same query",
        _frame("icesql_df"),
        "DuckDB df(), read_parquet of the same files",
        _frame("duckdb_df"),
    ),
    _rows_out_scenario("fetchall", "cur.fetchall()"),
    _rows_out_scenario("fetchmany", "cur.fetchmany(10000) until empty"),
    _rows_out_scenario("iterate", "for row in cur"),
    Scenario(
        "pandas_read_sql",
        "pandas.read_sql through icesql's SQLAlchemy dialect, the query of the cursor_* rows",
        "ratio",
        2.0,
        "<= 2x icesql cur.df() of the same query (issue 43)",
        _rows_out("icesql_read_sql"),
        "icesql cur.df()",
        _rows_out("icesql_df"),
        reference=_rows_out("duckdb_records_frame"),
        reference_label=(
            "DuckDB fetchall() + pandas DataFrame.from_records of those tuples, no icesql or"
            " SQLAlchemy (the floor of read_sql's path)"
        ),
    ),
    Scenario(
        "rewrite_data_files",
        "CALL rewrite_data_files on lineitem_pos (10% position deletes), on a metadata copy",
        "ratio",
        1.0,
        "<= 1.0x Spark local's rewrite_data_files",
        _rewrite("icesql_rewrite"),
        "Spark local[2] + Iceberg 1.10 rewrite_data_files (session start not timed)",
        _rewrite("spark_rewrite"),
        extra={"read_speedup": True},
    ),
    Scenario(
        "manifest_merge_inserts",
        "planning the query after 1,000 single-row INSERTs (50 in smoke), default"
        " manifest-merge properties; the answer is the current snapshot's manifest count",
        "ratio",
        1.5,
        "<= 1.5x Spark's twin, the same manifest count",
        _manifest_merge("icesql_manifest_merge"),
        "Spark local[2] + Iceberg 1.10, the same INSERTs (MergeAppend) and query",
        _manifest_merge("spark_manifest_merge"),
        repeats=1,
    ),
    Scenario(
        "streaming_count",
        "COUNT reading the string columns under a memory limit",
        "stream",
        None,
        "completes under the memory limit",
        _icesql(BASE, config.STREAM_COUNT),
        "DuckDB read_parquet",
        _duckdb(config.STREAM_COUNT, _all_files),
    ),
    Scenario(
        "data_checks",
        f"pytest over {config.DATA_CHECKS} SQL checks (test_*.sql files) of lineitem",
        "overhead",
        5.0,
        "<= 5 ms per check over DuckDB",
        _pytest_checks,
        f"DuckDB read_parquet, the same {config.DATA_CHECKS} queries",
        _duckdb_checks,
        reference=_spark_checks,
        reference_label=(
            f"the same {config.DATA_CHECKS} queries in one local Spark session"
            " (Spark 3.5 + Iceberg 1.10, its start included)"
        ),
        extra={"checks": config.DATA_CHECKS, "spark": True},
    ),
)


def by_name(names: list[str] | None) -> list[Scenario]:
    if not names:
        return list(SCENARIOS)
    known = {s.name: s for s in SCENARIOS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown scenario(s) {unknown}; known: {sorted(known)}")
    wanted = [known[n] for n in names]
    for s in list(wanted):  # a derived scenario needs the runs it derives from
        if s.baseline_from:
            dep = known[s.baseline_from.split(":")[0]]
            if dep not in wanted:
                wanted.insert(0, dep)
    return wanted
