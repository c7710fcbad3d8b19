"""Concurrent writers through the file-system catalog: no lost commits, a linear history,
and row-level changes validated against what landed meanwhile.

Four processes each run 25 INSERTs into one table at the same time. Every commit that
loses the race for ``v<N+1>.metadata.json`` re-reads the table and re-applies its append,
so all 100 commits land, each on top of the previous one. The table allows more retries
than the default (4) because four writers hammering one table lose races constantly; a
Spark user would raise ``commit.retry.num-retries`` the same way.

Then a deleting and an appending process race on one partition (bottom of the file).
"""

from __future__ import annotations

import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor

import pytest

import icesql
from icesql.errors import CommitConflictError
from icesql.write.validation import SERIALIZABLE, SNAPSHOT

pytestmark = pytest.mark.slow

WRITERS = 4
INSERTS = 25


def _writer(warehouse: str, worker: int) -> int:
    con = icesql.connect(warehouse)
    try:
        for i in range(INSERTS):
            con.execute("INSERT INTO db.t VALUES (?, ?, ?)", [worker, i, f"w{worker}-{i}"])
    finally:
        con.close()
    return worker


def test_four_processes_commit_100_appends(tmp_path):
    warehouse = str(tmp_path)
    con = icesql.connect(warehouse)
    con.execute(
        "CREATE TABLE db.t (worker INT, i INT, s STRING) USING iceberg PARTITIONED BY (worker)"
        " TBLPROPERTIES ('commit.retry.num-retries'='50', 'commit.retry.min-wait-ms'='5',"
        " 'commit.retry.max-wait-ms'='200',"
        # the 100th commit would merge the manifests (tests/write/test_manifest_merge.py) and
        # drop its own m0 manifest; this test counts one m0 manifest per append
        " 'commit.manifest.min-count-to-merge'='1000')"
    )
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(WRITERS) as pool:
        done = pool.starmap(_writer, [(warehouse, w) for w in range(WRITERS)])
    assert sorted(done) == list(range(WRITERS))

    table = con.catalog.load_table(("db", "t"))
    md = table.metadata
    total = WRITERS * INSERTS
    assert con.catalog.current_version(("db", "t"))[0] == 1 + total
    rows = con.execute("SELECT worker, i, s FROM db.t").fetchall()
    assert sorted(rows) == sorted(
        (w, i, f"w{w}-{i}") for w in range(WRITERS) for i in range(INSERTS)
    )

    # a linear history: every snapshot's parent is the one before it
    chain = list(md.ancestors_of(md.current_snapshot_id))
    assert len(chain) == len(md.snapshots) == total
    assert [s.sequence_number for s in reversed(chain)] == list(range(1, total + 1))
    assert [e.snapshot_id for e in md.snapshot_log] == [s.snapshot_id for s in reversed(chain)]
    assert md.current_snapshot().summary["total-records"] == str(total)
    # failed attempts left no manifest lists behind: one per snapshot
    names = os.listdir(tmp_path / "db" / "t" / "metadata")
    assert len([n for n in names if n.startswith("snap-")]) == total
    # each append wrote its manifest once and reused it on every retry
    assert len([n for n in names if n.endswith("-m0.avro")]) == total
    con.close()


# ---------------------------------------------------------------------------------------------
# A deleting and an appending process racing on one partition (issue #6): the deleter reads
# the table, the appender commits, then the deleter commits. Its first attempt loses the race
# for the next metadata version, so it is retried on the new table after conflict validation:
# serializable isolation must refuse it (the statement would have deleted the appended rows
# had it seen them); snapshot isolation lets it remove what it read and keeps the new rows.
# Appends to another partition never conflict. Every row stays accounted for: present at the
# end, or deleted by a delete that had read it.

R = ("db", "r")
ROUNDS = 12


