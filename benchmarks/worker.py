"""One measured run, in its own process: ``python -m benchmarks.worker '<json request>'``.

A fresh process per run keeps runs independent (no warm caches inside icesql, DuckDB or
PyIceberg) and lets the parent read this run's own peak RSS with ``os.wait4``. Only the
work itself is timed, not interpreter start-up or imports. The last stdout line is a JSON
object: ``{"ok": true, "seconds": ..., "result": ..., ...}`` or ``{"ok": false,
"error": "<class>: <message>", "not_supported": bool}``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

TASKS: dict[str, Callable[..., dict[str, Any]]] = {}


def task(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    TASKS[fn.__name__] = fn
    return fn


def _n_total(table: Any) -> int | None:
    """The sum of a result's ``n`` column (row counts), to check rows deleted / kept."""
    if "n" not in table.column_names:
        return None
    return int(sum(v for v in table.column("n").to_pylist() if v is not None))


def _rows(table: Any) -> list[list[str]]:
    """A result in a form every engine agrees on (decimals and floats rounded as text)."""
    out = []
    for row in table.to_pylist():
        cells = []
        for v in row.values():
            if isinstance(v, float):
                v = f"{v:.4f}"
            elif v is not None and type(v).__name__ == "Decimal":
                v = f"{float(v):.4f}"
            cells.append(str(v))
        out.append(cells)
    return out


@task
def icesql_query(
    warehouse: str, sql: str, settings: tuple[str, ...] = (), properties: dict | None = None
) -> dict[str, Any]:
    """The query through icesql's DB-API, fully fetched as Arrow (after ``SET`` statements
    from ``settings``, not timed); ``properties`` configure the store (``s3.endpoint``...)."""
    import icesql

    con = icesql.connect(warehouse, properties=properties)
    for statement in settings:
        con.execute(statement)
    start, cpu = time.perf_counter(), time.process_time()
    result = con.execute(sql).fetch_arrow_table()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "seconds": seconds,
        "result": _rows(result),
        "n_total": _n_total(result),
        "process_cpu_seconds": cpu,
    }


@task
def duckdb_parquet(files: list[str], sql: str, properties: dict | None = None) -> dict[str, Any]:
    """DuckDB's own Parquet reader over exactly ``files``: the physical limit of a scan.
    Object-store files are read through the fsspec file system icesql would use (DuckDB's
    httpfs extension is downloaded at run time, which this machine cannot do). Like
    ``icesql_query`` it reports the process's CPU seconds over the timed span (every thread's)."""
    import duckdb

    con = duckdb.connect()
    if properties:
        from icesql.io import FileIO

        con.register_filesystem(FileIO(properties=properties).fs(files[0])[0])
    start, cpu = time.perf_counter(), time.process_time()
    result = con.sql(sql.format(t=f"read_parquet({files!r})")).to_arrow_table()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "seconds": seconds,
        "result": _rows(result),
        "n_total": _n_total(result),
        "process_cpu_seconds": cpu,
    }


@task
def duckdb_find_rows(files: list[str], predicate: str) -> dict[str, Any]:
    """What a merge-on-read DELETE must find at least: the (file, row position) of every row
    ``predicate`` matches, by DuckDB's own Parquet reader over the table's files, fetched as
    Arrow. The answer is their count."""
    import duckdb

    con = duckdb.connect()
    sql = (
        f"SELECT filename, file_row_number FROM read_parquet({files!r}, filename = true,"
        f" file_row_number = true) WHERE {predicate}"
    )
    start = time.perf_counter()
    found = con.sql(sql).to_arrow_table()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": [[str(found.num_rows)]]}


@task
def icesql_warm(warehouse: str, sql: str, runs: int) -> dict[str, Any]:
    """The query ``runs`` times on one connection after a first, untimed run: a repeated
    query on a warm connection (``seconds`` is the total of the timed runs)."""
    import icesql

    con = icesql.connect(warehouse)
    result = con.execute(sql).fetch_arrow_table()
    start = time.perf_counter()
    for _ in range(runs):
        result = con.execute(sql).fetch_arrow_table()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": _rows(result), "n_total": _n_total(result)}


@task
def duckdb_warm(files: list[str], sql: str, runs: int) -> dict[str, Any]:
    """DuckDB's own ``read_parquet`` of ``files``, ``runs`` times on one connection after a
    first, untimed run: what the same query costs DuckDB warm."""
    import duckdb

    con = duckdb.connect()
    text = sql.format(t=f"read_parquet({files!r})")
    result = con.sql(text).to_arrow_table()
    start = time.perf_counter()
    for _ in range(runs):
        result = con.sql(text).to_arrow_table()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": _rows(result), "n_total": _n_total(result)}


@task
def duckdb_arrow_stream(files: list[str], sql: str, columns: list[str]) -> dict[str, Any]:
    """DuckDB consuming a pyarrow dataset scanner's batches over ``files``: what any reader
    that hands DuckDB an Arrow stream (icesql's path when deletes must be applied) can reach
    at best, so the gap between this and ``read_parquet`` is the route, not the code."""
    import duckdb
    import pyarrow.dataset as pads

    start = time.perf_counter()
    reader = pads.dataset(files, format="parquet").scanner(columns=columns).to_reader()
    con = duckdb.connect()
    con.register("t", reader)
    result = con.sql(sql.format(t="t")).to_arrow_table()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": _rows(result), "n_total": _n_total(result)}


@task
def pyiceberg_query(
    metadata: str, sql: str, columns: list[str], row_filter: str, properties: dict | None = None
) -> dict[str, Any]:
    """PyIceberg's ``scan(...).to_arrow()`` (what its users do), then DuckDB on the result."""
    import duckdb
    from pyiceberg.table import StaticTable

    start = time.perf_counter()
    table = StaticTable.from_metadata(metadata, properties or {})
    scan = table.scan(
        selected_fields=tuple(columns), **({"row_filter": row_filter} if row_filter else {})
    )
    arrow = scan.to_arrow()
    con = duckdb.connect()
    con.register("t", arrow)
    result = con.sql(sql.format(t="t")).to_arrow_table()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": _rows(result), "n_total": _n_total(result)}


