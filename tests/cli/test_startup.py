"""Start-up stays light: what ``icesql --version`` and the interactive prompt import before the
first statement, checked by module (``-X importtime``, ``sys.modules``), never by timing.

The engine's libraries (DuckDB, pyarrow, sqlglot, fsspec, pandas, polars) cost most of a
second to import; the prompt appears without them (the connection opens on a background
thread, ``icesql.cli.app.Opening``) and ``--version`` never needs them."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("duckdb", "pyarrow", "sqlglot", "fsspec", "pandas", "polars", "numpy", "fastavro")


def _imported(*args: str) -> set[str]:
    """The top-level packages a Python run imports, as ``-X importtime`` lists them."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *args],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    assert "icesql" in names  # the listing was read at all
    return names


def test_version_imports_no_engine_library() -> None:
    proc = subprocess.run([sys.executable, "-m", "icesql.shell", "--version"],
                          capture_output=True, text=True, check=False)
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
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, env={"ICESQL_HISTORY": "/dev/null", "PATH": ""})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == ["[]", "True True"]


def test_a_command_line_query_loads_no_writer_file_system_or_prompt(tmp_path) -> None:
    """``icesql W -c "SELECT 1"``: the engine and its parser, nothing a query of no table
    does not need (the write path, fsspec and asyncio, fastavro, the prompt)."""
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['icesql', {str(tmp_path)!r}, '-c', 'SELECT 1 AS one']\n"
        "try:\n"
        "    runpy.run_module('icesql.shell', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "light = ('fastavro', 'fsspec', 'asyncio', 'prompt_toolkit', 'pygments', 'pandas',\n"
        "         'polars', 'icesql.write', 'icesql.statements.insert')\n"
        "print(sorted(m for m in light if m in sys.modules), 'duckdb' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines()[1:] == ["| one |", "+-----+", "|   1 |", "+-----+", "1 row(s)",
                                            "[] True"], proc.stdout


# What a query of no table leaves unloaded (icesql._lazy): the read path (planning, manifests,
# the scan and its delete handling), Arrow's compute kernels and its Parquet reader.
READ_PATH = ("icesql.scan.table_scan", "icesql.scan.planner", "icesql.scan.explain",
             "icesql.scan.metadata_tables", "icesql.scan.time_travel", "icesql.scan.apply_deletes",
             "icesql.metadata.manifest", "icesql.metadata.manifest_list", "pyarrow.compute",
             "pyarrow.parquet", "pyarrow.dataset")


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
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return eval(proc.stdout.splitlines()[-1])  # noqa: S307 - our own printed list


def test_a_query_of_no_table_loads_no_read_path(tmp_path) -> None:
    assert _loaded_after(str(tmp_path), "SELECT 1 AS one") == []


def test_the_first_table_read_loads_the_read_path(tmp_path) -> None:
    """The same list is what a table's query needs: the check above names real modules."""
    loaded = _loaded_after(str(tmp_path), "CREATE TABLE t (id INT); INSERT INTO t VALUES (1);"
                                          " SELECT * FROM t")
    assert {"icesql.scan.table_scan", "icesql.scan.planner", "icesql.metadata.manifest",
            "pyarrow.compute"} <= set(loaded), loaded


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
        "rows = con.execute(\"SELECT s, count(*) FROM db.t WHERE id > 1 GROUP BY s\").fetchall()\n"
        "print(rows)\n"
        "light = ('fsspec', 'asyncio', 'ssl', 'fastavro', 'pyarrow.compute', 'pyarrow.parquet',\n"
        "         'pyarrow.fs', 'pandas')\n"
        "print(sorted(m for m in light if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == ["[('b', 2)]", "[]"], proc.stdout
