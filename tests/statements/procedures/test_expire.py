"""expire_snapshots: which snapshots and refs expire (table defaults, arguments, each ref's
retention), Spark's output counts, and the files it deletes: only those no remaining snapshot
reaches, none when its commit is lost, and no failure when another expiry runs at once."""

from __future__ import annotations

import os
import time

import pytest
from crash_support import orphans
from maintenance_support import assert_every_reached_file_exists

import icesql
from icesql.catalog.base import CommitFailedError
from icesql.errors import CommitConflictError, ProgrammingError
from icesql.statements.procedures import expire

FUTURE = "TIMESTAMP '2100-01-01 00:00:00'"
PAST = "TIMESTAMP '2000-01-01 00:00:00'"
COLUMNS = [
    "deleted_data_files_count", "deleted_position_delete_files_count",
    "deleted_equality_delete_files_count", "deleted_manifest_files_count",
    "deleted_manifest_lists_count", "deleted_statistics_files_count",
]  # fmt: skip


def _md(con, name: str = "t"):
    return con.catalog.load_table(("db", name)).metadata


def _rows(con, ref: str = "", name: str = "t") -> list:
    suffix = f" VERSION AS OF '{ref}'" if ref else ""
    return sorted(con.execute(f"SELECT * FROM db.{name}{suffix}").fetchall())


def _on_disk(tmp_path) -> set[str]:
    return {os.path.join(r, f) for r, _, fs in os.walk(tmp_path) for f in fs}


def _expire(con, args: str) -> tuple:
    cur = con.execute(f"CALL system.expire_snapshots({args})")
    assert [d[0] for d in cur.description] == COLUMNS
    (row,) = cur.fetchall()
    return row


def test_by_default_nothing_younger_than_five_days_expires(con, history):
    version = con.catalog.current_version(("db", "t"))
    assert _expire(con, "'db.t'") == (0, 0, 0, 0, 0, 0)
    assert [s.snapshot_id for s in _md(con).snapshots] == history
    assert con.catalog.current_version(("db", "t")) == version  # nothing to commit, no version


def test_a_table_without_snapshots_has_nothing_to_expire(con):
    assert _expire(con, f"'db.t', {FUTURE}") == (0, 0, 0, 0, 0, 0)
    assert _rows(con) == []


def test_older_than_and_retain_last(con, history):
    assert _expire(con, f"'db.t', {FUTURE}, 2") == (0, 0, 0, 0, 1, 0)
    assert [s.snapshot_id for s in _md(con).snapshots] == history[1:]
    assert _expire(con, f"table => 'db.t', older_than => {FUTURE}") == (0, 0, 0, 0, 1, 0)
    assert [s.snapshot_id for s in _md(con).snapshots] == history[2:]
    assert _rows(con) == [(0,), (1,), (2,)]  # appends share their files with the head
    assert_every_reached_file_exists(con)


def test_files_only_expired_snapshots_reached_are_deleted(con, tmp_path):
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')")
    con.execute("INSERT INTO db.t VALUES (1), (2), (3)")
    con.execute("DELETE FROM db.t WHERE id = 2")  # a position delete file
    con.execute("INSERT OVERWRITE db.t SELECT id + 10 FROM db.t")  # removes data and deletes
    before = _on_disk(tmp_path)
    assert _expire(con, f"'db.t', {FUTURE}") == (1, 1, 0, 2, 2, 0)
    gone = before - _on_disk(tmp_path)
    assert len(gone) == 6
    assert sum(p.endswith(".parquet") for p in gone) == 2
    assert _rows(con) == [(11,), (13,)]
    assert_every_reached_file_exists(con)


def test_tags_and_branches_keep_their_snapshots_with_their_retention(con, history):
    con.execute(f"ALTER TABLE db.t CREATE TAG first AS OF VERSION {history[0]}")
    con.execute(
        f"ALTER TABLE db.t CREATE BRANCH b AS OF VERSION {history[1]} WITH SNAPSHOT RETENTION 2 SNAPSHOTS"
    )
    con.execute("INSERT INTO db.t.branch_b VALUES (10)")
    con.execute("INSERT INTO db.t.branch_b VALUES (11)")
    b_head = _md(con).refs["b"].snapshot_id
    b_parent = _md(con).snapshot_by_id(b_head).parent_snapshot_id
    _expire(con, f"'db.t', {FUTURE}")
    md = _md(con)
    assert {s.snapshot_id for s in md.snapshots} == {history[0], history[2], b_head, b_parent}
    assert set(md.refs) == {"main", "first", "b"}
    assert _rows(con, "first") == [(0,)]
    assert _rows(con, "b") == [(0,), (1,), (10,), (11,)]
    assert _rows(con) == [(0,), (1,), (2,)]
    assert_every_reached_file_exists(con)


