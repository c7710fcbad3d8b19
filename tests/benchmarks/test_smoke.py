"""The benchmark harness in smoke mode (a few thousand rows, one run per side), so it cannot
rot: every scenario must come back with a figure or an explicit "not supported yet"."""

from __future__ import annotations

import json

from benchmarks import run
from benchmarks.report import ERROR, INFO, MISS, NOT_SUPPORTED, PASS
from benchmarks.scenarios import SCENARIOS


def test_smoke_mode_reports_every_scenario(tmp_path, capsys):
    out = tmp_path / "results.json"
    assert run.main(["--smoke", "--cache", str(tmp_path / "data"), "--json", str(out)]) == 0

    printed = capsys.readouterr().out
    results = json.loads(out.read_text())["results"]
    assert [r["scenario"] for r in results] == [s.name for s in SCENARIOS]
    for r in results:
        assert r["scenario"] in printed
        assert r["status"] in (PASS, MISS, NOT_SUPPORTED, ERROR, INFO), r
        if r["status"] == NOT_SUPPORTED:
            assert "NotSupportedError" in r["error"], r
        elif r["status"] != ERROR:
            assert r["ratio"] is not None or r["icesql_s"] is not None, r
        assert not any("MISMATCH" in n for n in r["notes"]), r
    # errors other than "not supported yet" are harness or engine bugs: show them plainly
    assert [r for r in results if r["status"] == ERROR] == []
