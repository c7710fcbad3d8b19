"""Start-up stays light: what ``icesql --version`` and the interactive prompt import before the
first statement, checked by module (``-X importtime``, ``sys.modules``), never by timing.

The engine's libraries (DuckDB, pyarrow, sqlglot, fsspec, pandas, polars) cost most of a
second to import; the prompt appears without them (the connection opens on a background
thread, ``icesql.cli.app.Opening``) and ``--version`` never needs them."""

from __future__ import annotations

import subprocess
import sys

from fresh_process_support import run_python

HEAVY = ("duckdb", "pyarrow", "sqlglot", "fsspec", "pandas", "polars", "numpy", "fastavro")


def _imported(*args: str) -> set[str]:
    """The top-level packages a Python run imports, as ``-X importtime`` lists them."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *args], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    assert "icesql" in names  # the listing was read at all
    return names


def test_version_imports_no_engine_library() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "icesql.shell", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("icesql ")
    imported = _imported("-m", "icesql.shell", "--version")
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))
    assert "prompt_toolkit" not in imported and "pygments" not in imported


def test_the_prompt_needs_no_engine_library() -> None:
    """Everything the prompt imports before the first statement (its modules, the completer,
    the dot-commands, the progress bar, prompt_toolkit and pygments preloaded) leaves the
    engine's libraries to the background thread that opens the connection."""
    code = (
        "import sys\n"
        "import icesql.shell, icesql.cli.prompt as p, icesql.cli.meta, icesql.cli.completion\n"
        "import icesql.cli.progress_bar\n"
        "p.preload()\n"
        "p.session(icesql.cli.completion.Names(lambda: None))\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
        "print('prompt_toolkit' in sys.modules, 'pygments' in sys.modules)\n"
    )
    lines = run_python(code, env={"ICESQL_HISTORY": "/dev/null", "PATH": ""})
    assert lines == ["[]", "True True"]


def test_a_command_line_query_loads_no_writer_file_system_or_prompt(tmp_path) -> None:
    """``icesql W -c "SELECT 1"``: the engine and its parser, nothing a query of no table
    does not need (the write path, fsspec and asyncio, fastavro, the prompt, and Arrow:
    DuckDB fetches the rows as tuples itself, ``icesql.engine.tuple_rows``)."""
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['icesql', {str(tmp_path)!r}, '-c', 'SELECT 1 AS one']\n"
        "try:\n"
        "    runpy.run_module('icesql.shell', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "light = ('fastavro', 'fsspec', 'asyncio', 'prompt_toolkit', 'pygments', 'pandas',\n"
        "         'polars', 'icesql.write', 'icesql.statements.insert', 'pyarrow', 'numpy',\n"
        "         'icesql.spec.arrow', 'icesql.scan.metadata_columns')\n"
        "print(sorted(m for m in light if m in sys.modules), 'duckdb' in sys.modules)\n"
    )
    lines = run_python(code)
    assert lines[1:] == ["| one |", "+-----+", "|   1 |", "+-----+", "1 row(s)", "[] True"], lines


# What a query of no table leaves unloaded (icesql._lazy): the read path (planning, manifests,
# the scan and its delete handling), Arrow's compute kernels and its Parquet reader.
READ_PATH = (
    "icesql.scan.table_scan",
    "icesql.scan.planner",
    "icesql.scan.explain",
    "icesql.scan.metadata_tables",
    "icesql.scan.time_travel",
    "icesql.scan.apply_deletes",
    "icesql.metadata.manifest",
    "icesql.metadata.manifest_list",
    "pyarrow.compute",
    "pyarrow.parquet",
    "pyarrow.dataset",
)


def _loaded_after(warehouse: str, statements: str) -> list[str]:
    """Which of ``READ_PATH`` a fresh ``icesql WAREHOUSE -c STATEMENTS`` process loaded."""
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['icesql', {warehouse!r}, '-c', {statements!r}]\n"
        "try:\n"
        "    runpy.run_module('icesql.shell', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        f"print(sorted(m for m in {READ_PATH!r} if m in sys.modules))\n"
    )
    lines = run_python(code)
    return eval(lines[-1])


def test_a_query_of_no_table_loads_no_read_path(tmp_path) -> None:
    assert _loaded_after(str(tmp_path), "SELECT 1 AS one") == []


def test_the_first_table_read_loads_the_read_path(tmp_path) -> None:
    """The same list is what a table's query needs: the check above names real modules."""
    loaded = _loaded_after(
        str(tmp_path), "CREATE TABLE t (id INT); INSERT INTO t VALUES (1); SELECT * FROM t"
    )
    assert {
        "icesql.scan.table_scan",
        "icesql.scan.planner",
        "icesql.metadata.manifest",
        "pyarrow.compute",
    } <= set(loaded), loaded


