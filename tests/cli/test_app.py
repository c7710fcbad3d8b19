"""The command line end to end: every output mode of ``-c`` and piped input against golden
files (``ICESQL_UPDATE_GOLDEN=1`` rewrites them), ``--csv/--json/--markdown``, ``-f``, exit
statuses, errors with a caret, ``--version``.

The interactive prompt is tested in a real terminal in ``test_terminal.py``.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from icesql.cli.formatting import MODES
from icesql.shell import main

GOLDEN = Path(__file__).parent / "golden"
QUERY = (
    "SELECT * FROM VALUES (1, 'a', 1.5D, DATE '2024-01-02', true, CAST(2.50 AS DECIMAL(5,2)),"
    " array(1, 2), map('k', 'v'), X'01ff'), (22, 'c,\"q\"', NULL, NULL, NULL, NULL, NULL, NULL,"
    " NULL) AS t(id, name, price, day, flag, amount, tags, attrs, raw) ORDER BY id"
)
SCRIPT = """\
CREATE NAMESPACE db;
CREATE TABLE db.t (id INT, name STRING) PARTITIONED BY (name);
INSERT INTO db.t VALUES (1, 'a'), (2, NULL);
.headers off
SELECT id, name FROM db.t ORDER BY id;
.headers on
.nullvalue -
SELECT id, name
  FROM db.t
 ORDER BY id;
.tables
"""


def _check(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("ICESQL_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"differs from {path} (ICESQL_UPDATE_GOLDEN=1 rewrites)"


@pytest.mark.parametrize("mode", MODES)
def test_command_output_in_every_mode(mode: str, tmp_path, capsys) -> None:
    assert main([str(tmp_path), "--mode", mode, "-c", QUERY]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    _check(f"values.{mode}.txt", out)


@pytest.mark.parametrize("mode", ["table", "csv", "json"])
def test_piped_script_with_dot_commands(mode: str, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(f".mode {mode}\n{SCRIPT}"))
    assert main([str(tmp_path)]) == 0
    _check(f"script.{mode}.txt", capsys.readouterr().out)


@pytest.mark.parametrize("flag", ["--csv", "--json", "--markdown"])
def test_mode_flags(flag: str, tmp_path, capsys) -> None:
    assert main([str(tmp_path), flag, "-c", QUERY]) == 0
    assert capsys.readouterr().out == (GOLDEN / f"values.{flag[2:]}.txt").read_text()


def test_file_option_and_exit_status(tmp_path, capsys) -> None:
    good, bad = tmp_path / "good.sql", tmp_path / "bad.sql"
    good.write_text("SELECT 1 AS a;\n")
    bad.write_text("SELECT 1 AS a;\nSELECT *\n  FROM db.missing;\nSELECT 3 AS c;\n")
    assert main([str(tmp_path), "-f", str(good)]) == 0
    assert main([str(tmp_path), "-f", str(bad)]) == 1
    out, err = capsys.readouterr()
    assert "| c |" not in out
    _check("error.missing_table.txt", err)
    assert main([str(tmp_path), "-f", str(tmp_path / "absent.sql")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_syntax_error_with_caret(tmp_path, capsys) -> None:
    assert main([str(tmp_path), "-c", "SELECT id,\n       name\n  FROM t WHERE id = = 1"]) == 1
    _check("error.syntax.txt", capsys.readouterr().err)


def test_internal_errors_show_a_traceback_only_with_debug(tmp_path, capsys, monkeypatch) -> None:
    def broken(*args: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr("icesql.cli.runner.Shell.print_result", broken)
    assert main([str(tmp_path), "-c", "SELECT 1"]) == 1
    assert capsys.readouterr().err.startswith("internal error: KeyError: 'boom' (run with --debug")
    assert main([str(tmp_path), "--debug", "-c", "SELECT 1"]) == 1
    assert "Traceback (most recent call last)" in capsys.readouterr().err


def test_version_and_no_prompt_toolkit_in_scripts(tmp_path) -> None:
    code = (
        "import sys; from icesql.shell import main; rc = main(sys.argv[1:]);"
        " print(sorted(m for m in ('prompt_toolkit', 'pygments') if m in sys.modules)); sys.exit(rc)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path), "-c", "SELECT 1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("[]"), proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "icesql.shell", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.stdout.strip() == "icesql 0.1.0"