def _duckdb_extension(package: str) -> str:
    """The extension file a ``duckdb-extension-*`` wheel ships (``extensions/v*/``)."""
    import glob
    import importlib

    folder = os.path.dirname(importlib.import_module(package).__file__ or "")
    found = glob.glob(os.path.join(folder, "extensions", "*", "*.duckdb_extension"))
    if not found:
        raise RuntimeError(f"{package} ships no .duckdb_extension file under {folder}")
    return found[0]


def _peer_session(peer: str) -> Any:
    """What ``peer`` needs before the timed part, as icesql's import and connection are not
    timed: its modules, a DuckDB connection with the iceberg extension loaded, repark's
    session."""
    if peer == "duckdb_iceberg":
        import duckdb

        con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
        for package in ("duckdb_extension_avro", "duckdb_extension_iceberg"):
            con.execute(f"LOAD '{_duckdb_extension(package)}'")
        return con
    if peer == "repark":
        from repark import SparkSession

        return SparkSession.builder.getOrCreate()
    if peer == "polars":
        import polars

        return polars
    if peer == "daft":
        import daft
        from pyiceberg.table import StaticTable

        return daft, StaticTable
    raise ValueError(f"unknown peer {peer!r}")


def _peer_result(peer: str, session: Any, metadata: str, sql: str) -> Any:
    """Load the table at ``metadata`` and run ``sql`` (``{t}`` names the table) on ``peer``;
    the answer as a pyarrow Table."""
    if peer == "duckdb_iceberg":
        return session.sql(sql.format(t=f"iceberg_scan('{metadata}')")).to_arrow_table()
    if peer == "polars":
        pl = session
        frame = pl.SQLContext(t=pl.scan_iceberg(metadata)).execute(sql.format(t="t"))
        return frame.collect().to_arrow()
    if peer == "daft":
        daft, static_table = session
        table = daft.read_iceberg(static_table.from_metadata(metadata))
        return daft.sql(sql.format(t="t"), t=table).to_arrow()
    if peer == "repark":
        session.read.format("iceberg").load(metadata).createOrReplaceTempView("t")
        return session.sql(sql.format(t="t")).toArrow()
    raise ValueError(f"unknown peer {peer!r}")


@task
def peer_query(peer: str, metadata: str, sql: str) -> dict[str, Any]:
    """One of the engines users compare icesql with (``benchmarks.peers``), run in its own
    virtualenv's interpreter on the same table."""
    session = _peer_session(peer)
    start = time.perf_counter()
    result = _peer_result(peer, session, metadata, sql)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": _rows(result), "n_total": _n_total(result)}


@task
def icesql_plan(metadata: str, key: int | None = None) -> dict[str, Any]:
    """Planning alone: read the metadata JSON, manifest list and every manifest, and make
    the file scan tasks (icesql's planner, as a SELECT uses it); with ``key``, for the
    point lookup ``l_orderkey = key``. ``cpu_seconds`` is the process's user + system time
    over the same span, and ``warm_seconds`` a second plan of the same scan on the same
    manifest cache (a repeated query on one connection)."""
    import resource

    from icesql.expressions.tree import ALWAYS_TRUE, equal
    from icesql.io import FileIO
    from icesql.metadata.table_metadata import parse_table_metadata
    from icesql.scan.planner import ManifestCache, plan_scan

    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    row_filter = ALWAYS_TRUE if key is None else equal("l_orderkey", key)
    io = FileIO()
    cache = ManifestCache()
    start, cpu_start = time.perf_counter(), cpu()
    md = parse_table_metadata(io.read_bytes(metadata), metadata)
    plan = plan_scan(md, md.current_snapshot(), io, cache, row_filter=row_filter)
    seconds, cpu_seconds = time.perf_counter() - start, cpu() - cpu_start
    start = time.perf_counter()
    plan_scan(md, md.current_snapshot(), io, cache, row_filter=row_filter)
    warm = time.perf_counter() - start
    return {
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "warm_seconds": warm,
        "result": [[str(len(plan.tasks))]],
    }


@task
def pyiceberg_plan(metadata: str, key: int | None = None) -> dict[str, Any]:
    """PyIceberg's ``plan_files()`` on the same metadata file (and point lookup)."""
    from pyiceberg.expressions import AlwaysTrue, EqualTo
    from pyiceberg.table import StaticTable

    row_filter = AlwaysTrue() if key is None else EqualTo("l_orderkey", key)
    start = time.perf_counter()
    tasks = list(StaticTable.from_metadata(metadata).scan(row_filter=row_filter).plan_files())
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": [[str(len(tasks))]]}


@task
def icesql_explain(warehouse: str, sql: str) -> dict[str, Any]:
    """EXPLAIN's text, from which the report takes the data files read."""
    import icesql

    con = icesql.connect(warehouse)
    start = time.perf_counter()
    rows = con.execute("EXPLAIN " + sql).fetchall()
    seconds = time.perf_counter() - start
    text = "\n".join(" | ".join(str(c) for c in r) for r in rows)
    return {"seconds": seconds, "result": [], "text": text}


