"""CREATE / DROP: the metadata Spark's catalog would write (SHOW / DESCRIBE: test_show.py)."""

from __future__ import annotations

import json

import pytest

import icesql
from icesql.errors import NoSuchTableError


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE NAMESPACE db")
    yield connection
    connection.close()


def _raw(con, name="t") -> dict:
    return dict(con.catalog.load_table(("db", name)).metadata.raw)


def test_create_table_ids_specs_and_properties_like_spark(con):
    con.execute(
        "CREATE TABLE db.t (id BIGINT NOT NULL COMMENT 'the id', s STRING, ts TIMESTAMP,"
        " st STRUCT<a: INT NOT NULL, b: STRING>, arr ARRAY<STRUCT<x: INT, y: DOUBLE>>,"
        " m MAP<STRING, INT>) USING iceberg"
        " PARTITIONED BY (bucket(4, id), days(ts), truncate(2, s), bucket(2, st.a), truncate(3, st.b), s)"
        " TBLPROPERTIES ('format-version'='2', 'foo'='bar') COMMENT 'orders'"
    )
    raw = _raw(con)
    fields = raw["schemas"][0]["fields"]
    assert [(f["id"], f["name"]) for f in fields] == [
        (1, "id"),
        (2, "s"),
        (3, "ts"),
        (4, "st"),
        (5, "arr"),
        (6, "m"),
    ]
    assert fields[0] == {"id": 1, "name": "id", "required": True, "type": "long", "doc": "the id"}
    assert [f["id"] for f in fields[3]["type"]["fields"]] == [7, 8]
    assert fields[4]["type"]["element-id"] == 9
    assert [f["id"] for f in fields[4]["type"]["element"]["fields"]] == [10, 11]
    assert (fields[5]["type"]["key-id"], fields[5]["type"]["value-id"]) == (12, 13)
    assert fields[2]["type"] == "timestamptz"
    assert raw["last-column-id"] == 13
    spec = raw["partition-specs"][0]["fields"]
    assert [(f["name"], f["transform"], f["field-id"]) for f in spec] == [
        ("id_bucket", "bucket[4]", 1000),
        ("ts_day", "day", 1001),
        ("s_trunc", "truncate[2]", 1002),
        ("st.a_bucket", "bucket[2]", 1003),
        ("st.b_trunc", "truncate[3]", 1004),
        ("s", "identity", 1005),
    ]
    assert raw["last-partition-id"] == 1005
    assert raw["properties"]["foo"] == "bar" and raw["properties"]["comment"] == "orders"
    assert raw["properties"]["write.parquet.compression-codec"] == "zstd"
    assert "format-version" not in raw["properties"]
    assert raw["format-version"] == 2 and raw["current-snapshot-id"] == -1


@pytest.mark.parametrize("version", [1, 2, 3])
def test_format_versions(con, version):
    con.execute(
        f"CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES ('format-version'='{version}')"
    )
    raw = _raw(con)
    assert raw["format-version"] == version
    assert ("next-row-id" in raw) == (version == 3)
    assert ("schema" in raw) == (version == 1)


@pytest.mark.parametrize(
    ("ddl", "error", "pattern"),
    [
        (
            "CREATE TABLE db.t (a INT) USING iceberg TBLPROPERTIES ('format-version'='4')",
            icesql.ProgrammingError,
            "format-version '4'",
        ),
        (
            "CREATE TABLE db.t (a INT) USING iceberg LOCATION '/elsewhere'",
            icesql.ProgrammingError,
            "custom location",
        ),
        ("CREATE TABLE db.t (a INT) USING parquet", icesql.NotSupportedError, "USING parquet"),
        (
            "CREATE TABLE db.t (a INT, A STRING) USING iceberg",
            icesql.ProgrammingError,
            "appears twice",
        ),
        (
            "CREATE TABLE db.t (a INT) USING iceberg PARTITIONED BY (bucket(4, b))",
            icesql.ProgrammingError,
            "no such column",
        ),
        (
            "CREATE TABLE db.t (a STRING) USING iceberg PARTITIONED BY (days(a))",
            icesql.ProgrammingError,
            "day does not apply to string",
        ),
        (
            "CREATE TABLE db.t (a INT) USING iceberg PARTITIONED BY (wrong(a))",
            icesql.ProgrammingError,
            "unknown partition transform",
        ),
        (
            "CREATE TABLE db.t (a INT) USING iceberg TBLPROPERTIES ('current-snapshot-id'='1')",
            icesql.ProgrammingError,
            "reserved",
        ),
        (
            "CREATE TABLE db.t USING iceberg AS SELECT NULL AS x",
            icesql.ProgrammingError,
            "has no type",
        ),
        # v3 types on older versions, refused as Java's Schema.checkCompatibility does
        (
            "CREATE TABLE db.t (a TIMESTAMP_NS) USING iceberg",
            icesql.ProgrammingError,
            "column 'a' of type timestamp_ns needs format-version 3",
        ),
        (
            "CREATE TABLE db.t (a INT, s STRUCT<b: TIMESTAMPTZ_NS>) USING iceberg TBLPROPERTIES"
            " ('format-version'='1')",
            icesql.ProgrammingError,
            "column 's.b' of type timestamptz_ns needs format-version 3",
        ),
        (
            "CREATE TABLE db.t (id INT, g GEOMETRY) USING iceberg",
            icesql.ProgrammingError,
            "column 'g' of type geometry needs format-version 3",
        ),
        (
            "CREATE TABLE db.t (m MAP<STRING, GEOGRAPHY>) USING iceberg",
            icesql.ProgrammingError,
            r"column 'm\.value' of type geography needs format-version 3",
        ),
        (
            "CREATE TABLE db.t (v VARIANT) USING iceberg",
            icesql.ProgrammingError,
            "column 'v' of type variant needs format-version 3",
        ),
    ],
)
def test_bad_create_statements(con, ddl, error, pattern):
    with pytest.raises(error, match=pattern):
        con.execute(ddl)
    assert not con.catalog.table_exists(("db", "t"))


