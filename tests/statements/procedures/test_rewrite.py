"""CALL system.rewrite_data_files: which files Java's bin-pack planner picks, that the rows stay
the same with deletes applied and gone, the replace commit at the starting sequence number,
the conflict rules of RewriteFiles, and the errors for bad or unsupported arguments."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from table_support import append_before_commit

import icesql
from icesql.errors import CommitConflictError, NotSupportedError, ProgrammingError
from icesql.metadata.manifest import read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.scan.delete_index import is_deletion_vector
from icesql.spec.manifest_file import CONTENT_DATA

T = ("db", "r")
MODES = [(2, "merge-on-read"), (3, "merge-on-read"), (2, "copy-on-write"), (3, "copy-on-write")]


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    yield connection
    connection.close()


def _create(con, version=2, mode="merge-on-read", inserts=6):
    con.execute(
        "CREATE TABLE db.r (id BIGINT, p INT, s STRING) USING iceberg PARTITIONED BY (p)"
        f" TBLPROPERTIES ('format-version'='{version}', 'write.delete.mode'='{mode}',"
        f" 'write.update.mode'='{mode}')"
    )
    for i in range(inserts):
        con.execute(f"INSERT INTO db.r VALUES ({i}, {i % 2}, 's{i}'), ({i + 100}, {i % 2}, 't{i}')")


def _rows(con):
    return sorted(con.execute("SELECT * FROM db.r").fetchall())


def _call(con, args="'db.r'"):
    return con.execute(f"CALL system.rewrite_data_files({args})").fetchall()


def _live(con):
    t = con.catalog.load_table(T)
    s = t.metadata.current_snapshot()
    out = []
    for m in read_manifest_list(t.io, s.manifest_list, s):
        for e in read_manifest(t.io, m):
            if e.is_live:
                out.append((m.content, e))
    return t, s, out


@pytest.mark.parametrize("version, mode", MODES)
def test_rewrite_applies_deletes_and_keeps_rows(con, version, mode):
    _create(con, version, mode)
    con.execute("DELETE FROM db.r WHERE id IN (1, 102)")
    con.execute("UPDATE db.r SET s = 'u' WHERE id = 4")
    before = _rows(con)
    lineage = (
        sorted(con.execute("SELECT id, _row_id FROM db.r").fetchall()) if version >= 3 else None
    )
    start = con.catalog.load_table(T).metadata.current_snapshot()
    t0, _, files0 = _live(con)
    data0 = [e for c, e in files0 if c == CONTENT_DATA]
    deletes0 = [e for c, e in files0 if c != CONTENT_DATA]
    [row] = _call(con, "table => 'db.r', options => map('min-input-files', '2')")
    rewritten, added, nbytes, failed, removed_deletes = row
    assert (rewritten, added, failed) == (len(data0), 2, 0)
    assert nbytes == sum(e.data_file.file_size_in_bytes for e in data0)
    # Java removes the deletion vectors of rewritten files; Parquet position deletes stay
    dvs0 = [e for e in deletes0 if is_deletion_vector(e.data_file)]
    assert removed_deletes == len(dvs0) == (len(deletes0) if version >= 3 else 0)
    assert _rows(con) == before
    if lineage is not None:
        assert sorted(con.execute("SELECT id, _row_id FROM db.r").fetchall()) == lineage
    t, snap, files = _live(con)
    assert snap.summary["operation"] == "replace"
    assert len([e for c, e in files if c == CONTENT_DATA]) == 2
    # dangling: the position deletes as new as the rewritten data (older ones age out in the
    # commit, as Java's manifest filter drops them)
    left = {e.data_file.file_path for c, e in files if c != CONTENT_DATA}
    kept = [e for e in deletes0 if e not in dvs0 and e.sequence_number >= start.sequence_number]
    assert left == {e.data_file.file_path for e in kept}
    assert bool(kept) == (version == 2 and mode == "merge-on-read")
    # the new files keep the sequence number of the snapshot the rewrite read
    new = [e for c, e in files if c == CONTENT_DATA]
    assert {e.sequence_number for e in new} == {start.sequence_number}
    assert {e.file_sequence_number for e in new} == {snap.sequence_number}


def test_bin_pack_selection_follows_java(con):
    _create(con, inserts=4)  # two partitions, two small files each
    # fewer than min-input-files (5) per partition and less than the target: nothing to do
    assert _call(con) == [(0, 0, 0, 0, 0)]
    assert _call(con, "table => 'db.r', options => map('min-input-files', '3')") == [
        (0, 0, 0, 0, 0)
    ]
    # more bytes than the target in a group of several files
    [row] = _call(con, "table => 'db.r', options => map('target-file-size-bytes', '1000')")
    assert row[:2] == (4, 2)
    # one file per partition now: a single file is never rewritten unless rewrite-all
    assert _call(con, "table => 'db.r', options => map('min-input-files', '1')") == [
        (0, 0, 0, 0, 0)
    ]
    assert _call(con, "table => 'db.r', options => map('rewrite-all', 'true')")[0][:2] == (2, 2)


def test_where_limits_the_files(con):
    _create(con)
    [row] = _call(
        con, "table => 'db.r', where => 'p = 1 and id > 0', options => map('min-input-files', '2')"
    )
    assert row[:2] == (3, 1)
    files = con.execute(
        "SELECT partition.p, count(*) FROM db.r.files GROUP BY 1 ORDER BY 1"
    ).fetchall()
    assert files == [(0, 3), (1, 1)]


def test_delete_file_threshold_selects_a_lone_file(con):
    _create(con, mode="merge-on-read", inserts=1)
    con.execute("DELETE FROM db.r WHERE id = 0")
    small = "'min-file-size-bytes', '0', 'delete-ratio-threshold', '1'"
    assert _call(con, f"table => 'db.r', options => map({small})") == [(0, 0, 0, 0, 0)]
    # one delete file reaches the threshold; a delete of half its rows reaches the ratio
    [row] = _call(con, f"table => 'db.r', options => map({small}, 'delete-file-threshold', '1')")
    assert row[:2] == (1, 1) and row[4] == 0  # the position delete file stays, dangling
    assert _rows(con) == [(100, 0, "t0")]
    con.execute("INSERT INTO db.r VALUES (5, 0, 'x'), (6, 0, 'y')")
    con.execute("DELETE FROM db.r WHERE id = 5")
    [row] = _call(con, "table => 'db.r', options => map('min-file-size-bytes', '0')")
    assert row[:2] == (1, 1)  # the new file: half its rows deleted (ratio 0.3 by default)


def test_sort_strategy_writes_sorted_files(con):
    _create(con)
    _call(con, "'db.r', 'sort', 'id DESC NULLS LAST', map('rewrite-all', 'true')")
    for path, order_id in con.execute("SELECT file_path, sort_order_id FROM db.r.files").fetchall():
        assert order_id == 0  # not one of the table's sort orders
        ids = pq.ParquetFile(path).read(columns=["id"]).column("id").to_pylist()  # no hive columns
        assert ids == sorted(ids, reverse=True)
    con.execute("ALTER TABLE db.r WRITE ORDERED BY id")
    _call(con, "table => 'db.r', strategy => 'sort', options => map('rewrite-all', 'true')")
    orders = {r[0] for r in con.execute("SELECT sort_order_id FROM db.r.files").fetchall()}
    assert orders == {con.catalog.load_table(T).metadata.default_sort_order_id}


def test_concurrent_delete_of_a_rewritten_file_fails_the_commit(con, monkeypatch, tmp_path):
    _create(con, mode="merge-on-read")
    before_version = con.catalog.load_table(T).metadata.current_snapshot().snapshot_id
    append_before_commit(con, monkeypatch, str(tmp_path), "DELETE FROM db.r WHERE id = 3", T)
    with pytest.raises(CommitConflictError, match="delete file"):
        _call(con, "table => 'db.r', options => map('min-input-files', '2')")
    # the rewrite changed nothing: the concurrent delete is the last snapshot
    t = con.catalog.load_table(T)
    assert t.metadata.current_snapshot().parent_snapshot_id == before_version
    assert 3 not in [r[0] for r in _rows(con)]


def test_concurrent_append_does_not_conflict(con, monkeypatch, tmp_path):
    _create(con)
    append_before_commit(con, monkeypatch, str(tmp_path), "INSERT INTO db.r VALUES (9, 1, 'n')", T)
    [row] = _call(con, "table => 'db.r', options => map('min-input-files', '2')")
    assert row[:2] == (6, 2)
    assert (9, 1, "n") in _rows(con) and len(_rows(con)) == 13


def test_partial_progress_commits_groups_apart(con):
    _create(con)
    before = len(con.catalog.load_table(T).metadata.snapshots)
    [row] = _call(
        con,
        "table => 'db.r', options => map('min-input-files', '2',"
        " 'partial-progress.enabled', 'true', 'max-concurrent-file-group-rewrites', '4')",
    )
    assert row[:2] == (6, 2)
    assert len(con.catalog.load_table(T).metadata.snapshots) == before + 2  # one per group


def test_remove_dangling_deletes(con):
    _create(con, mode="merge-on-read", inserts=2)
    con.execute("DELETE FROM db.r WHERE id = 0")
    [row] = _call(
        con,
        "table => 'db.r', options => map('rewrite-all', 'true', 'remove-dangling-deletes', 'true')",
    )
    assert row[4] >= 1
    assert con.execute("SELECT count(*) FROM db.r.delete_files").fetchall() == [(0,)]


@pytest.mark.parametrize(
    "args, error, match",
    [
        ("'db.r', 'sort', 'zorder(id, p)'", NotSupportedError, "z-order"),
        ("'db.r', 'foo'", ProgrammingError, "unsupported strategy"),
        (
            "table => 'db.r', options => map('foo', '1')",
            ProgrammingError,
            r"Cannot use options \['foo'\]",
        ),
        (
            "table => 'db.r', options => map('min-input-files', 'x')",
            ProgrammingError,
            "min-input-files",
        ),
        (
            "table => 'db.r', options => map('output-spec-id', '7')",
            NotSupportedError,
            "output-spec-id",
        ),
        ("'db.r', 'sort'", ProgrammingError, "no sort order"),
        ("table => 'db.r', where => 'nope(id)'", ProgrammingError, "Cannot convert where"),
        ("'db.missing'", ProgrammingError, "not found"),
    ],
)
def test_bad_arguments_change_nothing(con, args, error, match):
    _create(con, inserts=2)
    version = con.catalog.current_version(T)
    with pytest.raises(error, match=match):
        _call(con, args)
    assert con.catalog.current_version(T) == version


# --- rewrite_manifests ----------------------------------------------------------------------


def _manifest_counts(con):
    return dict(con.execute("SELECT content, count(*) FROM db.r.manifests GROUP BY 1").fetchall())


@pytest.mark.parametrize("version", [2, 3])
def test_rewrite_manifests_clusters_entries_and_keeps_them(con, version):
    _create(con, version, "merge-on-read", inserts=8)
    con.execute("DELETE FROM db.r WHERE id IN (1, 102)")
    lineage = "_row_id, _last_updated_sequence_number" if version >= 3 else "id"
    before = sorted(con.execute(f"SELECT *, {lineage} FROM db.r").fetchall())
    entries_before = sorted(
        (e.data_file.file_path, e.snapshot_id, e.sequence_number, e.file_sequence_number)
        for _, e in _live(con)[2]
    )
    assert _manifest_counts(con) == {0: 8, 1: 1}
    assert con.execute("CALL system.rewrite_manifests('db.r')").fetchall() == [(8, 1)]
    assert _manifest_counts(con) == {0: 1, 1: 1}  # a lone delete manifest is left as it is
    t, snap, files = _live(con)
    assert snap.summary["operation"] == "replace"
    assert snap.summary["manifests-replaced"] == "8" and snap.summary["manifests-kept"] == "1"
    assert snap.summary["total-records"] == "16" and snap.summary["total-data-files"] == "8"
    entries_after = sorted(
        (e.data_file.file_path, e.snapshot_id, e.sequence_number, e.file_sequence_number)
        for _, e in files
    )
    assert entries_after == entries_before
    assert sorted(con.execute(f"SELECT *, {lineage} FROM db.r").fetchall()) == before
    # one manifest already: nothing to do, no commit
    version_before = con.catalog.current_version(T)
    assert con.execute(
        "CALL system.rewrite_manifests(table => 'db.r', use_caching => false)"
    ).fetchall() == [(0, 0)]
    assert con.catalog.current_version(T) == version_before


def test_rewrite_manifests_splits_by_target_size_in_partition_order(con):
    _create(con, inserts=8)
    con.execute("ALTER TABLE db.r SET TBLPROPERTIES ('commit.manifest.target-size-bytes'='12000')")
    t, snap, _ = _live(con)
    total = sum(m.manifest_length for m in read_manifest_list(t.io, snap.manifest_list, snap))
    expected = -(-total // 12000)
    assert expected >= 2
    assert con.execute("CALL system.rewrite_manifests('db.r')").fetchall() == [(8, expected)]
    t, snap, _ = _live(con)
    ranges = []
    for m in read_manifest_list(t.io, snap.manifest_list, snap):
        parts = [e.data_file.partition[0] for e in read_manifest(t.io, m)]
        assert parts == sorted(parts)
        ranges.append((parts[0], parts[-1]))
    assert ranges == sorted(ranges)


def test_rewrite_manifests_loses_to_a_concurrent_rewrite(con, monkeypatch, tmp_path):
    _create(con, inserts=3)
    append_before_commit(
        con, monkeypatch, str(tmp_path), "CALL system.rewrite_manifests('db.r')", T
    )
    with pytest.raises(CommitConflictError, match="no longer in the table"):
        con.execute("CALL system.rewrite_manifests('db.r')")
    assert _manifest_counts(con) == {0: 1}
    assert len(_rows(con)) == 6


def test_rewrite_manifests_bad_spec_id(con):
    _create(con, inserts=2)
    with pytest.raises(ProgrammingError, match="Cannot find spec id 5"):
        con.execute("CALL system.rewrite_manifests(table => 'db.r', spec_id => 5)")


# --- rewrite_position_delete_files ----------------------------------------------------------


def _deleted_v2(con):
    _create(con, 2, "merge-on-read", inserts=4)
    for i in (0, 1, 2, 3, 100, 101):
        con.execute(f"DELETE FROM db.r WHERE id = {i}")


def _content_counts(con):
    return dict(con.execute("SELECT content, count(*) FROM db.r.files GROUP BY 1").fetchall())


def test_rewrite_position_delete_files_merges_per_partition(con):
    _deleted_v2(con)
    con.execute("ALTER TABLE db.r SET TBLPROPERTIES ('write.delete.granularity'='partition')")
    before = _rows(con)
    assert _content_counts(con) == {0: 4, 1: 4}
    t, _, files = _live(con)
    deletes = [e for c, e in files if c != CONTENT_DATA]
    [row] = con.execute(
        "CALL system.rewrite_position_delete_files(table => 'db.r', options => map('min-input-files', '2'))"
    ).fetchall()
    assert row[:3] == (4, 2, sum(e.data_file.file_size_in_bytes for e in deletes))
    assert _content_counts(con) == {0: 4, 1: 2}
    assert _rows(con) == before
    t, snap, files = _live(con)
    assert snap.summary["operation"] == "replace"
    assert row[3] == sum(e.data_file.file_size_in_bytes for c, e in files if c != CONTENT_DATA)
    by_partition = {}
    for e in deletes:
        p = e.data_file.partition
        by_partition[p] = max(by_partition.get(p, 0), e.sequence_number)
    for c, e in files:
        if c != CONTENT_DATA:  # the highest sequence number of the files it replaced
            assert e.sequence_number == by_partition[e.data_file.partition]
            assert e.data_file.referenced_data_file is None  # names two data files
    # nothing left worth rewriting
    assert con.execute("CALL system.rewrite_position_delete_files('db.r')").fetchall() == [
        (0, 0, 0, 0)
    ]


def test_rewrite_position_delete_files_drops_dangling_deletes(con):
    _deleted_v2(con)
    con.execute("ALTER TABLE db.r SET TBLPROPERTIES ('write.delete.granularity'='partition')")
    con.execute(
        "CALL system.rewrite_position_delete_files(table => 'db.r', options => map('min-input-files', '2'))"
    )
    before = _rows(con)
    # rewrite the data of partition 0: its position delete file now names no live data file
    con.execute(
        "CALL system.rewrite_data_files(table => 'db.r', where => 'p = 0', options => map('rewrite-all', 'true'))"
    )
    assert _content_counts(con) == {0: 3, 1: 2}
    [row] = con.execute(
        "CALL system.rewrite_position_delete_files(table => 'db.r', options => map('rewrite-all', 'true'))"
    ).fetchall()
    assert row[:2] == (2, 1)  # the dangling file is removed, not rewritten
    assert _content_counts(con) == {0: 3, 1: 1}
    assert _rows(con) == before


def test_rewrite_position_delete_files_file_granularity_by_default(con):
    _deleted_v2(con)
    con.execute("ALTER TABLE db.r SET TBLPROPERTIES ('write.delete.granularity'='partition')")
    con.execute("DELETE FROM db.r WHERE id = 4")  # a file naming two data files
    con.execute(
        "CALL system.rewrite_position_delete_files(table => 'db.r', options => map('min-input-files', '2'))"
    )
    con.execute("ALTER TABLE db.r UNSET TBLPROPERTIES ('write.delete.granularity')")
    before = _rows(con)
    [row] = con.execute(
        "CALL system.rewrite_position_delete_files(table => 'db.r', options => map('rewrite-all', 'true'))"
    ).fetchall()
    assert row[:2] == (2, 4)  # one file per data file, as Java writes them
    t, _, files = _live(con)
    refs = [e.data_file.referenced_data_file for c, e in files if c != CONTENT_DATA]
    assert None not in refs and len(set(refs)) == 4
    assert _rows(con) == before


def test_rewrite_position_delete_files_turns_v2_deletes_into_dvs_after_an_upgrade(con):
    _deleted_v2(con)
    con.execute("ALTER TABLE db.r SET TBLPROPERTIES ('format-version'='3')")
    con.execute("DELETE FROM db.r WHERE id = 102")  # a DV merging its file's Parquet deletes
    before = _rows(con)
    counts = _content_counts(con)
    # as in v2, groups of too few files are left alone
    assert con.execute("CALL system.rewrite_position_delete_files('db.r')").fetchall() == [
        (0, 0, 0, 0)
    ]
    [row] = con.execute(
        "CALL system.rewrite_position_delete_files('db.r', map('rewrite-all', 'true'))"
    ).fetchall()
    # every position delete file (three Parquet, one DV) is rewritten: a DV per data file
    assert counts[1] == 4 and row[:2] == (4, 4)
    t, snap, files = _live(con)
    deletes = [e.data_file for c, e in files if c != CONTENT_DATA]
    assert len(deletes) == 4 and all(d.file_format == "PUFFIN" for d in deletes)
    assert _rows(con) == before
    # deletion vectors only: nothing to rewrite
    assert con.execute("CALL system.rewrite_position_delete_files('db.r')").fetchall() == [
        (0, 0, 0, 0)
    ]


def test_rewrite_position_delete_files_bad_options(con):
    _create(con, 3, "merge-on-read", inserts=2)
    with pytest.raises(ProgrammingError, match="Cannot use options"):
        con.execute(
            "CALL system.rewrite_position_delete_files('db.r', map('delete-file-threshold', '1'))"
        )


def test_partial_progress_counts_a_failed_commit_and_keeps_the_others(con, monkeypatch, tmp_path):
    _create(con, mode="merge-on-read")
    # id 3 lives in partition 1, whose group commits second: only that commit conflicts
    append_before_commit(con, monkeypatch, str(tmp_path), "DELETE FROM db.r WHERE id = 3", T)
    [row] = _call(
        con,
        "table => 'db.r', options => map('min-input-files', '2',"
        " 'partial-progress.enabled', 'true')",
    )
    rewritten, added, _, failed, _ = row
    assert (rewritten, added, failed) == (3, 1, 3)
    counts = dict(
        con.execute("SELECT partition.p, count(*) FROM db.r.data_files GROUP BY 1").fetchall()
    )
    assert counts == {0: 1, 1: 3}
    assert 3 not in [r[0] for r in _rows(con)] and len(_rows(con)) == 11
    # without partial progress the same conflict fails the whole rewrite
    append_before_commit(con, monkeypatch, str(tmp_path), "DELETE FROM db.r WHERE id = 5", T)
    with pytest.raises(CommitConflictError):
        _call(con, "table => 'db.r', options => map('min-input-files', '2')")


def test_rewrite_moves_old_spec_files_into_the_current_spec(con):
    _create(con, inserts=4)
    con.execute("ALTER TABLE db.r DROP PARTITION FIELD p")
    con.execute("ALTER TABLE db.r ADD PARTITION FIELD bucket(2, id)")
    con.execute("INSERT INTO db.r VALUES (7, 1, 'x')")
    before = _rows(con)
    [row] = _call(con, "table => 'db.r', options => map('rewrite-all', 'true')")
    assert row[0] == 5
    t = con.catalog.load_table(T)
    specs = {r[0] for r in con.execute("SELECT spec_id FROM db.r.data_files").fetchall()}
    assert specs == {t.metadata.default_spec_id}
    assert _rows(con) == before


def test_sort_strategy_sorts_the_whole_group_across_files(con):
    con.execute("CREATE TABLE db.r (id BIGINT, s STRING) USING iceberg")
    for k in range(4):  # four files, each a spread of ids
        values = ", ".join(f"({(i * 37 + k * 11) % 4000}, 'row {i} of {k}')" for i in range(1000))
        con.execute(f"INSERT INTO db.r VALUES {values}")
    before = sorted(con.execute("SELECT * FROM db.r").fetchall())
    [row] = _call(
        con,
        "table => 'db.r', strategy => 'sort', sort_order => 'id ASC NULLS LAST',"
        " options => map('rewrite-all', 'true', 'target-file-size-bytes', '12000',"
        " 'min-file-size-bytes', '0')",
    )
    assert row[0] == 4 and row[1] >= 2
    ranges = []
    for (path,) in con.execute("SELECT file_path FROM db.r.data_files").fetchall():
        ids = pq.ParquetFile(path).read(columns=["id"]).column("id").to_pylist()  # no hive columns
        assert ids == sorted(ids)
        ranges.append((ids[0], ids[-1]))
    ranges.sort()
    # as Spark's range-partitioned sort: the files' ranges do not overlap
    assert all(a[1] <= b[0] for a, b in zip(ranges, ranges[1:]))
    assert sorted(con.execute("SELECT * FROM db.r").fetchall()) == before