def test_refs_older_than_their_max_age_are_removed_but_never_main(con, history):
    con.execute(f"ALTER TABLE db.t CREATE TAG old AS OF VERSION {history[0]}")
    con.execute(f"ALTER TABLE db.t CREATE BRANCH young AS OF VERSION {history[0]} RETAIN 30 DAYS")
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('history.expire.max-ref-age-ms' = '1')")
    time.sleep(0.01)
    _expire(con, f"'db.t', {PAST}")  # nothing is old enough by age
    md = _md(con)
    assert set(md.refs) == {"main", "young"}  # 'old' used the table's 1 ms
    assert [s.snapshot_id for s in md.snapshots] == history  # young's branch keeps history[0]


def test_table_properties_are_the_defaults(con, history):
    con.execute(
        "ALTER TABLE db.t SET TBLPROPERTIES ('history.expire.max-snapshot-age-ms' = '0',"
        " 'history.expire.min-snapshots-to-keep' = '2')"
    )
    time.sleep(0.01)
    _expire(con, "'db.t'")
    assert [s.snapshot_id for s in _md(con).snapshots] == history[1:]
    _expire(con, "table => 'db.t', retain_last => 1")  # arguments win over the properties
    assert [s.snapshot_id for s in _md(con).snapshots] == history[2:]


def test_snapshot_ids_expire_even_when_young(con, history):
    assert _expire(con, f"table => 'db.t', snapshot_ids => array({history[1]})") == (
        0,
        0,
        0,
        0,
        1,
        0,
    )
    md = _md(con)
    assert [s.snapshot_id for s in md.snapshots] == [history[0], history[2]]
    assert _rows(con) == [(0,), (1,), (2,)]
    con.execute(f"ALTER TABLE db.t CREATE TAG keep AS OF VERSION {history[0]}")
    with pytest.raises(
        ProgrammingError, match=rf"Cannot expire {history[0]}. Still referenced by refs: \[keep\]"
    ):
        _expire(con, f"table => 'db.t', snapshot_ids => array({history[0]})")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("table => 'db.t', retain_last => 0", "Number of snapshots to retain must be at least 1, cannot be: 0"),
        ("table => 'db.t', max_concurrent_deletes => 0", "max_concurrent_deletes should have value > 0, value: 0"),
        ("table => 'db.t', retain_last => 3000000000", "cannot cast LongType to IntegerType"),
        ("table => 'db.t', snapshot_ids => 1", r"cannot cast IntegerType to ArrayType\(LongType\)"),
        ("table => 'db.t', stream_results => 'yes'", "cannot cast StringType to BooleanType"),
    ],
)  # fmt: skip
def test_bad_arguments_are_refused(con, history, args, message):
    with pytest.raises(ProgrammingError, match=message):
        _expire(con, args)
    assert [s.snapshot_id for s in _md(con).snapshots] == history


def test_gc_disabled_refuses(con, history):
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('gc.enabled' = 'false')")
    with pytest.raises(ProgrammingError, match="Cannot expire snapshots: GC is disabled"):
        _expire(con, f"'db.t', {FUTURE}")


def test_options_that_only_steer_deleting_change_nothing_else(con, history, tmp_path):
    con.execute("INSERT OVERWRITE db.t VALUES (7)")
    row = _expire(
        con,
        f"table => 'db.t', older_than => {FUTURE}, max_concurrent_deletes => 3,"
        " stream_results => true",
    )
    assert row == (3, 0, 0, 3, 3, 0)
    assert _rows(con) == [(7,)]
    assert_every_reached_file_exists(con)


def test_clean_expired_metadata_drops_unused_specs_and_schemas(con, history):
    con.execute("ALTER TABLE db.t ADD COLUMN s STRING")
    con.execute("ALTER TABLE db.t ADD PARTITION FIELD bucket(2, id)")
    con.execute("INSERT INTO db.t VALUES (5, 'x')")
    md = _md(con)
    assert len(md.schemas) == 2 and len(md.specs_json) == 2
    _expire(con, f"'db.t', {FUTURE}")
    assert len(_md(con).schemas) == 2  # kept without clean_expired_metadata
    _expire(con, f"table => 'db.t', older_than => {FUTURE}, clean_expired_metadata => true")
    md = _md(con)
    assert [s.schema_id for s in md.schemas] == [md.current_schema_id]
    assert len(md.specs_json) == 2  # the head still reaches a manifest of the first spec
    con.execute("INSERT OVERWRITE db.t SELECT * FROM db.t")  # every file in the new spec
    # the overwrite's own manifest of the first spec records the removals; the next append
    # leaves it behind, as Java's does
    con.execute("INSERT INTO db.t VALUES (6, 'y')")
    _expire(con, f"table => 'db.t', older_than => {FUTURE}, clean_expired_metadata => true")
    md = _md(con)
    assert [s["spec-id"] for s in md.specs_json] == [md.default_spec_id]
    assert _rows(con) == [(0, None), (1, None), (2, None), (5, "x"), (6, "y")]