@task
def icesql_insert(warehouse: str, target: str, columns_ddl: str, source: str) -> dict[str, Any]:
    """``INSERT INTO <partitioned table> SELECT * FROM <source>``; the CREATE TABLE before
    and the removal of the target after are not timed."""
    import icesql

    con = icesql.connect(warehouse)
    ns, name = target.split(".")
    folder = os.path.join(warehouse, ns, name)
    shutil.rmtree(folder, ignore_errors=True)
    try:
        con.execute(f"CREATE NAMESPACE IF NOT EXISTS {ns}")
        con.execute(
            f"CREATE TABLE {target} ({columns_ddl}) USING iceberg"
            " PARTITIONED BY (months(l_shipdate))"
            " TBLPROPERTIES ('write.parquet.compression-codec' = 'zstd')"
        )
        start = time.perf_counter()
        con.execute(f"INSERT INTO {target} SELECT * FROM {source}")
        seconds = time.perf_counter() - start
        count = con.execute(f"SELECT count(*) FROM {target}").fetchall()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"seconds": seconds, "result": [[str(count[0][0])]]}


@task
def pyarrow_write(files: list[str], out: str) -> dict[str, Any]:
    """pyarrow reading the same rows and writing them as zstd Parquet, one file per month
    (the source files are already grouped by month): the floor for an INSERT."""
    import pyarrow.parquet as pq

    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    rows = 0
    start = time.perf_counter()
    writer = None
    month = None
    try:
        for path in files:
            part = os.path.basename(os.path.dirname(path))
            source = pq.ParquetFile(path)
            if part != month:
                if writer is not None:
                    writer.close()
                os.makedirs(os.path.join(out, part), exist_ok=True)
                writer = pq.ParquetWriter(
                    os.path.join(out, part, "data.parquet"), source.schema_arrow, compression="zstd"
                )
                month = part
            for batch in source.iter_batches(batch_size=65536):
                writer.write_batch(batch)
                rows += batch.num_rows
        if writer is not None:
            writer.close()
        seconds = time.perf_counter() - start
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {"seconds": seconds, "result": [[str(rows)]]}


@task
def rest_commits(folder: str, via: str, writers: int, commits: int) -> dict[str, Any]:
    """Single-row INSERT commits from ``writers`` processes at once into one fresh table,
    through ``icesql serve`` (``via="rest"``) or to the SQL catalog directly (``"sql"``):
    the wall time from the start signal to the last commit. Server start, table creation
    and the writers' start-up are not timed; every acknowledged commit must be in the table."""
    from benchmarks import rest

    db_uri, warehouse = rest.fresh_catalog(folder)
    server = rest.Server(db_uri, warehouse) if via == "rest" else None
    table = f"{rest.NAMESPACE}.commits"
    try:
        con = rest.connect(via, db_uri, warehouse, server.uri if server else None)
        con.execute(f"CREATE NAMESPACE {rest.NAMESPACE}")
        con.execute(
            f"CREATE TABLE {table} (writer INT, i INT) USING iceberg"
            f" TBLPROPERTIES ({rest.RETRY_PROPERTIES})"
        )
        seconds, reports = rest.run_writers(
            via,
            db_uri,
            warehouse,
            server.uri if server else None,
            table,
            writers,
            commits,
            folder,
        )
        rows = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        snapshots = con.execute(f"SELECT count(*) FROM {table}.snapshots").fetchone()[0]
        con.close()
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    ok = sum(r["ok"] for r in reports)
    failed = sum(r["failed"] for r in reports)
    if rows != ok or snapshots != ok:
        raise RuntimeError(f"{ok} commits acknowledged, but {rows} rows and {snapshots} snapshots")
    errors = [e for r in reports for e in r["errors"]][:3]
    return {
        "seconds": seconds,
        "result": [[str(ok)]],
        "commits": ok,
        "failed": failed,
        "errors": errors,
    }


@task
def spark_rest_commits(folder: str, commits: int) -> dict[str, Any]:
    """Spark 3.5's Iceberg ``RESTCatalog`` as the client: ``commits`` single-row INSERTs
    through ``icesql serve`` one after another. Spark's start, the table's creation and one
    warm-up INSERT (Spark compiles its write path on the first) are not timed."""
    from benchmarks import rest

    support = rest.spark_support()
    db_uri, warehouse = rest.fresh_catalog(folder)
    server = rest.Server(db_uri, warehouse)
    spark = None
    table = f"rest.{rest.NAMESPACE}.commits"
    try:
        spark = support.start_spark(
            os.path.join(folder, "spark-warehouse"),
            os.path.join(folder, "spark-scratch"),
            extra=support.rest_catalog_conf(server.uri, warehouse),
        )
        spark.sql(f"CREATE NAMESPACE rest.{rest.NAMESPACE}")
        spark.sql(f"CREATE TABLE {table} (writer INT, i INT) USING iceberg")
        spark.sql(f"INSERT INTO {table} VALUES (-1, -1)")
        start = time.perf_counter()
        for i in range(commits):
            spark.sql(f"INSERT INTO {table} VALUES (0, {i})")
        seconds = time.perf_counter() - start
        rows = spark.sql(f"SELECT count(*) FROM {table} WHERE writer = 0").collect()[0][0]
    finally:
        if spark is not None:
            spark.stop()
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    if rows != commits:
        raise RuntimeError(f"{commits} commits acknowledged, but {rows} rows")
    return {
        "seconds": seconds,
        "result": [[str(commits)]],
        "commits": commits,
        "failed": 0,
        "errors": [],
    }


@task
def rest_load_http(db_uri: str, warehouse: str, table: str, loads: int) -> dict[str, Any]:
    """``GET .../tables/<t>?snapshots=all`` from a kept-alive connection, the answer parsed
    (what every REST client does per load): seconds per load, after one untimed load."""
    import http.client
    from urllib.parse import urlsplit

    from benchmarks import rest

    ns, name = table.split(".")
    with rest.Server(db_uri, warehouse) as server:
        address = urlsplit(server.uri)
        conn = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
        path = f"/v1/namespaces/{ns}/tables/{name}?snapshots=all"

        def load() -> dict[str, Any]:
            conn.request("GET", path)
            response = conn.getresponse()
            body = json.loads(response.read())
            if response.status != 200:
                raise RuntimeError(f"GET {path}: {response.status} {body}")
            return body

        load()
        start = time.perf_counter()
        for _ in range(loads):
            body = load()
        seconds = (time.perf_counter() - start) / loads
        conn.close()
    return {"seconds": seconds, "result": [[str(len(body["metadata"]["snapshots"]))]]}


