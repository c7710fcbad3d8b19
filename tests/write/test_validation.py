"""icesql.write.validation: may a row-level change that read snapshot S commit on a newer
base? ``Validation.check`` against commits really made to a table since S, per isolation
level; every conflict names the table, the conflicting snapshot and the file.

The last section runs the same checks through ``commit()`` (moved from test_commit.py): a
conflict there leaves the table as it was, a non-conflict is retried on the new base.
"""

from __future__ import annotations

import pytest
from deletes_support import deletion_vector
from table_support import largest_file_of, live_data_files

from icesql.errors import CommitConflictError
from icesql.expressions.tree import ALWAYS_TRUE, equal
from icesql.metadata.snapshots import SnapshotRef
from icesql.spec.content_file import EQUALITY_DELETES, POSITION_DELETES, DataFile
from icesql.write.commit import commit
from icesql.write.snapshot import Change
from icesql.write.validation import SERIALIZABLE, SNAPSHOT, Validation

T = ("db", "t")


def _table(con, version=2, partitioned=True):
    part = "PARTITIONED BY (p)" if partitioned else ""
    con.execute(
        f"CREATE TABLE db.t (id BIGINT, p STRING) USING iceberg {part}"
        f" TBLPROPERTIES ('format-version'='{version}', 'commit.retry.min-wait-ms'='1')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'a'), (3, 'b')")
    con.execute("INSERT INTO db.t VALUES (4, 'b'), (5, 'c')")
    return con.catalog.load_table(T)


def _delete_file(table, partition, content=POSITION_DELETES, name="del.parquet"):
    """A partition-scoped delete file (never read by validation, so not written)."""
    return DataFile(
        file_path=f"{table.metadata.location}/data/{name}",
        file_format="PARQUET",
        partition=partition,
        record_count=1,
        file_size_in_bytes=10,
        content=content,
        equality_ids=(1,) if content == EQUALITY_DELETES else None,
    )


def _ids(con):
    return sorted(r[0] for r in con.execute("SELECT id FROM db.t").fetchall())


def _now(con):
    return con.catalog.load_table(T)


def _check(con, validation, removed=(), branch="main"):
    table = _now(con)
    validation.check(table.metadata, table.io, "db.t", removed=removed, branch=branch)


def _conflict(con, validation, removed=(), branch="main"):
    with pytest.raises(CommitConflictError) as info:
        _check(con, validation, removed, branch)
    message = str(info.value)
    assert message.startswith("cannot commit to db.t: conflict with a concurrent commit: snapshot ")
    return message


# ---------------------------------------------------------------------------------------------
# Data files added since: a conflict only under serializable isolation, only for appends and
# overwrites, only where they may hold rows matching the condition


@pytest.mark.parametrize(
    ("condition", "isolation", "conflicts"),
    [
        (equal("p", "a"), SERIALIZABLE, True),  # the appended file is in partition a
        (ALWAYS_TRUE, SERIALIZABLE, True),
        (equal("id", 6), SERIALIZABLE, True),  # its id bounds [6, 6] hold 6
        (equal("p", "a"), SNAPSHOT, False),  # snapshot isolation ignores new data
        (equal("p", "b"), SERIALIZABLE, False),  # pruned by partition
        (equal("id", 100), SERIALIZABLE, False),  # pruned by the column bounds
    ],
)
def test_a_data_file_appended_since(con, condition, isolation, conflicts):
    table = _table(con)
    start = table.metadata.current_snapshot_id
    con.execute("INSERT INTO db.t VALUES (6, 'a')")
    appended = _now(con).metadata.current_snapshot()
    validation = Validation(start, condition, isolation)
    if not conflicts:
        _check(con, validation)
        return
    message = _conflict(con, validation)
    path = next(
        f.file_path
        for f in live_data_files(_now(con))
        if f.record_count == 1 and f.partition == ("a",)
    )
    assert f"snapshot {appended.snapshot_id} (append) added data file {path}" in message
    assert message.endswith(f"that may hold rows matching {condition}")


