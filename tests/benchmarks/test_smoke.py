"""The benchmark harness in smoke mode (a few thousand rows, one run per side), so it cannot
rot: every scenario must come back with a figure or an explicit "not supported yet"."""

from __future__ import annotations

import importlib.util
import json

import duckdb
import sqlglot

from benchmarks import rest, run
from benchmarks.report import ERROR, INFO, MISS, NOT_SUPPORTED, PASS
from benchmarks.scenarios import SCENARIOS

# PyIceberg is a benchmark-only dependency (benchmarks/requirements.txt); without it the
# planning scenario's baseline cannot run, and says so.
HAVE_PYICEBERG = importlib.util.find_spec("pyiceberg") is not None


def _spark_rest_available() -> bool:
    try:
        rest.spark_support()
    except RuntimeError:
        return False
    return True


# Spark's RESTCatalog needs java and HttpClient 5 (benchmarks.rest.spark_support); without them
# the Spark-client scenario says so instead of measuring
HAVE_SPARK_REST = _spark_rest_available()


def test_smoke_mode_reports_every_scenario(tmp_path, capsys):
    out = tmp_path / "results.json"
    # --no-spark: the data_checks scenario's Spark side starts a JVM (run it by hand:
    # python -m benchmarks --smoke --scenarios data_checks)
    argv = ["--smoke", "--no-pyiceberg", "--no-spark", "--cache", str(tmp_path / "data"),
            "--json", str(out)]
    assert run.main(argv) == 0

    printed = capsys.readouterr().out
    written = json.loads(out.read_text())
    results = written["results"]
    # the figures name the versions they were measured with, in the table and the file
    env = written["environment"]
    assert env["duckdb"] == duckdb.__version__ and env["sqlglot"] == sqlglot.__version__, env
    assert all(env[d] for d in ("pyarrow", "fastavro", "numpy", "python")), env
    assert f"duckdb {duckdb.__version__}" in printed and f"sqlglot {sqlglot.__version__}" in printed
    assert [r["scenario"] for r in results] == [s.name for s in SCENARIOS]
    for r in results:
        assert r["scenario"] in printed
        assert r["status"] in (PASS, MISS, NOT_SUPPORTED, ERROR, INFO), r
        if r["status"] == NOT_SUPPORTED:
            assert "NotSupportedError" in r["error"], r
        elif r["status"] != ERROR:
            assert r["ratio"] is not None or r["icesql_s"] is not None, r
        assert not any("MISMATCH" in n for n in r["notes"]), r
    # an error other than "not supported yet" is a harness or engine bug: show it plainly
    errors = [
        r
        for r in results
        if r["status"] == ERROR
        and (HAVE_PYICEBERG or "pyiceberg" not in (r["error"] or ""))
        and (HAVE_SPARK_REST or rest.SPARK_UNAVAILABLE not in (r["error"] or ""))
    ]
    assert errors == []
