"""ALTER TABLE: ids, specs and orders as Java assigns them; errors that name the column."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

import icesql
from icesql.spec.types import TimestamptzNanoType

T = ("db", "t")


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute(
        "CREATE TABLE db.t (id BIGINT NOT NULL, s STRING, ts TIMESTAMP, dt DATE,"
        " st STRUCT<a: INT NOT NULL, b: STRING>, pts ARRAY<STRUCT<x: INT>>, f FLOAT, n INT,"
        " dec DECIMAL(9,2)) USING iceberg PARTITIONED BY (bucket(4, id), days(ts))"
    )
    connection.execute(
        "INSERT INTO db.t VALUES (1, 'a', TIMESTAMP '2024-01-01 00:00:00', DATE '2024-01-01',"
        " named_struct('a', 1, 'b', 'x'), array(named_struct('x', 1)), 1.5, 1, 1.25)"
    )
    yield connection
    connection.close()


def _md(con):
    return con.catalog.load_table(T).metadata


def _names(con) -> list[str]:
    return [f.name for f in _md(con).schema().fields]


def test_add_columns_assign_ids_after_last_column_id(con):
    assert _md(con).last_column_id == 13
    con.execute("ALTER TABLE db.t ADD COLUMN st.c INT COMMENT 'new' AFTER a")
    con.execute(
        "ALTER TABLE db.t ADD COLUMNS (z STRUCT<p: INT, q: ARRAY<STRING>> FIRST, pts.y DOUBLE)"
    )
    md = _md(con)
    schema = md.schema()
    assert schema.find_field_by_name("st.c").field_id == 14
    assert [f.name for f in schema.find_field_by_name("st").type.fields] == ["a", "c", "b"]
    assert schema.find_field_by_name("z").field_id == 15
    assert [f.field_id for f in schema.find_field_by_name("z").type.fields] == [16, 17]
    assert schema.find_field_by_name("z.q").type.element_id == 18
    assert schema.find_field_by_name("pts.y").field_id == 19
    assert md.last_column_id == 19 and _names(con)[0] == "z"
    # old files read the new columns as NULL
    assert con.execute("SELECT z, st.c, id FROM db.t").fetchall() == [(None, None, 1)]


def test_type_widening_only(con):
    con.execute("ALTER TABLE db.t ALTER COLUMN n TYPE BIGINT")
    con.execute("ALTER TABLE db.t ALTER COLUMN f TYPE DOUBLE")
    con.execute("ALTER TABLE db.t ALTER COLUMN dec TYPE DECIMAL(12,2)")
    con.execute("ALTER TABLE db.t ALTER COLUMN st.a TYPE BIGINT")
    assert con.execute("SELECT n, f, dec, st.a FROM db.t").fetchall()[0][:2] == (1, 1.5)
    version = con.catalog.current_version(T)[0]
    for sql, pattern in [
        ("ALTER TABLE db.t ALTER COLUMN s TYPE INT", "string -> int"),
        ("ALTER TABLE db.t ALTER COLUMN n TYPE INT", "long -> int"),
        (
            "ALTER TABLE db.t ALTER COLUMN dec TYPE DECIMAL(12,3)",
            r"decimal\(12,2\) -> decimal\(12,3\)",
        ),
        ("ALTER TABLE db.t ALTER COLUMN dt TYPE TIMESTAMP_NTZ", "date -> timestamp"),
        ("ALTER TABLE db.t ALTER COLUMN nope TYPE BIGINT", "'nope' does not exist"),
    ]:
        with pytest.raises(icesql.ProgrammingError, match=pattern):
            con.execute(sql)
    assert con.catalog.current_version(T)[0] == version


def test_rename_comment_nullability_and_order(con):
    con.execute("ALTER TABLE db.t RENAME COLUMN s TO label")
    con.execute("ALTER TABLE db.t RENAME COLUMN st.b TO bee")
    con.execute("ALTER TABLE db.t ALTER COLUMN label COMMENT 'a label'")
    con.execute("ALTER TABLE db.t ALTER COLUMN id DROP NOT NULL")
    con.execute("ALTER TABLE db.t ALTER COLUMN dt FIRST")
    con.execute("ALTER TABLE db.t ALTER COLUMN n AFTER dt")
    schema = _md(con).schema()
    assert _names(con) == ["dt", "n", "id", "label", "ts", "st", "pts", "f", "dec"]
    assert (
        schema.find_field_by_name("label").field_id == 2
        and schema.find_field_by_name("label").doc == "a label"
    )
    assert not schema.find_field_by_name("id").required
    assert schema.find_field_by_name("st.bee").field_id == 11
    assert con.execute("SELECT label, st.bee FROM db.t").fetchall() == [("a", "x")]
    with pytest.raises(icesql.ProgrammingError, match="optional -> required"):
        con.execute("ALTER TABLE db.t ALTER COLUMN label SET NOT NULL")
    with pytest.raises(icesql.ProgrammingError, match="a column of that name exists"):
        con.execute("ALTER TABLE db.t RENAME COLUMN label TO ts")


def test_drop_columns(con):
    con.execute("ALTER TABLE db.t DROP COLUMN st.b")
    con.execute("ALTER TABLE db.t DROP COLUMNS (f, n)")
    con.execute("ALTER TABLE db.t DROP COLUMN IF EXISTS nope")
    assert "f" not in _names(con) and [
        f.name for f in _md(con).schema().find_field_by_name("st").type.fields
    ] == ["a"]
    assert _md(con).last_column_id == 13
    with pytest.raises(icesql.ProgrammingError, match="source of partition field 'ts_day'"):
        con.execute("ALTER TABLE db.t DROP COLUMN ts")
    with pytest.raises(icesql.ProgrammingError, match="required column"):
        con.execute("ALTER TABLE db.t ADD COLUMN q INT NOT NULL")


def test_partition_evolution_names_and_ids(con):
    con.execute("ALTER TABLE db.t ADD PARTITION FIELD bucket(16, s)")
    con.execute("ALTER TABLE db.t ADD PARTITION FIELD truncate(4, s) AS s4")
    con.execute("ALTER TABLE db.t ADD PARTITION FIELD years(dt)")
    md = _md(con)
    assert [(f.name, f.field_id) for f in md.spec().fields] == [
        ("id_bucket", 1000),
        ("ts_day", 1001),
        ("s_bucket_16", 1002),
        ("s4", 1003),
        ("dt_year", 1004),
    ]
    con.execute("ALTER TABLE db.t DROP PARTITION FIELD id_bucket")
    con.execute("ALTER TABLE db.t REPLACE PARTITION FIELD ts_day WITH hours(ts)")
    md = _md(con)
    assert [(f.name, f.field_id) for f in md.spec().fields] == [
        ("s_bucket_16", 1002),
        ("s4", 1003),
        ("dt_year", 1004),
        ("ts_hour", 1005),
    ]
    con.execute("ALTER TABLE db.t ADD PARTITION FIELD bucket(4, id)")  # back again: its old id
    assert md.last_partition_id == 1005 and _md(con).spec().fields[-1].field_id == 1000
    for sql, pattern in [
        ("ALTER TABLE db.t ADD PARTITION FIELD hours(ts)", "already partitioned by hour"),
        (
            "ALTER TABLE db.t ADD PARTITION FIELD bucket(2, id, ts)",
            "more than one column reference",
        ),
        ("ALTER TABLE db.t DROP PARTITION FIELD nope", "no partition field nope"),
        ("ALTER TABLE db.t ADD PARTITION FIELD bucket(2, n) AS s", "a column of that name exists"),
    ]:
        with pytest.raises(icesql.ProgrammingError, match=pattern):
            con.execute(sql)
    con.execute(
        "INSERT INTO db.t (id, s, ts, dt, st, pts, f, n, dec) SELECT id + 1, s, ts, dt, st, pts, f, n, dec FROM db.t"
    )
    assert con.execute("SELECT count(*) FROM db.t").fetchone() == (2,)


def test_v1_dropped_partition_fields_become_void(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.v1 (id BIGINT, s STRING) USING iceberg PARTITIONED BY (s, bucket(2, id)) TBLPROPERTIES ('format-version'='1')"
    )
    con.execute("ALTER TABLE db.v1 DROP PARTITION FIELD s")
    spec = con.catalog.load_table(("db", "v1")).metadata.spec()
    assert [(f.name, str(f.transform), f.field_id) for f in spec.fields] == [
        ("s_1000", "void", 1000),
        ("id_bucket", "bucket[2]", 1001),
    ]
    con.execute("INSERT INTO db.v1 VALUES (1, 'a')")
    assert con.execute("SELECT * FROM db.v1").fetchall() == [(1, "a")]


def test_write_order_and_distribution(con):
    con.execute("ALTER TABLE db.t WRITE ORDERED BY s DESC NULLS LAST, bucket(4, id)")
    md = _md(con)
    assert md.default_sort_order_id == 1 and md.properties["write.distribution-mode"] == "range"
    assert str(md.sort_order()) == "[identity(2) DESC NULLS LAST, bucket[4](1) ASC NULLS FIRST]"
    con.execute("ALTER TABLE db.t WRITE LOCALLY ORDERED BY id")
    assert (
        _md(con).default_sort_order_id == 2
        and _md(con).properties["write.distribution-mode"] == "range"
    )
    con.execute("ALTER TABLE db.t WRITE DISTRIBUTED BY PARTITION")
    assert (
        _md(con).sort_order().is_unsorted()
        and _md(con).properties["write.distribution-mode"] == "hash"
    )
    con.execute("ALTER TABLE db.t WRITE UNORDERED")
    assert _md(con).properties["write.distribution-mode"] == "none"
    props = dict(con.execute("SHOW TBLPROPERTIES db.t").fetchall())
    assert "sort-order" not in props


def test_identifier_fields(con):
    con.execute("ALTER TABLE db.t SET IDENTIFIER FIELDS id, st.a")
    assert _md(con).schema().identifier_field_ids == (1, 10)
    assert (
        dict(con.execute("SHOW TBLPROPERTIES db.t").fetchall())["identifier-fields"] == "[id,st.a]"
    )
    with pytest.raises(icesql.ProgrammingError, match="not NOT NULL"):
        con.execute("ALTER TABLE db.t SET IDENTIFIER FIELDS s")
    with pytest.raises(icesql.ProgrammingError, match="float and double"):
        con.execute("ALTER TABLE db.t ALTER COLUMN f DROP NOT NULL")  # already optional: no-op
        con.execute("ALTER TABLE db.t SET IDENTIFIER FIELDS f")
    with pytest.raises(icesql.ProgrammingError, match="identifier field 'id'"):
        con.execute("ALTER TABLE db.t DROP COLUMN id")
    con.execute("ALTER TABLE db.t DROP IDENTIFIER FIELDS st.a")
    assert _md(con).schema().identifier_field_ids == (1,)
    with pytest.raises(icesql.ProgrammingError, match="not an identifier field"):
        con.execute("ALTER TABLE db.t DROP IDENTIFIER FIELDS s")


def test_properties_and_upgrade(con):
    con.execute(
        "ALTER TABLE db.t SET TBLPROPERTIES ('k'='v', 'write.target-file-size-bytes'='1000')"
    )
    assert _md(con).properties["k"] == "v"
    con.execute("ALTER TABLE db.t UNSET TBLPROPERTIES ('k')")
    assert "k" not in _md(con).properties
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('format-version'='3')")
    assert _md(con).format_version == 3 and _md(con).next_row_id == 0
    with pytest.raises(icesql.ProgrammingError, match="downgrade"):
        con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('format-version'='2')")
    with pytest.raises(icesql.ProgrammingError, match="reserved"):
        con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('current-snapshot-id'='1')")


def test_syntax_errors_point_at_the_problem(con):
    with pytest.raises(icesql.ProgrammingError, match="near 'COLUM'"):
        con.execute("ALTER TABLE db.t ADD COLUM x INT")
    with pytest.raises(icesql.ProgrammingError, match="near 'BRANCHES'"):
        con.execute("ALTER TABLE db.t CREATE BRANCHES b1")
    with pytest.raises(icesql.ProgrammingError, match="table not found: db.nope"):
        con.execute("ALTER TABLE db.nope ADD COLUMN x INT")


def test_v3_date_to_timestamp_reads_old_files_and_prunes_with_date_bounds(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.d (id INT, d DATE, e DATE) USING iceberg PARTITIONED BY (days(d))"
        " TBLPROPERTIES ('format-version'='3')"
    )
    con.execute(
        "INSERT INTO db.d VALUES (1, DATE '2024-01-02', DATE '2024-01-02'),"
        " (2, DATE '2024-03-04', DATE '2024-03-04')"
    )
    con.execute("ALTER TABLE db.d ALTER COLUMN d TYPE TIMESTAMP_NTZ")  # days() stays the same
    con.execute("ALTER TABLE db.d ALTER COLUMN e TYPE TIMESTAMP_NTZ")
    con.execute("INSERT INTO db.d VALUES (3, TIMESTAMP_NTZ '2024-01-02 07:00:00', NULL)")
    rows = con.execute("SELECT id, d, e FROM db.d WHERE e = TIMESTAMP_NTZ '2024-01-02 00:00:00'")
    assert rows.fetchall() == [(1, dt.datetime(2024, 1, 2), dt.datetime(2024, 1, 2))]
    # the old files' 4-byte bounds of e are dates: the March file is pruned by them
    text = con.execute("EXPLAIN SELECT * FROM db.d WHERE e < TIMESTAMP_NTZ '2024-02-01 00:00:00'")
    assert "skipped by metrics 2" in text.fetchone()[0]  # the March file and the all-NULL one
    got = con.execute("SELECT id FROM db.d WHERE d >= TIMESTAMP_NTZ '2024-01-02 05:00:00'")
    assert sorted(got.fetchall()) == [(2,), (3,)]


@pytest.mark.parametrize("transform", ["d", "bucket(4, d)"])
def test_v3_date_to_timestamp_refused_when_a_spec_would_change_its_values(tmp_path, transform):
    con = icesql.connect(str(tmp_path))
    con.execute(
        f"CREATE TABLE db.d (id INT, d DATE) USING iceberg PARTITIONED BY ({transform})"
        " TBLPROPERTIES ('format-version'='3')"
    )
    con.execute("INSERT INTO db.d VALUES (1, DATE '2024-01-02')")
    con.execute(f"ALTER TABLE db.d DROP PARTITION FIELD {transform}")  # still in spec 0
    with pytest.raises(icesql.ProgrammingError, match=r"'d'.*spec 0"):
        con.execute("ALTER TABLE db.d ALTER COLUMN d TYPE TIMESTAMP_NTZ")
    assert con.execute("SELECT * FROM db.d").fetchall() == [(1, dt.date(2024, 1, 2))]


def test_write_ordered_by_refuses_what_java_refuses_and_changes_nothing(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.o (id INT, s STRING, st STRUCT<x: INT>, f FLOAT) USING iceberg")
    before = dict(con.catalog.load_table(("db", "o")).metadata.raw)
    for sql, pattern in [
        ("ALTER TABLE db.o WRITE ORDERED BY st", r"cannot sort by identity\(st\): struct"),
        ("ALTER TABLE db.o WRITE ORDERED BY bucket(4, f)", r"cannot sort by bucket\[4\]\(f\)"),
        ("ALTER TABLE db.o WRITE ORDERED BY bucket(4, id, s)", "more than one column reference"),
        ("ALTER TABLE db.o WRITE ORDERED BY years(s)", r"cannot sort by year\(s\)"),
    ]:
        with pytest.raises(icesql.ProgrammingError, match=pattern):
            con.execute(sql)
        assert dict(con.catalog.load_table(("db", "o")).metadata.raw) == before


def _fields(con, table="db.d") -> dict:
    md = con.catalog.load_table(tuple(table.split("."))).metadata
    return {f["name"]: f for f in md.raw["schemas"][-1]["fields"]}


def test_add_column_default_and_set_default_on_v3(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.d (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO db.d VALUES (1)")
    con.execute("ALTER TABLE db.d ADD COLUMN c INT DEFAULT 5")
    con.execute(
        "ALTER TABLE db.d ADD COLUMNS (d DATE DEFAULT DATE'2024-01-02' COMMENT 'day',"
        " e DECIMAL(9, 2) NOT NULL DEFAULT -1.5 FIRST)"
    )
    fields = _fields(con)
    assert (fields["c"]["initial-default"], fields["c"]["write-default"]) == (5, 5)
    assert fields["d"] == {
        "id": 3,
        "name": "d",
        "required": False,
        "type": "date",
        "doc": "day",
        "initial-default": "2024-01-02",
        "write-default": "2024-01-02",
    }
    assert fields["e"]["required"] and fields["e"]["initial-default"] == "-1.50"
    assert list(fields) == ["e", "id", "c", "d"]
    con.execute("ALTER TABLE db.d ALTER COLUMN c SET DEFAULT 6")
    fields = _fields(con)
    assert (fields["c"]["initial-default"], fields["c"]["write-default"]) == (5, 6)
    # rows written before the columns existed read their initial-default
    assert con.execute("SELECT id, c, d, e FROM db.d").fetchall() == [
        (1, 5, dt.date(2024, 1, 2), Decimal("-1.50"))
    ]
    con.execute("ALTER TABLE db.d ALTER COLUMN c DROP DEFAULT")
    assert "write-default" not in _fields(con)["c"] and _fields(con)["c"]["initial-default"] == 5
    before = dict(con.catalog.load_table(("db", "d")).metadata.raw)
    for sql, error, pattern in [
        (
            "ALTER TABLE db.d ALTER COLUMN e DROP DEFAULT",
            icesql.ProgrammingError,
            "required column 'e'",
        ),
        (
            "ALTER TABLE db.d ADD COLUMN x INT DEFAULT 'nope'",
            icesql.ProgrammingError,
            r"DEFAULT 'nope' for column 'x' \(int\) of db.d",
        ),
        (
            "ALTER TABLE db.d ADD COLUMN x INT DEFAULT id + 1",
            icesql.NotSupportedError,
            "literal default",
        ),
        (
            "ALTER TABLE db.d ADD COLUMN x INT NOT NULL",
            icesql.ProgrammingError,
            "required column 'x' without a default",
        ),
        (
            "ALTER TABLE db.d ADD COLUMN x INT DEFAULT 1 DEFAULT 2",
            icesql.ProgrammingError,
            "one DEFAULT per column",
        ),
    ]:
        with pytest.raises(error, match=pattern):
            con.execute(sql)
        assert dict(con.catalog.load_table(("db", "d")).metadata.raw) == before


@pytest.mark.parametrize("version", [1, 2])
def test_defaults_are_refused_before_v3(tmp_path, version):
    con = icesql.connect(str(tmp_path))
    con.execute(
        f"CREATE TABLE db.d (id INT) USING iceberg TBLPROPERTIES ('format-version'='{version}')"
    )
    before = dict(con.catalog.load_table(("db", "d")).metadata.raw)
    for sql in [
        "ALTER TABLE db.d ADD COLUMN c INT DEFAULT 5",
        "ALTER TABLE db.d ALTER COLUMN id SET DEFAULT 1",
    ]:
        with pytest.raises(
            icesql.ProgrammingError, match=f"need format version 3 \\(the table is v{version}"
        ):
            con.execute(sql)
        assert dict(con.catalog.load_table(("db", "d")).metadata.raw) == before


def test_insert_and_merge_write_the_write_default_of_omitted_columns(tmp_path):
    con = icesql.connect(str(tmp_path))
    con.execute(
        "CREATE TABLE db.d (id INT, s STRING) USING iceberg TBLPROPERTIES ('format-version'='3')"
    )
    con.execute(
        "ALTER TABLE db.d ADD COLUMNS (c INT DEFAULT 5, b BINARY DEFAULT X'0AFF', n INT NOT NULL DEFAULT 7)"
    )
    con.execute("ALTER TABLE db.d ALTER COLUMN c SET DEFAULT 6")
    con.execute("INSERT INTO db.d (id, s) VALUES (1, 'a')")
    con.execute("INSERT INTO db.d (s, c, id) VALUES ('b', NULL, 2)")  # given values win, NULL too
    con.execute("CREATE TABLE db.src (id INT) USING iceberg")
    con.execute("INSERT INTO db.src VALUES (3)")
    con.execute(
        "MERGE INTO db.d USING db.src ON db.d.id = db.src.id"
        " WHEN NOT MATCHED THEN INSERT (id) VALUES (src.id)"
    )
    assert con.execute("SELECT id, s, c, b, n FROM db.d ORDER BY id").fetchall() == [
        (1, "a", 6, b"\x0a\xff", 7),
        (2, "b", None, b"\x0a\xff", 7),
        (3, None, 6, b"\x0a\xff", 7),
    ]
    # a column without a write-default must still be given (Spark 3.5's rule)
    with pytest.raises(icesql.ProgrammingError, match="cannot find data for the output column `s`"):
        con.execute("INSERT INTO db.d (id) VALUES (4)")


def test_v3_types_need_a_v3_table(con):
    with pytest.raises(
        icesql.ProgrammingError, match="column 'ns' of type timestamptz_ns needs format-version 3"
    ):
        con.execute("ALTER TABLE db.t ADD COLUMN ns TIMESTAMPTZ_NS")
    assert "ns" not in _names(con)
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('format-version'='3')")
    con.execute("ALTER TABLE db.t ADD COLUMN ns TIMESTAMPTZ_NS")
    assert _md(con).schema().find_field_by_name("ns").type == TimestamptzNanoType()


def test_add_a_void_column_on_v3_only(con):
    """Spark's VOID (NullType) is Iceberg's v3 unknown: always NULL, never in data files."""
    with pytest.raises(
        icesql.ProgrammingError, match="column 'v' of type unknown needs format-version 3"
    ):
        con.execute("ALTER TABLE db.t ADD COLUMN v VOID")
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('format-version'='3')")
    con.execute("ALTER TABLE db.t ADD COLUMNS (v VOID, w STRUCT<x: INT, y: VOID>)")
    assert str(_md(con).schema().find_field_by_name("v").type) == "unknown"
    assert con.execute("SELECT v, w FROM db.t").fetchall() == [(None, None)]
    with pytest.raises(icesql.ProgrammingError, match="cannot safely cast `v` INT to VOID"):
        con.execute(
            "INSERT INTO db.t (id, s, ts, dt, st, pts, f, n, dec, v, w)"
            " SELECT id, s, ts, dt, st, pts, f, n, dec, 1, w FROM db.t"
        )
    con.execute(
        "INSERT INTO db.t SELECT id + 1, s, ts, dt, st, pts, f, n, dec, NULL,"
        " named_struct('x', 2, 'y', NULL) FROM db.t"
    )
    assert con.execute("SELECT id, v, w FROM db.t ORDER BY id").fetchall() == [
        (1, None, None),
        (2, None, {"x": 2, "y": None}),
    ]


def test_constant_expression_defaults_are_evaluated_when_set(tmp_path):
    """Spark 4's DEFAULT takes constant expressions; Iceberg keeps one value, so each is
    evaluated once by the engine and stored in the column's type (JSON single value)."""
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.d (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO db.d VALUES (1)")
    con.execute(
        "ALTER TABLE db.d ADD COLUMNS (a BIGINT DEFAULT 1 + 2, b STRING DEFAULT"
        " concat('x', upper('y')), c DATE DEFAULT date_add(DATE'2024-01-01', 1))"
    )
    fields = _fields(con)
    assert fields["a"]["initial-default"] == 3 and fields["b"]["write-default"] == "xY"
    assert fields["c"]["initial-default"] == "2024-01-02"
    assert con.execute("SELECT * FROM db.d").fetchall() == [(1, 3, "xY", dt.date(2024, 1, 2))]
    con.execute("ALTER TABLE db.d ALTER COLUMN a SET DEFAULT 10 * 10")
    assert _fields(con)["a"]["write-default"] == 100
    before = dict(con.catalog.load_table(("db", "d")).metadata.raw)
    for sql, pattern in [
        (
            "ALTER TABLE db.d ADD COLUMN x DATE DEFAULT current_date()",
            "CURRENT_DATE is not a constant",
        ),
        ("ALTER TABLE db.d ALTER COLUMN a SET DEFAULT rand()", "is not a constant"),
        (
            "ALTER TABLE db.d ADD COLUMN x STRUCT<p: INT> DEFAULT named_struct('p', 1)",
            "a struct's default holds no field values",
        ),
        ("ALTER TABLE db.d ADD COLUMN x ARRAY<INT> DEFAULT array(1, 2)", "cannot load a table"),
    ]:
        with pytest.raises(icesql.NotSupportedError, match=pattern):
            con.execute(sql)
        assert dict(con.catalog.load_table(("db", "d")).metadata.raw) == before