def test_a_lost_commit_deletes_nothing(con, history, tmp_path, monkeypatch):
    con.execute(
        "ALTER TABLE db.t SET TBLPROPERTIES ('commit.retry.num-retries' = '1',"
        " 'commit.retry.min-wait-ms' = '1')"
    )
    con.execute("INSERT OVERWRITE db.t VALUES (9)")
    before = _on_disk(tmp_path)

    def lose(*_args, **_kwargs):
        raise CommitFailedError("another commit won")

    monkeypatch.setattr(type(con.catalog), "commit_table", lose)
    with pytest.raises(CommitConflictError):
        _expire(con, f"'db.t', {FUTURE}")
    assert _on_disk(tmp_path) == before


def test_a_concurrent_commit_makes_it_plan_again(con, history, monkeypatch):
    planned = expire.plan_expiry
    calls = []

    def plan_then_commit(md, policy, io, fail):
        plan = planned(md, policy, io, fail)
        if not calls:
            con.execute(f"ALTER TABLE db.t CREATE TAG late AS OF VERSION {history[0]}")
            con.execute("INSERT INTO db.t VALUES (3)")
        calls.append(plan)
        return plan

    monkeypatch.setattr(expire, "plan_expiry", plan_then_commit)
    _expire(con, f"'db.t', {FUTURE}")
    assert len(calls) == 2
    md = _md(con)
    assert {s.snapshot_id for s in md.snapshots} == {history[0], md.current_snapshot_id}
    assert _rows(con, "late") == [(0,)]
    assert _rows(con) == [(0,), (1,), (2,), (3,)]
    assert_every_reached_file_exists(con)


@pytest.mark.parametrize("version", [2, 3])
def test_merge_on_read_delete_files_are_counted_as_position_deletes(con, version):
    con.execute(
        f"CREATE TABLE db.m (id BIGINT) USING iceberg TBLPROPERTIES ('format-version' = '{version}',"
        " 'write.delete.mode' = 'merge-on-read')"
    )
    con.execute("INSERT INTO db.m VALUES (1), (2), (3), (4)")
    con.execute("DELETE FROM db.m WHERE id = 1")
    con.execute("DELETE FROM db.m WHERE id = 2")  # v3: a new DV replaces the first
    row = _expire(con, f"'db.m', {FUTURE}")
    # v3: the second DV replaces the first; v2: the file-scoped position deletes of a data
    # file are merged into one on the next delete, as Spark (Iceberg 1.8+) does
    assert row[1] == 1
    assert _rows(con, name="m") == [(3,), (4,)]
    assert_every_reached_file_exists(con, "m")


def test_through_a_rest_catalog_the_removals_are_rest_updates(rest):
    """The server applies remove-snapshots, remove-snapshot-ref, remove-partition-specs and
    remove-schemas as icesql sent them."""
    import icesql

    con = icesql.connect(catalog="rest", uri=rest.uri, name="rest")
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1)")
    con.execute("ALTER TABLE db.t CREATE TAG gone")
    con.execute("ALTER TABLE db.t ADD COLUMN s STRING")
    con.execute("ALTER TABLE db.t ADD PARTITION FIELD s")
    con.execute("INSERT OVERWRITE db.t SELECT id, 'a' FROM db.t")
    con.execute("INSERT INTO db.t VALUES (2, 'b')")
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('history.expire.max-ref-age-ms' = '1')")
    con.execute("ALTER TABLE db.t CREATE BRANCH kept RETAIN 7 DAYS")
    time.sleep(0.01)
    (counts,) = con.execute(
        f"CALL system.expire_snapshots(table => 'db.t', older_than => {FUTURE},"
        " clean_expired_metadata => true)"
    ).fetchall()
    assert counts[0] == 1 and counts[4] == 2  # the first data file; two manifest lists
    fresh = icesql.connect(catalog="rest", uri=rest.uri, name="rest")
    md = fresh.catalog.load_table(("db", "t")).metadata
    assert set(md.refs) == {
        "main",
        "kept",
    }  # the tag outlived the table's 1 ms, not the branch its 7 days
    assert [s.schema_id for s in md.schemas] == [md.current_schema_id]
    assert [s["spec-id"] for s in md.specs_json] == [md.default_spec_id]
    assert sorted(fresh.execute("SELECT * FROM db.t").fetchall()) == [(1, "a"), (2, "b")]
    fresh.close()
    con.close()


