"""Spark reads what icesql writes, and its metadata tables agree with what icesql wrote.

Every table here is written twice from the same SQL: by icesql (``<ns>.t``) and by Spark
(``<ns>.twin``). The oracle is Spark itself: it must read icesql's table with the same rows
as icesql, and its ``files`` metadata table must show the same partitions, record counts,
value / null / NaN counts and lower / upper bounds for both tables (column sizes differ:
parquet-mr and Arrow encode differently). Each test uses its own ``w_<name>`` namespace in
the shared warehouse. Spark caches table metadata, so it is told to ``REFRESH`` a table
icesql changed before reading it (as any Spark user must after an outside writer commits).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from spark_support import assert_same_rows

import icesql

ALL_TYPES = (
    "id INT, c_bool BOOLEAN, c_int INT, c_long BIGINT, c_float FLOAT, c_double DOUBLE,"
    " c_dec9 DECIMAL(9,2), c_dec18 DECIMAL(18,6), c_dec38 DECIMAL(38,10), c_date DATE,"
    " c_ts TIMESTAMP, c_ts_ntz TIMESTAMP_NTZ, c_string STRING, c_binary BINARY,"
    " st STRUCT<a: INT, b: STRING>, arr ARRAY<INT>, m MAP<STRING, DOUBLE>"
)

ALL_TYPES_ROWS = [
    """(1, true, 1, 100, CAST(1.5 AS FLOAT), 2.25, 12.34, 123.456789,
        CAST('1234567890.0123456789' AS DECIMAL(38,10)), DATE '2024-01-15',
        TIMESTAMP '2024-01-15 10:30:00.123456', TIMESTAMP_NTZ '2024-01-15 10:30:00.123456',
        'hello', X'0102', named_struct('a', 1, 'b', 'x'), array(1, 2, NULL), map('k', 1.5))""",
    """(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL)""",
    """(3, false, -2147483648, -9223372036854775808, CAST('NaN' AS FLOAT), CAST('-Infinity' AS DOUBLE),
        -9999999.99, -0.000001, CAST('-0.0000000001' AS DECIMAL(38,10)), DATE '1969-12-31',
        TIMESTAMP '1969-12-31 23:59:59.999999', TIMESTAMP_NTZ '1900-02-28 12:34:56',
        'abcdefghijklmnopqrstuvwxyz ünïcödé ✓', X'FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF',
        named_struct('a', NULL, 'b', '日本語'), array(), map())""",
    """(4, true, 2147483647, 9223372036854775807, CAST('Infinity' AS FLOAT), CAST('NaN' AS DOUBLE),
        9999999.99, 999999999999.999999, CAST('9999999999999999999999999999.9999999999' AS DECIMAL(38,10)),
        DATE '9999-12-31', TIMESTAMP '9999-12-31 23:59:59.999999',
        TIMESTAMP_NTZ '0001-01-02 00:00:00', '', X'', NULL, array(-1), map('a', CAST('NaN' AS DOUBLE)))""",
]

TRANSFORM_COLUMNS = (
    "id INT, l BIGINT, s STRING, n INT, d DATE, ts TIMESTAMP, tsn TIMESTAMP_NTZ,"
    " dec DECIMAL(10,2), b BINARY, flag BOOLEAN"
)
TRANSFORM_ROWS = """
  (1, 10, 'apple', 5, DATE '2024-01-15', TIMESTAMP '2024-01-15 10:30:00', TIMESTAMP_NTZ '2024-01-15 10:30:00', 12.34, X'0102', true),
  (2, -10, 'apricot', 15, DATE '2024-02-29', TIMESTAMP '2024-02-29 23:59:59', TIMESTAMP_NTZ '2024-02-29 23:59:59', -12.34, X'FF', false),
  (3, 0, 'banana', -5, DATE '1969-12-31', TIMESTAMP '1969-12-31 23:00:00', TIMESTAMP_NTZ '1969-12-31 23:00:00', 0.01, X'', true),
  (4, 9223372036854775807, 'blueberry', -15, DATE '1960-06-01', TIMESTAMP '1960-06-01 00:00:01', TIMESTAMP_NTZ '1960-06-01 00:00:01', -0.01, X'00', NULL),
  (-6, -9223372036854775808, 'ch', -10, DATE '1900-01-01', TIMESTAMP '1900-01-01 12:00:00', TIMESTAMP_NTZ '1900-01-01 12:00:00', 9999999.99, X'0102030405', false),
  (7, 7, '', 99, DATE '2000-12-31', TIMESTAMP '2000-12-31 23:59:59.999999', TIMESTAMP_NTZ '2000-12-31 23:59:59.999999', -9999999.99, X'CAFE', true),
  (8, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (9, 123456789012, 'ünïcödé ✓', -1, DATE '1969-01-01', TIMESTAMP '1969-12-31 23:59:59.999999', TIMESTAMP_NTZ '1969-12-31 23:59:59.999999', 5.00, X'7F', false),
  (10, -1, '日本語', 10, DATE '2024-01-16', TIMESTAMP '2024-01-15 11:00:00', TIMESTAMP_NTZ '2024-01-15 11:00:00', 5.05, X'80', true)
"""

TRANSFORMS = {
    "identity_int": "n",
    "identity_string": "s",
    "identity_date": "d",
    "identity_long": "l",
    "identity_bool": "flag",
    "identity_decimal": "dec",
    "identity_ts": "ts",
    "bucket_int": "bucket(8, id)",
    "bucket_long": "bucket(16, l)",
    "bucket_string": "bucket(4, s)",
    "bucket_date": "bucket(3, d)",
    "bucket_ts": "bucket(5, ts)",
    "bucket_decimal": "bucket(6, dec)",
    "bucket_binary": "bucket(4, b)",
    "truncate_string": "truncate(3, s)",
    "truncate_int": "truncate(10, n)",
    "truncate_long": "truncate(1000, l)",
    "truncate_decimal": "truncate(100, dec)",
    "truncate_binary": "truncate(2, b)",
    "years_ts": "years(ts)",
    "months_ts": "months(ts)",
    "days_ts": "days(ts)",
    "hours_ts": "hours(ts)",
    "years_date": "years(d)",
    "months_date": "months(d)",
    "days_date": "days(d)",
    "hours_ntz": "hours(tsn)",
    "days_ntz": "days(tsn)",
    "two_fields": "days(ts), bucket(4, id)",
    "three_fields": "truncate(2, s), months(d), bucket(2, l)",
}

# no shuffle before the write, one open file per partition: Spark's one task writes what
# icesql writes (one file per partition per INSERT)
ONE_TASK = "'write.distribution-mode' = 'none', 'write.spark.fanout.enabled' = 'true'"
# columns of Spark's `files` table that legitimately differ between two writers
WRITER_SPECIFIC = {
    "file_path",
    "file_size_in_bytes",
    "column_sizes",
    "split_offsets",
    "readable_metrics",
}


def _fresh_namespace(spark, con, name: str) -> str:
    """A namespace of this test's own, created by icesql (dropped first if a rerun left it)."""
    ns = f"w_{name}"
    con.execute(f"DROP NAMESPACE IF EXISTS {ns} CASCADE")
    con.execute(f"CREATE NAMESPACE {ns}")
    return ns


def spark_insert(spark, table: str, columns: str, rows: str) -> None:
    """Spark appends ``rows`` from a single task, so it writes one file per partition like
    icesql does (a plain INSERT of VALUES spreads rows over ``local[2]``'s two tasks)."""
    names = ", ".join(c.strip().split()[0] for c in _split_columns(columns))
    spark.sql(f"SELECT * FROM VALUES {rows} AS v({names})").coalesce(1).writeTo(table).append()


def _split_columns(columns: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, ch in enumerate(columns):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(columns[start:i])
            start = i + 1
    out.append(columns[start:])
    return out


def _files(spark, table: str) -> list[tuple]:
    spark.sql(f"REFRESH TABLE {table}")
    columns = [c for c in spark.table(f"{table}.files").columns if c not in WRITER_SPECIFIC]
    return [
        tuple(r) for r in spark.sql(f"SELECT {', '.join(columns)} FROM {table}.files").collect()
    ]


def assert_same_files(ours: list[tuple], theirs: list[tuple], context: str) -> None:
    """Equal multisets of file rows; on failure, name the fields that differ."""
    a, b = sorted(ours, key=repr), sorted(theirs, key=repr)
    if list(map(repr, a)) == list(map(repr, b)):
        return
    lines = [f"files differ ({context}): icesql {len(a)} vs Spark {len(b)}"]
    for x, y in zip(a, b):
        for i, (u, v) in enumerate(zip(x, y)):
            if repr(u) != repr(v):
                lines.append(f"  column {i}: icesql {u!r}\n             Spark  {v!r}")
    raise AssertionError("\n".join(lines))


def _metadata(spark_warehouse: str, ns: str, table: str) -> dict:
    con = icesql.connect(spark_warehouse)
    try:
        return dict(con.catalog.load_table((ns, table)).metadata.raw)
    finally:
        con.close()


@pytest.mark.parametrize("version", [1, 2, 3])
def test_spark_reads_every_type(spark, spark_warehouse, con, version):
    ns = _fresh_namespace(spark, con, f"types_v{version}")
    props = f"TBLPROPERTIES ('format-version' = '{version}')"
    con.execute(f"CREATE TABLE {ns}.t ({ALL_TYPES}) USING iceberg {props}")
    spark.sql(
        f"CREATE TABLE {ns}.twin ({ALL_TYPES}) USING iceberg"
        f" TBLPROPERTIES ('format-version' = '{version}', {ONE_TASK})"
    )
    for rows in (ALL_TYPES_ROWS[:2], ALL_TYPES_ROWS[2:]):
        con.execute(f"INSERT INTO {ns}.t VALUES " + ", ".join(rows))
        # one task, hence one file, as icesql writes (Spark would split two rows over two)
        spark_insert(spark, f"{ns}.twin", ALL_TYPES, ", ".join(rows))

    spark.sql(f"REFRESH TABLE {ns}.t")
    expected = spark.sql(f"SELECT * FROM {ns}.twin").collect()
    assert_same_rows(
        expected,
        spark.sql(f"SELECT * FROM {ns}.t").collect(),
        ordered=False,
        context="Spark reading icesql's table vs Spark's twin",
    )
    assert_same_rows(
        expected,
        con.execute(f"SELECT * FROM {ns}.t").fetchall(),
        ordered=False,
        context="icesql reading its own table",
    )
    # the same files, metrics and bounds as Spark writes (one file per INSERT on both sides)
    assert_same_files(_files(spark, f"{ns}.t"), _files(spark, f"{ns}.twin"), f"v{version}")

    snapshots = spark.sql(
        f"SELECT operation, summary FROM {ns}.t.snapshots ORDER BY committed_at"
    ).collect()
    assert [s.operation for s in snapshots] == ["append", "append"]
    assert [s.summary["added-records"] for s in snapshots] == ["2", "2"]
    assert [s.summary["total-records"] for s in snapshots] == ["2", "4"]
    assert [s.summary["total-data-files"] for s in snapshots] == ["1", "2"]
    assert snapshots[1].summary["engine-name"] == "icesql"
    md = _metadata(spark_warehouse, ns, "t")
    assert md["format-version"] == version
    if version == 3:
        lineage = f"SELECT id, _row_id, _last_updated_sequence_number FROM {ns}.%s ORDER BY id"
        assert spark.sql(lineage % "t").collect() == spark.sql(lineage % "twin").collect()
        assert md["next-row-id"] == 4
        assert [s["first-row-id"] for s in md["snapshots"]] == [0, 2]


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_every_transform_partitions_like_spark(spark, spark_warehouse, con, name):
    ns = _fresh_namespace(spark, con, f"part_{name}")
    ddl = f"({TRANSFORM_COLUMNS}) USING iceberg PARTITIONED BY ({TRANSFORMS[name]})"
    con.execute(f"CREATE TABLE {ns}.t {ddl}")
    spark.sql(f"CREATE TABLE {ns}.twin {ddl} TBLPROPERTIES ({ONE_TASK})")
    con.execute(f"INSERT INTO {ns}.t VALUES {TRANSFORM_ROWS}")
    spark_insert(spark, f"{ns}.twin", TRANSFORM_COLUMNS, TRANSFORM_ROWS)

    spark.sql(f"REFRESH TABLE {ns}.t")
    assert_same_rows(
        spark.sql(f"SELECT * FROM {ns}.twin").collect(),
        spark.sql(f"SELECT * FROM {ns}.t").collect(),
        ordered=False,
        context=name,
    )
    assert_same_files(_files(spark, f"{ns}.t"), _files(spark, f"{ns}.twin"), name)

    # the same partition folders as Spark's, under data/
    def folders(table: str) -> list[str]:
        paths = spark.sql(f"SELECT file_path FROM {ns}.{table}.files").collect()
        return sorted(
            p.file_path.split(f"/{ns}/{table}/data/", 1)[1].rsplit("/", 1)[0] for p in paths
        )

    if name != "identity_ts":
        # identity(timestamptz) folders differ: Iceberg 1.10 prints 12:00:00+00:00 where
        # icesql.spec.values.human_string (Java <= 1.9) prints 12:00Z; names only
        assert folders("t") == folders("twin")
    # icesql reads back what Spark wrote with the same spec
    assert_same_rows(
        spark.sql(f"SELECT * FROM {ns}.twin").collect(),
        con.execute(f"SELECT * FROM {ns}.twin").fetchall(),
        ordered=False,
        context=f"icesql reading Spark's {name}",
    )


def test_snapshot_summaries_and_files_agree(spark, spark_warehouse, con):
    ns = _fresh_namespace(spark, con, "summaries")
    con.execute(
        f"CREATE TABLE {ns}.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (bucket(4, id))"
    )
    con.execute(f"CREATE TABLE {ns}.src (id BIGINT) USING iceberg")
    con.execute(f"INSERT INTO {ns}.src VALUES " + ", ".join(f"({i})" for i in range(100)))
    con.execute(f"INSERT INTO {ns}.t SELECT id, CAST(id AS STRING) FROM {ns}.src")
    con.execute(f"INSERT INTO {ns}.t VALUES (1000, 'x')")
    spark.sql(f"REFRESH TABLE {ns}.t")
    md = _metadata(spark_warehouse, ns, "t")
    snaps = {s["snapshot-id"]: s for s in md["snapshots"]}
    rows = spark.sql(
        f"SELECT snapshot_id, parent_id, operation, summary FROM {ns}.t.snapshots"
    ).collect()
    assert {r.snapshot_id for r in rows} == set(snaps)
    for r in rows:
        ours = snaps[r.snapshot_id]
        assert r.parent_id == ours.get("parent-snapshot-id")
        assert r.operation == ours["summary"]["operation"] == "append"
        assert r.summary == {k: v for k, v in ours["summary"].items() if k != "operation"}
    files = spark.sql(f"SELECT partition.id_bucket AS b, record_count FROM {ns}.t.files").collect()
    assert sum(f.record_count for f in files) == 101
    last = snaps[md["current-snapshot-id"]]["summary"]
    assert last["total-records"] == "101" and last["added-records"] == "1"
    assert int(last["total-data-files"]) == len(files)
    assert spark.sql(f"SELECT count(*) FROM {ns}.t").collect()[0][0] == 101
    history = spark.sql(f"SELECT count(*) FROM {ns}.t.history").collect()[0][0]
    assert history == 2


def test_spark_keeps_writing_tables_icesql_created(spark, con):
    ns = _fresh_namespace(spark, con, "spark_writes")
    con.execute(
        f"CREATE TABLE {ns}.t (id BIGINT NOT NULL, s STRING, ts TIMESTAMP) USING iceberg"
        " PARTITIONED BY (bucket(4, id), hours(ts)) TBLPROPERTIES ('format-version'='3')"
    )
    con.execute(f"ALTER TABLE {ns}.t WRITE ORDERED BY s DESC, id")
    con.execute(
        f"INSERT INTO {ns}.t VALUES (1, 'b', TIMESTAMP '2024-01-01 10:00:00'), (2, 'a', NULL)"
    )
    spark.sql(f"INSERT INTO {ns}.t VALUES (3, 'c', TIMESTAMP '2024-01-01 10:30:00')")
    con.execute(f"INSERT INTO {ns}.t VALUES (4, 'd', TIMESTAMP '2024-01-01 11:00:00')")
    spark.sql(f"REFRESH TABLE {ns}.t")
    assert_same_rows(
        spark.sql(f"SELECT * FROM {ns}.t").collect(),
        con.execute(f"SELECT * FROM {ns}.t").fetchall(),
        ordered=False,
        context="alternating writers",
    )
    # icesql's files are sorted by the table's order 1 and say so (Spark's own file says 0)
    orders = spark.sql(
        f"SELECT e.data_file.sort_order_id AS o FROM {ns}.t.entries e JOIN {ns}.t.snapshots s"
        " ON e.snapshot_id = s.snapshot_id WHERE s.summary['engine-name'] = 'icesql'"
    ).collect()
    assert len(orders) == 3 and {r.o for r in orders} == {1}
    lineage = [r._row_id for r in spark.sql(f"SELECT _row_id FROM {ns}.t").collect()]
    assert sorted(lineage) == [0, 1, 2, 3]


def _read_through_hadoop(spark, path: str) -> str:
    """``path`` as Spark's own file system reads it: Hadoop's local file system checks the
    file's ``.crc`` sidecar and raises ``ChecksumException`` when it is stale."""
    jvm = spark._jvm
    hadoop_path = jvm.org.apache.hadoop.fs.Path(f"file:{path}")
    stream = hadoop_path.getFileSystem(spark._jsc.hadoopConfiguration()).open(hadoop_path)
    try:
        return jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8")
    finally:
        stream.close()


def test_icesql_leaves_no_stale_checksum_beside_sparks_files(spark, spark_warehouse, con):
    ns = _fresh_namespace(spark, con, "crc")
    spark.sql(f"CREATE TABLE {ns}.t (id INT) USING iceberg")
    spark.sql(f"INSERT INTO {ns}.t VALUES (1)")
    metadata = Path(spark_warehouse, ns, "t", "metadata")
    assert (metadata / ".version-hint.text.crc").exists()  # Spark's, checked on every read
    con.execute(f"INSERT INTO {ns}.t VALUES (2)")
    con.execute(f"INSERT OVERWRITE {ns}.t VALUES (3)")
    hint = (metadata / "version-hint.text").read_text()
    assert _read_through_hadoop(spark, str(metadata / "version-hint.text")) == hint
    spark.sql(f"REFRESH TABLE {ns}.t")
    assert [r.id for r in spark.sql(f"SELECT id FROM {ns}.t").collect()] == [3]
    # icesql's expiry deletes Spark's files as Hadoop does: with their sidecars
    con.execute(f"CALL system.expire_snapshots(table => '{ns}.t', retain_last => 1)")
    table = Path(spark_warehouse, ns, "t")
    sidecars = [p for p in table.rglob(".*.crc") if not p.with_name(p.name[1:-4]).exists()]
    assert sidecars == []
    spark.sql(f"INSERT INTO {ns}.t VALUES (4)")  # and Spark goes on writing it
    assert _read_through_hadoop(spark, str(metadata / "version-hint.text")) == str(int(hint) + 1)


def test_ctas_rtas_and_gzip_metadata(spark, spark_warehouse, con):
    ns = _fresh_namespace(spark, con, "ctas")
    con.execute(f"CREATE TABLE {ns}.src (id BIGINT, s STRING) USING iceberg")
    con.execute(f"INSERT INTO {ns}.src VALUES (1, 'a'), (2, 'b'), (3, NULL)")
    con.execute(
        f"CREATE TABLE {ns}.t USING iceberg PARTITIONED BY (s)"
        " TBLPROPERTIES ('write.metadata.compression-codec'='gzip')"
        f" AS SELECT id, s FROM {ns}.src WHERE id < 3"
    )
    assert con.catalog.load_table((ns, "t")).metadata_location.endswith("v1.gz.metadata.json")
    assert sorted(spark.sql(f"SELECT id FROM {ns}.t").collect()) == [(1,), (2,)]
    con.execute(
        f"CREATE OR REPLACE TABLE {ns}.t USING iceberg AS SELECT s, id * 10 AS x FROM {ns}.src"
    )
    spark.sql(f"REFRESH TABLE {ns}.t")
    assert sorted(map(tuple, spark.sql(f"SELECT * FROM {ns}.t").collect()), key=repr) == sorted(
        [("a", 10), ("b", 20), (None, 30)], key=repr
    )
    ops = [
        r.operation
        for r in spark.sql(
            f"SELECT operation FROM {ns}.t.snapshots ORDER BY committed_at"
        ).collect()
    ]
    assert ops == ["append", "overwrite"]
    con.execute(f"REPLACE TABLE {ns}.t USING iceberg AS SELECT id FROM {ns}.src WHERE id > 1")
    spark.sql(f"REFRESH TABLE {ns}.t")
    assert sorted(spark.sql(f"SELECT * FROM {ns}.t").collect()) == [(2,), (3,)]
    assert spark.sql(f"SELECT count(*) FROM {ns}.t.snapshots").collect() == [(3,)]


def test_uuid_and_fixed_types(spark, con):
    """Types Spark cannot declare but reads: uuid as string, fixed as binary (a table with a
    ``time`` column Spark cannot read at all: 'Spark does not support time fields')."""
    ns = _fresh_namespace(spark, con, "extra_types")
    con.execute(f"CREATE TABLE {ns}.t (id INT, u UUID, fx FIXED(4)) USING iceberg")
    con.execute(
        f"INSERT INTO {ns}.t VALUES (1, 'f79c3e09-677c-4d5f-9e49-6f9b0f3e5a21', X'01020304'),"
        " (2, NULL, NULL)"
    )
    rows = spark.sql(f"SELECT id, u, fx FROM {ns}.t ORDER BY id").collect()
    assert (
        rows[0].u == "f79c3e09-677c-4d5f-9e49-6f9b0f3e5a21"
        and bytes(rows[0].fx) == b"\x01\x02\x03\x04"
    )
    assert rows[1].u is None
    with pytest.raises(icesql.DataError, match="fixed\\(4\\)"):
        con.execute(f"INSERT INTO {ns}.t VALUES (3, NULL, X'01')")


def test_spark_reads_a_file_of_row_groups_encoded_at_once(spark, con):
    """Row groups of one file encoded in parallel and stitched into it (``parquet_stitch``):
    Spark reads every row group, with the split offsets and metrics icesql recorded."""
    ns = _fresh_namespace(spark, con, "row_groups")
    con.execute(
        f"CREATE TABLE {ns}.t (id BIGINT, d DECIMAL(20, 3), ts TIMESTAMP, ntz TIMESTAMP_NTZ,"
        " s STRING, day DATE, x DOUBLE, l ARRAY<INT>, st STRUCT<a: INT, b: STRING>) USING iceberg"
        " TBLPROPERTIES ('write.parquet.row-group-size-bytes'='65536')"
    )
    con.execute(
        f"INSERT INTO {ns}.t SELECT id, CAST(id AS DECIMAL(20, 3)) / 8, timestamp_micros(id * 1000003),"
        " CAST(timestamp_micros(id * 999) AS TIMESTAMP_NTZ), concat('s', CAST(id % 1000 AS STRING)),"
        " date_add(DATE '2020-01-01', CAST(id % 1000 AS INT)),"
        " CASE WHEN id % 17 = 0 THEN double('NaN') ELSE id / 3.0 END, array(CAST(id AS INT), NULL),"
        " named_struct('a', CAST(id AS INT), 'b', CAST(id AS STRING)) FROM range(60000)"
    )
    spark.sql(f"REFRESH TABLE {ns}.t")
    # (file_size_in_bytes selected too: Java drops split offsets not below the file size,
    # which it compares with 0 when the size is not projected)
    files = spark.sql(
        f"SELECT record_count, file_size_in_bytes, split_offsets FROM {ns}.t.files"
    ).collect()
    assert len(files) == 1 and files[0].record_count == 60000
    assert len(files[0].split_offsets) > 10
    summary = (
        "SELECT count(*), sum(id), sum(d), count(DISTINCT ts), max(ntz), min(day), max(s),"
        " sum(CASE WHEN isnan(x) THEN 1 ELSE 0 END), sum(size(l)), sum(st.a), max(st.b)"
        " FROM {t}"
    )
    theirs = spark.sql(summary.format(t=f"{ns}.t")).collect()
    assert_same_rows(
        theirs,
        con.execute(summary.format(t=f"{ns}.t")).fetchall(),
        ordered=True,
        context="Spark vs icesql over a stitched file",
    )
    assert theirs[0][0] == 60000 and theirs[0][7] == 3530
    sample = f"SELECT * FROM {ns}.t WHERE id % 997 = 0 OR id BETWEEN 30000 AND 30005"
    assert_same_rows(
        spark.sql(sample).collect(),
        con.execute(sample).fetchall(),
        ordered=False,
        context="Spark reading sampled rows of every row group",
    )
    # Spark's pruning by the file's metrics (a wrong bound would lose rows)
    assert spark.sql(f"SELECT count(*) FROM {ns}.t WHERE id >= 59990").collect()[0][0] == 10