@task
def sql_load(db_uri: str, warehouse: str, table: str, loads: int) -> dict[str, Any]:
    """The same table loaded from the SQL catalog directly (its row, the metadata JSON read
    and parsed): the floor of a load. Seconds per load, after one untimed load."""
    from benchmarks import rest

    con = rest.connect("sql", db_uri, warehouse, None)
    identifier = tuple(table.split("."))
    con.catalog.load_table(identifier)
    start = time.perf_counter()
    for _ in range(loads):
        loaded = con.catalog.load_table(identifier)
    seconds = (time.perf_counter() - start) / loads
    con.close()
    return {"seconds": seconds, "result": [[str(len(loaded.metadata.raw["snapshots"]))]]}


@task
def icesql_select_via(
    via: str, db_uri: str, warehouse: str, table: str, queries: int
) -> dict[str, Any]:
    """icesql's ``SELECT *`` of the table with ``catalog="rest"`` through ``icesql serve`` or
    ``catalog="sql"`` on the same database: seconds per query (each loads the table), after
    one untimed query."""
    from benchmarks import rest

    server = rest.Server(db_uri, warehouse) if via == "rest" else None
    try:
        con = rest.connect(via, db_uri, warehouse, server.uri if server else None)
        sql = f"SELECT * FROM {table}"
        con.execute(sql).fetchall()
        start = time.perf_counter()
        for _ in range(queries):
            rows = con.execute(sql).fetchall()
        seconds = (time.perf_counter() - start) / queries
        con.close()
    finally:
        if server is not None:
            server.stop()
    return {"seconds": seconds, "result": [[str(v) for v in r] for r in rows]}


# -- Python data in and out (issue 28) ---------------------------------------------------------


def _python_data(files: list[str], rows: int, kind: str) -> Any:
    """The first ``rows`` rows of the lineitem files as the object a user holds: an Arrow
    table as read, or a pandas DataFrame as a pandas user has one (floats for the decimals,
    microsecond datetimes for the dates: what pandas makes of such data)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts, have = [], 0
    for path in files:
        if have >= rows:
            break
        part = pq.read_table(path)
        parts.append(part)
        have += part.num_rows
    table = pa.concat_tables(parts).slice(0, rows).combine_chunks()
    plain = pa.schema(
        [  # some pyarrow releases read low-cardinality strings as dictionaries
            f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f
            for f in table.schema
        ]
    )
    table = table.cast(plain)
    if kind == "arrow":
        return table
    frame = table.to_pandas()
    for field in table.schema:
        if pa.types.is_decimal(field.type):
            frame[field.name] = frame[field.name].astype("float64")
        elif pa.types.is_date(field.type):
            frame[field.name] = frame[field.name].astype("datetime64[us]")
    return frame


def _arrow_schema(data: Any) -> Any:
    import pyarrow as pa

    if isinstance(data, pa.Table):
        return data.schema
    return pa.Schema.from_pandas(data, preserve_index=False)


def _spark_ddl(schema: Any) -> str:
    """Column definitions for the Arrow types ``_python_data`` produces."""
    import pyarrow as pa

    def name(t: Any) -> str:
        if pa.types.is_decimal(t):
            return f"DECIMAL({t.precision},{t.scale})"
        if pa.types.is_timestamp(t):
            return "TIMESTAMP_NTZ"
        simple = {
            pa.int64(): "BIGINT",
            pa.int32(): "INT",
            pa.float64(): "DOUBLE",
            pa.date32(): "DATE",
            pa.string(): "STRING",
            pa.large_string(): "STRING",
        }
        return simple[t]

    return ", ".join(f"{f.name} {name(f.type)}" for f in schema)


@task
def icesql_insert_python(files: list[str], rows: int, kind: str, scratch: str) -> dict[str, Any]:
    """``INSERT INTO t SELECT * FROM data`` with ``data`` a pandas DataFrame or an Arrow
    table in the caller's scope, into a new unpartitioned zstd table (made before, not timed)."""
    import icesql

    data = _python_data(files, rows, kind)
    shutil.rmtree(scratch, ignore_errors=True)
    try:
        con = icesql.connect(scratch, create=True)
        con.execute(
            f"CREATE TABLE bench.target ({_spark_ddl(_arrow_schema(data))}) USING iceberg"
            " TBLPROPERTIES ('write.parquet.compression-codec' = 'zstd')"
        )
        con.register("data", data)
        start = time.perf_counter()
        written = con.execute("INSERT INTO bench.target SELECT * FROM data").rowcount
        seconds = time.perf_counter() - start
        con.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"seconds": seconds, "result": [[str(written)]]}


@task
def pyiceberg_append(files: list[str], rows: int, kind: str, scratch: str) -> dict[str, Any]:
    """PyIceberg's ``table.append()`` of the same data into a new unpartitioned zstd table of
    its SQL catalog (SQLite), as its users write a DataFrame: ``pa.Table.from_pandas(df)``
    first (timed, icesql converts too)."""
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog

    data = _python_data(files, rows, kind)
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    try:
        catalog = SqlCatalog(
            "bench", uri=f"sqlite:///{scratch}/catalog.db", warehouse=f"file://{scratch}"
        )
        catalog.create_namespace("bench")
        table = catalog.create_table(
            "bench.target",
            schema=_arrow_schema(data),
            properties={"write.parquet.compression-codec": "zstd"},
        )
        start = time.perf_counter()
        arrow = (
            data if isinstance(data, pa.Table) else pa.Table.from_pandas(data, preserve_index=False)
        )
        table.append(arrow)
        seconds = time.perf_counter() - start
        written = table.current_snapshot().summary["added-records"]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"seconds": seconds, "result": [[str(written)]]}


