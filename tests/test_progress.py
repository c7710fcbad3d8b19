"""The progress callback: scans report every planned file and its bytes (read by DuckDB or by
icesql's Arrow stream), writes report their rows and files, and nobody listening costs nothing."""

from __future__ import annotations

import time

import pytest

import icesql
from icesql.progress import Progress, ProgressTracker


@pytest.fixture
def con(tmp_path):
    con = icesql.connect(str(tmp_path / "wh"), create=True)
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id BIGINT, kind STRING) PARTITIONED BY (kind)")
    for i in range(4):  # one file per INSERT and kind: 8 files
        con.execute(
            f"INSERT INTO db.t SELECT id, IF(id % 2 = 0, 'a', 'b') FROM range({i * 100},"
            f" {(i + 1) * 100}) AS r(id)"
        )
    yield con
    con.close()


def _files(con) -> tuple[int, int]:
    rows = con.execute("SELECT file_size_in_bytes FROM db.t.files").fetchall()
    return len(rows), sum(r[0] for r in rows)


@pytest.mark.parametrize("native", ["true", "false"])
def test_a_scan_reports_every_planned_file_and_its_bytes(con, native: str) -> None:
    files, size = _files(con)
    assert files == 8
    con.execute(f"SET icesql.scan.nativeParquet = {native}")
    seen: list[Progress] = []
    stop = con.add_progress_listener(seen.append)
    assert con.execute("SELECT count(*), sum(id) FROM db.t").fetchall() == [(400, 79800)]
    stop()
    last = seen[-1]
    assert last.finished
    assert (last.files_planned, last.bytes_planned) == (files, size)
    assert (last.files_done, last.bytes_done) == (files, size)
    assert last.fraction == 1.0
    assert last.rows_written == last.files_written == 0
    done = [p.files_done for p in seen]
    assert done == sorted(done)  # never goes back
    if native == "false":  # the Arrow stream tells each file as it is read
        assert {p.files_done for p in seen} >= set(range(1, files + 1))


def test_a_pruned_scan_plans_only_the_files_it_reads(con) -> None:
    seen: list[Progress] = []
    con.add_progress_listener(seen.append)
    con.execute("SELECT count(*) FROM db.t WHERE kind = 'a'").fetchall()
    assert seen[-1].files_planned == seen[-1].files_done == 4


def test_an_insert_reports_rows_and_files_written(con) -> None:
    before = set(r[0] for r in con.execute("SELECT file_path FROM db.t.files").fetchall())
    seen: list[Progress] = []
    con.add_progress_listener(seen.append)
    cur = con.execute(
        "INSERT INTO db.t SELECT id, IF(id < 250, 'a', 'c') FROM range(1000) AS r(id)"
    )
    assert cur.rowcount == 1000
    last = seen[-1]
    assert last.finished
    assert last.rows_written == 1000
    new = con.execute("SELECT file_path, file_size_in_bytes FROM db.t.files").fetchall()
    new = [r for r in new if r[0] not in before]
    assert last.files_written == len(new) == 2  # kinds a and c
    assert last.bytes_written == sum(r[1] for r in new)
    assert last.files_planned == 0  # range() reads no Iceberg file


def test_an_insert_from_a_table_reports_its_scan_and_its_write(con) -> None:
    files, size = _files(con)
    con.execute("CREATE TABLE db.copy (id BIGINT, kind STRING)")
    seen: list[Progress] = []
    con.add_progress_listener(seen.append)
    con.execute("INSERT INTO db.copy SELECT * FROM db.t")
    last = seen[-1]
    assert (last.files_planned, last.files_done, last.bytes_done) == (files, files, size)
    assert (last.rows_written, last.files_written) == (400, 1)


def test_a_delete_reports_the_rewritten_files(con) -> None:
    seen: list[Progress] = []
    con.add_progress_listener(seen.append)
    con.execute("DELETE FROM db.t WHERE id = 3")  # copy-on-write: one file rewritten
    last = seen[-1]
    assert last.finished and last.files_planned >= 1
    assert last.files_written == 1 and last.rows_written == 49


