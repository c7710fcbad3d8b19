"""Table maintenance twins: Spark runs rewrite_data_files on one table, icesql on its twin
(v2 and v3, copy-on-write and merge-on-read with deletes present); Spark reads both the same
afterwards, the outputs agree, and each engine compacts what the other compacted. Manifest
merging: the same appends leave as many manifests in icesql's twin as in Spark's."""

from __future__ import annotations

import pytest
from spark_support import assert_same_rows

import icesql

NS = "compact"
CASES = [(2, "merge-on-read"), (3, "merge-on-read"), (2, "copy-on-write"), (3, "copy-on-write")]


def _twins(spark, name: str, version: int, mode: str) -> list[str]:
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{NS}")
    names = [f"{name}_spark", f"{name}_ice"]
    for n in names:
        spark.sql(f"DROP TABLE IF EXISTS local.{NS}.{n}")
        spark.sql(
            f"CREATE TABLE local.{NS}.{n} (id BIGINT, p INT, s STRING) USING iceberg"
            f" PARTITIONED BY (p) TBLPROPERTIES ('format-version'='{version}',"
            f" 'write.delete.mode'='{mode}', 'write.update.mode'='{mode}')"
        )
        for i in range(6):
            spark.sql(
                f"INSERT INTO local.{NS}.{n} VALUES ({i}, {i % 2}, 's{i}'), ({i + 100}, {i % 2}, 't{i}')"
            )
        spark.sql(f"DELETE FROM local.{NS}.{n} WHERE id IN (1, 102)")
        spark.sql(f"UPDATE local.{NS}.{n} SET s = 'u' WHERE id = 4")
    return names


def _spark_rows(spark, table: str) -> list[tuple]:
    spark.sql(f"REFRESH TABLE local.{NS}.{table}")  # icesql may have committed since
    return sorted(tuple(r) for r in spark.sql(f"SELECT * FROM local.{NS}.{table}").collect())


def _files(spark, table: str) -> tuple[int, int]:
    spark.sql(f"REFRESH TABLE local.{NS}.{table}")
    data = spark.sql(f"SELECT count(*) FROM local.{NS}.{table}.data_files").collect()[0][0]
    deletes = spark.sql(f"SELECT count(*) FROM local.{NS}.{table}.delete_files").collect()[0][0]
    return data, deletes


MIN_INPUTS = "map('min-input-files', '2')"
# rewrite-all on v2: the position delete files of the rewritten files stay, dangling (Java
# removes only deletion vectors), and remove-dangling-deletes drops them in both
REWRITE_ALL = "map('rewrite-all', 'true')"
DANGLING = "map('rewrite-all', 'true', 'remove-dangling-deletes', 'true')"


@pytest.mark.parametrize(
    "version, mode, options",
    [
        *((v, m, MIN_INPUTS) for v, m in CASES),
        (2, "merge-on-read", REWRITE_ALL),
        (2, "merge-on-read", DANGLING),
    ],
)
def test_rewrite_data_files_twins(spark, spark_warehouse, version, mode, options):
    sp, ice = _twins(spark, f"rdf_v{version}_{mode[:1]}", version, mode)
    assert _spark_rows(spark, sp) == _spark_rows(spark, ice)
    before = _files(spark, ice)
    [spark_out] = spark.sql(
        f"CALL local.system.rewrite_data_files(table => '{NS}.{sp}', options => {options})"
    ).collect()
    con = icesql.connect(spark_warehouse)
    try:
        [ice_out] = con.execute(
            f"CALL system.rewrite_data_files(table => '{NS}.{ice}', options => {options})"
        ).fetchall()
    finally:
        con.close()
    spark_out = tuple(spark_out)
    # the same output: same files and bytes rewritten, one new file per partition, the same
    # delete files removed (a v2 position delete file newer than the rewritten files stays)
    assert ice_out == spark_out and ice_out[0] == before[0]
    assert _spark_rows(spark, sp) == _spark_rows(spark, ice)
    assert _files(spark, sp) == _files(spark, ice)
    assert _files(spark, ice)[0] == 2
    op = spark.sql(
        f"SELECT operation FROM local.{NS}.{ice}.snapshots ORDER BY committed_at DESC LIMIT 1"
    ).collect()[0][0]
    assert op == "replace"
    # each engine compacts what the other compacted, and the rows stay
    spark.sql(f"REFRESH TABLE local.{NS}.{ice}")
    spark.sql(f"INSERT INTO local.{NS}.{ice} VALUES (50, 0, 'n'), (51, 1, 'n')")
    spark.sql(f"INSERT INTO local.{NS}.{sp} VALUES (50, 0, 'n'), (51, 1, 'n')")
    spark.sql(
        f"CALL local.system.rewrite_data_files(table => '{NS}.{ice}',"
        " options => map('rewrite-all', 'true'))"
    )
    con = icesql.connect(spark_warehouse)
    try:
        con.execute(
            f"CALL system.rewrite_data_files(table => '{NS}.{sp}', options => map('rewrite-all', 'true'))"
        )
        assert_same_rows(
            _spark_rows(spark, ice),
            con.execute(f"SELECT * FROM {NS}.{sp}").fetchall(),
            ordered=False,
        )
    finally:
        con.close()
    assert _spark_rows(spark, sp) == _spark_rows(spark, ice)
    assert _files(spark, sp) == _files(spark, ice)


