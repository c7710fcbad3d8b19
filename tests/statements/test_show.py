"""SHOW NAMESPACES / TABLES / TBLPROPERTIES / CREATE TABLE and DESCRIBE [EXTENDED]: Spark's
rows and column names (Spark 3.5 with Iceberg), its ``LIKE`` patterns, the properties
``SparkTable`` derives, and the partition / sort-order terms as Spark writes them."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import NoSuchTableError
from icesql.spec.partitioning import PartitionField
from icesql.spec.schema import Schema
from icesql.spec.sorting import ASC, DESC, NULLS_FIRST, NULLS_LAST, SortField, SortOrder
from icesql.spec.transforms import parse_transform
from icesql.spec.types import DateType, LongType, NestedField, StringType, TimestampType
from icesql.statements.show import describe_sort_order, transform_sql


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE NAMESPACE db")
    yield connection
    connection.close()


def _columns(con, sql: str) -> list[str]:
    return [d[0] for d in con.execute(sql).description]


# -- SHOW NAMESPACES / TABLES ----------------------------------------------------------------


def test_show_namespaces_lists_children_of_a_parent(con) -> None:
    con.execute("CREATE NAMESPACE db.sub")
    con.execute("CREATE NAMESPACE db.other")
    con.execute("CREATE NAMESPACE zz")
    assert _columns(con, "SHOW NAMESPACES") == ["namespace"]
    assert con.execute("SHOW NAMESPACES").fetchall() == [("db",), ("zz",)]
    assert con.execute("SHOW NAMESPACES IN db").fetchall() == [("db.other",), ("db.sub",)]
    # the pattern matches the last part only
    assert con.execute("SHOW NAMESPACES IN db LIKE 'su*'").fetchall() == [("db.sub",)]


@pytest.mark.parametrize(
    "sql", ["SHOW NAMESPACES IN nope", "SHOW TABLES IN nope", "SHOW TABLES IN db.nope"]
)
def test_a_missing_namespace_is_named(con, sql) -> None:
    with pytest.raises(icesql.ProgrammingError, match=r"SCHEMA_NOT_FOUND.*nope"):
        con.execute(sql)


def test_show_tables_in_a_missing_current_namespace_says_how_to_choose_one(tmp_path) -> None:
    with icesql.connect(str(tmp_path)) as fresh:
        with pytest.raises(icesql.ProgrammingError, match=r"has no namespace yet\)$"):
            fresh.execute("SHOW TABLES")
        fresh.execute("CREATE TABLE sales.t (id INT) USING iceberg")
        fresh.execute("CREATE NAMESPACE hr")
        with pytest.raises(icesql.ProgrammingError) as info:
            fresh.execute("SHOW TABLES")
        assert str(info.value) == (
            "[SCHEMA_NOT_FOUND] namespace not found: default (the current namespace;"
            " catalog 'local' has hr, sales: SHOW TABLES IN hr, or USE hr)"
        )
        fresh.execute("USE sales")
        assert fresh.execute("SHOW TABLES").fetchall() == [("sales", "t", False)]


@pytest.mark.parametrize(
    ("pattern", "names"),
    [
        ("t*", ["t1", "t2"]),
        ("T1", ["t1"]),  # case-insensitive
        ("t1|u*", ["t1", "u_x"]),  # alternatives
        (" t1 | t2 ", ["t1", "t2"]),  # spaces around alternatives are ignored
        ("u.x", []),  # '.' is no wildcard
        ("*x", ["u_x"]),
        ("t", []),  # the whole name must match
    ],
)
def test_show_tables_like(con, pattern, names) -> None:
    for name in ("t1", "t2", "u_x"):
        con.execute(f"CREATE TABLE db.{name} (a INT) USING iceberg")
    got = con.execute(f"SHOW TABLES IN db LIKE '{pattern}'").fetchall()
    assert got == [("db", n, False) for n in names]


def test_show_tables_uses_the_default_namespace(con) -> None:
    con.execute("CREATE NAMESPACE default")
    con.execute("CREATE TABLE default.b (a INT) USING iceberg")
    con.execute("CREATE TABLE a (a INT) USING iceberg")
    assert _columns(con, "SHOW TABLES") == ["namespace", "tableName", "isTemporary"]
    assert con.execute("SHOW TABLES").fetchall() == [
        ("default", "a", False),
        ("default", "b", False),
    ]


# -- SHOW TBLPROPERTIES ------------------------------------------------------------------------


def test_tblproperties_add_what_spark_derives(con) -> None:
    con.execute(
        "CREATE TABLE db.t (id BIGINT NOT NULL, s STRING) USING iceberg"
        " TBLPROPERTIES ('format-version'='3', 'write.format.default'='AVRO', 'k'='v')"
    )
    props = dict(con.execute("SHOW TBLPROPERTIES db.t").fetchall())
    assert props["format"] == "iceberg/avro"
    assert props["format-version"] == "3" and props["current-snapshot-id"] == "none"
    assert props["k"] == "v"
    assert "sort-order" not in props and "identifier-fields" not in props
    con.execute("ALTER TABLE db.t WRITE ORDERED BY s DESC NULLS LAST, bucket(4, id)")
    con.execute("ALTER TABLE db.t SET IDENTIFIER FIELDS id")
    con.execute("INSERT INTO db.t VALUES (1, 'a')")
    snapshot = con.execute("SELECT snapshot_id FROM db.t.snapshots").fetchone()[0]
    rows = con.execute("SHOW TBLPROPERTIES db.t").fetchall()
    assert _columns(con, "SHOW TBLPROPERTIES db.t") == ["key", "value"]
    assert rows == sorted(rows)
    props = dict(rows)
    assert props["current-snapshot-id"] == str(snapshot)
    assert props["sort-order"] == "s DESC NULLS LAST, bucket(4, id) ASC NULLS FIRST"
    assert props["identifier-fields"] == "[id]"


def test_tblproperties_hide_reserved_and_catalog_properties(con) -> None:
    con.execute(
        "CREATE TABLE db.t (a INT) USING iceberg COMMENT 'c' TBLPROPERTIES ('owner'='me', 'x'='1')"
    )
    keys = {k for k, _ in con.execute("SHOW TBLPROPERTIES db.t").fetchall()}
    assert "x" in keys and not keys & {"owner", "comment", "provider", "location"}


def test_tblproperties_of_one_key(con) -> None:
    con.execute("CREATE TABLE db.t (a INT) USING iceberg TBLPROPERTIES ('x'='1')")
    assert con.execute("SHOW TBLPROPERTIES db.t ('x')").fetchall() == [("x", "1")]
    assert con.execute("SHOW TBLPROPERTIES db.t ('format')").fetchall() == [
        ("format", "iceberg/parquet")
    ]
    [(key, value)] = con.execute("SHOW TBLPROPERTIES db.t ('nope')").fetchall()
    assert key == "nope" and value.startswith("Table ") and "db.t" in value
    assert value.endswith("does not have property: nope")


@pytest.mark.parametrize(
    "sql",
    [
        "SHOW TBLPROPERTIES db.nope",
        "SHOW CREATE TABLE db.nope",
        "DESCRIBE db.nope",
        "DESCRIBE TABLE EXTENDED db.nope",
    ],
)
def test_a_missing_table_is_named(con, sql) -> None:
    with pytest.raises(icesql.ProgrammingError, match=r"TABLE_OR_VIEW_NOT_FOUND.*db\.nope"):
        con.execute(sql)


# -- partition and sort terms ------------------------------------------------------------------

SCHEMA = Schema(
    (
        NestedField(1, "id", LongType()),
        NestedField(2, "s", StringType()),
        NestedField(3, "ts", TimestampType()),
        NestedField(4, "d", DateType()),
    )
)


@pytest.mark.parametrize(
    ("source", "transform", "sql"),
    [
        (1, "identity", "id"),
        (1, "bucket[16]", "bucket(16, id)"),
        (2, "truncate[4]", "truncate(4, s)"),
        (3, "year", "years(ts)"),
        (4, "month", "months(d)"),
        (3, "day", "days(ts)"),
        (3, "hour", "hours(ts)"),
        (2, "void", "void(s)"),
        (99, "identity", "99"),  # a source column dropped since: its id
    ],
)
def test_transform_sql_is_spark_ddl(source, transform, sql) -> None:
    field = PartitionField(source, 1000, parse_transform(transform), "p")
    assert transform_sql(field, SCHEMA) == sql


def test_describe_sort_order_is_javas_spark3util_describe() -> None:
    order = SortOrder(
        1,
        (
            SortField(2, parse_transform("identity"), DESC, NULLS_FIRST),
            SortField(1, parse_transform("bucket[8]"), ASC, NULLS_LAST),
            SortField(3, parse_transform("day")),  # defaults: ASC NULLS FIRST
        ),
    )
    assert describe_sort_order(order, SCHEMA) == (
        "s DESC NULLS FIRST, bucket(8, id) ASC NULLS LAST, days(ts) ASC NULLS FIRST"
    )


# -- SHOW CREATE TABLE / DESCRIBE --------------------------------------------------------------


def test_show_create_table_quotes_comments_and_location(con) -> None:
    con.execute(
        "CREATE TABLE db.t (id BIGINT NOT NULL COMMENT 'it\\'s \\\\ here', s STRING)"
        " USING iceberg PARTITIONED BY (truncate(2, s)) COMMENT 'table\\'s'"
    )
    assert _columns(con, "SHOW CREATE TABLE db.t") == ["createtab_stmt"]
    (ddl,) = con.execute("SHOW CREATE TABLE db.t").fetchone()
    location = con.catalog.load_table(("db", "t")).metadata.location
    lines = ddl.splitlines()
    assert lines[:5] == [
        "CREATE TABLE local.db.t (",
        "  id BIGINT NOT NULL COMMENT 'it\\'s \\\\ here',",
        "  s STRING)",
        "USING iceberg",
        "PARTITIONED BY (truncate(2, s))",
    ]
    assert lines[5:8] == ["COMMENT 'table\\'s'", f"LOCATION '{location}'", "TBLPROPERTIES ("]
    assert ddl.endswith(")\n")
    # what it prints runs: the same columns, comments and partitioning
    before = con.execute("DESCRIBE db.t").fetchall()
    con.execute("DROP TABLE db.t")
    con.execute(ddl.replace("local.db.t", "db.t").split("LOCATION")[0])
    assert con.execute("DESCRIBE db.t").fetchall() == before
    assert con.execute("DESCRIBE db.t").fetchall()[0] == ("id", "bigint", "it's \\ here")


def test_describe_extended_metadata_columns_and_details(con) -> None:
    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (s)"
        " COMMENT 'hello' TBLPROPERTIES ('owner'='me')"
    )
    con.execute("ALTER TABLE db.t ADD PARTITION FIELD bucket(2, id)")
    con.execute("ALTER TABLE db.t DROP PARTITION FIELD s")
    rows = con.execute("DESCRIBE TABLE EXTENDED db.t").fetchall()
    assert _columns(con, "DESCRIBE EXTENDED db.t") == ["col_name", "data_type", "comment"]
    start = rows.index(("# Metadata Columns", "", ""))
    assert rows[:start] == [
        ("id", "bigint", None),
        ("s", "string", None),
        ("", "", ""),
        ("# Partitioning", "", ""),
        ("Part 0", "bucket(2, id)", ""),
        ("", "", ""),  # v2 drops the field from the spec
    ]
    meta = rows[start + 1 : start + 8]
    # _partition spans every spec's fields, the dropped one too (ALTER names it as Java's
    # UpdatePartitionSpec does: id_bucket_2)
    assert meta == [
        ("_spec_id", "int", ""),
        ("_partition", "struct<s:string,id_bucket_2:int>", ""),
        ("_file", "string", ""),
        ("_pos", "bigint", ""),
        ("_deleted", "boolean", ""),
        ("_row_id", "bigint", ""),
        ("_last_updated_sequence_number", "bigint", ""),
    ]
    details = {r[0]: r[1] for r in rows[start + 8 :]}
    location = con.catalog.load_table(("db", "t")).metadata.location
    assert details["Name"] == "local.db.t" and details["Type"] == "MANAGED"
    assert details["Location"] == location and details["Provider"] == "iceberg"
    assert details["Comment"] == "hello" and details["Owner"] == "me"
    assert details["Table Properties"].startswith("[current-snapshot-id=none,")
    assert "owner=" not in details["Table Properties"]
    assert con.execute("DESCRIBE FORMATTED db.t").fetchall() == rows


def test_describe_and_show_like_spark(con):
    con.execute(
        "CREATE TABLE db.t (id BIGINT NOT NULL COMMENT 'the id', st STRUCT<a: INT, b: STRING>,"
        " m MAP<STRING, INT>, ts TIMESTAMP, n TIMESTAMP_NTZ) USING iceberg PARTITIONED BY (bucket(4, id), days(ts))"
        " TBLPROPERTIES ('foo'='bar')"
    )
    rows = con.execute("DESCRIBE db.t").fetchall()
    assert rows == [
        ("id", "bigint", "the id"),
        ("st", "struct<a:int,b:string>", None),
        ("m", "map<string,int>", None),
        ("ts", "timestamp", None),
        ("n", "timestamp_ntz", None),
        ("", "", ""),
        ("# Partitioning", "", ""),
        ("Part 0", "bucket(4, id)", ""),
        ("Part 1", "days(ts)", ""),
    ]
    extended = dict((r[0], r[1]) for r in con.execute("DESCRIBE TABLE EXTENDED db.t").fetchall())
    assert extended["_partition"] == "struct<id_bucket:int,ts_day:date>"
    assert extended["Table Properties"] == (
        "[current-snapshot-id=none,foo=bar,format=iceberg/parquet,format-version=2,"
        "write.parquet.compression-codec=zstd]"
    )
    assert con.execute("SHOW TBLPROPERTIES db.t ('foo')").fetchall() == [("foo", "bar")]
    (ddl,) = con.execute("SHOW CREATE TABLE db.t").fetchone()
    assert ddl.startswith(
        "CREATE TABLE local.db.t (\n  id BIGINT NOT NULL COMMENT 'the id',\n  st STRUCT<a: INT, b: STRING>,"
    )
    assert "PARTITIONED BY (bucket(4, id), days(ts))\n" in ddl
    # what SHOW CREATE TABLE prints creates the same table again
    con.execute("DROP TABLE db.t")
    con.execute(ddl.replace("local.db.t", "db.t").split("TBLPROPERTIES")[0])
    assert con.execute("DESCRIBE db.t").fetchall() == rows


def test_describe_metadata_tables(con):
    """Spark's column names, types and docs (tests/interop/test_add_files_spark.py compares
    every metadata table with Spark's DESCRIBE); typed even while the table has no rows."""
    con.execute("CREATE TABLE db.m (id BIGINT, p INT) USING iceberg PARTITIONED BY (p)")
    assert con.execute("DESCRIBE db.m.history").fetchall() == [
        ("made_current_at", "timestamp", None), ("snapshot_id", "bigint", None),
        ("parent_id", "bigint", None), ("is_current_ancestor", "boolean", None),
    ]  # fmt: skip
    files = con.execute("DESCRIBE TABLE db.m.files").fetchall()
    assert files[0] == (
        "content",
        "int",
        "Contents of the file: 0=data, 1=position deletes, 2=equality deletes",
    )
    assert (
        "partition",
        "struct<p:int>",
        "Partition data tuple, schema based on the partition spec",
    ) in files
    extended = con.execute("DESCRIBE TABLE EXTENDED db.m.position_deletes").fetchall()
    assert ("partition.p", "int", None) in extended and (
        "_partition",
        "struct<p:int>",
        "",
    ) in extended
    assert ("Name", "local.db.m.position_deletes", "") in extended
    with pytest.raises(NoSuchTableError):
        con.execute("DESCRIBE db.nope.snapshots")