def test_if_not_exists_and_already_exists(con):
    con.execute("CREATE TABLE db.t (a INT) USING iceberg")
    con.execute("CREATE TABLE IF NOT EXISTS db.t (b STRING) USING iceberg")
    assert [f["name"] for f in _raw(con)["schemas"][0]["fields"]] == ["a"]
    with pytest.raises(icesql.ProgrammingError, match="TABLE_OR_VIEW_ALREADY_EXISTS.*db.t"):
        con.execute("CREATE TABLE db.t (b STRING) USING iceberg")


def test_ctas_creates_the_table_with_its_first_snapshot(con, tmp_path):
    con.execute("CREATE TABLE db.src (id BIGINT, s STRING) USING iceberg")
    con.execute("INSERT INTO db.src VALUES (1, 'a'), (2, 'b')")
    cur = con.execute(
        "CREATE TABLE db.t USING iceberg PARTITIONED BY (s) AS SELECT id, s, id * 1.5 AS x FROM db.src"
    )
    assert cur.rowcount == 2
    mdir = tmp_path / "db" / "t" / "metadata"
    assert sorted(p.name for p in mdir.glob("v*.metadata.json")) == ["v1.metadata.json"]
    raw = json.loads((mdir / "v1.metadata.json").read_text())
    assert len(raw["snapshots"]) == 1 and raw["metadata-log"] == []
    assert [(f["name"], f["required"]) for f in raw["schemas"][0]["fields"]] == [
        ("id", False),
        ("s", False),
        ("x", False),
    ]
    assert con.execute("SELECT * FROM db.t ORDER BY id").fetchall()[0][:2] == (1, "a")


def test_failed_ctas_leaves_no_table(con):
    con.execute("CREATE TABLE db.src (a INT) USING iceberg")
    con.execute("INSERT INTO db.src VALUES (1), (2)")
    with pytest.raises(icesql.DataError, match="Assertion failed"):
        con.execute(
            "CREATE TABLE db.t USING iceberg AS SELECT a, assert_true(a < 2) AS ok FROM db.src"
        )
    assert not con.catalog.table_exists(("db", "t"))


def test_create_or_replace_keeps_history_and_column_ids(con):
    con.execute("CREATE TABLE db.t USING iceberg AS SELECT 1 AS a, 'x' AS b")
    con.execute("CREATE OR REPLACE TABLE db.t USING iceberg AS SELECT 2 AS a, 'y' AS c")
    raw = _raw(con)
    current = next(s for s in raw["schemas"] if s["schema-id"] == raw["current-schema-id"])
    assert [(f["id"], f["name"]) for f in current["fields"]] == [(1, "a"), (3, "c")]
    assert raw["last-column-id"] == 3
    snaps = raw["snapshots"]
    assert len(snaps) == 2 and "parent-snapshot-id" not in snaps[1]
    assert (
        snaps[1]["summary"]["operation"] == "overwrite"
        and snaps[1]["summary"]["total-records"] == "1"
    )
    assert con.execute("SELECT * FROM db.t").fetchall() == [(2, "y")]
    con.execute("CREATE OR REPLACE TABLE db.t (z BIGINT) USING iceberg")
    raw = _raw(con)
    assert raw["current-snapshot-id"] == -1 and len(raw["snapshots"]) == 2
    assert con.execute("SELECT * FROM db.t").fetchall() == []