class _Spy:
    """Wraps a connection's catalog to see what a statement reads and to hold its commit:
    ``read`` is the snapshot of the last table load before the first commit attempt (the
    one the statement's query read); with ``ready`` and ``go`` given, that first attempt
    waits for ``go`` after setting ``ready`` (the statement has read the table and written
    its files by then)."""

    def __init__(self, catalog):
        self.real_load, self.real_commit = catalog.load_table, catalog.commit_table
        catalog.load_table, catalog.commit_table = self.load_table, self.commit_table
        self.start()

    def start(self, ready=None, go=None) -> None:
        self.read, self.committing, self.ready, self.go = None, False, ready, go

    def load_table(self, identifier):
        table = self.real_load(identifier)
        if not self.committing:
            self.read = table.metadata.current_snapshot_id
        return table

    def commit_table(self, table, metadata):
        if not self.committing:
            self.committing = True
            if self.go is not None:
                self.ready.set()
                if not self.go.wait(120):
                    raise TimeoutError("the appending process never committed")
        return self.real_commit(table, metadata)


def _delete_partition(con, spy: _Spy, partition: str, ready=None, go=None):
    """``DELETE FROM db.r WHERE p = <partition> AND length(p) > 0`` under the table's
    ``write.delete.isolation-level``. The second term cannot become an Iceberg filter, so
    the delete goes row by row (copy-on-write): it removes the files it read, validated
    against the commits made since (with the pushed ``p = <partition>`` as conflict
    filter). A partition-only condition is a metadata-only delete, which removes whatever
    matches when it commits (``_delete_whole_partition``). Returns ``"committed"`` or the
    conflict message, the ids deleted, the snapshot read and the snapshot made."""
    spy.start(ready, go)
    try:
        con.execute("DELETE FROM db.r WHERE p = ? AND length(p) > 0", [partition])
    except CommitConflictError as e:
        return str(e), [], spy.read, None
    ids = [
        r[0]
        for r in con.execute(
            f"SELECT id FROM db.r VERSION AS OF {spy.read} WHERE p = ?", [partition]
        ).fetchall()
    ]
    ours = [s for s in con.catalog.load_table(R).metadata.snapshots if s.operation != "append"]
    return "committed", sorted(ids), spy.read, ours[-1].snapshot_id


def _delete_whole_partition(con, spy: _Spy, partition: str, ready=None, go=None):
    """``DELETE FROM db.r WHERE p = <partition>``: metadata only, as Spark's
    ``deleteWhere`` (Java's ``DeleteFiles.deleteFromRowFilter``): the partition's files are
    found on the table the commit lands on, with no validation at either isolation level.
    Returns ``"committed"`` and the rowcount."""
    spy.start(ready, go)
    return "committed", con.execute("DELETE FROM db.r WHERE p = ?", [partition]).rowcount


def _deleter(warehouse: str, readies, gos, metadata_only: bool = False) -> list[tuple[str, object]]:
    con = icesql.connect(warehouse)
    delete = _delete_whole_partition if metadata_only else _delete_partition
    try:
        spy = _Spy(con.catalog)
        return [delete(con, spy, "a", ready, go)[:2] for ready, go in zip(readies, gos)]
    finally:
        con.close()


def _appender(warehouse: str, partition: str, readies, gos, first_id: int) -> list[int]:
    con = icesql.connect(warehouse)
    try:
        appended = []
        for i, (ready, go) in enumerate(zip(readies, gos)):
            if not ready.wait(120):
                raise TimeoutError("the deleting process never got ready to commit")
            ids = [first_id + 2 * i, first_id + 2 * i + 1]
            con.execute(
                "INSERT INTO db.r VALUES (?, ?), (?, ?)", [ids[0], partition, ids[1], partition]
            )
            appended += ids
            go.set()
        return appended
    finally:
        con.close()


def _race(warehouse: str, partition: str, rounds: int, metadata_only: bool = False):
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager:
        readies = [manager.Event() for _ in range(rounds)]
        gos = [manager.Event() for _ in range(rounds)]
        with ProcessPoolExecutor(2, mp_context=ctx) as pool:
            deletes = pool.submit(_deleter, warehouse, readies, gos, metadata_only)
            appends = pool.submit(_appender, warehouse, partition, readies, gos, 1000)
            return deletes.result(timeout=600), appends.result(timeout=600)


