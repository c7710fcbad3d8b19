"""DELETE: metadata-only file removal, copy-on-write and merge-on-read, NULL semantics,
subqueries, conflicts, and clean failures. Spark's answers for the same scripts are checked in
``tests/interop/test_dml_delete_update.py``."""

from __future__ import annotations

import os

import pytest
from sqlglot import exp
from table_support import append_before_commit, last_snapshot, metadata_version, table_files

import icesql
from icesql.errors import CommitConflictError
from icesql.scan.planner import plan_files
from icesql.spec.content_file import DATA
from icesql.statements.row_changes import (
    RowChanges,
    iter_batches,
    run_target_query,
    target_table_node,
)

T = ("db", "t")
MODES = [(v, m) for v in (2, 3) for m in ("copy-on-write", "merge-on-read")]


def _create(con, version: int, mode: str, partitioned: bool = True) -> None:
    part = "PARTITIONED BY (p)" if partitioned else ""
    con.execute(
        f"CREATE TABLE db.t (id INT, p STRING, x DOUBLE) USING iceberg {part}"
        f" TBLPROPERTIES ('format-version'='{version}', 'write.delete.mode'='{mode}')"
    )
    con.execute(
        "INSERT INTO db.t VALUES (1,'a',1.0),(2,'a',NULL),(3,'b',3.0),(4,'b',4.0),(5,'a',5.0),"
        "(6,NULL,6.0)"
    )


def _ids(con) -> list[int]:
    return [r[0] for r in con.execute("SELECT id FROM db.t ORDER BY id").fetchall()]


def _last(con) -> tuple[str, dict]:
    return last_snapshot(con, "db.t")


def _version(con) -> int:
    return metadata_version(con, T)


def _files(con) -> set[str]:
    return table_files(con, T)


def _data_files(con):
    table = con.catalog.load_table(T)
    return [
        t.data_file for t in plan_files(table.metadata, table.metadata.current_snapshot(), table.io)
    ]


@pytest.mark.parametrize("version, mode", MODES)
def test_row_level_delete_by_mode(con, version, mode):
    _create(con, version, mode)
    assert con.execute("DELETE FROM db.t WHERE id = 1").rowcount == 1
    assert _ids(con) == [2, 3, 4, 5, 6]
    op, summary = _last(con)
    if mode == "copy-on-write":
        assert op == "overwrite" and summary["deleted-data-files"] == "1"
        assert summary["added-records"] == "2" and "added-delete-files" not in summary
    else:
        assert op == "delete" and summary["added-delete-files"] == "1"
        assert summary["added-position-deletes"] == "1"
        assert summary.get("added-dvs") == ("1" if version >= 3 else None)
    # rows of a file that already has deletes
    assert con.execute("DELETE FROM db.t WHERE id IN (2, 5)").rowcount == 2
    assert _ids(con) == [3, 4, 6]
    op, summary = _last(con)
    if mode == "merge-on-read":
        assert summary["removed-delete-files"] == "1" and summary["total-position-deletes"] == "3"
        kinds = con.execute("SELECT file_format, record_count FROM db.t.delete_files").fetchall()
        assert kinds == [("PUFFIN" if version >= 3 else "PARQUET", 3)]


def test_copy_on_write_over_earlier_deletes_removes_the_dv(con):
    _create(con, 3, "merge-on-read")
    con.execute("DELETE FROM db.t WHERE id = 1")
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('write.delete.mode'='copy-on-write')")
    assert con.execute("DELETE FROM db.t WHERE id + 0 = 2").rowcount == 1
    assert _ids(con) == [3, 4, 5, 6]
    _, summary = _last(con)
    assert summary["removed-dvs"] == "1" and summary["total-delete-files"] == "0"
    assert summary["added-records"] == "1"  # only id 5 was copied


@pytest.mark.parametrize("version, mode", MODES)
def test_whole_partitions_are_deleted_without_reading_data(con, version, mode):
    _create(con, version, mode)
    con.execute("DELETE FROM db.t WHERE id = 3")  # a delete file in partition b
    for f in _data_files(con):
        if f.partition == ("b",):
            os.remove(f.file_path)  # unreadable: only metadata may be used
    assert con.execute("DELETE FROM db.t WHERE p = 'b'").rowcount == 1
    assert _ids(con) == [1, 2, 5, 6]
    op, summary = _last(con)
    assert op == "delete" and summary["deleted-data-files"] == "1"
    assert "added-data-files" not in summary and "added-delete-files" not in summary
    if mode == "merge-on-read":  # the partition's delete file (DV) went with it
        assert summary["removed-delete-files"] == "1" and summary["total-delete-files"] == "0"