def _frame_answer(frame: Any) -> list[list[str]]:
    """Rows and the sum of ``l_orderkey``: the same for any DataFrame of the same rows."""
    return [[str(len(frame)), str(int(frame["l_orderkey"].sum()))]]


@task
def icesql_df(warehouse: str, sql: str) -> dict[str, Any]:
    """``cur.df()`` of the query: a pandas DataFrame with Arrow-backed dtypes."""
    import icesql

    con = icesql.connect(warehouse)
    start = time.perf_counter()
    frame = con.execute(sql).df()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": _frame_answer(frame)}


@task
def duckdb_df(files: list[str], sql: str) -> dict[str, Any]:
    """DuckDB's ``df()`` of the same query over exactly the table's Parquet files."""
    import duckdb

    con = duckdb.connect()
    start = time.perf_counter()
    frame = con.sql(sql.format(t=f"read_parquet({files!r})")).df()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": _frame_answer(frame)}


def _rows_answer(rows: list[Any] | Iterator[Any]) -> list[list[str]]:
    """Rows and the sum of the first column (``l_orderkey``), for any way of fetching."""
    count = total = 0
    for row in rows:
        count += 1
        total += row[0]
    return [[str(count), str(total)]]


def _fetched(cur: Any, how: str) -> list[Any]:
    """Every row of ``cur``, fetched as ``how`` says (each way a DB-API user takes)."""
    if how == "fetchall":
        return cur.fetchall()
    if how == "fetchmany":
        rows: list[Any] = []
        while chunk := cur.fetchmany(10_000):
            rows.extend(chunk)
        return rows
    return list(iter(cur))


@task
def icesql_rows(warehouse: str, sql: str, how: str) -> dict[str, Any]:
    """The query's rows as Python tuples through icesql's cursor (``fetchall``, ``fetchmany``
    of 10,000 or iteration)."""
    import icesql

    con = icesql.connect(warehouse)
    start = time.perf_counter()
    rows = _fetched(con.execute(sql), how)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": _rows_answer(rows)}


@task
def duckdb_rows(files: list[str], sql: str) -> dict[str, Any]:
    """DuckDB's own ``fetchall()`` of the same query over exactly the table's Parquet files."""
    import duckdb

    con = duckdb.connect()
    start = time.perf_counter()
    rows = con.execute(sql.format(t=f"read_parquet({files!r})")).fetchall()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": _rows_answer(rows)}


@task
def duckdb_records_frame(files: list[str], sql: str) -> dict[str, Any]:
    """The floor of ``pandas.read_sql`` over SQLAlchemy without any icesql or SQLAlchemy
    code: DuckDB's own ``fetchall()`` of the query, then the ``DataFrame.from_records`` of
    those tuples that pandas builds its frame with."""
    import duckdb
    import pandas as pd

    con = duckdb.connect()
    start = time.perf_counter()
    cur = con.execute(sql.format(t=f"read_parquet({files!r})"))
    columns = [d[0] for d in cur.description]
    frame = pd.DataFrame.from_records(cur.fetchall(), columns=columns, coerce_float=True)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": _frame_answer(frame)}


@task
def icesql_read_sql(warehouse: str, sql: str) -> dict[str, Any]:
    """``pandas.read_sql`` of the query through icesql's SQLAlchemy dialect, the way a
    pandas user reads a database."""
    import pandas as pd
    import sqlalchemy as sa

    engine = sa.create_engine(f"icesql:///{os.path.abspath(warehouse)}")
    with engine.connect() as connection:
        start = time.perf_counter()
        frame = pd.read_sql(sa.text(sql), connection)
        seconds = time.perf_counter() - start
    engine.dispose()
    return {"seconds": seconds, "result": _frame_answer(frame)}


def _metadata_copy(warehouse: str, source: str, target: str) -> str:
    """A copy of table ``source`` as ``target`` that shares its data and delete files: only the
    current metadata JSON is copied, with the new location (nothing of the source changes
    when the copy is compacted). Returns the copy's folder."""
    import json as _json

    src = os.path.join(warehouse, *source.split("."))
    dst = os.path.join(warehouse, *target.split("."))
    shutil.rmtree(dst, ignore_errors=True)
    with open(os.path.join(src, "metadata", "version-hint.text")) as f:
        version = f.read().strip()
    with open(os.path.join(src, "metadata", f"v{version}.metadata.json")) as f:
        md = _json.load(f)
    md["location"] = dst
    md["metadata-log"] = []
    os.makedirs(os.path.join(dst, "metadata"))
    with open(os.path.join(dst, "metadata", "v1.metadata.json"), "w") as f:
        _json.dump(md, f)
    with open(os.path.join(dst, "metadata", "version-hint.text"), "w") as f:
        f.write("1")
    return dst


def _timed_rows(con: Any, sql: str) -> float:
    start = time.perf_counter()
    con.execute(sql).fetchall()
    return time.perf_counter() - start


@task
def icesql_rewrite(
    warehouse: str, source: str, target: str, options: str, read_sql: str
) -> dict[str, Any]:
    """``CALL system.rewrite_data_files`` on a metadata copy of ``source`` (timed), and the
    read query on the copy before and after it (the speed-up the compaction buys)."""
    import icesql

    folder = _metadata_copy(warehouse, source, target)
    con = icesql.connect(warehouse)
    try:
        sql = read_sql.format(t=target)
        _timed_rows(con, sql)  # warm the file cache as the rewrite's own read will find it
        before = _timed_rows(con, sql)
        start = time.perf_counter()
        out = con.execute(
            f"CALL system.rewrite_data_files(table => '{target}', options => {options})"
        ).fetchall()
        seconds = time.perf_counter() - start
        _timed_rows(con, sql)
        after = _timed_rows(con, sql)
    finally:
        con.close()
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "seconds": seconds,
        "result": [[str(out[0][0])]],
        "read_before_s": before,
        "read_after_s": after,
    }


