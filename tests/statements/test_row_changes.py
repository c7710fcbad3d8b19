"""``statements.row_changes``: the target of a row-level statement (node checks, marking,
its query and scan), ``RowChanges`` collecting removed positions and new rows, and its one
commit as copy-on-write or merge-on-read, with abort on failure."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
import sqlglot
from sqlglot import exp

import icesql
from icesql.errors import CommitConflictError, InternalError, NotSupportedError
from icesql.session import DML_TARGET
from icesql.sql.dialect import DIALECT
from icesql.statements.row_changes import (
    COPY_ON_WRITE,
    MERGE_ON_READ,
    RowChanges,
    apply_changes,
    check_target_node,
    iter_batches,
    metadata_column,
    run_target_query,
    target_table_node,
)
from icesql.write.snapshot import SnapshotOperation

T = ("db", "t")


def _table(con, version: int = 2, **props: str):
    """db.t: ids 1-3 in one file, 4-5 in another."""
    properties = {"format-version": str(version), **props}
    tblprops = ", ".join(f"'{k}'='{v}'" for k, v in properties.items())
    con.execute(f"CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg TBLPROPERTIES ({tblprops})")
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    con.execute("INSERT INTO db.t VALUES (4, 'd'), (5, 'e')")
    return con.catalog.load_table(T)


def _node(sql: str) -> exp.Expr:
    return sqlglot.parse_one(f"SELECT * FROM {sql}", dialect=DIALECT).args["from_"].this


def _target_query(con, where: str = "", table_sql: str = "db.t"):
    """``SELECT _file, _pos FROM <target> [WHERE ...]``: its result and the target scan."""
    table = con.catalog.load_table(T)
    target, alias = target_table_node(_node(table_sql), table)
    select = exp.Select(
        expressions=[metadata_column(alias, "_file"), metadata_column(alias, "_pos")],
        from_=exp.From(this=target),
    )
    if where:
        select.set("where", exp.Where(this=sqlglot.parse_one(where, dialect=DIALECT)))
    return run_target_query(con.engine, select, ())


def _changes(con, command: str = "delete", where: str = "") -> tuple[RowChanges, list]:
    """A ``RowChanges`` over the target query, and the batches it read."""
    result, scan = _target_query(con, where)
    batches = list(iter_batches(result))
    return RowChanges(scan, command), batches


def _rows(con, columns: str = "id, s"):
    return con.execute(f"SELECT {columns} FROM db.t ORDER BY id").fetchall()


def _snapshot(con):
    return con.catalog.load_table(T).metadata.current_snapshot()


def _data_files(con) -> set[str]:
    return {r[0] for r in con.execute("SELECT file_path FROM db.t.data_files").fetchall()}


def _files_on_disk(con) -> set[str]:
    location = Path(con.catalog.load_table(T).metadata.location, "data")
    return {str(p) for p in location.rglob("*") if p.is_file()}


# -- the target node -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("(SELECT 1 AS id) AS q", "must be a table, not"),
        ("db.t VERSION AS OF 1", "time travel"),
        ("db.t TIMESTAMP AS OF '2020-01-01'", "time travel"),
    ],
)
def test_targets_other_than_a_plain_table_are_refused(sql, message) -> None:
    with pytest.raises(NotSupportedError, match=message):
        check_target_node(_node(sql))


@pytest.mark.parametrize(("sql", "alias"), [("db.t", "t"), ("db.t AS x", "x"), ("db.t y", "y")])
def test_target_table_node_marks_a_copy_and_names_its_alias(con, sql, alias) -> None:
    table = _table(con)
    node = _node(sql)
    target, got = target_table_node(node, table)
    assert got == alias and target.alias == alias
    assert target.meta.get(DML_TARGET) is True
    assert target is not node and not node.meta.get(DML_TARGET)  # the statement is untouched
    assert metadata_column(got, "_pos").sql(dialect=DIALECT) == f"{alias}._pos"


def test_a_data_column_named_like_a_metadata_column_is_refused(con) -> None:
    con.execute("CREATE TABLE db.t (id BIGINT, _POS INT, _row_id BIGINT) USING iceberg")
    table = con.catalog.load_table(T)
    with pytest.raises(NotSupportedError, match=r"_POS, _row_id hide the metadata columns"):
        target_table_node(_node("db.t"), table)


def test_run_target_query_returns_the_scan_of_the_marked_table(con) -> None:
    _table(con)
    result, scan = _target_query(con, "id IN (2, 5)")
    assert result.target is scan and scan.table.name.endswith("t")
    got = pa.Table.from_batches(list(iter_batches(result)))
    # id 2 is the second row of the first file, id 5 the second of the other
    assert got.column(1).to_pylist() == [1, 1]
    assert len(set(got.column(0).to_pylist())) == 2


def test_a_query_without_the_marked_target_is_an_internal_error(con) -> None:
    _table(con)
    select = sqlglot.parse_one("SELECT id FROM db.t", dialect=DIALECT)
    with pytest.raises(InternalError, match="does not read its target"):
        run_target_query(con.engine, select, ())


def test_iter_batches_skips_empty_batches_and_closes_the_result(con) -> None:
    _table(con)
    result, _ = _target_query(con, "id > 100")
    assert list(iter_batches(result)) == []
    assert result.reader is None or result.duck_cursor is None


def test_the_target_query_raises_the_scan_s_own_error(con) -> None:
    """DuckDB wraps an error raised inside a scan's stream; the scan's error comes out."""
    _table(con)
    gone = sorted(_data_files(con))[0]
    Path(gone).unlink()
    with pytest.raises(icesql.OperationalError, match="data file not found") as info:
        result, _ = _target_query(con, "s <> 'x'")  # reads column s: the file is opened
        list(iter_batches(result))
    assert gone in str(info.value)


# -- RowChanges ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("props", "command", "mode", "isolation"),
    [
        ({}, "delete", COPY_ON_WRITE, "serializable"),
        ({"write.delete.mode": "merge-on-read"}, "delete", MERGE_ON_READ, "serializable"),
        ({"write.delete.mode": "merge-on-read"}, "update", COPY_ON_WRITE, "serializable"),
        ({"write.merge.isolation-level": "Snapshot"}, "merge", COPY_ON_WRITE, "snapshot"),
    ],
)
def test_mode_and_isolation_come_from_the_command_s_properties(
    con, props, command, mode, isolation
) -> None:
    _table(con, **props)
    changes, _ = _changes(con, command)
    assert (changes.mode, changes.isolation) == (mode, isolation)


def test_a_bad_mode_property_is_refused_by_name(con) -> None:
    _table(con, **{"write.delete.mode": "in-place"})
    with pytest.raises(icesql.ProgrammingError, match="write.delete.mode"):
        _changes(con)


def test_remove_counts_distinct_positions_per_file(con) -> None:
    _table(con)
    changes, batches = _changes(con, where="id IN (1, 2, 4)")
    read = pa.Table.from_batches(batches)
    files, positions = read.column(0).combine_chunks(), read.column(1).combine_chunks()
    assert len(files) == 3
    changes.remove(files, positions)
    changes.remove(files, positions)  # the same rows again (a MERGE matching twice)
    changes.remove(pa.array([], pa.string()), pa.array([], pa.int64()))
    assert changes.removed_rows == 3
    changes.count(7)
    assert changes.affected_rows == 7


def test_removing_a_row_of_an_unplanned_file_is_an_internal_error(con) -> None:
    _table(con)
    changes, _ = _changes(con)
    with pytest.raises(InternalError, match="/elsewhere.parquet"):
        changes.remove(pa.array(["/elsewhere.parquet"]), pa.array([0], pa.int64()))


def _remove_where(con, where: str) -> RowChanges:
    changes, batches = _changes(con, where=where)
    for b in batches:
        changes.remove(b.column(0), b.column(1))
    return changes


def test_copy_on_write_rewrites_the_files_that_lost_rows(con) -> None:
    _table(con)
    before = _data_files(con)
    changes = _remove_where(con, "id = 2")
    changes.commit(con.catalog)
    assert _rows(con) == [(1, "a"), (3, "c"), (4, "d"), (5, "e")]
    after = _data_files(con)
    assert len(after) == 2 and len(before & after) == 1  # the untouched file stays
    snap = _snapshot(con)
    assert snap.summary["operation"] == "overwrite"
    assert snap.summary["deleted-data-files"] == "1" and snap.summary["added-data-files"] == "1"
    assert snap.summary["deleted-records"] == "3" and snap.summary["added-records"] == "2"


def test_copy_on_write_encodes_a_partition_s_rows_once_its_files_are_read(con, monkeypatch) -> None:
    """The files of a partition are rewritten one after another, so the rows kept of one
    partition go to the encoding threads when the next partition's file is read, not at
    the end: the writer holds no buffered row then."""
    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (bucket(3, id))"
    )
    con.execute("INSERT INTO db.t SELECT id, 'row ' || id FROM range(300) AS r(id)")
    buffered = []
    copy = RowChanges._copy_rows

    def copying(self, task, gone):
        buffered.append(0 if self._writer is None else self._writer._buffered)
        copy(self, task, gone)

    monkeypatch.setattr(RowChanges, "_copy_rows", copying)
    con.execute("DELETE FROM db.t WHERE id % 10 = 0")
    assert buffered == [0, 0, 0]  # without the flush: [0, > 0, > 0]
    assert con.execute("SELECT count(*), sum(id) FROM db.t").fetchone() == (270, 44850 - 4350)


def test_copy_on_write_reads_the_kept_rows_without_arrow_s_thread_pool(con, monkeypatch) -> None:
    """A rewrite through the scan (v3: the rows' lineage) decodes on the reading thread:
    both cores encode what it reads."""
    from icesql.scan.table_scan import TableScan

    _table(con, 3)
    threads = []
    init = TableScan.__init__

    def recording(self, *args, **kwargs):
        threads.append(kwargs.get("read_threads", True))
        init(self, *args, **kwargs)

    monkeypatch.setattr(TableScan, "__init__", recording)
    _remove_where(con, "id = 2").commit(con.catalog)
    assert threads[-1] is False
    assert _rows(con) == [(1, "a"), (3, "c"), (4, "d"), (5, "e")]


def test_copy_on_write_hands_the_writer_strings_still_dictionary_encoded(con, monkeypatch) -> None:
    """A file holding the table's columns as they are is copied as stored: its strings of
    few values reach the writer dictionary-encoded, and the rewritten file reads back the
    same rows with the same bounds as one written from plain strings."""
    from icesql.write.data_writer import DataWriter

    con.execute("CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg")
    con.execute("INSERT INTO db.t SELECT id, 'v' || (id % 3) FROM range(1000) AS r(id)")
    types = []
    write = DataWriter.write

    def recording(self, batch):
        types.append(batch.schema.field("s").type)
        write(self, batch)

    monkeypatch.setattr(DataWriter, "write", recording)
    con.execute("DELETE FROM db.t WHERE id % 10 = 0")
    assert types and all(pa.types.is_dictionary(t) for t in types)
    assert con.execute("SELECT count(*), sum(id), min(s), max(s) FROM db.t").fetchone() == (
        900,
        499500 - 49500,
        "v0",
        "v2",
    )
    from icesql.metadata.manifest import read_manifest
    from icesql.metadata.manifest_list import read_manifest_list

    table = con.catalog.load_table(T)
    snap = table.metadata.current_snapshot()
    (f,) = [
        e.data_file
        for m in read_manifest_list(table.io, snap.manifest_list, snap)
        for e in read_manifest(table.io, m)
        if e.status != 2 and m.content == 0
    ]
    assert f.record_count == 900
    assert f.lower_bounds[2] == b"v0" and f.upper_bounds[2] == b"v2"


def test_copy_on_write_of_a_whole_file_only_removes_it(con) -> None:
    _table(con)
    _remove_where(con, "id >= 4").commit(con.catalog)
    assert [r[0] for r in _rows(con)] == [1, 2, 3]
    assert _snapshot(con).summary["operation"] == "delete"
    assert len(_data_files(con)) == 1


@pytest.mark.parametrize(("version", "kind"), [(2, "PARQUET"), (3, "PUFFIN")])
def test_merge_on_read_writes_position_deletes_or_dvs(con, version, kind) -> None:
    _table(con, version, **{"write.delete.mode": "merge-on-read"})
    before = _data_files(con)
    _remove_where(con, "id IN (1, 3)").commit(con.catalog)
    assert [r[0] for r in _rows(con)] == [2, 4, 5]
    assert _data_files(con) == before  # no data file rewritten
    deletes = con.execute("SELECT file_format, record_count FROM db.t.delete_files").fetchall()
    assert deletes == [(kind, 2)]
    assert _snapshot(con).summary["operation"] == "delete"


def test_merge_on_read_v3_replaces_the_file_s_deletion_vector(con) -> None:
    _table(con, 3, **{"write.delete.mode": "merge-on-read"})
    _remove_where(con, "id = 1").commit(con.catalog)
    _remove_where(con, "id = 2").commit(con.catalog)
    assert [r[0] for r in _rows(con)] == [3, 4, 5]
    assert con.execute("SELECT record_count FROM db.t.delete_files").fetchall() == [(2,)]


def test_written_rows_are_added_in_the_same_commit(con) -> None:
    _table(con)
    changes = _remove_where(con, "id = 5")
    changes.write(pa.record_batch([pa.array([50], pa.int64()), pa.array(["E"])], names=["id", "s"]))
    changes.write(
        pa.record_batch([pa.array([], pa.int64()), pa.array([], pa.string())], names=["id", "s"])
    )
    changes.commit(con.catalog)
    assert _rows(con)[-2:] == [(4, "d"), (50, "E")]
    assert len(con.catalog.load_table(T).metadata.snapshots) == 3  # one commit


def test_v3_written_rows_keep_the_row_ids_they_are_given(con) -> None:
    _table(con, 3)
    before = dict(con.execute("SELECT id, _row_id FROM db.t").fetchall())
    changes, batches = _changes(con, "update", "id = 2")
    for b in batches:
        changes.remove(b.column(0), b.column(1))
    new = pa.record_batch([pa.array([20, 6], pa.int64()), pa.array(["B", "f"])], names=["id", "s"])
    changes.write(new, pa.array([before[2], None], pa.int64()))  # an update and an insert
    changes.commit(con.catalog)
    seq = _snapshot(con).sequence_number
    got = {
        r[0]: r[1:]
        for r in con.execute(
            "SELECT id, _row_id, _last_updated_sequence_number FROM db.t"
        ).fetchall()
    }
    assert got[20] == (before[2], seq)  # same lineage id, updated now
    assert got[6][0] not in before.values() and got[6][1] == seq
    assert got[1] == (before[1], 1)  # a copied row keeps its id and its sequence number


def test_nothing_changed_commits_the_empty_operation_or_nothing(con) -> None:
    _table(con)
    first = _snapshot(con).snapshot_id
    changes, _ = _changes(con, where="id > 100")
    changes.commit(con.catalog, None)
    assert _snapshot(con).snapshot_id == first
    changes.commit(con.catalog, SnapshotOperation.APPEND)
    snap = _snapshot(con)
    assert snap.snapshot_id != first and snap.parent_snapshot_id == first
    assert snap.summary["operation"] == "append"
    changes.commit(con.catalog)
    assert _snapshot(con).summary["operation"] == "overwrite"
    assert [r[0] for r in _rows(con)] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("isolation", "concurrent", "conflict"),
    [
        ("serializable", (1, "again"), True),  # may match the statement's id = 1
        ("serializable", (6, "f"), False),  # its metrics rule out id = 1
        ("snapshot", (1, "again"), False),  # snapshot isolation ignores new data files
    ],
)
def test_the_commit_is_validated_from_the_snapshot_read(con, isolation, concurrent, conflict):
    """A concurrent append matching the scan's filter conflicts under serializable; after a
    failed commit, ``abort`` deletes the rewritten file."""
    _table(con, **{"write.delete.isolation-level": isolation})
    changes = _remove_where(con, "id = 1")
    con.execute("INSERT INTO db.t VALUES (?, ?)", concurrent)  # lands between read and commit
    if not conflict:
        changes.commit(con.catalog)
        rows = _rows(con)
        assert (1, "a") not in rows and concurrent in rows and len(rows) == 5
        return
    with pytest.raises(CommitConflictError, match="added data file"):
        changes.commit(con.catalog)
    assert _files_on_disk(con) - _data_files(con)  # the rewrite of the file that held id 1
    changes.abort()
    assert _files_on_disk(con) == _data_files(con)
    assert [r[0] for r in _rows(con)] == [1, 1, 2, 3, 4, 5]


def test_apply_changes_commits_what_collect_says(con) -> None:
    _table(con)
    result, scan = _target_query(con, "id IN (1, 4)")

    def collect(changes: RowChanges, batch: pa.RecordBatch) -> None:
        changes.remove(batch.column(0), batch.column(1))
        changes.count(batch.num_rows)

    changes = apply_changes(con.catalog, result, scan, "delete", collect)
    assert changes.removed_rows == 2 and changes.affected_rows == 2
    assert [r[0] for r in _rows(con)] == [2, 3, 5]


def test_apply_changes_aborts_when_collect_fails(con) -> None:
    _table(con)
    first = _snapshot(con).snapshot_id
    result, scan = _target_query(con)

    def collect(changes: RowChanges, batch: pa.RecordBatch) -> None:
        changes.remove(batch.column(0), batch.column(1))
        raise ValueError("collect failed")

    with pytest.raises(ValueError, match="collect failed"):
        apply_changes(con.catalog, result, scan, "delete", collect)
    assert _snapshot(con).snapshot_id == first and result.duck_cursor is None


def test_apply_changes_aborts_when_the_commit_fails(con, tmp_path) -> None:
    """The files written before a failed commit are deleted; nothing is left behind."""
    _table(con)
    result, scan = _target_query(con, "id = 2")
    other = icesql.connect(str(tmp_path))

    def collect(changes: RowChanges, batch: pa.RecordBatch) -> None:
        changes.remove(batch.column(0), batch.column(1))
        changes.write(
            pa.record_batch([pa.array([20], pa.int64()), pa.array(["B"])], names=["id", "s"])
        )
        other.execute("INSERT INTO db.t VALUES (2, 'again')")  # lands before our commit

    with pytest.raises(CommitConflictError):
        apply_changes(con.catalog, result, scan, "update", collect)
    other.close()
    assert _files_on_disk(con) == _data_files(con)
    assert [r[0] for r in _rows(con)] == [1, 2, 2, 3, 4, 5]
