"""The interactive shell in a real terminal (tmux): completion of a table and a column, a
multi-line statement, history recall with Up after a restart, ``.mode csv``, a syntax error
with its caret, Ctrl-C during a long query and then a new query, the progress bar of a long
scan, the pager of a wide result.

Skipped where tmux is not installed (``.ci/run`` installs it)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import icesql

SOURCE_TREE = str(Path(icesql.__file__).resolve().parent.parent)
pytestmark = [
    pytest.mark.server,  # every terminal is a tmux server of its own
    pytest.mark.skipif(
        shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)"
    ),
]


class Terminal:
    """One shell in a detached tmux session; ``type`` sends literal text, ``keys`` key names.
    Each terminal has a tmux server of its own (``-L``): on a shared server, a session started
    just as the last one was killed could meet the server exiting and fail to start."""

    def __init__(
        self,
        warehouse: Path | str,
        history: Path,
        pager: str = "",
        width: int = 150,
        environment: str = "",
    ):
        self.name = f"icesql-test-{uuid.uuid4().hex[:8]}"
        self.tmux = ("tmux", "-L", self.name)
        self.width = width
        # the icesql of this source tree, not whichever one the environment installed; the
        # pane's own size, not a COLUMNS/LINES the test run may carry
        command = (
            f"env -u COLUMNS -u LINES ICESQL_HISTORY={history} PAGER='{pager}' PYTHONPATH={SOURCE_TREE}"
            f" {environment} {sys.executable} -m icesql.shell {warehouse}"
        )
        size = ["-x", str(width), "-y", "50"]
        subprocess.run(
            [*self.tmux, "new-session", "-d", "-s", self.name, "-c", SOURCE_TREE, *size, command],
            check=True,
        )
        try:
            self.wait_for("icesql>")
        except AssertionError:
            self.close()  # no session outlives a failed start
            raise

    def type(self, text: str) -> None:
        # a trailing ';' ends a tmux command: escape it
        subprocess.run(
            [
                *self.tmux,
                "send-keys",
                "-t",
                self.name,
                "-l",
                text[:-1] + "\\;" if text.endswith(";") else text,
            ],
            check=True,
        )

    def keys(self, *names: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, *names], check=True)

    def screen(self) -> str:
        return subprocess.run(
            [*self.tmux, "capture-pane", "-p", "-t", self.name],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    def wait_for(self, text: str, timeout: float = 20.0, count: int = 1) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if screen.count(text) >= count:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} not on screen after {timeout}s:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], check=False, capture_output=True)
        socket = Path(os.environ.get("TMUX_TMPDIR", "/tmp"), f"tmux-{os.getuid()}", self.name)
        socket.unlink(missing_ok=True)  # a killed server leaves its socket file behind


@pytest.fixture
def warehouse(tmp_path) -> Path:
    with icesql.connect(str(tmp_path / "wh"), create=True) as con:
        con.execute("CREATE NAMESPACE db")
        con.execute("CREATE TABLE db.events (event_id INT, kind STRING)")
        con.execute("INSERT INTO db.events VALUES (1, 'click'), (2, 'view')")
    return tmp_path / "wh"


@pytest.fixture
def terminal(warehouse, tmp_path):
    term = Terminal(warehouse, tmp_path / "history")
    yield term
    term.close()


def test_completion_of_a_table_and_a_column(terminal: Terminal) -> None:
    terminal.type("SELECT * FROM db.ev")
    terminal.keys("Tab")
    terminal.wait_for("FROM db.events")
    terminal.type(" WHERE ki")
    terminal.keys("Tab")
    terminal.wait_for("WHERE kind")
    terminal.type(" = 'view';")
    terminal.keys("Enter")
    screen = terminal.wait_for("1 row(s)")
    assert "|        2 | view |" in screen


def test_multi_line_statement_and_csv_mode(terminal: Terminal) -> None:
    terminal.type(".mode csv")
    terminal.keys("Enter")
    terminal.type("SELECT event_id")
    terminal.keys("Enter")
    terminal.wait_for("   ...>")
    terminal.type("FROM db.events ORDER BY 1;")
    terminal.keys("Enter")
    screen = terminal.wait_for("event_id\n1\n2\n")
    assert "+--" not in screen


def test_syntax_error_shows_a_caret(terminal: Terminal) -> None:
    terminal.type("SELEC 1;")
    terminal.keys("Enter")
    screen = terminal.wait_for("^")
    assert "error: [PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'" in screen
    assert "  SELEC 1\n  ^^^^^" in screen
    assert "Traceback" not in screen


def test_ctrl_c_interrupts_a_long_query_then_a_new_one_runs(terminal: Terminal) -> None:
    terminal.type("SELECT 1 AS warm;")  # the engine has loaded: Ctrl-C reaches the query
    terminal.keys("Enter")
    terminal.wait_for("1 row(s)")
    terminal.type("SELECT sum(a.id * b.id) FROM range(1000000) a, range(1000000) b;")
    terminal.keys("Enter")
    time.sleep(1.0)
    terminal.keys("C-c")
    terminal.wait_for("interrupted")
    terminal.type("SELECT 40 + 2 AS answer;")
    terminal.keys("Enter")
    assert "|     42 |" in terminal.wait_for("|     42 |")


def test_history_is_recalled_with_up_after_a_restart(warehouse, tmp_path) -> None:
    first = Terminal(warehouse, tmp_path / "history")
    try:
        first.type("SELECT 'remember me' AS note;")
        first.keys("Enter")
        first.wait_for("1 row(s)")
        first.keys("C-d")
    finally:
        first.close()
    second = Terminal(warehouse, tmp_path / "history")
    try:
        second.keys("Up")
        second.wait_for("icesql> SELECT 'remember me' AS note;")
    finally:
        second.close()


@pytest.fixture(scope="module")
def big_warehouse(tmp_path_factory) -> Path:
    """3M rows in about 15 files: a scan whose query takes seconds (hashing every row)."""
    path = tmp_path_factory.mktemp("big") / "wh"
    with icesql.connect(str(path), create=True) as con:
        con.execute("CREATE NAMESPACE db")
        con.execute(
            "CREATE TABLE db.big (a BIGINT, b BIGINT)"
            " TBLPROPERTIES ('write.target-file-size-bytes' = '450000')"
        )
        con.execute("INSERT INTO db.big SELECT id, id * 7 % 1000003 FROM range(3000000) AS r(id)")
        assert con.execute("SELECT count(*) FROM db.big.files").fetchall()[0][0] > 8
    return path


def test_progress_bar_of_a_long_scan_appears_then_is_erased(big_warehouse, tmp_path) -> None:
    term = Terminal(big_warehouse, tmp_path / "history")
    try:
        term.type(
            "SELECT count(DISTINCT sha2(repeat(CAST(a AS STRING), 20), 256)) AS n FROM db.big;"
        )
        term.keys("Enter")
        screen = term.wait_for(" files  ", timeout=30)
        bar = next(line for line in screen.splitlines() if " files  " in line)
        assert bar.startswith("[") and "%" in bar and "MiB" in bar
        assert "/16 files" in bar or "files" in bar.split("%")[1]
        screen = term.wait_for("1 row(s)", timeout=60)
        assert "| 3000000 |" in screen
        assert " files  " not in screen  # erased before the result was printed
    finally:
        term.close()


def test_a_wide_result_goes_through_the_pager(warehouse, tmp_path) -> None:
    """``$PAGER`` receives a table wider than the terminal (a script that saves its input
    and prints a marker stands for ``less -S``); a narrow one is printed directly."""
    saved = tmp_path / "paged.txt"
    pager = tmp_path / "pager.sh"
    pager.write_text(f"#!/bin/sh\ncat > {saved}\necho PAGER-WAS-HERE\n")
    pager.chmod(0o755)
    term = Terminal(warehouse, tmp_path / "history", pager=str(pager))
    try:
        term.type("SELECT 1 AS narrow;")
        term.keys("Enter")
        term.wait_for("1 row(s)")
        assert not saved.exists()
        wide = ", ".join(f"repeat('w', 30) AS wide_column_{i}" for i in range(8))
        term.type(f"SELECT {wide};")
        term.keys("Enter")
        screen = term.wait_for("PAGER-WAS-HERE")
        assert "| wide_column_0" not in screen  # the table went to the pager, not the screen
        paged = saved.read_text()
        assert "| wide_column_0 " in paged and "| wide_column_7 " in paged
        assert "1 row(s)" in paged
        assert max(len(line) for line in paged.splitlines()) > 150
    finally:
        term.close()


@pytest.fixture(scope="module")
def deletes_warehouse(tmp_path_factory) -> Path:
    """A table as the issue's: partitioned, several snapshots, merge-on-read position
    deletes, a tag and a branch, a long property and a long comment."""
    path = tmp_path_factory.mktemp("deletes") / "wh"
    with icesql.connect(str(path), create=True) as con:
        con.execute("CREATE NAMESPACE db")
        con.execute(
            "CREATE TABLE db.events (id BIGINT COMMENT 'the event id', kind STRING,"
            " ts TIMESTAMP, payload STRING) PARTITIONED BY (days(ts), bucket(4, id))"
            " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read',"
            f" 'note'='{'n' * 300}')"
        )
        con.execute(
            "INSERT INTO db.events SELECT id, IF(id % 3 = 0, 'click', 'view'),"
            " TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, CAST(id % 48 AS INT)),"
            " repeat('p', 50) FROM range(100000) AS r(id)"
        )
        con.execute("DELETE FROM db.events WHERE id % 10 = 0")
        con.execute("ALTER TABLE db.events CREATE TAG v1")
        con.execute("ALTER TABLE db.events CREATE BRANCH dev")
        con.execute("INSERT INTO db.events VALUES (100001, 'buy', TIMESTAMP '2024-01-04', 'x')")
    return path


def _command(term: Terminal, text: str, done: str, count: int = 1) -> list[str]:
    term.type(text)
    term.keys("Enter")
    screen = term.wait_for(done, count=count)
    lines = screen.splitlines()
    assert max(len(line) for line in lines) <= term.width, screen
    return lines


@pytest.mark.parametrize("width", [130, 80])
def test_iceberg_commands_keep_to_the_terminal(deletes_warehouse, tmp_path, width) -> None:
    """.describe, .snapshots and .files at 130 and 80 columns: nothing folds into line-mode
    records, nothing wraps, one line per snapshot and per file."""
    term = Terminal(deletes_warehouse, tmp_path / "history", width=width)
    try:
        lines = _command(term, ".describe db.events", "    v1    tag     ")  # the last line
        assert any(line.startswith("Table db.events (Iceberg format v2)") for line in lines)
        assert any(line.startswith("    note = nnnn") and line.endswith("…") for line in lines)
        assert any("90,001 live rows" in line for line in lines)
        assert not any(" = " in line and line.startswith("  ") and "|" in line for line in lines)
        term.keys("C-l")
        lines = _command(term, ".snapshots db.events", "3 snapshot(s)")
        rows = [line for line in lines if line.startswith("| 20")]
        assert len(rows) == 3 and "snapshot_id" in lines[lines.index(rows[0]) - 2]
        ids = [r.strip("|").split("|")[1].strip() for r in rows]
        assert all(i.isdigit() and len(i) >= 15 for i in ids)  # ids are never cut
        term.keys("C-l")
        lines = _command(term, ".files db.events", "file(s)")
        (count,) = [int(line.split()[0]) for line in lines if line.endswith(" file(s)")]
        assert len([line for line in lines if line.startswith(("| data ", "| position "))]) == (
            count
        )
    finally:
        term.close()


def test_an_unbounded_select_shows_its_total(warehouse, tmp_path) -> None:
    term = Terminal(warehouse, tmp_path / "history", width=130)
    try:
        term.type("SELECT id, repeat('w', 300) AS wide FROM range(950000) AS t(id);")
        term.keys("Enter")
        screen = term.wait_for("1000 of 950,000 rows shown", timeout=60)
        lines = screen.splitlines()
        assert max(len(line) for line in lines) <= 130
        row = next(line for line in lines if line.startswith("| 999 | www"))
        assert len(row) == 130 and row.endswith("… |")  # cut to the terminal's width
    finally:
        term.close()


def test_the_progress_bar_moves_during_a_long_join(warehouse, tmp_path) -> None:
    """DuckDB's own progress moves the bar through a join of ranges (no file planned)."""
    term = Terminal(warehouse, tmp_path / "history", width=130)
    try:
        term.type("SELECT 1 AS warm;")
        term.keys("Enter")
        term.wait_for("1 row(s)")
        term.type(
            "SELECT count(*) FROM range(400000) a JOIN range(400000) b ON a.id % 7 = b.id % 11;"
        )
        term.keys("Enter")
        deadline = time.monotonic() + 40
        percent = 0
        while time.monotonic() < deadline and percent == 0:
            bars = [line for line in term.screen().splitlines() if line.startswith("[#")]
            if bars and "%" in bars[-1]:
                percent = int(bars[-1].split("]")[1].split("%")[0])
            time.sleep(0.2)
        assert percent > 0, term.screen()
        term.keys("C-c")
        term.wait_for("interrupted")
    finally:
        term.close()