def _race_table(tmp_path, isolation: str, retries: int = 4):
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.r (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)"
        " TBLPROPERTIES ('format-version'='2', 'commit.retry.min-wait-ms'='1',"
        f" 'commit.retry.num-retries'='{retries}', 'write.delete.isolation-level'='{isolation}')"
    )
    con.execute("INSERT INTO db.r VALUES (1, 'a'), (2, 'a'), (3, 'b')")
    return con


def _ids(con, partition=None):
    where = "" if partition is None else f" WHERE p = '{partition}'"
    return sorted(r[0] for r in con.execute(f"SELECT id FROM db.r{where}").fetchall())


@pytest.mark.parametrize("rounds", [1, ROUNDS], ids=["once", "repeated"])
def test_serializable_delete_fails_when_a_row_is_appended_to_its_partition(tmp_path, rounds):
    con = _race_table(tmp_path, SERIALIZABLE)
    outcomes, appended = _race(str(tmp_path), "a", rounds)
    for outcome, deleted in outcomes:
        assert isinstance(outcome, str) and deleted == []
        assert re.search(
            r"conflict with a concurrent commit: snapshot \d+ \(append\) added data file"
            r" .*\.parquet that may hold rows matching",
            outcome,
        ), outcome
    assert _ids(con, "a") == sorted([1, 2, *appended])  # the delete changed nothing
    assert _ids(con, "b") == [3]
    md = con.catalog.load_table(R).metadata
    assert [s.operation for s in md.snapshots] == ["append"] * (1 + rounds)
    con.close()


@pytest.mark.parametrize("rounds", [1, ROUNDS], ids=["once", "repeated"])
def test_snapshot_isolation_delete_keeps_rows_appended_meanwhile(tmp_path, rounds):
    con = _race_table(tmp_path, SNAPSHOT)
    outcomes, appended = _race(str(tmp_path), "a", rounds)
    assert [o for o, _ in outcomes] == ["committed"] * rounds
    # each delete removed exactly what it had read: the rows appended before its round
    assert outcomes[0][1] == [1, 2]
    for i in range(1, rounds):
        assert sorted(outcomes[i][1]) == appended[2 * (i - 1) : 2 * i]
    assert _ids(con, "a") == appended[-2:]  # the last round's rows survive its delete
    deleted = [i for _, ids in outcomes for i in ids]
    assert sorted(deleted + _ids(con, "a")) == sorted([1, 2, *appended])  # nothing lost
    assert _ids(con, "b") == [3]
    ops = [s.operation for s in con.catalog.load_table(R).metadata.snapshots]
    assert ops == ["append"] + ["append", "delete"] * rounds
    con.close()


@pytest.mark.parametrize("isolation", [SERIALIZABLE, SNAPSHOT])
def test_appends_to_another_partition_never_conflict(tmp_path, isolation):
    con = _race_table(tmp_path, isolation)
    outcomes, appended = _race(str(tmp_path), "b", ROUNDS)
    assert [o for o, _ in outcomes] == ["committed"] * ROUNDS
    assert outcomes[0][1] == [1, 2] and all(ids == [] for _, ids in outcomes[1:])
    assert _ids(con, "a") == []
    assert _ids(con, "b") == sorted([3, *appended])
    con.close()


@pytest.mark.parametrize("isolation", [SERIALIZABLE, SNAPSHOT])
def test_metadata_only_delete_removes_rows_appended_before_it_commits(tmp_path, isolation):
    """Spark's metadata-only DELETE commits Java's ``deleteFromRowFilter`` unvalidated: an
    append to the partition landing between the delete's planning and its commit is deleted
    too, at either isolation level (the outcome of running the DELETE after the append; the
    Spark twin is in tests/interop/test_dml_delete_update.py). Each round's rowcount is
    what its commit removed: the rows it planned on and the two appended meanwhile."""
    con = _race_table(tmp_path, isolation)
    outcomes, appended = _race(str(tmp_path), "a", ROUNDS, metadata_only=True)
    assert outcomes == [("committed", 4)] + [("committed", 2)] * (ROUNDS - 1)
    assert _ids(con, "a") == [] and len(appended) == 2 * ROUNDS
    assert _ids(con, "b") == [3]
    md = con.catalog.load_table(R).metadata
    assert [s.operation for s in md.snapshots] == ["append"] + ["append", "delete"] * ROUNDS
    for snapshot in md.snapshots[2::2]:  # each delete landed on the append of its round
        assert md.snapshot_by_id(snapshot.parent_snapshot_id).operation == "append"
    con.close()