def test_data_added_by_a_replace_never_conflicts(con):
    """A compaction (``replace``) adds no rows: Java validates only appends and overwrites."""
    table = _table(con)
    start = table.metadata.current_snapshot_id
    moved = largest_file_of(table, "a")
    commit(con.catalog, table, Change(operation="replace", added_files=(moved,)))
    assert _now(con).metadata.current_snapshot().operation == "replace"
    _check(con, Validation(start, equal("p", "a")))


def test_data_added_by_an_overwrite_conflicts(con):
    table = _table(con)
    start = table.metadata.current_snapshot_id
    con.execute("INSERT OVERWRITE db.t PARTITION (p = 'b') VALUES (40)")
    made = _now(con).metadata.current_snapshot()
    assert made.operation == "overwrite"
    message = _conflict(con, Validation(start, equal("id", 40)))
    assert f"snapshot {made.snapshot_id} (overwrite) added data file" in message
    # it also removed partition b's files: a conflict at either level for a reader of them
    message = _conflict(con, Validation(start, equal("p", "b"), SNAPSHOT))
    assert f"snapshot {made.snapshot_id} (overwrite) removed data file" in message


# ---------------------------------------------------------------------------------------------
# Data files removed since: a conflict at both levels when the change read them


@pytest.mark.parametrize("isolation", [SERIALIZABLE, SNAPSHOT])
@pytest.mark.parametrize(
    ("condition", "referenced", "by_removal", "conflicts"),
    [
        (equal("p", "c"), False, False, True),  # the removed file matches the condition
        (equal("p", "a"), True, False, True),  # the change references it
        (equal("p", "a"), False, True, True),  # the change removes it itself
        (equal("p", "a"), False, False, False),  # unrelated
        (equal("id", 1), False, False, False),  # its bounds [5, 5] exclude id 1
    ],
)
def test_a_data_file_removed_since(con, isolation, condition, referenced, by_removal, conflicts):
    table = _table(con)
    start = table.metadata.current_snapshot_id
    target = largest_file_of(table, "c")
    commit(con.catalog, table, Change(operation="delete", removed_files=(target,)))
    made = _now(con).metadata.current_snapshot()
    validation = Validation(
        start,
        condition,
        isolation,
        referenced_data_files=frozenset({target.file_path}) if referenced else frozenset(),
    )
    removed = (target,) if by_removal else ()
    if not conflicts:
        _check(con, validation, removed)
        return
    message = _conflict(con, validation, removed)
    assert message.endswith(
        f"snapshot {made.snapshot_id} (delete) removed data file {target.file_path}"
        " that this statement read"
    )


# ---------------------------------------------------------------------------------------------
# Delete files added since: a conflict at both levels when they apply to what the change
# rewrites or deletes from


@pytest.mark.parametrize("isolation", [SERIALIZABLE, SNAPSHOT])
def test_a_deletion_vector_for_a_referenced_file_conflicts(con, isolation):
    table = _table(con, version=3, partitioned=False)
    start = table.metadata.current_snapshot_id
    target, other = sorted(live_data_files(table), key=lambda f: -f.record_count)
    theirs = deletion_vector(table, target, [1], name="theirs.puffin")
    commit(con.catalog, table, Change(operation="delete", added_files=(theirs,)))
    made = _now(con).metadata.current_snapshot()
    # referenced by the change, or a data file the change removes: a conflict
    for validation, removed in [
        (
            Validation(
                start,
                equal("id", 100),
                isolation,
                referenced_data_files=frozenset({target.file_path}),
            ),
            (),
        ),
        (Validation(start, equal("id", 100), isolation), (target,)),
    ]:
        message = _conflict(con, validation, removed)
        assert message.endswith(
            f"snapshot {made.snapshot_id} (delete) added delete file {theirs.file_path}"
            " for rows this statement changes"
        )
    # a DV for another file, with no condition reaching it: no conflict
    _check(con, Validation(start, equal("id", 100), isolation), (other,))
    _check(con, Validation(start, ALWAYS_TRUE, isolation))  # references nothing