def test_replace_table_needs_the_table_and_keeps_its_history(con):
    """Spark's ``REPLACE TABLE`` is ``CREATE OR REPLACE`` for a table that exists."""
    with pytest.raises(NoSuchTableError, match=r"CANNOT_REPLACE_MISSING_TABLE.*db\.t"):
        con.execute("REPLACE TABLE db.t USING iceberg AS SELECT 1 AS a")
    assert not con.catalog.table_exists(("db", "t"))
    con.execute("CREATE TABLE db.t (a INT, b STRING) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1, 'x')")
    con.execute("REPLACE TABLE db.t USING iceberg PARTITIONED BY (c) AS SELECT 2 AS a, 'y' AS c")
    raw = _raw(con)
    current = next(s for s in raw["schemas"] if s["schema-id"] == raw["current-schema-id"])
    assert [(f["id"], f["name"]) for f in current["fields"]] == [(1, "a"), (3, "c")]
    spec = next(s for s in raw["partition-specs"] if s["spec-id"] == raw["default-spec-id"])
    assert [(f["source-id"], f["transform"]) for f in spec["fields"]] == [(3, "identity")]
    assert [s["summary"]["operation"] for s in raw["snapshots"]] == ["append", "overwrite"]
    assert con.execute("SELECT * FROM db.t").fetchall() == [(2, "y")]
    con.execute("REPLACE TABLE db.t (z BIGINT) USING iceberg")
    assert con.execute("SELECT * FROM db.t").fetchall() == []
    assert [d[0] for d in con.execute("SELECT * FROM db.t").description] == ["z"]


@pytest.mark.parametrize(
    "sql, pattern",
    [
        ("REPLACE db.t", r"at or near 'db': REPLACE must be followed by TABLE\."),
        ("REPLACE TABLE", r"Expected table name"),
    ],
)
def test_bad_replace_statements(con, sql, pattern):
    with pytest.raises(icesql.ProgrammingError, match=pattern):
        con.execute(sql)


def test_namespaces_and_drops(con):
    con.execute("CREATE DATABASE IF NOT EXISTS db")
    con.execute("CREATE SCHEMA other")
    assert con.execute("SHOW NAMESPACES").fetchall() == [("db",), ("other",)]
    assert con.execute("SHOW DATABASES LIKE 'o*'").fetchall() == [("other",)]
    with pytest.raises(icesql.ProgrammingError, match="SCHEMA_ALREADY_EXISTS"):
        con.execute("CREATE NAMESPACE other")
    con.execute("CREATE TABLE db.t (a INT) USING iceberg")
    con.execute("CREATE TABLE db.u (a INT) USING iceberg")
    assert con.execute("SHOW TABLES IN db").fetchall() == [("db", "t", False), ("db", "u", False)]
    assert con.execute("SHOW TABLES FROM db LIKE 'u'").fetchall() == [("db", "u", False)]
    with pytest.raises(icesql.ProgrammingError, match="not empty"):
        con.execute("DROP NAMESPACE db")
    con.execute("DROP TABLE db.u")
    con.execute("DROP TABLE IF EXISTS db.u")
    with pytest.raises(icesql.ProgrammingError, match="TABLE_OR_VIEW_NOT_FOUND.*db.u"):
        con.execute("DROP TABLE db.u")
    con.execute("DROP NAMESPACE db CASCADE")
    con.execute("DROP DATABASE IF EXISTS db")
    assert con.execute("SHOW NAMESPACES").fetchall() == [("other",)]


@pytest.mark.parametrize(
    ("ddl", "pattern"),
    [
        (
            "CREATE TABLE db.n (id INT, s STRING) USING iceberg PARTITIONED BY (bucket(4, id, s))",
            r"more than one column reference: bucket\(4, id, s\)",
        ),
        (
            "CREATE TABLE db.n (id INT) USING iceberg PARTITIONED BY (bucket(id, 4))",
            r"expected bucket\(N, column\)",
        ),
        (
            "CREATE TABLE db.n USING iceberg PARTITIONED BY (years(ts), months(ts)) AS SELECT TIMESTAMP'2024-01-01' AS ts",
            r"month\(ts\) \(partition field 'ts_month'\): redundant with 'ts_year'",
        ),
        (
            "CREATE OR REPLACE TABLE db.n USING iceberg PARTITIONED BY (days(ts), hours(ts)) AS SELECT TIMESTAMP'2024-01-01' AS ts",
            "redundant with 'ts_day'",
        ),
        (
            "CREATE TABLE db.n (b BOOLEAN) USING iceberg PARTITIONED BY (bucket(4, b))",
            r"bucket\[4\]\(b\) \(partition field 'b_bucket'\): bucket\[4\] does not apply to boolean",
        ),
    ],
)
def test_specs_spark_refuses_create_nothing(con, ddl, pattern):
    with pytest.raises(icesql.ProgrammingError, match=pattern):
        con.execute(ddl)
    assert not con.catalog.table_exists(("db", "n"))


