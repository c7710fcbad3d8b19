"""How the harness judges a scenario's further targets (benchmarks.run), on made-up runs:
no engine is started here."""

from __future__ import annotations

import argparse

from benchmarks import run
from benchmarks.measure import Run
from benchmarks.report import ERROR, MISS, NOT_MEASURED, PASS, Row
from benchmarks.scenarios import SCENARIOS

MERGE = next(s for s in SCENARIOS if s.name == "dml_merge_mor")
UPSERT = "<= 0.1x PyIceberg upsert (issue 21)"
REPARK = "<= 1x repark 1.5.5 (issue 27)"


class _Runner:
    def __init__(self, selected: list[str], no_pyiceberg: bool = False):
        self.peers = selected
        self.args = argparse.Namespace(no_pyiceberg=no_pyiceberg)


def _judged(icesql_s: float, sides: dict[str, list[Run]], runner: _Runner) -> dict[str, dict]:
    row = Row(MERGE.name, "", "", "info", icesql_s=icesql_s)
    run._judge_targets(MERGE, sides, runner, row)  # type: ignore[arg-type]
    assert len(row.notes) == len(row.targets) == 2
    return {t["target"]: t for t in row.targets}


def _ok(seconds: float) -> list[Run]:
    return [Run(True, seconds, 100.0, [["1"]])]


def test_targets_pass_and_miss_on_medians():
    sides = {"pyiceberg": _ok(20.0), "peer:repark": _ok(1.0)}
    got = _judged(1.5, sides, _Runner(["repark"]))
    assert got[UPSERT]["status"] == PASS and got[UPSERT]["ratio"] == 1.5 / 20.0
    assert got[REPARK]["status"] == MISS and got[REPARK]["ratio"] == 1.5


def test_a_stopped_side_gives_a_bound_not_a_figure():
    """PyIceberg stopped unfinished (time or memory limit) ran longer than it was allowed:
    icesql under a tenth of that passes; above it the target cannot be judged."""
    for error in ("did not finish in 600 s (stopped)", "killed: resident memory passed 4096 MB"):
        stopped = [Run(False, None, 100.0, error=error, extra={"stopped_after": 600.0})]
        got = _judged(30.0, {"pyiceberg": stopped}, _Runner([]))
        assert got[UPSERT]["status"] == PASS, got
        assert got[UPSERT]["reason"] == (
            f"PyIceberg stopped unfinished after 600.0 s ({error}): icesql 30.000 s / it < 0.050x"
        )
        got = _judged(90.0, {"pyiceberg": stopped}, _Runner([]))
        assert got[UPSERT]["status"] == NOT_MEASURED


def test_missing_and_failing_sides_are_named():
    refused = [Run(False, None, 100.0, error="AnalysisException: MERGE is not supported")]
    got = _judged(1.0, {"peer:repark": refused}, _Runner(["repark"], no_pyiceberg=True))
    assert got[UPSERT]["status"] == NOT_MEASURED
    assert got[UPSERT]["reason"] == "PyIceberg skipped (--no-pyiceberg)"
    assert got[REPARK]["status"] == ERROR
    assert got[REPARK]["reason"] == (
        "repark 1.5.5 failed: AnalysisException: MERGE is not supported"
    )
    got = _judged(1.0, {}, _Runner([]))
    assert got[REPARK]["reason"] == "repark not selected (--peers)"