def test_a_local_tables_first_query_loads_no_file_system_kernels_or_avro_library(
    tmp_path,
) -> None:
    """DuckDB reads a local table's Parquet files, and icesql reads its metadata, manifest
    list and manifests with ``os`` and its own Avro decoders: fsspec (with asyncio and
    ssl), Arrow's compute kernels and Parquet reader (with pyarrow.fs) and fastavro cost
    ~60 ms of that query and stay unloaded (the Arrow stream, deletes and writes load them)."""
    import icesql

    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.t (id INT, s STRING) USING iceberg PARTITIONED BY (s)")
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'b')")
    con.close()
    code = (
        "import sys, icesql\n"
        f"con = icesql.connect({str(tmp_path)!r})\n"
        'rows = con.execute("SELECT s, count(*) FROM db.t WHERE id > 1 GROUP BY s").fetchall()\n'
        "print(rows)\n"
        "light = ('fsspec', 'asyncio', 'ssl', 'fastavro', 'pyarrow.compute', 'pyarrow.parquet',\n"
        "         'pyarrow.fs', 'pandas')\n"
        "print(sorted(m for m in light if m in sys.modules))\n"
    )
    lines = run_python(code)
    assert lines == ["[('b', 2)]", "[]"], lines


def test_local_writes_load_no_pandas_or_file_system(tmp_path) -> None:
    """pyarrow converts Python values (``pa.array``, ``pa.scalar``, numbers given to compute
    kernels, ``to_numpy``) through pandas when it is installed: 0.2 s of CPU in the first
    statement of a process that did so. Writes through partition transforms, float metrics,
    copy-on-write and merge-on-read DELETE / UPDATE / MERGE, and their reads, convert by
    buffers instead (``icesql.spec.arrays``). Local files are written through ``os``: fsspec's
    import (asyncio, ssl) was most of a small INSERT OVERWRITE."""
    import pytest

    pytest.importorskip("pandas")
    mor = ", ".join(f"'write.{op}.mode'='merge-on-read'" for op in ("delete", "update", "merge"))
    columns = (
        "id BIGINT, k INT, v DOUBLE, f FLOAT, s STRING, d DATE, ts TIMESTAMP, dec DECIMAL(10,2)"
    )
    row = "(1, 1, 1.5, 0.5, 'a', DATE '2020-01-01', TIMESTAMP '2020-01-01 10:00:00', 1.25)"
    statements = [
        f"CREATE TABLE db.t ({columns}) USING iceberg PARTITIONED BY (days(ts), bucket(4, id),"
        " truncate(2, s), months(d))",
        f"CREATE TABLE db.m ({columns}) USING iceberg PARTITIONED BY (hours(ts), years(d))"
        f" TBLPROPERTIES ({mor})",
        f"INSERT INTO db.t VALUES {row}, (2, 2, 2.5, float('nan'), 'b', DATE '2020-02-01',"
        " TIMESTAMP '2020-01-02 00:00:00', 2.5)",
        "INSERT INTO db.m SELECT * FROM db.t",
        "CREATE TABLE db.c USING iceberg AS SELECT * FROM db.t",
        "UPDATE db.t SET v = v + 1 WHERE id = 1",
        "DELETE FROM db.t WHERE id = 2",
        "MERGE INTO db.t USING (SELECT 1 AS id, 9.5 AS v) s ON db.t.id = s.id"
        " WHEN MATCHED THEN UPDATE SET v = s.v",
        "UPDATE db.m SET v = v + 1 WHERE id = 1",
        "DELETE FROM db.m WHERE id = 2",
        "MERGE INTO db.m USING (SELECT id, k, 9.5 AS v, f, s, d, ts, dec FROM db.t UNION ALL"
        " SELECT 5, k, 1.0, f, s, d, ts, dec FROM db.t) s ON db.m.id = s.id"
        " WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *",
        "INSERT OVERWRITE db.c SELECT * FROM db.m",
    ]
    code = (
        "import sys, icesql\n"
        f"con = icesql.connect({str(tmp_path)!r})\n"
        f"for statement in {statements!r}:\n"
        "    con.execute(statement)\n"
        "print(con.execute('SELECT count(*), sum(v) FROM db.m').fetchall(),"
        " con.execute('SELECT count(*) FROM db.c').fetchall())\n"
        "print('pandas' in sys.modules, 'fsspec' in sys.modules)\n"
    )
    lines = run_python(code)
    assert lines == ["[(2, 10.5)] [(2,)]", "False False"], lines


# Loaded only when a statement's rows go through Arrow: DuckDB fetches the rows of a query of
# no table itself (icesql.engine.tuple_rows), and the decimal-division function DuckDB calls
# through Arrow is registered before the first SQL that calls it.
ARROW = ("pyarrow", "numpy", "icesql.spec.arrow")