def test_a_refused_replace_changes_nothing(con):
    con.execute("CREATE TABLE db.r (id INT, ts TIMESTAMP) USING iceberg PARTITIONED BY (days(ts))")
    before = _raw(con, "r")
    for ddl in [
        "REPLACE TABLE db.r (id INT, ts TIMESTAMP) USING iceberg PARTITIONED BY (years(ts), days(ts))",
        "CREATE OR REPLACE TABLE db.r USING iceberg PARTITIONED BY (truncate(2, ts)) AS SELECT TIMESTAMP'2024-01-01' AS ts",
    ]:
        with pytest.raises(icesql.ProgrammingError):
            con.execute(ddl)
        assert _raw(con, "r") == before


def test_geospatial_columns_in_the_schema_json_as_the_spec_writes_them(con):
    con.execute(
        "CREATE TABLE db.t (g GEOMETRY, g2 GEOMETRY('srid:4326'), h GEOGRAPHY,"
        " h2 GEOGRAPHY('srid:4326', 'spherical'), h3 GEOGRAPHY('OGC:CRS84', 'karney'),"
        " st STRUCT<p: GEOMETRY(3857)>) TBLPROPERTIES ('format-version'='3')"
    )
    fields = _raw(con)["schemas"][0]["fields"]
    assert [f["type"] for f in fields[:5]] == [
        "geometry",
        "geometry(srid:4326)",
        "geography",
        "geography(srid:4326)",
        "geography(OGC:CRS84, karney)",
    ]
    assert fields[5]["type"]["fields"][0]["type"] == "geometry(srid:3857)"
    # the spec's own examples parse back to the same types
    from icesql.spec.types import GeographyType, GeometryType, type_from_json

    assert type_from_json("geometry(srid:4326)") == GeometryType("srid:4326")
    assert type_from_json("geography(srid:4326, spherical)") == GeographyType("srid:4326")


@pytest.mark.parametrize("version", ["1", "2"])
def test_geospatial_columns_need_format_version_3(con, version):
    for column in ("g GEOMETRY", "g GEOGRAPHY('srid:4326')", "s STRUCT<g: GEOMETRY>"):
        with pytest.raises(icesql.ProgrammingError, match="needs? format-version 3"):
            con.execute(
                f"CREATE TABLE db.t ({column}) TBLPROPERTIES ('format-version'='{version}')"
            )
        assert not con.catalog.table_exists(("db", "t"))
    con.execute(f"CREATE TABLE db.t (id INT) TBLPROPERTIES ('format-version'='{version}')")
    with pytest.raises(icesql.ProgrammingError, match="needs? format-version 3"):
        con.execute("ALTER TABLE db.t ADD COLUMN g GEOMETRY")
    assert [f["name"] for f in _raw(con)["schemas"][-1]["fields"]] == ["id"]


def test_add_geospatial_columns_on_v3(con):
    con.execute("CREATE TABLE db.t (id INT) TBLPROPERTIES ('format-version'='3')")
    con.execute(
        "ALTER TABLE db.t ADD COLUMNS (g GEOMETRY('srid:3857'), h GEOGRAPHY('srid:4326', 'andoyer'))"
    )
    fields = _raw(con)["schemas"][-1]["fields"]
    assert [f["type"] for f in fields[1:]] == [
        "geometry(srid:3857)",
        "geography(srid:4326, andoyer)",
    ]


def test_nanosecond_timestamp_columns_on_v3(con):
    con.execute(
        "CREATE TABLE db.t (a TIMESTAMP_NS, b timestamptz_ns, c ARRAY<TIMESTAMPTZ_NS>)"
        " USING iceberg TBLPROPERTIES ('format-version'='3')"
    )
    fields = _raw(con)["schemas"][0]["fields"]
    assert [f["type"] for f in fields[:2]] == ["timestamp_ns", "timestamptz_ns"]
    assert fields[2]["type"]["element"] == "timestamptz_ns"