def _free_deleter(warehouse: str, count: int):
    con = icesql.connect(warehouse)
    try:
        spy = _Spy(con.catalog)
        return [_delete_partition(con, spy, "a") for _ in range(count)]
    finally:
        con.close()


def _free_appender(warehouse: str, count: int) -> list[int]:
    con = icesql.connect(warehouse)
    try:
        for i in range(count):
            con.execute("INSERT INTO db.r VALUES (?, 'a')", [1000 + i])
        return [1000 + i for i in range(count)]
    finally:
        con.close()


@pytest.mark.parametrize("isolation", [SERIALIZABLE, SNAPSHOT])
def test_free_running_race_loses_no_row(tmp_path, isolation):
    """No ordering: whatever interleaving happens, every row is still there or was deleted by
    a delete that had read it, no row is deleted twice, and a serializable delete commits
    only if nothing was appended between its read and its commit."""
    con = _race_table(tmp_path, isolation, retries=50)
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=ctx) as pool:
        deletes = pool.submit(_free_deleter, str(tmp_path), 15)
        appends = pool.submit(_free_appender, str(tmp_path), 30)
        outcomes, appended = deletes.result(timeout=600), appends.result(timeout=600)
    deleted = [i for _, ids, _, _ in outcomes for i in ids]
    assert len(deleted) == len(set(deleted))
    assert sorted(deleted + _ids(con)) == sorted([1, 2, 3, *appended])
    md = con.catalog.load_table(R).metadata
    for outcome, ids, read, made in outcomes:
        if outcome != "committed":
            assert isolation == SERIALIZABLE and "added data file" in outcome, outcome
            continue
        parent = md.snapshot_by_id(made).parent_snapshot_id
        before, after = (
            {r[0] for r in con.execute(f"SELECT id FROM db.r VERSION AS OF {s}").fetchall()}
            for s in (parent, made)
        )
        assert sorted(before - after) == ids  # it deleted exactly the rows it had read
        if isolation == SERIALIZABLE:
            assert parent == read  # nothing landed between its read and its commit
    con.close()


def _overwriter(warehouse: str, mode: str, readies, gos) -> None:
    con = icesql.connect(warehouse)
    try:
        spy = _Spy(con.catalog)
        spy.start(readies[0], gos[0])
        con.execute(f"SET spark.sql.sources.partitionOverwriteMode = {mode}")
        con.execute(
            "INSERT OVERWRITE db.r PARTITION (p = 'a') SELECT id + 100 FROM db.r WHERE p = 'a'"
        )
    finally:
        con.close()


@pytest.mark.parametrize("mode", ["static", "dynamic"])
@pytest.mark.parametrize("partition", ["a", "b"])
def test_overwrite_replaces_what_the_partition_holds_when_it_commits(tmp_path, mode, partition):
    """As in Spark (which asks Iceberg for no validation on SQL INSERT OVERWRITE), the rows
    an INSERT OVERWRITE replaces are found on the table its commit lands on: an append to
    the replaced partition made after the overwrite read the table is replaced too (it was
    not read), an append to another partition stays."""
    con = _race_table(tmp_path, SERIALIZABLE)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager:
        readies, gos = [manager.Event()], [manager.Event()]
        with ProcessPoolExecutor(2, mp_context=ctx) as pool:
            overwrite = pool.submit(_overwriter, str(tmp_path), mode, readies, gos)
            appends = pool.submit(_appender, str(tmp_path), partition, readies, gos, 1000)
            overwrite.result(timeout=600)
            appended = appends.result(timeout=600)
    assert _ids(con, "a") == [101, 102]
    assert _ids(con, "b") == ([3, *appended] if partition == "b" else [3])
    con.close()
