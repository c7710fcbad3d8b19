"""Statements run interruptibly; results follow the settings (mode, maxrows, explain, timer)."""

from __future__ import annotations

import _thread
import io
import signal
import threading
import time

import pytest

import icesql
from icesql.cli.formatting import Format
from icesql.cli.output import Output
from icesql.cli.runner import Shell
from icesql.cli.settings import Settings

LONG_QUERY = "SELECT sum(a.id * b.id) FROM range(1000000) a, range(1000000) b"


@pytest.fixture
def shell(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id INT, s STRING)")
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, NULL)")
    out = Shell(con, Output(io.StringIO(), io.StringIO()))
    yield out
    out.close()
    con.close()


def _out(shell: Shell) -> str:
    return shell.output.stdout.getvalue()  # type: ignore[attr-defined]


def _err(shell: Shell) -> str:
    return shell.output.err.getvalue()  # type: ignore[attr-defined]


def test_maxrows_limits_human_modes_only(shell: Shell) -> None:
    shell.settings.maxrows = 2
    assert shell.run_text("SELECT id FROM db.t ORDER BY id;") == 0
    assert "2 of 3 rows shown (.maxrows N shows more)" in _out(shell) and "|  3 |" not in _out(
        shell
    )
    shell.settings.format = Format("csv")
    shell.run_text("SELECT id FROM db.t ORDER BY id")
    assert _out(shell).endswith("id\n1\n2\n3\n")


def test_the_rows_not_shown_are_counted(shell: Shell) -> None:
    """An unbounded SELECT shows ``maxrows`` rows and the total, counted from the rest of
    the result (several Arrow batches here)."""
    shell.settings.maxrows = 5
    assert shell.run_text("SELECT id FROM range(250000) t(id);") == 0
    out = _out(shell)
    assert out.endswith("5 of 250,000 rows shown (.maxrows N shows more)\n")
    assert out.count("\n") == 5 + 5  # rules, header, the rows, footer


def test_a_wide_result_is_cut_to_the_terminal(shell: Shell, monkeypatch) -> None:
    """At a terminal (no pager), the widest cells end in "…" and every line fits; the
    data modes and a file get every character."""
    monkeypatch.delenv("PAGER", raising=False)
    monkeypatch.setenv("COLUMNS", "60")
    shell.output.stdout = _Tty()
    sql = "SELECT id, repeat('x', 200) AS wide FROM db.t ORDER BY id;"
    assert shell.run_text(sql) == 0
    lines = _out(shell).splitlines()
    assert max(len(line) for line in lines) == 60
    assert "|  1 | xxxx" in lines[3] and lines[3].endswith("… |")
    assert lines[-1] == "3 row(s)"
    shell.output.stdout = _Tty()
    shell.settings.format = Format("csv")
    assert shell.run_text(sql) == 0
    assert "x" * 200 in _out(shell)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_csv_streams_in_chunks_with_one_header(shell: Shell, monkeypatch) -> None:
    monkeypatch.setattr("icesql.cli.runner.STREAM_ROWS", 2)
    shell.settings.format = Format("csv")
    assert shell.run_text("SELECT id, s FROM db.t ORDER BY id") == 0
    assert _out(shell) == "id,s\n1,a\n2,b\n3,\n"


def test_statements_without_rows_report_counts(shell: Shell) -> None:
    shell.run_text("INSERT INTO db.t VALUES (4, 'd'); CREATE NAMESPACE n2")
    assert _out(shell) == "1 row(s) affected\nOK\n"


def test_a_script_stops_at_its_first_error(shell: Shell) -> None:
    assert shell.run_text("SELECT 1 AS a; SELECT * FROM db.nope; SELECT 2 AS b") == 1
    assert "| a |" in _out(shell) and "| b |" not in _out(shell)
    assert _err(shell).startswith("error: [TABLE_OR_VIEW_NOT_FOUND] The table or view `db`.`nope`")


def test_explain_and_timer(shell: Shell) -> None:
    shell.settings.explain = shell.settings.timer = True
    shell.run_text("SELECT id FROM db.t WHERE id = 2")
    assert "DuckDB plan" in _out(shell) and "Run Time:" in _err(shell)


@pytest.fixture(autouse=True)
def _ctrl_c_raises():
    """Ctrl-C raises KeyboardInterrupt, as at a terminal. A process started in the background
    by a non-interactive shell inherits SIGINT ignored, and Python then leaves it so:
    ``_thread.interrupt_main`` did nothing and the long query ran for good."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _interrupt_soon(delay: float = 0.7) -> threading.Timer:
    timer = threading.Timer(delay, _thread.interrupt_main)
    timer.start()
    return timer


def test_ctrl_c_stops_a_long_query_and_the_shell_goes_on(shell: Shell) -> None:
    _interrupt_soon()
    assert shell.run_text(LONG_QUERY) == 1
    assert "interrupted" in _err(shell)
    assert shell.run_text("SELECT count(*) AS n FROM db.t") == 0
    assert "| 3 |" in _out(shell)


def test_ctrl_c_before_the_query_reaches_duckdb_still_stops_it(shell: Shell, monkeypatch) -> None:
    """The Ctrl-C lands while the statement is still being planned: no DuckDB query runs
    yet for it to interrupt, so the shell interrupts again until the statement ends."""
    engine = type(shell.con.engine)
    plan = engine._plan_query

    def slow_plan(self, *args, **kwargs):
        time.sleep(0.6)  # the Ctrl-C comes at 0.2 s
        return plan(self, *args, **kwargs)

    monkeypatch.setattr(engine, "_plan_query", slow_plan)
    _interrupt_soon(0.2)
    started = time.monotonic()
    # finite, but some seconds long if it were not interrupted
    assert shell.run_text("SELECT sum(a.id * b.id) FROM range(100000) a, range(60000) b") == 1
    assert "interrupted" in _err(shell) and time.monotonic() - started < 3


def test_an_interrupted_write_commits_nothing(shell: Shell) -> None:
    before = shell.con.execute("SELECT count(*) FROM db.t.snapshots").fetchone()
    _interrupt_soon()
    insert = (
        "INSERT INTO db.t SELECT CAST(a.id AS INT), 'x' FROM range(1000000) a,"
        " range(1000000) b WHERE a.id * b.id = -1"
    )
    assert shell.run_text(insert) == 1
    assert "interrupted" in _err(shell)
    assert shell.con.execute("SELECT count(*) FROM db.t.snapshots").fetchone() == before
    assert shell.con.execute("SELECT count(*) FROM db.t").fetchone() == (3,)


def test_settings_default() -> None:
    assert Settings().format.mode == "table" and Settings().maxrows == 1000
