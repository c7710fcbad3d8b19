"""A worker run past its time limit (benchmarks.measure) is stopped and says so."""

from __future__ import annotations

from benchmarks.measure import run_worker


def test_a_run_past_its_timeout_is_stopped_and_named(tmp_path):
    request = {"task": "icesql_query", "args": {"warehouse": str(tmp_path), "sql": "SELECT 1"}}
    stopped = run_worker(request, timeout=0.01)  # an interpreter alone needs longer
    assert not stopped.ok and stopped.error == "did not finish in 0 s (stopped)"
    assert 0.01 <= stopped.extra["stopped_after"] < 5, stopped.extra
    finished = run_worker(request)
    assert finished.ok and finished.result == [["1"]], finished