@contextlib.contextmanager
def _spark_on_copy(warehouse: str, source: str, target: str) -> Iterator[Any]:
    """Spark local (``local[2]``, Spark + Iceberg as tests/spark_support.py sets them up) over
    ``warehouse`` with a metadata copy of ``source`` as ``target``; both removed afterwards."""
    import tempfile

    sys.path.insert(
        0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
    )
    import spark_support

    folder = _metadata_copy(warehouse, source, target)
    scratch = tempfile.mkdtemp(prefix="bench-spark-")
    spark = spark_support.start_spark(warehouse, scratch)
    try:
        yield spark
    finally:
        spark.stop()
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)


@task
def spark_rewrite(warehouse: str, source: str, target: str, options: str) -> dict[str, Any]:
    """Spark local's ``rewrite_data_files`` on a metadata copy of ``source``: the session's
    start-up is not timed, only the CALL."""
    with _spark_on_copy(warehouse, source, target) as spark:
        start = time.perf_counter()
        out = spark.sql(
            f"CALL local.system.rewrite_data_files(table => '{target}', options => {options})"
        ).collect()
        seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": [[str(out[0][0])]]}


def _dml_answer(rows: list[Any]) -> list[list[str]]:
    return [[str(v) if not isinstance(v, float) else f"{v:.4f}" for v in row] for row in rows]


def _written(folder: str) -> dict[str, int]:
    """What the statement committed, from the metadata JSON files in the copy's folder
    (whichever engine and catalog wrote them): the snapshots added since the copy's
    ``v1.metadata.json`` and their summaries' counts of data files added and removed and of
    delete files added, so a report can tell copy-on-write from merge-on-read (PyIceberg's
    overwrite and upsert commit a delete and an append snapshot)."""
    import glob
    import json as _json

    newest: dict[str, Any] = {}
    before: set[int] = set()
    for path in glob.glob(os.path.join(folder, "metadata", "*.metadata.json")):
        with open(path) as f:
            md = _json.load(f)
        if os.path.basename(path) == "v1.metadata.json":
            before = {s["snapshot-id"] for s in md.get("snapshots", [])}
        if md.get("last-updated-ms", 0) >= newest.get("last-updated-ms", -1):
            newest = md
    added = [s for s in newest.get("snapshots", []) if s["snapshot-id"] not in before]
    keys = {
        "data_files_added": "added-data-files",
        "data_files_removed": "deleted-data-files",
        "delete_files_added": "added-delete-files",
    }
    out = {k: sum(int(s.get("summary", {}).get(v, 0)) for s in added) for k, v in keys.items()}
    return {**out, "snapshots": len(added)}


def _statements_on(
    run: Callable[[str], Any],
    rows: Callable[[str], list[Any]],
    table: str,
    statements: list[str],
    check: str,
    folder: str,
) -> dict[str, Any]:
    """``statements`` on ``table`` (its copy in ``folder``) by ``run``, the last one timed,
    then ``check``'s rows by ``rows`` and what was committed: what every engine's side of a
    DML scenario does once its copy is in place."""
    for sql in statements[:-1]:
        run(sql.format(t=table))
    start = time.perf_counter()
    run(statements[-1].format(t=table))
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "result": _dml_answer(rows(check.format(t=table))),
        "written": _written(folder),
    }


@task
def icesql_dml(
    warehouse: str, source: str, target: str, statements: list[str], check: str
) -> dict[str, Any]:
    """The last of ``statements`` on a metadata copy of ``source`` (timed; the others set
    properties and settings first), then ``check`` on the result (not timed)."""
    import icesql

    folder = _metadata_copy(warehouse, source, target)
    con = icesql.connect(warehouse)
    try:
        return _statements_on(
            con.execute, lambda sql: con.execute(sql).fetchall(), target, statements, check, folder
        )
    finally:
        con.close()
        shutil.rmtree(folder, ignore_errors=True)


@task
def spark_dml(
    warehouse: str, source: str, target: str, statements: list[str], check: str
) -> dict[str, Any]:
    """The same statements in Spark local on its own metadata copy; only the last is timed."""
    with _spark_on_copy(warehouse, source, target) as spark:
        return _statements_on(
            lambda sql: spark.sql(sql).collect(),
            lambda sql: [tuple(r) for r in spark.sql(sql).collect()],
            target,
            statements,
            check,
            os.path.join(warehouse, *target.split(".")),
        )


REPARK_CATALOG = "bench_hadoop"  # repark's name for the benchmark's warehouse


@task
def peer_dml(
    peer: str, warehouse: str, source: str, target: str, statements: list[str], check: str
) -> dict[str, Any]:
    """The DML statements of ``icesql_dml`` in a peer (``benchmarks.peers.DML_PEERS``), on its
    own metadata copy of ``source``: repark's Spark SQL through a ``hadoop`` catalog over the
    warehouse, the copy registered by ``system.register_table`` (repark's hadoop catalog does
    not list the folders). Session start and registration are not timed, the last statement
    is; ``check`` runs in the peer afterwards. A statement the peer refuses is its error."""
    if peer != "repark":
        raise ValueError(f"peer {peer!r} has no DML path in the benchmark")
    from repark import SparkSession

    folder = _metadata_copy(warehouse, source, target)
    spark = (
        SparkSession.builder.config(f"spark.sql.catalog.{REPARK_CATALOG}.type", "hadoop")
        .config(f"spark.sql.catalog.{REPARK_CATALOG}.warehouse", warehouse)
        .getOrCreate()
    )
    name = f"{REPARK_CATALOG}.{target}"
    try:
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {REPARK_CATALOG}.{target.split('.')[0]}")
        spark.sql(
            f"CALL {REPARK_CATALOG}.system.register_table(table => '{target}',"
            f" metadata_file => '{folder}/metadata/v1.metadata.json')"
        ).toArrow()
        return _statements_on(
            lambda sql: spark.sql(sql).toArrow(),
            lambda sql: [tuple(r.values()) for r in spark.sql(sql).toArrow().to_pylist()],
            name,
            statements,
            check,
            folder,
        )
    finally:
        spark.stop()
        shutil.rmtree(folder, ignore_errors=True)


