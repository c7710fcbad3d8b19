"""The ``icesql`` command: aligned tables, scripts from stdin, clean errors."""

import io
import subprocess
import sys

from icesql.shell import format_table, main


def test_format_table_aligns_numbers_right_and_text_left():
    text = format_table(["id", "name"], [(1, "a"), (100, None)])
    assert text.splitlines() == [
        "+-----+------+",
        "|  id | name |",
        "+-----+------+",
        "|   1 | a    |",
        "| 100 | NULL |",
        "+-----+------+",
    ]


def test_command_option_prints_rows(tmp_path, capsys):
    assert main([str(tmp_path), "-c", "SELECT 1 AS a, 'x' AS b"]) == 0
    out = capsys.readouterr().out
    assert "| a | b |" in out and "| 1 | x |" in out and "1 row(s)" in out


def test_error_is_one_line_without_traceback(tmp_path, capsys):
    assert main([str(tmp_path), "-c", "SELECT * FROM db.missing"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: table not found: db.missing")
    assert "Traceback" not in err


def test_statements_from_stdin(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("SELECT 1 AS x; SELECT 2 AS y;\n"))
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| x |" in out and "| y |" in out


def test_console_script_runs_as_a_process(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "icesql.shell", str(tmp_path), "-c", "SELECT 40 + 2 AS answer"],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "| answer |" in proc.stdout and "|     42 |" in proc.stdout
