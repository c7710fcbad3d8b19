"""``TableHealth`` as a program and a notebook see it: ``to_dict`` is JSON with the derived
numbers, and an IPython shell shows the report as HTML with its SVG charts (text beside it)."""

from __future__ import annotations

import json

import pytest

IPython = pytest.importorskip("IPython")
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402


def test_to_dict_is_json_with_the_derived_numbers(planted):
    h = planted.health("db.t")
    d = json.loads(json.dumps(h.to_dict()))
    assert d["summary"]["data_files"] == 12 and d["summary"]["problems"] == 1
    p0 = next(p for p in d["partitions"] if p["partition"] == "p=0")
    assert (p0["records"], p0["live_records"], p0["delete_files"]) == (300, 280, 1)
    assert p0["deleted_fraction"] == pytest.approx(20 / 300, abs=1e-6)
    assert d["advice"][0]["preview"]["procedure"] == "rewrite_data_files"
    assert d["files"]["average_bytes"] == h.files.bytes // 12


def test_an_ipython_shell_shows_the_report_as_html(planted):
    shell = InteractiveShell.instance()
    try:
        shell.user_ns["con"] = planted
        result = shell.run_cell("con.health('db.t')")
        assert result.success, result.error_in_exec
        formatted, _ = shell.display_formatter.format(result.result)
    finally:
        InteractiveShell.clear_instance()
    assert "<svg" in formatted["text/html"] and "rewrite_data_files" in formatted["text/html"]
    assert formatted["text/plain"].startswith("Table local.db.t  format v2")
