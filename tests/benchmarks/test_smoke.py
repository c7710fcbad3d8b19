"""The benchmark harness in smoke mode (a few thousand rows, one run per side), so it cannot
rot: every scenario must come back with a figure or an explicit "not supported yet"."""

from __future__ import annotations

import importlib.util
import json

import duckdb
import pytest
import sqlglot

from benchmarks import peers, rest, run
from benchmarks.report import ERROR, INFO, MISS, NOT_MEASURED, NOT_SUPPORTED, PASS
from benchmarks.scenarios import SCENARIOS

pytestmark = pytest.mark.slow

DML = [s.name for s in SCENARIOS if s.extra.get("dml")]

# PyIceberg is a benchmark-only dependency (benchmarks/requirements.txt); without it the
# planning scenario's baseline cannot run, and says so.
HAVE_PYICEBERG = importlib.util.find_spec("pyiceberg") is not None
# PyIceberg writes to the months()-partitioned lineitem (the DML scenarios) only with its
# pyiceberg-core extra (benchmarks/requirements.txt); the test extra has PyIceberg without it
HAVE_PYICEBERG_WRITES = HAVE_PYICEBERG and importlib.util.find_spec("pyiceberg_core") is not None


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
    argv = [
        "--smoke",
        "--no-pyiceberg",
        "--no-spark",
        "--peers",
        "none",
        "--cache",
        str(tmp_path / "data"),
        "--json",
        str(out),
    ]
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
    by_name = {r["scenario"]: r for r in results}
    # the full aggregate's CPU utilisation, icesql's and its DuckDB baseline's (issue 21)
    cpu = by_name["full_aggregate"]["cpu"]
    assert set(cpu) == {"icesql", "baseline"}, cpu
    for side in cpu.values():
        assert side["cores"] >= 1 and side["cpu_seconds"] > 0, cpu
        assert 0 < side["utilisation"] <= 1.05, cpu
    assert any(
        n.startswith("CPU utilisation of icesql: ") for n in by_name["full_aggregate"]["notes"]
    )
    # every DML scenario names its further targets, unmeasured sides with the reason
    assert len(DML) == 5
    for name in DML:
        targets = {t["target"]: t for t in by_name[name]["targets"]}
        repark = targets["<= 1x repark 1.5.5 (issue 27)"]
        assert repark["status"] == NOT_MEASURED, repark
        assert repark["reason"] == "repark not selected (--peers)", repark
        assert any(n.startswith("committed (snapshots / ") for n in by_name[name]["notes"])
    upsert = {t["target"]: t for t in by_name["dml_merge_mor"]["targets"]}
    assert upsert["<= 0.1x PyIceberg upsert (issue 21)"]["reason"] == (
        "PyIceberg skipped (--no-pyiceberg)"
    )
    # the merge-on-read DELETE against DuckDB finding the same rows is judged on figures
    find = by_name["dml_delete_mor"]["targets"][0]
    assert find["target"] == "<= 2x DuckDB finding the rows (issue 21)"
    assert find["status"] in (PASS, MISS) and find["ratio"] > 0, find
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
    argv = [
        "--smoke",
        "--no-pyiceberg",
        "--scenarios",
        "full_aggregate",
        "--peers",
        "duckdb_iceberg",
        "--cache",
        str(tmp_path / "data"),
        "--json",
        str(out),
    ]
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


def test_dml_peers_are_measured_or_named_as_missing(tmp_path):
    """On every DML scenario PyIceberg (where it has the operation) and repark run the same
    change on copies of their own and end with icesql's final rows; repark, when it is not set
    up, is named as such in the notes and its target (issue 27) is not measured."""
    out = tmp_path / "results.json"
    argv = [
        "--smoke",
        "--no-spark",
        "--peers",
        "repark",
        "--scenarios",
        ",".join(DML),
        "--cache",
        str(tmp_path / "data"),
        "--json",
        str(out),
    ]
    assert run.main(argv) == 0
    rows = {r["scenario"]: r for r in json.loads(out.read_text())["results"]}
    assert sorted(rows) == sorted(DML)
    label = peers.PEERS["repark"].label
    for name, row in rows.items():
        assert row["status"] == INFO and row["icesql_s"] > 0, row  # --no-spark: no ratio
        assert not any("MISMATCH" in n for n in row["notes"]), row
        targets = {t["target"]: t for t in row["targets"]}
        repark = targets["<= 1x repark 1.5.5 (issue 27)"]
        committed = next(n for n in row["notes"] if n.startswith("committed ("))
        if peers.python_for("repark") is None:
            assert f"peer {label}: not set up (python -m benchmarks.peers repark)" in row["notes"]
            assert repark["status"] == NOT_MEASURED and "not set up" in repark["reason"], repark
        else:
            assert row["peers"]["repark"]["seconds"] > 0, row
            assert repark["status"] in (PASS, MISS) and repark["ratio"] > 0, repark
            assert f"{label} 1 / +" in committed, committed
        if name == "dml_update_mor":
            assert row["pyiceberg_s"] is None
            assert "PyIceberg: no such operation (PyIceberg has no UPDATE)" in row["notes"]
        elif HAVE_PYICEBERG_WRITES:
            assert row["pyiceberg_s"] > 0, row
            assert "PyIceberg " in committed, committed
        elif HAVE_PYICEBERG:  # named in the row, not a crash of the run
            assert any(
                n.startswith("PyIceberg: NotInstalledError: pyiceberg_core") for n in row["notes"]
            ), row["notes"]
    # icesql's merge-on-read DELETE writes delete files and removes no data file; PyIceberg
    # 0.12 falls back to copy-on-write and says so
    mor = rows["dml_delete_mor"]
    committed = next(n for n in mor["notes"] if n.startswith("committed ("))
    assert "icesql 1 / +0 / -0 / +" in committed and "icesql 1 / +0 / -0 / +0" not in committed
    if HAVE_PYICEBERG_WRITES:
        assert (
            "PyIceberg warned: Merge on read is not yet supported, falling back to copy-on-write"
        ) in mor["notes"]
        upsert = {t["target"]: t for t in rows["dml_merge_mor"]["targets"]}
        assert upsert["<= 0.1x PyIceberg upsert (issue 21)"]["status"] in (PASS, MISS)


def test_peer_folder_can_be_another_checkouts(tmp_path, monkeypatch):
    """$ICESQL_BENCH_PEERS points a second checkout (a worktree) at the peers' virtualenvs."""
    python = tmp_path / "repark" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    monkeypatch.setenv(peers.ROOT_ENV, str(tmp_path))
    assert peers.python_for("repark") == str(python)
    assert peers.python_for("polars") is None
    monkeypatch.delenv(peers.ROOT_ENV)
    assert peers.root() == peers.ROOT