def test_each_statement_starts_afresh_and_listeners_can_leave(con) -> None:
    seen: list[Progress] = []
    stop = con.add_progress_listener(seen.append)
    con.execute("SELECT count(*) FROM db.t").fetchall()
    con.execute("SELECT count(*) FROM db.t WHERE kind = 'b'").fetchall()
    assert seen[-1].files_planned == 4  # not 8 + 4
    stop()
    count = len(seen)
    con.execute("SELECT count(*) FROM db.t").fetchall()
    assert len(seen) == count


def test_nobody_listening_reports_nothing() -> None:
    tracker = ProgressTracker()
    tracker.begin()
    assert not tracker.active  # callers check this before reporting anything


def test_a_failing_callback_does_not_fail_the_statement(con) -> None:
    def broken(progress: Progress) -> None:
        raise RuntimeError("listener bug")

    con.add_progress_listener(broken)
    assert con.execute("SELECT count(*) FROM db.t").fetchall() == [(400,)]


@pytest.mark.slow
def test_duckdb_reads_are_reported_while_they_run(tmp_path) -> None:
    """A file DuckDB reads itself counts as done as DuckDB's query progresses, reported by
    the monitor thread while the statement runs (a scan of one big file)."""
    with icesql.connect(str(tmp_path / "wh"), create=True) as con:
        con.execute("CREATE NAMESPACE db")
        con.execute("CREATE TABLE db.big (a BIGINT, b BIGINT)")
        con.execute("INSERT INTO db.big SELECT id, id * 7 % 1000003 FROM range(6000000) AS r(id)")
        seen: list[Progress] = []
        con.add_progress_listener(seen.append)
        started = time.monotonic()
        con.execute("SELECT count(DISTINCT a * b), count(DISTINCT b - a) FROM db.big").fetchall()
        took = time.monotonic() - started
        last = seen[-1]
        assert last.finished and last.files_done == last.files_planned >= 1
        if took > 1.0:  # long enough for the monitor to have reported the running query
            assert any(not p.finished and p.elapsed > 0.2 for p in seen)


def test_closing_an_older_result_does_not_end_the_running_statement(con) -> None:
    seen: list[Progress] = []
    con.add_progress_listener(seen.append)
    older = con.execute("SELECT * FROM db.t")
    newer = con.cursor()
    newer.execute("SELECT id FROM db.t WHERE kind = 'a'")
    older.close()
    assert not seen[-1].finished and seen[-1].files_planned == 4
    assert len(newer.fetchall()) == 200
    newer.close()
    assert seen[-1].finished and seen[-1].files_done == 4


def test_duckdb_own_progress_is_the_share_of_a_query_that_reads_no_file(con) -> None:
    """A join of ``range``s plans no file, yet DuckDB tells how far it has got: the share
    moves while the query runs."""
    seen: list[Progress] = []
    con.add_progress_listener(seen.append)
    sql = "SELECT count(*) FROM range(90000) a JOIN range(90000) b ON a.id % 7 = b.id % 11"
    assert con.execute(sql).fetchall()[0][0] > 0  # a second or two: several reports
    running = [p for p in seen if not p.finished and p.querying]
    assert running and all(p.files_planned == 0 for p in running)
    shares = [p.fraction for p in running if p.fraction is not None]
    assert shares and 0 < max(shares) <= 1 and shares == sorted(shares)
    assert seen[-1].finished and seen[-1].fraction == 1.0


def test_a_query_duckdb_cannot_measure_has_no_share_until_files_are_read() -> None:
    """DuckDB says -1 for a positional join with a keep-mask: no made-up 0%."""
    unknown = Progress(files_planned=56, bytes_planned=1 << 30, querying=True)
    assert unknown.fraction is None
    assert Progress(files_planned=4, files_done=1, querying=True).fraction == 0.25
    known = Progress(files_planned=4, files_done=1, query_fraction=0.6, querying=True)
    assert known.fraction == 0.6
    assert Progress(files_planned=4, files_done=3, query_fraction=0.1).fraction == 0.75
