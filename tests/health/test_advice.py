"""Advice: each planted problem is found with its evidence, the advised CALL runs as shown,
its dry run equals what the procedure then reports, and the advice is gone afterwards."""

from __future__ import annotations

import os
import time

import pytest
from health_support import small_files_table

from icesql.health.advice import call_text


def _codes(con, name="db.t", **kw):
    return [a.code for a in con.health(name, **kw).advice]


def _advice(con, code, name="db.t", **kw):
    (found,) = [a for a in con.health(name, **kw).advice if a.code == code]
    return found


def _run(con, call):
    cur = con.execute(call)
    names = [d[0] for d in cur.description]
    (row,) = cur.fetchall()
    return dict(zip(names, row, strict=True))


def test_small_files_advice_previews_the_rewrite_and_goes_after_it(con):
    small_files_table(con)
    a = _advice(con, "small-files")
    assert a.call == "CALL local.system.rewrite_data_files(table => 'db.t')"
    assert a.evidence[0].startswith("12 data files are smaller than min-file-size-bytes")
    assert (a.preview["rewritten_data_files"], a.preview["file_groups"]) == (12, 2)
    assert a.preview["estimated_added_data_files"] == 2
    out = _run(con, a.call)
    assert out["rewritten_data_files_count"] == a.preview["rewritten_data_files"]
    assert out["rewritten_bytes_count"] == a.preview["rewritten_bytes"]
    assert out["added_data_files_count"] == a.preview["estimated_added_data_files"]
    assert "small-files" not in _codes(con)


def test_fewer_small_files_than_min_input_files_are_no_problem(con):
    small_files_table(con, inserts=4)  # 4 files per partition: below min-input-files (5)
    assert _codes(con) == []


def test_deleted_rows_advice_drops_the_dangling_deletes_too(con):
    small_files_table(con, inserts=1)  # one file per partition: too few to compact
    con.execute("DELETE FROM db.t WHERE id % 10 < 4")  # 40% of each file's rows
    a = _advice(con, "deleted-rows")
    assert a.call == (
        "CALL local.system.rewrite_data_files(table => 'db.t',"
        " options => map('remove-dangling-deletes', 'true'))"
    )
    assert any("delete-ratio-threshold (0.3)" in e for e in a.evidence)
    assert a.preview["dangling_position_delete_files"] == 2
    out = _run(con, a.call)
    assert out["rewritten_data_files_count"] == 2
    assert out["removed_delete_files_count"] == 2
    h = con.health("db.t")
    assert [a.code for a in h.advice] == []
    assert sum(p.delete_files for p in h.partitions) == 0


def test_a_few_deleted_rows_are_no_problem(con):
    small_files_table(con, inserts=1)
    con.execute("DELETE FROM db.t WHERE id % 10 = 0")  # 10% < delete-ratio-threshold
    assert _codes(con) == []


def test_many_small_position_delete_files_are_compacted_per_partition(con):
    small_files_table(con, inserts=5)
    con.execute("DELETE FROM db.t WHERE id % 100 = 0 OR id % 100 = 1")  # a file per data file
    # each file already deletes rows of one data file: a rewrite by file writes them again
    assert "delete-files" not in _codes(con)
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('write.delete.granularity'='partition')")
    a = _advice(con, "delete-files")
    assert a.call == "CALL local.system.rewrite_position_delete_files(table => 'db.t')"
    assert (a.preview["rewritten_delete_files"], a.preview["file_groups"]) == (10, 2)
    assert a.preview["estimated_added_delete_files"] == 2
    assert a.preview["deleted_positions"] == 10
    out = _run(con, a.call)
    assert out["rewritten_delete_files_count"] == 10
    assert out["added_delete_files_count"] == 2
    assert out["rewritten_bytes_count"] == a.preview["rewritten_bytes"]
    assert "delete-files" not in _codes(con)