def test_a_bare_shell_says_its_warehouse_is_transient(tmp_path) -> None:
    """Started in the source tree, whose folders (icesql, tests) a bare shell once listed as
    namespaces: now a transient warehouse of its own, said under the banner; ``.open`` of a
    folder that is not there names it and keeps the connection."""
    environment = f"ICESQL_WAREHOUSE= PYICEBERG_HOME={tmp_path} HOME={tmp_path}"
    term = Terminal("", tmp_path / "history", environment=environment)
    try:
        assert "A transient warehouse (" in term.screen()
        term.type("SHOW NAMESPACES;")
        term.keys("Enter")
        term.wait_for("0 row(s)")
        term.type(f".open {tmp_path / 'typo'}")
        term.keys("Enter")
        term.wait_for("does not exist")
        assert "makes a new warehouse" in term.screen() or "--create" in term.screen()
        term.type("CREATE NAMESPACE still_here;")
        term.keys("Enter")
        term.type("SHOW NAMESPACES;")
        term.keys("Enter")
        term.wait_for("still_here")
    finally:
        term.close()


def test_health_fits_the_terminal_and_shows_its_bars(deletes_warehouse, tmp_path) -> None:
    """.health at 100 columns keeps to 80; its bars and sparklines are drawn."""
    term = Terminal(deletes_warehouse, tmp_path / "history", width=100)
    try:
        lines = _command(term, ".health db.events", "Advice:")
        term.wait_for("orphan files not checked")
        lines = term.screen().splitlines()
        assert max(len(line.rstrip()) for line in lines) <= 80
        assert any("█" in line for line in lines)
        assert any(line.startswith("  skew (bytes):") for line in lines)
        assert any(line.startswith("Snapshots: 3") for line in lines)
    finally:
        term.close()