@pytest.mark.parametrize(
    ("partition", "content", "removes", "conflicts"),
    [
        (("a",), POSITION_DELETES, "a", True),  # same partition as a removed data file
        (("b",), POSITION_DELETES, "a", False),  # another partition
        (("a",), EQUALITY_DELETES, "a", True),
        (("b",), EQUALITY_DELETES, "a", False),
        (("a",), POSITION_DELETES, None, False),  # the change removes no data file
    ],
)
def test_a_partition_scoped_delete_file_conflicts_with_removed_files_of_its_partition(
    con, partition, content, removes, conflicts
):
    table = _table(con)
    start = table.metadata.current_snapshot_id
    added = _delete_file(table, partition, content)
    commit(con.catalog, table, Change(operation="delete", added_files=(added,)))
    made = _now(con).metadata.current_snapshot()
    removed = (largest_file_of(table, removes),) if removes else ()
    validation = Validation(start, equal("id", 100))
    if not conflicts:
        _check(con, validation, removed)
        return
    message = _conflict(con, validation, removed)
    assert f"snapshot {made.snapshot_id} (delete) added delete file {added.file_path}" in message


def test_a_global_equality_delete_applies_to_every_removed_file(con):
    table = _table(con, partitioned=False)
    start = table.metadata.current_snapshot_id
    added = _delete_file(table, (), EQUALITY_DELETES)
    commit(con.catalog, table, Change(operation="delete", added_files=(added,)))
    message = _conflict(con, Validation(start, equal("id", 100)), (live_data_files(table)[0],))
    assert f"added delete file {added.file_path}" in message
    _check(con, Validation(start, equal("id", 100)))  # nothing removed: nothing to undo


def test_a_matching_delete_file_conflicts_for_a_change_that_references_files(con):
    """A merge-on-read change (it references the data files it deletes from) conflicts with
    any delete file added since that may match its condition."""
    table = _table(con)
    start = table.metadata.current_snapshot_id
    added = _delete_file(table, ("b",))
    commit(con.catalog, table, Change(operation="delete", added_files=(added,)))
    referenced = frozenset({largest_file_of(table, "a").file_path})
    message = _conflict(con, Validation(start, equal("p", "b"), referenced_data_files=referenced))
    assert f"added delete file {added.file_path}" in message
    _check(con, Validation(start, equal("p", "a"), referenced_data_files=referenced))


# ---------------------------------------------------------------------------------------------
# Which commits are checked: those since the snapshot read, on the change's branch


def test_no_commit_since_or_an_empty_table_passes(con):
    table = _table(con)
    _check(con, Validation(table.metadata.current_snapshot_id, ALWAYS_TRUE))
    con.execute("CREATE TABLE db.e (id BIGINT) USING iceberg")
    empty = con.catalog.load_table(("db", "e"))
    Validation(None).check(empty.metadata, empty.io, "db.e")


def test_a_statement_that_read_an_empty_table_is_checked_against_all_history(con):
    con.execute("CREATE TABLE db.t (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)")
    con.execute("INSERT INTO db.t VALUES (1, 'a')")
    first = _now(con).metadata.current_snapshot_id
    message = _conflict(con, Validation(None, equal("p", "a")))
    assert f"snapshot {first} (append) added data file" in message
    _check(con, Validation(None, equal("p", "z")))


def test_only_commits_after_the_snapshot_read_count(con):
    table = _table(con)
    first = table.metadata.snapshots[0].snapshot_id  # partition a's rows came in the first append
    _conflict(con, Validation(first, equal("p", "c")))  # the second added c
    _check(con, Validation(first, equal("p", "a")))


def test_a_read_snapshot_no_longer_in_the_history_is_a_conflict(con):
    table = _table(con)
    first, second = (s.snapshot_id for s in table.metadata.snapshots)
    md = (
        table.metadata.builder()
        .set_branch_snapshot("main", first)
        .build(previous_metadata_file=table.metadata_location)
    )
    con.catalog.commit_table(table, md)  # rolled back to the first snapshot
    with pytest.raises(CommitConflictError) as info:
        _check(con, Validation(second, ALWAYS_TRUE, SNAPSHOT))
    assert str(info.value) == (
        f"cannot commit to db.t: snapshot {second}, which this statement read, is no longer an"
        " ancestor of the current state (the table was rolled back or its history expired)"
    )


