"""The shell's progress bar: its text, its delay, its erasure, and no bar off a terminal."""

from __future__ import annotations

import io

import icesql
from icesql.cli.output import Output
from icesql.cli.progress_bar import ProgressBar, bar_text
from icesql.cli.runner import Shell
from icesql.progress import Progress


def test_bar_text_shows_files_bytes_and_rows_written() -> None:
    reading = Progress(files_planned=16, files_done=4, bytes_planned=3 << 30, bytes_done=3 << 28)
    assert bar_text(reading, 80) == "[#####               ]   25%  4/16 files  0.8/3.0 GiB"
    writing = Progress(rows_written=1234567, files_written=3)
    assert bar_text(writing, 80) == "1,234,567 rows, 3 files written"
    assert bar_text(Progress(), 80) == ""  # nothing planned, nothing written: no bar
    assert len(bar_text(reading, 30)) <= 30


def test_the_bar_waits_its_delay_then_draws_and_is_erased() -> None:
    stream = io.StringIO()
    bar = ProgressBar(stream, delay=3600)
    bar.update(Progress(files_planned=2, files_done=1, bytes_planned=10, bytes_done=5))
    bar.draw()
    assert stream.getvalue() == ""  # a short statement shows no bar
    bar.delay = 0
    bar.draw()
    assert stream.getvalue() == "\r\x1b[K[##########          ]   50%  1/2 files  5/10 B"
    bar.stop()
    assert stream.getvalue().endswith("B\r\x1b[K")
    bar.draw()
    assert stream.getvalue().endswith("B\r\x1b[K")  # stopped for good


def test_no_bar_when_stderr_is_not_a_terminal(tmp_path) -> None:
    with icesql.connect(str(tmp_path / "wh"), create=True) as con:
        con.execute("CREATE NAMESPACE db")
        con.execute("CREATE TABLE db.t (x INT)")
        con.execute("INSERT INTO db.t VALUES (1)")
        out, err = io.StringIO(), io.StringIO()
        shell = Shell(con, Output(out, err), interactive=True)
        assert shell.run_sql("SELECT * FROM db.t;")
        assert err.getvalue() == ""
        assert not con.engine.progress._listeners  # nothing follows the connection afterwards


def test_the_bar_follows_duckdb_or_shows_a_query_it_cannot_measure_running() -> None:
    joining = Progress(query_fraction=0.42, querying=True, elapsed=3.0)
    assert bar_text(joining, 80) == "[########            ]   42%"
    unknown = Progress(files_planned=56, bytes_planned=5 << 20, querying=True, elapsed=2.0)
    first = bar_text(unknown, 80)
    assert first == "[          ###       ]    2.0 s  56 files"
    assert "0%" not in first and "0/56" not in first
    later = bar_text(Progress(files_planned=56, querying=True, elapsed=2.4), 80)
    assert later != first and len(later) == len(first)  # the block has moved
    assert len(bar_text(unknown, 20)) <= 20
