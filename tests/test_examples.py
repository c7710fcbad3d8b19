"""The scripts in examples/ run as a user would run them, and say what they promise.

Each runs in a fresh interpreter in a folder of its own, with the icesql under test on its
path (``docs_support.run_python``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docs_support import run_python

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _run_blocked(script: str, module: str, tmp_path: Path, *args: str):
    """Run an example as on an install without ``module`` (its import fails)."""
    code = (
        f"import runpy, sys; sys.modules[{module!r}] = None;"
        f" sys.argv = [{script!r}, *{list(args)!r}];"
        f" runpy.run_path({str(EXAMPLES / script)!r}, run_name='__main__')"
    )
    return run_python(["-c", code], tmp_path, timeout=60)


def test_quickstart_example_runs(tmp_path):
    # the README's first set-up command: only icesql's runtime dependencies
    out = run_python([str(EXAMPLES / "quickstart.py")], tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    now, before = out.stdout.split("VERSION AS OF")
    assert re.search(r"eu\s+\| 4\s+\| 46\.50", now)
    assert re.search(r"eu\s+\| 2\s+\| 15\.50", before)  # the first snapshot's rows
    assert before.count("| append") == 2


def test_python_data_example_names_its_extras_on_a_base_install(tmp_path):
    # pandas blocked as on a base install: one line naming the extras, no traceback
    out = _run_blocked("python_data.py", "pandas", tmp_path, str(tmp_path))
    assert out.returncode == 1
    assert out.stderr.strip() == (
        "this example needs pandas: pip install 'icesql[pandas,polars,sqlalchemy]'"
    )


def test_python_data_example_runs(tmp_path):
    for extra in ("pandas", "polars", "sqlalchemy"):
        pytest.importorskip(extra)
    out = run_python([str(EXAMPLES / "python_data.py"), str(tmp_path)], tmp_path)
    assert out.returncode == 0, out.stderr
    assert "streamed rows: 2" in out.stdout
    assert "columns: ['id', 'region', 'amount', 'ordered_at']" in out.stdout
    assert "['id', 'region', 'amount', 'ordered_at']" in out.stdout
    # con.sql: the relation's text and HTML display, with types and the row count
    assert "| region | n      | total         |" in out.stdout
    assert "| STRING | BIGINT | DECIMAL(" in out.stdout
    assert "2 rows x 3 columns" in out.stdout
    assert (
        'html header: <th>region<br><span style="font-weight:normal;opacity:0.7">STRING'
        in out.stdout
    )
    assert "6 rows (first 3 shown) x 1 column" in out.stdout


@pytest.mark.server
def test_serve_example_runs_a_server_and_a_rest_client(tmp_path):
    pytest.importorskip("waitress")
    out = run_python([str(EXAMPLES / "serve.py")], tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert re.search(r"^serving: http://127\.0\.0\.1:\d+$", out.stdout, re.M)
    assert (
        "through the REST catalog: [('eu', 2, Decimal('15.50')), ('us', 1, Decimal('99.99'))]"
        in out.stdout
    )
    assert "snapshots: 2" in out.stdout
    assert re.search(r"server: \d+ requests logged, then 'icesql serve: stopped'", out.stdout)
    # what the server committed is in its SQL catalog database, read directly
    assert "tables in the catalog database: [('shop', 'orders', False)]" in out.stdout


def test_serve_example_names_its_extra_without_waitress(tmp_path):
    out = _run_blocked("serve.py", "waitress", tmp_path)
    assert out.returncode == 1
    assert out.stderr.strip() == "this example needs waitress: pip install 'icesql[server]'"


def test_notebook_example_runs_as_a_script(tmp_path):
    for extra in ("pandas", "sqlalchemy"):
        pytest.importorskip(extra)
    out = run_python([str(EXAMPLES / "notebook.py")], tmp_path)
    assert out.returncode == 0, out.stderr
    assert "inserted: 6" in out.stdout
    assert re.search(r"eu\s+3\s+29\.75", out.stdout)  # cur.df()
    # the relation's display: types under the names, and the row count
    assert "| STRING | BIGINT | DECIMAL(20,2) |" in out.stdout
    assert "2 rows x 3 columns" in out.stdout
    assert 'html: <table class="icesql-relation"><thead><tr><th>region<br>' in out.stdout
    assert "big regions: {'region': ['eu', 'us'], 'n': [3, 2]" in out.stdout
    assert "6 rows (first 3 shown) x 2 columns" in out.stdout
    # the notebook's progress display: shown while the INSERT ran, removed when it ended
    assert "in a kernel: False" in out.stdout
    assert re.search(r"progress: [1-9]\d* states shown, then removed: True", out.stdout)
    assert re.search(r"last state: icesql 100%  3/3 files .* 6 rows, 3 files written", out.stdout)
    assert "eu orders via SQLAlchemy: 6" in out.stdout
    assert out.stdout.rstrip().endswith("done")


def test_notebook_example_names_its_extras_on_a_base_install(tmp_path):
    out = _run_blocked("notebook.py", "pandas", tmp_path)
    assert out.returncode == 1
    assert out.stderr.strip() == (
        "this notebook needs pandas: pip install 'icesql[pandas,sqlalchemy]'"
    )


def test_spark_handoff_example_is_skipped_without_pyspark(tmp_path):
    out = _run_blocked("spark_handoff.py", "pyspark", tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (
        "skipped: needs pyspark and Java (pip install 'icesql[spark]'; Java 17)"
    )


@pytest.mark.spark
@pytest.mark.slow  # its own JVM: the example starts a Spark of its own in its process
def test_spark_handoff_example_runs_the_same_sql_on_both_engines(tmp_path):
    import spark_support

    jars = ",".join(spark_support.spark_jars())  # never Maven: the jars the tests build
    out = run_python(
        [str(EXAMPLES / "spark_handoff.py")], tmp_path, env={"ICESQL_SPARK_JARS": jars}
    )
    assert out.returncode == 0, out.stderr
    rows = "[('eu', 2, Decimal('15.50')), ('us', 1, Decimal('99.99'))]"
    assert f"local: {rows}" in out.stdout
    assert f"spark: {rows}" in out.stdout
    assert "same rows on both engines: True" in out.stdout
    # Spark's INSERT committed to the table icesql reads
    assert "rows after Spark's INSERT, read locally: 4" in out.stdout
    assert "snapshots: [('append', '3'), ('append', '1')]" in out.stdout
    assert "auto: == Engine == | local: its scans plan" in out.stdout
    assert "skipped" not in out.stdout