def test_manifest_merging_matches_spark(spark, spark_warehouse):
    """Spark's INSERTs (Java's MergeAppend) and icesql's, min-count-to-merge 10: the same
    manifest count after every commit."""
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{NS}")
    for n in ("mm_spark", "mm_ice"):
        spark.sql(f"DROP TABLE IF EXISTS local.{NS}.{n}")
        spark.sql(
            f"CREATE TABLE local.{NS}.{n} (id BIGINT) USING iceberg"
            " TBLPROPERTIES ('format-version'='2', 'commit.manifest.min-count-to-merge'='10')"
        )
    con = icesql.connect(spark_warehouse)
    spark_counts, ice_counts = [], []
    try:
        for i in range(25):
            spark.sql(f"INSERT INTO local.{NS}.mm_spark VALUES ({i})")
            con.execute(f"INSERT INTO {NS}.mm_ice VALUES ({i})")
            for n, counts in (("mm_spark", spark_counts), ("mm_ice", ice_counts)):
                spark.sql(f"REFRESH TABLE local.{NS}.{n}")
                counts.append(
                    spark.sql(f"SELECT count(*) FROM local.{NS}.{n}.manifests").collect()[0][0]
                )
    finally:
        con.close()
    assert ice_counts == spark_counts
    assert max(ice_counts) == 9  # merging happened
    assert _spark_rows(spark, "mm_ice") == _spark_rows(spark, "mm_spark")


@pytest.mark.parametrize("version", [2, 3])
def test_rewrite_manifests_twins(spark, spark_warehouse, version):
    sp, ice = _twins(spark, f"rm_v{version}", version, "merge-on-read")
    [spark_out] = spark.sql(f"CALL local.system.rewrite_manifests('{NS}.{sp}')").collect()
    con = icesql.connect(spark_warehouse)
    try:
        [ice_out] = con.execute(f"CALL system.rewrite_manifests('{NS}.{ice}')").fetchall()
    finally:
        con.close()
    assert ice_out == tuple(spark_out)
    assert _spark_rows(spark, sp) == _spark_rows(spark, ice)

    def manifests(n: str) -> list[tuple]:
        return sorted(
            tuple(r)
            for r in spark.sql(
                "SELECT content, added_data_files_count, existing_data_files_count,"
                " added_delete_files_count, existing_delete_files_count"
                f" FROM local.{NS}.{n}.manifests"
            ).collect()
        )

    def entries(n: str) -> list[tuple]:
        return sorted(
            tuple(r)
            for r in spark.sql(
                "SELECT status, sequence_number, file_sequence_number, data_file.record_count"
                f" FROM local.{NS}.{n}.entries"
            ).collect()
        )

    assert manifests(ice) == manifests(sp)
    assert entries(ice) == entries(sp)
    # Spark maintains what icesql rewrote: a further rewrite_data_files reads the same rows
    spark.sql(
        f"CALL local.system.rewrite_data_files(table => '{NS}.{ice}', options => map('rewrite-all', 'true'))"
    )
    assert _spark_rows(spark, sp) == _spark_rows(spark, ice)


def test_rewrite_position_delete_files_twins(spark, spark_warehouse):
    sp, ice = _twins(spark, "rpd_v2", 2, "merge-on-read")
    for n in (sp, ice):
        for i in (0, 2, 3, 105):
            spark.sql(f"DELETE FROM local.{NS}.{n} WHERE id = {i}")
    options = "map('min-input-files', '2')"
    [spark_out] = spark.sql(
        f"CALL local.system.rewrite_position_delete_files(table => '{NS}.{sp}', options => {options})"
    ).collect()
    con = icesql.connect(spark_warehouse)
    try:
        [ice_out] = con.execute(
            f"CALL system.rewrite_position_delete_files(table => '{NS}.{ice}', options => {options})"
        ).fetchall()
    finally:
        con.close()
    # file paths in the delete files differ in length between the twins: compare counts
    assert ice_out[:2] == tuple(spark_out)[:2]
    assert ice_out[0] > 0
    assert _spark_rows(spark, sp) == _spark_rows(spark, ice)
    assert _files(spark, sp) == _files(spark, ice)
    # Spark compacts the data files of the table icesql's delete rewrite left
    spark.sql(
        f"CALL local.system.rewrite_data_files(table => '{NS}.{ice}', options => map('rewrite-all', 'true'))"
    )
    assert _spark_rows(spark, sp) == _spark_rows(spark, ice)