def test_a_branch_is_checked_against_its_own_history(con):
    table = _table(con)
    fork = table.metadata.current_snapshot_id
    md = (
        table.metadata.builder()
        .set_ref("b", SnapshotRef(fork, "branch"))
        .build(previous_metadata_file=table.metadata_location)
    )
    con.catalog.commit_table(table, md)
    con.execute("INSERT INTO db.t VALUES (6, 'a')")  # to main only
    validation = Validation(fork, equal("p", "a"))
    _check(con, validation, branch="b")
    _conflict(con, validation, branch="main")
    table = _now(con)
    extra = live_data_files(table)[0]
    commit(con.catalog, table, Change(operation="append", added_files=(extra,), branch="b"))
    on_b = _now(con).metadata.snapshot_for_ref("b")
    message = _conflict(con, Validation(fork, ALWAYS_TRUE), branch="b")
    assert f"snapshot {on_b.snapshot_id} (append) added data file" in message


def test_an_unknown_isolation_level_is_refused():
    with pytest.raises(ValueError, match="unknown isolation level 'read-committed'"):
        Validation(1, isolation="read-committed")
    assert Validation(1).isolation == SERIALIZABLE == "serializable"
    assert SNAPSHOT == "snapshot"


# ---------------------------------------------------------------------------------------------
# Through commit() (moved from tests/write/test_commit.py)


def test_serializable_delete_conflicts_with_a_matching_append(con):
    table = _table(con)
    start = table.metadata.current_snapshot().snapshot_id
    con.execute("INSERT INTO db.t VALUES (6, 'a')")  # lands between read and commit
    change = Change(
        operation="delete",
        removed_files=(largest_file_of(table, "a"),),
        validation=Validation(start, equal("p", "a")),
    )
    with pytest.raises(CommitConflictError, match="added data file .* may hold rows matching"):
        commit(con.catalog, table, change)
    assert _ids(con) == [1, 2, 3, 4, 5, 6]


def test_appends_elsewhere_or_under_snapshot_isolation_are_retried(con):
    table = _table(con)
    start = table.metadata.current_snapshot().snapshot_id
    con.execute("INSERT INTO db.t VALUES (7, 'z')")
    change = Change(
        operation="delete",
        removed_files=(largest_file_of(table, "a"),),
        validation=Validation(start, equal("p", "a")),
    )
    commit(con.catalog, table, change)
    assert _ids(con) == [3, 4, 5, 7]
    table = con.catalog.load_table(T)
    start = table.metadata.current_snapshot().snapshot_id
    con.execute("INSERT INTO db.t VALUES (8, 'b')")
    change = Change(
        operation="delete",
        removed_files=(largest_file_of(table, "b"),),
        validation=Validation(start, equal("p", "b"), isolation=SNAPSHOT),
    )
    commit(con.catalog, table, change)
    assert 8 in _ids(con)


def test_a_concurrent_dv_for_a_referenced_file_conflicts(con):
    table = _table(con, version=3, partitioned=False)
    start = table.metadata.current_snapshot().snapshot_id
    target = max(live_data_files(table), key=lambda f: f.record_count)
    theirs = deletion_vector(table, target, [1], name="theirs.puffin")
    commit(con.catalog, table, Change(operation="delete", added_files=(theirs,)))
    ours = deletion_vector(table, target, [0], name="ours.puffin")
    change = Change(
        operation="delete",
        added_files=(ours,),
        validation=Validation(
            start,
            equal("id", 1),
            isolation=SNAPSHOT,
            referenced_data_files=frozenset({target.file_path}),
        ),
    )
    with pytest.raises(CommitConflictError, match="added delete file"):
        commit(con.catalog, table, change)
    assert _ids(con) == [1, 3, 4, 5]


def test_a_referenced_file_removed_concurrently_conflicts(con):
    table = _table(con)
    start = table.metadata.current_snapshot().snapshot_id
    target = largest_file_of(table, "c")
    commit(con.catalog, table, Change(operation="delete", removed_files=(target,)))
    ours = deletion_vector(table, target, [0], name="dv.puffin")
    change = Change(
        operation="delete",
        added_files=(ours,),
        validation=Validation(
            start, equal("id", 5), referenced_data_files=frozenset({target.file_path})
        ),
    )
    with pytest.raises(CommitConflictError, match="removed data file"):
        commit(con.catalog, table, change)