def test_files_proven_by_metrics_are_removed_whole(con):
    _create(con, 2, "copy-on-write", partitioned=False)
    con.execute("INSERT INTO db.t VALUES (10,'c',1.0),(11,'c',2.0)")
    second = next(f for f in _data_files(con) if f.record_count == 2)
    os.remove(second.file_path)
    assert con.execute("DELETE FROM db.t WHERE id >= 10").rowcount == 2
    op, summary = _last(con)
    assert (
        op == "delete"
        and summary["deleted-data-files"] == "1"
        and summary["deleted-records"] == "2"
    )
    assert _ids(con) == [1, 2, 3, 4, 5, 6]


def test_delete_without_where_removes_every_file(con):
    _create(con, 3, "merge-on-read")
    con.execute("DELETE FROM db.t WHERE id = 1")
    assert con.execute("DELETE FROM db.t").rowcount == 5
    assert _ids(con) == []
    op, summary = _last(con)
    assert (
        op == "delete"
        and summary["total-data-files"] == "0"
        and summary["total-delete-files"] == "0"
    )


def test_deleting_nothing_commits_like_spark(con):
    _create(con, 2, "copy-on-write")
    before = _version(con)
    assert con.execute("DELETE FROM db.t WHERE id = 99").rowcount == 0
    assert _last(con)[0] == "delete"  # metadata path: an empty delete snapshot
    assert con.execute("DELETE FROM db.t WHERE id + 1 = 99").rowcount == 0
    assert _last(con)[0] == "overwrite"  # row-level path, nothing changed
    assert _version(con) == before + 2 and _ids(con) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("version, mode", MODES)
def test_null_conditions_delete_only_true_rows(con, version, mode):
    _create(con, version, mode)
    assert con.execute("DELETE FROM db.t WHERE x = NULL").rowcount == 0
    assert con.execute("DELETE FROM db.t WHERE NOT (x > 3)").rowcount == 2  # not id 2 (NULL)
    assert con.execute("DELETE FROM db.t WHERE p <> 'a'").rowcount == 1  # not id 6 (NULL p)
    assert _ids(con) == [2, 5, 6]
    assert con.execute("DELETE FROM db.t WHERE p IS NULL OR x IS NULL").rowcount == 2
    assert _ids(con) == [5]


def test_subquery_conditions(con):
    _create(con, 3, "merge-on-read")
    con.execute("CREATE TABLE db.u (id INT) USING iceberg")
    con.execute("INSERT INTO db.u VALUES (2), (4), (NULL)")
    assert con.execute("DELETE FROM db.t WHERE id IN (SELECT id FROM db.u)").rowcount == 2
    assert (
        con.execute(
            "DELETE FROM db.t AS a WHERE EXISTS (SELECT 1 FROM db.u AS u WHERE u.id + 1 = a.id)"
        ).rowcount
        == 2
    )  # ids 3 and 5
    assert con.execute("DELETE FROM db.t WHERE id NOT IN (SELECT id FROM db.u)").rowcount == 0
    assert (
        con.execute(
            "DELETE FROM db.t WHERE id = (SELECT max(id) FROM db.t)"  # the target in a subquery
        ).rowcount
        == 1
    )
    assert _ids(con) == [1]


@pytest.mark.parametrize(
    "sql, error, pattern",
    [
        (
            "DELETE FROM db.missing WHERE id = 1",
            icesql.ProgrammingError,
            "table not found: db.missing",
        ),
        ("DELETE FROM db.t WHERE nope = 1", icesql.ProgrammingError, "nope"),
        (
            "DELETE FROM db.t.branch_b WHERE id = 1",
            icesql.ProgrammingError,
            r"branch \(does not exist\): b",
        ),
        ("DELETE FROM db.t VERSION AS OF 1 WHERE id = 1", icesql.NotSupportedError, "time travel"),
    ],
)
def test_bad_deletes_change_nothing(con, sql, error, pattern):
    _create(con, 2, "merge-on-read")
    before, files = _version(con), _files(con)
    with pytest.raises(error, match=pattern):
        con.execute(sql)
    assert _version(con) == before and _files(con) == files


def test_an_unreadable_data_file_fails_the_statement(con):
    _create(con, 3, "copy-on-write")
    con.execute("INSERT INTO db.t VALUES (7, 'b', 7.0)")
    os.remove(next(f.file_path for f in _data_files(con) if f.record_count == 1))
    before, files = _version(con), _files(con)
    with pytest.raises(icesql.OperationalError, match="data file not found"):
        con.execute("DELETE FROM db.t WHERE id + 0 > 2")
    assert _version(con) == before and _files(con) == files


@pytest.mark.parametrize("version, mode", MODES)
def test_a_failed_commit_leaves_no_files(con, monkeypatch, version, mode):
    _create(con, version, mode)
    before, files = _version(con), _files(con)

    def fail(*args, **kwargs):
        raise CommitConflictError("simulated")

    monkeypatch.setattr("icesql.statements.row_changes.commit", fail)
    with pytest.raises(CommitConflictError):
        con.execute("DELETE FROM db.t WHERE id + 0 = 1")
    assert _version(con) == before and _files(con) == files