@task
def pyiceberg_dml(
    warehouse: str,
    source: str,
    target: str,
    operation: str,
    mode: str,
    row_filter: str,
    rows_sql: str,
    check: str,
) -> dict[str, Any]:
    """PyIceberg's own call for a DML scenario on its own metadata copy of ``source``,
    registered in a throw-away SQL catalog (SQLite): ``delete`` is ``table.delete(row_filter)``
    with ``write.delete.mode = mode`` set first; ``overwrite`` reads the rows ``row_filter``
    selects (a scan, timed) and writes them back with ``table.overwrite(rows,
    overwrite_filter=row_filter)``; ``upsert`` is ``table.upsert(rows, join_cols=[l_orderkey,
    l_linenumber])`` of the rows ``rows_sql`` makes (DuckDB over the table's files, before the
    clock: PyIceberg takes them as a DataFrame). ``check`` runs in DuckDB over the final scan.
    ``warnings`` carries what PyIceberg warned (a merge-on-read delete falls back to
    copy-on-write in 0.12)."""
    import tempfile
    import warnings

    import duckdb
    from pyiceberg.catalog.sql import SqlCatalog

    folder = _metadata_copy(warehouse, source, target)
    scratch = tempfile.mkdtemp(prefix="bench-pyiceberg-")
    ns, name = target.split(".")
    try:
        catalog = SqlCatalog("bench", uri=f"sqlite:///{scratch}/catalog.db", warehouse=warehouse)
        catalog.create_namespace(ns)
        table = catalog.register_table((ns, name), f"{folder}/metadata/v1.metadata.json")
        if operation == "delete":
            with table.transaction() as tx:
                tx.set_properties({"write.delete.mode": mode})
        rows = None
        if operation == "upsert":
            con = duckdb.connect()
            files = [t.file.file_path for t in table.scan().plan_files()]
            columns = ", ".join(f.name for f in table.schema().fields)  # not the files' extras
            rows = con.sql(rows_sql.format(t=f"(SELECT {columns} FROM read_parquet({files!r}))"))
            rows = rows.to_arrow_table().cast(table.schema().as_arrow())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start = time.perf_counter()
            if operation == "delete":
                table.delete(row_filter)
            elif operation == "overwrite":
                rows = table.scan(row_filter=row_filter).to_arrow()
                table.overwrite(rows, overwrite_filter=row_filter)
            elif operation == "upsert":
                table.upsert(rows, join_cols=["l_orderkey", "l_linenumber"])
            else:
                raise ValueError(f"unknown operation {operation!r}")
            seconds = time.perf_counter() - start
        table = catalog.load_table((ns, name))
        final = table.scan(selected_fields=("l_orderkey", "l_quantity", "l_discount")).to_arrow()
        con = duckdb.connect()
        con.register("final", final)
        answer = con.sql(check.format(t="final")).fetchall()
        written = _written(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    said = sorted(
        {
            str(w.message)
            for w in caught
            if "pyiceberg" in (w.filename or "") or "Merge on read" in str(w.message)
        }
    )
    return {"seconds": seconds, "result": _dml_answer(answer), "written": written, "warnings": said}


MERGE_PLAN_SQL = "SELECT count(*) AS n FROM {t} WHERE id < 0"  # every file pruned: planning


@task
def icesql_manifest_merge(folder: str, inserts: int) -> dict[str, Any]:
    """``inserts`` single-row INSERTs into a fresh table with the default manifest-merge
    properties (not timed), then the planning of the next query from a fresh connection
    (timed: its answer needs every manifest, no data file). The result is the manifest
    count of the current snapshot, which must equal Spark's twin's."""
    import icesql

    shutil.rmtree(folder, ignore_errors=True)
    try:
        con = icesql.connect(folder, create=True)
        con.execute("CREATE NAMESPACE db")
        con.execute("CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg")
        con.execute(MERGE_PLAN_SQL.format(t="db.t")).fetchall()  # warm-up, as Spark's
        for i in range(inserts):
            con.execute(f"INSERT INTO db.t VALUES ({i}, 's{i}')")
        con.close()
        con = icesql.connect(folder)
        start = time.perf_counter()
        n = con.execute(MERGE_PLAN_SQL.format(t="db.t")).fetchone()[0]
        seconds = time.perf_counter() - start
        manifests = con.execute("SELECT count(*) FROM db.t.manifests").fetchone()[0]
        con.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if n != 0:
        raise RuntimeError(f"the planning query found {n} rows")
    return {"seconds": seconds, "result": [[str(manifests)]], "manifests": manifests}


@task
def spark_manifest_merge(folder: str, inserts: int) -> dict[str, Any]:
    """Spark's twin of ``icesql_manifest_merge``: the same INSERTs through Spark local +
    Iceberg 1.10 (MergeAppend, default properties), then the same query, timed after a
    REFRESH so its manifests are planned anew. Both sides ran the query once on the empty
    table first, so neither pays for compiling its path in the timed run."""
    sys.path.insert(
        0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
    )
    import spark_support

    shutil.rmtree(folder, ignore_errors=True)
    spark = spark_support.start_spark(os.path.join(folder, "wh"), os.path.join(folder, "scratch"))
    try:
        spark.sql("CREATE TABLE local.db.t (id BIGINT, s STRING) USING iceberg")
        spark.sql(MERGE_PLAN_SQL.format(t="local.db.t")).collect()  # compiles the query's path
        for i in range(inserts):
            spark.sql(f"INSERT INTO local.db.t VALUES ({i}, 's{i}')")
        spark.sql("REFRESH TABLE local.db.t")
        start = time.perf_counter()
        n = spark.sql(MERGE_PLAN_SQL.format(t="local.db.t")).collect()[0][0]
        seconds = time.perf_counter() - start
        manifests = spark.sql("SELECT count(*) FROM local.db.t.manifests").collect()[0][0]
    finally:
        spark.stop()
        shutil.rmtree(folder, ignore_errors=True)
    if n != 0:
        raise RuntimeError(f"the planning query found {n} rows")
    return {"seconds": seconds, "result": [[str(manifests)]], "manifests": manifests}


_OFFENDING = re.compile(r": (\d+) rows? breaks? the check")


def _write_check_files(folder: str, checks: list[list[str]], table: str) -> None:
    """The checks as ``test_*.sql`` files of 20 statements each, and a ``pytest.ini`` that
    makes the folder its own pytest project (its rootdir, no other configuration)."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    with open(os.path.join(folder, "pytest.ini"), "w") as f:
        f.write("[pytest]\n")
    for start in range(0, len(checks), 20):
        with open(os.path.join(folder, f"test_checks_{start // 20:02d}.sql"), "w") as f:
            for name, sql in checks[start : start + 20]:
                f.write(f"-- name: {name}\n{sql.format(t=table)};\n\n")


@task
def icesql_pytest_checks(
    warehouse: str, folder: str, checks: list[list[str]], table: str
) -> dict[str, Any]:
    """``pytest`` (in this process, as its command runs it) over a folder of SQL check files
    written before the clock starts; the result is each check's verdict and offending-row
    count, read from the reports pytest makes."""
    import pytest

    _write_check_files(folder, checks, table)

    class Verdicts:
        def __init__(self) -> None:
            self.seen: dict[str, list[Any]] = {}

        def pytest_runtest_logreport(self, report: Any) -> None:
            name = report.nodeid.rsplit("::", 1)[-1]
            if report.failed:
                m = _OFFENDING.search(report.longreprtext)
                verdict = "failed" if report.when == "call" else "error"
                self.seen.setdefault(name, [verdict, int(m.group(1)) if m else None])
            elif report.when == "call":
                self.seen.setdefault(name, ["passed", 0])

    verdicts = Verdicts()
    # icesql's plugin alone: other installed plugins (hypothesis' costs seconds at the end of
    # a session) would be measured as if they were the data checks' overhead
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    args = [
        folder,
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "icesql.pytest_plugin",
        f"--icesql-warehouse={warehouse}",
    ]
    start = time.perf_counter()
    code = pytest.main(args, plugins=[verdicts])
    seconds = time.perf_counter() - start
    shutil.rmtree(folder, ignore_errors=True)
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise RuntimeError(f"pytest exited with {code!r}")
    result = [[name, *verdicts.seen.get(name, ["missing", None])] for name, _ in checks]
    return {"seconds": seconds, "result": result}


def _verdicts(counts: dict[str, int], checks: list[list[str]]) -> list[list[Any]]:
    return [[name, "failed" if counts[name] else "passed", counts[name]] for name, _ in checks]


@task
def duckdb_checks(files: list[str], checks: list[list[str]]) -> dict[str, Any]:
    """The same checks as DuckDB queries over ``read_parquet`` of the table's files, one
    connection: each query's rows streamed and counted, the first few kept, as a check does."""
    import duckdb

    con = duckdb.connect()
    source = f"read_parquet({files!r})"
    counts: dict[str, int] = {}
    start = time.perf_counter()
    for name, sql in checks:
        reader = con.sql(sql.format(t=source)).fetch_record_batch()
        n = 0
        for batch in reader:
            if not n:
                batch.slice(0, 10).to_pylist()
            n += batch.num_rows
        counts[name] = n
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "result": _verdicts(counts, checks)}


