"""The benchmark harness in smoke mode (a few thousand rows, one run per side), so it cannot
rot: every scenario must come back with a figure or an explicit "not supported yet"."""

from __future__ import annotations

import importlib.util
import json

import duckdb
import sqlglot

from benchmarks import peers, rest, run
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
    argv = ["--smoke", "--no-pyiceberg", "--no-spark", "--peers", "none",
            "--cache", str(tmp_path / "data"), "--json", str(out)]
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


def test_peers_are_measured_or_named_as_missing(tmp_path, capsys):
    """A peer (benchmarks.peers) either answers the scenario's query with icesql's answer and
    gets a figure, or the notes say it is not set up and how to set it up."""
    out = tmp_path / "results.json"
    argv = ["--smoke", "--no-pyiceberg", "--scenarios", "full_aggregate",
            "--peers", "duckdb_iceberg", "--cache", str(tmp_path / "data"), "--json", str(out)]
    assert run.main(argv) == 0
    row = json.loads(out.read_text())["results"][0]
    label = peers.PEERS["duckdb_iceberg"].label
    notes = [n for n in row["notes"] if n.startswith(f"peer {label}:")]
    assert len(notes) == 1, row["notes"]
    if peers.python_for("duckdb_iceberg") is None:
        assert notes[0].endswith("not set up (python -m benchmarks.peers duckdb_iceberg)")
        assert row["peers"] == {}
    else:
        assert "error" not in notes[0] and "DIFFERS" not in notes[0], notes
        assert row["peers"]["duckdb_iceberg"]["seconds"] > 0


def test_peer_selection():
    assert run.selected_peers("none") == []
    assert run.selected_peers("") == list(peers.PEERS)
    assert run.selected_peers("polars,repark") == ["polars", "repark"]
    try:
        run.selected_peers("spark")
    except SystemExit as err:
        assert "unknown peer(s) ['spark']" in str(err)
    else:
        raise AssertionError("an unknown peer was accepted")