@pytest.mark.parametrize("isolation, conflicts", [("serializable", True), ("snapshot", False)])
def test_a_concurrent_append_to_the_deleted_partition(con, tmp_path, isolation, conflicts):
    """The machinery used directly: read, let another writer append, then commit."""
    _create(con, 3, "merge-on-read")
    con.execute(
        f"ALTER TABLE db.t SET TBLPROPERTIES ('write.delete.isolation-level'='{isolation}')"
    )
    engine = con.engine
    table = con.catalog.load_table(T)
    node = exp.to_table("db.t")
    target, alias = target_table_node(node, table)
    select = exp.select(f"{alias}._file", f"{alias}._pos").from_(target).where(f"{alias}.p = 'a'")
    result, scan = run_target_query(engine, select, ())
    changes = RowChanges(scan, "delete")
    for batch in iter_batches(result):
        changes.remove(batch.column(0), batch.column(1))
    other = icesql.connect(str(tmp_path))
    other.execute("INSERT INTO db.t VALUES (7, 'a', 7.0)")
    other.close()
    if conflicts:
        files = _files(con)
        with pytest.raises(CommitConflictError, match="added data file"):
            changes.commit(engine.catalog)
        changes.abort()
        assert _files(con) == files
        assert _ids(con) == [1, 2, 3, 4, 5, 6, 7]
    else:
        changes.commit(engine.catalog)
        assert _ids(con) == [3, 4, 6, 7]


def test_data_files_keep_only_data(con):
    _create(con, 2, "copy-on-write")
    con.execute("DELETE FROM db.t WHERE x < 2")
    assert all(f.content == DATA for f in _data_files(con))


@pytest.mark.parametrize("isolation", ["serializable", "snapshot"])
@pytest.mark.parametrize(
    "condition, appended, left, count",
    [
        ("p = 'a'", "(7,'a',7.0), (8,'a',8.0)", [3, 4, 6], 5),  # appended rows match: deleted
        ("p = 'a'", "(7,'b',7.0)", [3, 4, 6, 7], 3),  # another partition: kept
        ("id < 100", "(7,'a',7.0), (8,'c',8.0)", [], 8),  # all rows match by metrics
        ("id < 100", "(1000,'a',1.0)", [1000], 6),  # no row matches: kept
    ],
    ids=["same-partition", "other-partition", "metrics-match", "metrics-miss"],
)
def test_metadata_only_delete_removes_what_matches_when_it_commits(
    con, monkeypatch, tmp_path, isolation, condition, appended, left, count
):
    """Spark's metadata-only DELETE is Java's ``deleteFromRowFilter``: the files are found on
    the table the commit lands on, unvalidated, at either isolation level (the Spark twin is
    in tests/interop/test_dml_delete_update.py). rowcount counts what was removed."""
    _create(con, 2, "merge-on-read")
    con.execute(
        f"ALTER TABLE db.t SET TBLPROPERTIES ('write.delete.isolation-level'='{isolation}')"
    )
    append_before_commit(con, monkeypatch, str(tmp_path), f"INSERT INTO db.t VALUES {appended}", T)
    assert con.execute(f"DELETE FROM db.t WHERE {condition}").rowcount == count
    assert _ids(con) == left
    op, summary = _last(con)
    assert op == "delete" and summary["deleted-records"] == str(count)
    md = con.catalog.load_table(T).metadata
    ours = md.current_snapshot()
    assert md.snapshot_by_id(ours.parent_snapshot_id).operation == "append"  # landed after it


@pytest.mark.parametrize("isolation", ["serializable", "snapshot"])
def test_metadata_only_delete_fails_on_a_concurrent_file_it_would_split(
    con, monkeypatch, tmp_path, isolation
):
    """A file appended meanwhile holding matching and other rows can be neither kept nor
    removed (Java: ValidationException): the statement fails and changes nothing."""
    _create(con, 3, "merge-on-read")
    con.execute(
        f"ALTER TABLE db.t SET TBLPROPERTIES ('write.delete.isolation-level'='{isolation}')"
    )
    seen = append_before_commit(
        con, monkeypatch, str(tmp_path), "INSERT INTO db.t VALUES (50,'a',1.0), (500,'a',2.0)", T
    )
    version, files = _version(con), _files(con)
    with pytest.raises(
        CommitConflictError,
        match=r"concurrent commit added data file .*\.parquet, which holds"
        r" rows matching .* and rows that may not",
    ):
        con.execute("DELETE FROM db.t WHERE id < 100")
    assert _version(con) == version + 1 and _last(con)[0] == "append"  # the append's version only
    assert _files(con) == files | seen[0]  # nothing of the DELETE left behind
    assert _ids(con) == [1, 2, 3, 4, 5, 6, 50, 500]