def _dbapi_loads(warehouse: str, statements: list[str], preload: bool = False) -> list[str]:
    """What ``statements`` fetch on a fresh ``icesql.connect`` (the first column's name and
    type code, the rows), then which of ``ARROW`` the process loaded."""
    code = (
        "import sys, icesql\n"
        f"con = icesql.connect({warehouse!r}, preload={preload!r})\n"
        f"for statement in {statements!r}:\n"
        "    cur = con.execute(statement)\n"
        "    print(cur.description[0][:2], cur.fetchall())\n"
        f"print(sorted(m for m in {ARROW!r} if m in sys.modules))\n"
    )
    return run_python(code)


def test_import_icesql_loads_no_engine_library() -> None:
    code = f"import sys, icesql\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    assert run_python(code) == ["[]"]


def test_a_query_of_no_table_fetches_without_arrow(tmp_path) -> None:
    """DB-API queries of no table, of the types DuckDB fetches as tuples, on a connection
    opened with ``preload=False``: no pyarrow or numpy but for the one function DuckDB
    calls through Arrow (wide decimal division)."""
    lines = _dbapi_loads(
        str(tmp_path),
        [
            "SELECT 1 AS one",
            "SELECT CAST(1.5 AS DECIMAL(10, 2)) AS d, 'x' AS s, DATE '2020-01-01'",
            "SELECT 2147483647 + id AS wrapped FROM range(1) t(id)",
        ],
    )
    assert lines == [
        "('one', 'INT') [(1,)]",
        "('d', 'DECIMAL(10,2)') [(Decimal('1.50'), 'x', datetime.date(2020, 1, 1))]",
        "('wrapped', 'BIGINT') [(2147483647,)]",
        "[]",
    ], lines
    division = _dbapi_loads(
        str(tmp_path), ["SELECT CAST(1 AS DECIMAL(38, 18)) / CAST(3 AS DECIMAL(38, 18)) AS q"]
    )
    assert division == [
        "('q', 'DECIMAL(38,6)') [(Decimal('0.333333'),)]",
        "['numpy', 'pyarrow']",
    ], division


def test_arrow_rows_and_connect_load_arrow(tmp_path) -> None:
    """The check above names real modules: a nested result goes through Arrow, and
    ``connect()`` loads pyarrow itself unless told not to."""
    nested = _dbapi_loads(str(tmp_path), ["SELECT array(1, 2) AS a"])
    assert nested == ["('a', 'ARRAY<INT>') [([1, 2],)]", "['numpy', 'pyarrow']"], nested
    preloaded = _dbapi_loads(str(tmp_path), ["SELECT 1 AS one"], preload=True)
    assert preloaded == ["('one', 'INT') [(1,)]", str(sorted(ARROW))], preloaded


# Loaded only when a scan has delete files (or names a metadata column): the delete readers,
# keep-masks, equality-delete matching and Puffin deletion vectors.
DELETE_PATH = (
    "icesql.scan.delete_loaders",
    "icesql.scan.native_deletes",
    "icesql.scan.equality_keys",
    "icesql.scan.equality_metrics",
    "icesql.metadata.puffin",
    "icesql.scan.metadata_columns",
)


def _loaded_by_query(warehouse: str, query: str) -> tuple[str, set[str]]:
    """The rows of ``query`` on a fresh connection, and which of ``DELETE_PATH`` it loaded."""
    code = (
        "import sys, icesql\n"
        f"con = icesql.connect({warehouse!r})\n"
        f"print(con.execute({query!r}).fetchall())\n"
        f"print(sorted(m for m in {DELETE_PATH!r} if m in sys.modules))\n"
    )
    rows, loaded = run_python(code)
    return rows, set(eval(loaded))


def test_a_first_query_over_files_without_deletes_loads_no_delete_machinery(tmp_path) -> None:
    import icesql

    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.t (id INT, s STRING) USING iceberg PARTITIONED BY (s)"
        " TBLPROPERTIES ('write.delete.mode'='merge-on-read', 'format-version'='3')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'b')")
    con.execute(
        "CREATE TABLE db.e (id INT, s STRING) USING iceberg"
        " TBLPROPERTIES ('write.delete.mode'='merge-on-read')"
    )
    con.execute("INSERT INTO db.e VALUES (1, 'a'), (2, 'b')")
    assert _loaded_by_query(str(tmp_path), "SELECT count(*), max(s) FROM db.t") == (
        "[(3, 'b')]",
        set(),
    )
    # the same list is what deletes load (it names real modules): a DV, position deletes
    con.execute("DELETE FROM db.t WHERE id = 2")
    con.execute("DELETE FROM db.e WHERE id = 1")
    con.close()
    rows, loaded = _loaded_by_query(str(tmp_path), "SELECT count(*), max(s) FROM db.t")
    assert rows == "[(2, 'b')]", rows
    assert {
        "icesql.scan.delete_loaders",
        "icesql.scan.native_deletes",
        "icesql.metadata.puffin",
    } <= loaded, loaded
    rows, loaded = _loaded_by_query(str(tmp_path), "SELECT id, _pos FROM db.e")
    assert rows == "[(2, 1)]", rows
    assert {"icesql.scan.delete_loaders", "icesql.scan.metadata_columns"} <= loaded, loaded