def _between_commit_and_deletes(monkeypatch, action) -> list:
    """Run ``action()`` once, after the next expiry committed and before it deletes (where a
    concurrent expire_snapshots lands in the race); returns that expiry's deletion counts."""
    original = expire._delete_unreachable
    seen: list = []

    def delete_later(*args):
        if not seen:
            seen.append(None)
            action()
        counts = original(*args)
        seen.append(counts)
        return counts

    monkeypatch.setattr(expire, "_delete_unreachable", delete_later)
    return seen


@pytest.fixture
def overwritten(con, history, tmp_path) -> list[int]:
    """history plus an overwrite (rows: 9) that leaves the first three snapshots' files to
    expiry; all four snapshot ids, oldest first."""
    con.execute("INSERT OVERWRITE db.t VALUES (9)")
    return [*history, _md(con).current_snapshot_id]


def test_a_concurrent_expiry_of_a_kept_snapshot_is_no_failure(
    con, overwritten, tmp_path, monkeypatch
):
    """The first expiry keeps snapshots 2-4; a second one, between its commit and its
    deletes, expires 2 and 3 and deletes their files: the first reads the kept side again
    from the current version instead of failing on a manifest list that is gone."""
    other = icesql.connect(str(tmp_path))
    second = []
    seen = _between_commit_and_deletes(
        monkeypatch, lambda: second.append(_expire(other, f"'db.t', {FUTURE}, 1"))
    )
    first = _expire(con, f"'db.t', {FUTURE}, 3")
    assert second == [(3, 0, 0, 3, 2, 0)]  # the three appends' files, lists of 2 and 3
    assert seen[-1] == {**dict.fromkeys(seen[-1], 0), "Manifest List": 1, "Manifest": 1}
    assert first[4] == 1  # its own snapshot's manifest list
    assert [s.snapshot_id for s in _md(con).snapshots] == overwritten[3:]
    assert _rows(con) == [(9,)]
    assert_every_reached_file_exists(con)
    assert orphans(con, "db.t", dry_run=True) == set()  # between them, everything went
    other.close()


def test_an_expired_snapshots_file_already_deleted_is_nothing_left_to_delete(
    con, overwritten, tmp_path, monkeypatch
):
    """Another cleaner (Java's cleans against the table's refreshed version, so it may take
    this expiry's snapshots too) deleted an expired snapshot's manifest list and manifests
    first: what is left is deleted, no error."""
    md = _md(con)
    table = con.catalog.load_table(("db", "t"))
    first = md.snapshot_by_id(overwritten[0])
    gone = [
        first.manifest_list,
        *(
            m.manifest_path
            for m in expire.reachable.manifests(
                table.io, md, [overwritten[0], overwritten[1]]
            ).values()
        ),
    ]

    def other_cleaner():
        for path in gone:
            os.remove(path.removeprefix("file:"))

    listed_by_gone = {
        p
        for p, _ in expire.reachable.content_files(
            table.io,
            [m for m in expire.reachable.manifests(table.io, md, [overwritten[1]]).values()],
        )
    }
    _between_commit_and_deletes(monkeypatch, other_cleaner)
    # the one data file a manifest still there lists (the other two were listed only by the
    # manifests the other cleaner deleted, so they are its to delete, or remove_orphan_files');
    # all three manifests and lists, a file already gone counting as deleted (cleanup.py)
    assert _expire(con, f"'db.t', {FUTURE}") == (1, 0, 0, 3, 3, 0)
    assert _rows(con) == [(9,)]
    assert_every_reached_file_exists(con)
    assert orphans(con, "db.t", dry_run=True) == {p.removeprefix("file:") for p in listed_by_gone}


def test_a_concurrent_expiry_while_planning_makes_it_plan_again(
    con, overwritten, tmp_path, monkeypatch
):
    """clean_expired_metadata reads the kept snapshots' manifests while planning; a
    concurrent expiry that deleted one sends it to plan on the new version."""
    other = icesql.connect(str(tmp_path))
    planned = expire.plan_expiry
    calls = []

    def expire_first(md, policy, io, fail):
        calls.append(md)
        if len(calls) == 1:
            _expire(other, f"'db.t', {FUTURE}, 1")  # plans too: calls 2
        return planned(md, policy, io, fail)

    monkeypatch.setattr(expire, "plan_expiry", expire_first)
    row = _expire(
        con,
        f"table => 'db.t', older_than => {FUTURE}, retain_last => 3,"
        " clean_expired_metadata => true",
    )  # reads the manifests of 2-4
    # its stale plan, the other's, its plan on the new version: nothing left to expire
    assert len(calls) == 3 and row == (0, 0, 0, 0, 0, 0)
    assert calls[2] is not calls[0]
    assert [s.snapshot_id for s in _md(con).snapshots] == overwritten[3:]
    assert _rows(con) == [(9,)]
    other.close()
