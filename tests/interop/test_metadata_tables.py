"""Iceberg metadata tables read by icesql equal Spark's, row by row."""

from __future__ import annotations

import pytest
import spark_support

FILE_COLUMNS = (
    "content, file_path, file_format, spec_id, record_count,"
    " file_size_in_bytes, column_sizes, value_counts, null_value_counts,"
    " nan_value_counts, lower_bounds, upper_bounds, split_offsets, sort_order_id"
)

QUERIES = [
    "SELECT * FROM db.history.snapshots",
    "SELECT * FROM db.history.history",
    "SELECT * FROM db.history.refs",
    "SELECT * FROM db.history.metadata_log_entries",
    "SELECT * FROM db.part_two_fields.manifests",
    "SELECT * FROM db.history.manifests",
    f"SELECT partition, {FILE_COLUMNS} FROM db.part_two_fields.files",
    f"SELECT partition, {FILE_COLUMNS} FROM db.part_truncate_string.files",
    f"SELECT {FILE_COLUMNS} FROM db.part_days.data_files",
    f"SELECT {FILE_COLUMNS} FROM db.history.files VERSION AS OF 't1'",
    f"SELECT {FILE_COLUMNS} FROM db.small_v1.files",
    "SELECT status, snapshot_id, sequence_number, file_sequence_number, data_file.file_path,"
    " data_file.record_count FROM db.part_bucket.entries",
    "SELECT content, file_path, file_format, record_count, referenced_data_file, content_offset,"
    " content_size_in_bytes FROM db.with_dvs.delete_files",
    "SELECT operation, count(*) FROM db.history.snapshots GROUP BY operation",
]


@pytest.mark.parametrize("sql", QUERIES)
def test_metadata_table_matches_spark(sql, spark, spark_tables, icesql_connection):
    expected = spark.sql(sql.replace("FROM db.", "FROM local.db.")).collect()
    actual = icesql_connection.execute(sql).fetchall()
    spark_support.assert_same_rows(expected, actual, ordered=False, context=sql)


def test_column_names_are_sparks(spark, spark_tables, icesql_connection):
    for name in ("snapshots", "history", "refs", "metadata_log_entries", "manifests"):
        sql = f"SELECT * FROM db.history.{name}"
        expected = spark.sql(sql.replace("db.", "local.db.")).columns
        actual = [d[0] for d in icesql_connection.execute(sql).description]
        assert actual == expected, name


def test_unpartitioned_tables_have_no_partition_column(spark, spark_tables, icesql_connection):
    expected = spark.sql("SELECT * FROM local.db.small_v1.files").columns
    actual = [
        d[0] for d in icesql_connection.execute("SELECT * FROM db.small_v1.files").description
    ]
    assert "partition" not in actual
    assert actual == expected
