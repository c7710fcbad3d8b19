"""The scripts in examples/ run as a user would run them, and say what they promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_python_data_example_names_its_extras_on_a_base_install(tmp_path):
    # pandas blocked as on a base install: one line naming the extras, no traceback
    code = (
        "import runpy, sys; sys.modules['pandas'] = None;"
        f" sys.argv = ['python_data.py', {str(tmp_path)!r}];"
        f" runpy.run_path({str(EXAMPLES / 'python_data.py')!r}, run_name='__main__')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert out.stderr.strip() == (
        "this example needs pandas: pip install 'icesql[pandas,polars,sqlalchemy]'"
    )


def test_python_data_example_runs(tmp_path):
    for extra in ("pandas", "polars", "sqlalchemy"):
        pytest.importorskip(extra)
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "python_data.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
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