def test_sort_rewrite_spark_reads_and_resorts(spark, spark_warehouse):
    """icesql's sort strategy on a Spark table with deletes (v3, deletion vectors): Spark reads
    the same rows, every file is sorted, and Spark's own sort rewrite afterwards agrees."""
    sp, ice = _twins(spark, "sort_v3", 3, "merge-on-read")
    con = icesql.connect(spark_warehouse)
    try:
        [out] = con.execute(
            f"CALL system.rewrite_data_files('{NS}.{ice}', 'sort', 'id DESC NULLS LAST',"
            " map('rewrite-all', 'true'))"
        ).fetchall()
        paths = [
            r[0] for r in con.execute(f"SELECT file_path FROM {NS}.{ice}.data_files").fetchall()
        ]
    finally:
        con.close()
    assert out[0] > 0 and out[4] > 0  # the deletion vectors went with the rewritten files
    assert _spark_rows(spark, sp) == _spark_rows(spark, ice)
    for path in paths:
        ids = [r[0] for r in spark.read.parquet(path).select("id").collect()]
        assert ids == sorted(ids, reverse=True)
    spark.sql(
        f"CALL local.system.rewrite_data_files(table => '{NS}.{ice}', strategy => 'sort',"
        " sort_order => 'id ASC NULLS FIRST', options => map('rewrite-all', 'true'))"
    )
    assert _spark_rows(spark, sp) == _spark_rows(spark, ice)


def test_concurrent_spark_delete_conflicts_with_icesql_rewrite(spark, spark_warehouse):
    """Spark's position delete files name their data file only by equal file_path bounds
    (referenced_data_file null): one committed during icesql's rewrite of that file fails the
    rewrite (Java's RewriteFiles rule); one in a partition the rewrite leaves alone does not."""
    from icesql.errors import CommitConflictError

    _, ice = _twins(spark, "conc_v2", 2, "merge-on-read")
    con = icesql.connect(spark_warehouse)
    real = con.catalog.commit_table
    pending = [f"DELETE FROM local.{NS}.{ice} WHERE id = 3"]

    def commit_table(table, metadata):
        if pending:
            spark.sql(pending.pop())
        return real(table, metadata)

    con.catalog.commit_table = commit_table
    try:
        with pytest.raises(CommitConflictError, match="delete file"):
            con.execute(
                f"CALL system.rewrite_data_files(table => '{NS}.{ice}', options => map('min-input-files', '2'))"
            )
        pending.append(f"DELETE FROM local.{NS}.{ice} WHERE id = 5")  # partition 1
        [out] = con.execute(
            f"CALL system.rewrite_data_files(table => '{NS}.{ice}', where => 'p = 0',"
            " options => map('min-input-files', '2'))"
        ).fetchall()
        assert out[0] > 0
    finally:
        con.close()
    ids = [r[0] for r in _spark_rows(spark, ice)]
    assert 3 not in ids and 5 not in ids and 0 in ids


def test_v2_deletes_become_dvs_after_an_upgrade_twins(spark, spark_warehouse):
    sp, ice = _twins(spark, "dvconv", 2, "merge-on-read")
    for n in (sp, ice):
        spark.sql(f"ALTER TABLE local.{NS}.{n} SET TBLPROPERTIES ('format-version'='3')")
        spark.sql(f"DELETE FROM local.{NS}.{n} WHERE id = 0")
    options = "map('rewrite-all', 'true')"
    [spark_out] = spark.sql(
        f"CALL local.system.rewrite_position_delete_files('{NS}.{sp}', {options})"
    ).collect()
    con = icesql.connect(spark_warehouse)
    try:
        [ice_out] = con.execute(
            f"CALL system.rewrite_position_delete_files('{NS}.{ice}', {options})"
        ).fetchall()
    finally:
        con.close()
    assert ice_out[:2] == tuple(spark_out)[:2] and ice_out[0] > 0
    assert _spark_rows(spark, sp) == _spark_rows(spark, ice)
    assert _files(spark, sp) == _files(spark, ice)
    formats = spark.sql(f"SELECT DISTINCT file_format FROM local.{NS}.{ice}.delete_files").collect()
    assert [r[0] for r in formats] == ["PUFFIN"]