@task
def spark_checks(
    warehouse: str, checks: list[list[str]], table: str, scratch: str
) -> dict[str, Any]:
    """The same checks in one local Spark session over the Iceberg table (what a data team
    runs today): the session's start is timed too, and reported apart."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "tests"))
    import spark_support

    start = time.perf_counter()
    spark = spark_support.start_spark(warehouse, scratch)
    started = time.perf_counter() - start
    counts: dict[str, int] = {}
    try:
        for name, sql in checks:
            counts[name] = spark.sql(sql.format(t=table)).count()
        seconds = time.perf_counter() - start
    finally:
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    return {
        "seconds": seconds,
        "result": _verdicts(counts, checks),
        "session_start_seconds": started,
    }


def _run(request: dict[str, Any]) -> dict[str, Any]:
    fn = TASKS[request["task"]]
    profile = request.get("profile")
    if not profile:
        return fn(**request["args"])
    from pyinstrument import Profiler

    with Profiler() as p:
        out = fn(**request["args"])
    with open(profile, "w") as f:
        f.write(p.output_text(unicode=False, color=False))
    return out


def peak_rss_mb() -> float | None:
    """This process's own peak resident set (``VmHWM``). Unlike the parent's ``ru_maxrss``
    of the child, it is not floored by the parent's size: Linux carries the pre-exec memory
    map's high-water mark into the child's ``ru_maxrss`` across ``exec``."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def main(argv: list[str]) -> int:
    request = json.loads(argv[1])
    try:
        out = {"ok": True, **_run(request)}
    except Exception as e:  # reported, never hidden: the scenario shows the error text
        name = type(e).__name__
        out = {
            "ok": False,
            "error": f"{name}: {e}",
            "not_supported": name == "NotSupportedError",
            "traceback": traceback.format_exc()[-2000:],
        }
    out["peak_rss_mb"] = peak_rss_mb()
    sys.stdout.write("\n" + json.dumps(out, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