def test_manifests_from_the_merge_count_on_are_advised(con):
    small_files_table(con, inserts=4)
    con.execute(
        "ALTER TABLE db.t SET TBLPROPERTIES ('commit.manifest-merge.enabled'='false',"
        " 'commit.manifest.min-count-to-merge'='4')"
    )
    a = _advice(con, "manifests")
    assert a.call == "CALL local.system.rewrite_manifests(table => 'db.t')"
    assert (a.preview["rewritten_manifests"], a.preview["added_manifests"]) == (4, 1)
    assert a.preview["entries"] == 8
    out = _run(con, a.call)
    assert (out["rewritten_manifests_count"], out["added_manifests_count"]) == (4, 1)
    assert "manifests" not in _codes(con)


def test_manifests_below_the_merge_count_are_no_problem(con):
    small_files_table(con, inserts=4)
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('commit.manifest-merge.enabled'='false')")
    assert "manifests" not in _codes(con)  # 4 < commit.manifest.min-count-to-merge (100)


def test_snapshots_past_retention_preview_what_expiry_deletes(con):
    small_files_table(con)
    _run(con, "CALL system.rewrite_data_files('db.t')")  # the old files stay in old snapshots
    assert "snapshots" not in _codes(con)  # younger than 5 days
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('history.expire.max-snapshot-age-ms'='1')")
    time.sleep(0.01)
    h = con.health("db.t")
    a = _advice(con, "snapshots")
    assert a.call == "CALL local.system.expire_snapshots(table => 'db.t')"
    assert a.preview["expired_snapshots"] == 6  # all but the current one (min-snapshots-to-keep 1)
    assert sum(s.expires for s in h.snapshots) == 6
    out = _run(con, a.call)
    assert out["deleted_data_files_count"] == a.preview["data_files"] == 12
    assert out["deleted_position_delete_files_count"] == a.preview["delete_files"] == 0
    assert out["deleted_manifest_files_count"] == a.preview["manifests"]
    assert out["deleted_manifest_lists_count"] == a.preview["manifest_lists"] == 6
    assert _codes(con) == []


def test_no_expiry_or_orphan_advice_when_gc_is_disabled(con):
    small_files_table(con, inserts=2)
    con.execute(
        "ALTER TABLE db.t SET TBLPROPERTIES ('history.expire.max-snapshot-age-ms'='1',"
        " 'gc.enabled'='false')"
    )
    time.sleep(0.01)
    assert _codes(con, orphans=True) == []


def test_orphans_are_listed_only_when_asked(con, tmp_path):
    small_files_table(con, inserts=1)
    orphan = tmp_path / "db" / "t" / "data" / "stray.parquet"
    orphan.write_bytes(b"x" * 10)
    old = time.time() - 4 * 24 * 3600  # older than remove_orphan_files' default 3 days
    os.utime(orphan, (old, old))
    assert "orphans" not in _codes(con)
    a = _advice(con, "orphans", orphans=True)
    assert a.call == "CALL local.system.remove_orphan_files(table => 'db.t')"
    assert a.preview["orphan_files"] == 1 and a.preview["orphan_bytes"] == 10
    assert a.preview["paths"][0].endswith("/db/t/data/stray.parquet")
    assert orphan.exists()  # a dry run
    con.execute(a.call).fetchall()
    assert not orphan.exists()
    assert _codes(con, orphans=True) == []


@pytest.mark.parametrize(
    "table, expected",
    [
        ("db.t", "'db.t'"),
        ("db.`we ird`", "'db.`we ird`'"),
        ("db.`it's`", "'db.`it\\'s`'"),
    ],
)
def test_call_text_quotes_names(table, expected):
    assert call_text("local", "expire_snapshots", table) == (
        f"CALL local.system.expire_snapshots(table => {expected})"
    )


def test_the_advised_call_runs_for_a_table_of_an_odd_name(con):
    con.execute("CREATE TABLE db.`we ird` (id BIGINT) USING iceberg")
    for i in range(5):
        con.execute(f"INSERT INTO db.`we ird` VALUES ({i})")
    a = _advice(con, "small-files", name="db.`we ird`")
    assert a.call == "CALL local.system.rewrite_data_files(table => 'db.`we ird`')"
    assert _run(con, a.call)["rewritten_data_files_count"] == 5
    assert _codes(con, "db.`we ird`") == []