def test_describe_namespace_as_spark_shows_it(tmp_path):
    """Spark's DescribeNamespaceExec rows; the hadoop ones as Spark 3.5 + Iceberg 1.10 gave
    them for a namespace of a hadoop catalog (its only property is its folder)."""
    con = icesql.connect(
        catalog="sql", uri=f"sqlite:///{tmp_path}/c.db", warehouse=str(tmp_path / "w")
    )
    con.execute(
        "CREATE NAMESPACE n COMMENT 'sales' LOCATION '/data/n' WITH DBPROPERTIES ('b'='2', 'a'='1')"
    )
    assert con.execute("DESCRIBE NAMESPACE n").fetchall() == [
        ("Catalog Name", "local"),
        ("Namespace Name", "n"),
        ("Comment", "sales"),
        ("Location", "/data/n"),
    ]
    cur = con.execute("DESC DATABASE EXTENDED n")
    assert [d[0] for d in cur.description] == ["info_name", "info_value"]
    assert cur.fetchall()[-1] == ("Properties", "((a,1), (b,2))")
    with pytest.raises(icesql.ProgrammingError, match=r"\[SCHEMA_NOT_FOUND\] The schema `nope`"):
        con.execute("DESCRIBE NAMESPACE nope")
    hadoop = icesql.connect(str(tmp_path / "h"), create=True)
    hadoop.execute("CREATE NAMESPACE h1")
    assert hadoop.execute("DESCRIBE SCHEMA EXTENDED h1").fetchall() == [
        ("Catalog Name", "local"),
        ("Namespace Name", "h1"),
        ("Location", str(tmp_path / "h" / "h1")),
        ("Properties", ""),
    ]


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("location", "please use the LOCATION clause to specify it"),
        ("owner", "it will be set to the current user"),
    ],
)
def test_reserved_namespace_properties_are_refused_as_spark_does(tmp_path, key, why):
    con = icesql.connect(
        catalog="sql", uri=f"sqlite:///{tmp_path}/c.db", warehouse=str(tmp_path / "w")
    )
    with pytest.raises(
        icesql.NotSupportedError,
        match=rf"\[UNSUPPORTED_FEATURE.SET_NAMESPACE_PROPERTY\] .* {key} is a reserved namespace"
        f" property, {why}",
    ):
        con.execute(f"CREATE NAMESPACE n WITH DBPROPERTIES ('{key}' = 'x')")
    assert con.execute("SHOW NAMESPACES").fetchall() == []
