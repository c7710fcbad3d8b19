"""icesql reads tables whose schema and partitioning Spark evolved, as Spark reads them.

Every table gets a batch of rows written by Spark before and after each change, so its data
files span all the schemas and partition specs. Spark's ``collect()`` is the reference answer,
compared row by row, for the current state (``SELECT *``, filters on evolved columns, which
prune with metrics and partition tuples written under older types and specs, aggregates) and
for every snapshot through ``VERSION AS OF`` (Spark, like icesql, reads a snapshot with the
schema it was written with). Tables live in namespaces ``evo_v2`` / ``evo_v3``:

* ``columns`` — top-level columns added, renamed, dropped, widened (int->bigint, float->double,
  decimal(9,2)->decimal(12,2)) and reordered; struct fields added, renamed, widened, reordered
  and dropped; fields added to a map value struct and a list element struct; a column dropped
  and re-added under the same name (a new field id: old files read NULL); on v3, columns added
  with an ``initial-default`` through the Java API (Spark 3.5 SQL refuses ``DEFAULT``).
* ``parts`` — ``days(ts)``, then ``+ bucket(4, id)``, then ``days`` replaced by ``months``,
  then the bucket dropped, then ``+ identity(cat)`` with ``ts`` renamed, then ``id`` widened.
* ``mapped`` / ``mapped_flat`` — Parquet files without field ids written by pyarrow and
  registered with ``CALL system.add_files`` (which sets ``schema.name-mapping.default``): a
  Hive-style source whose identity partition column is only in the directory names, then
  renames (the mapping keeps the old names as aliases), a widening, and a column dropped and
  re-added under its old name (the mapping then gives the name to the new field).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from spark_support import (
    assert_same_query,
    assert_same_rows,
    has_top_level_order_by,
    java_table,
    snapshot_ids,
)

import icesql

pytestmark = pytest.mark.spark

VERSIONS = [2, 3]


@pytest.fixture(scope="module")
def streamed(spark_warehouse):
    """A connection that reads every file through the Arrow stream (``conform``), where the
    default one lets DuckDB's ``read_parquet`` take flat columns of files without deletes."""
    connection = icesql.connect(spark_warehouse)
    connection.execute("SET icesql.scan.nativeParquet = false")
    yield connection
    connection.close()


@pytest.fixture
def con(con, streamed):
    """Both read routes: queries go to each, compared with one Spark answer."""
    return Routes(con, streamed)


@dataclass
class Routes:
    native: object
    streamed: object

    def execute(self, query: str):
        return self.native.execute(query)


def _check(spark, con: Routes, query: str) -> list:
    expected = assert_same_query(spark, con.native, query)
    ordered = has_top_level_order_by(query)
    rows = con.streamed.execute(query).fetchall()
    assert_same_rows(expected, rows, ordered=ordered, context=f"[Arrow stream] {query}")
    return expected


def _assert_prunes(spark, con, table: str, where: str, *, exact: bool) -> None:
    """icesql's plan for ``WHERE where`` reads fewer files than the table has, and at least
    the files Spark finds matching rows in (exactly those when ``exact``: a range on a column
    whose min/max metrics every file has)."""
    query = f"SELECT * FROM {table} WHERE {where}"
    text = con.execute(f"EXPLAIN {query}").fetchone()[0]
    found = re.search(r"data files: total (\d+), read (\d+)", text)
    assert found, text
    total, read = int(found[1]), int(found[2])
    needed = spark.sql(f"SELECT count(DISTINCT _file) FROM {table} WHERE {where}").first()[0]
    assert 0 < needed <= read < total, (where, needed, read, total)
    if exact:
        assert read == needed, (where, needed, read, total)


def _check_outside_scan(spark, con, source: str, query: str) -> list:
    """``query`` with ``{src}`` replaced by ``source`` (a table, maybe with ``VERSION AS OF``)
    in icesql against Spark's answer to the same query over the rows of ``source`` taken out
    of Iceberg first, so that neither the filter nor the projection reaches Iceberg's scan.

    Used where Spark 3.5 + Iceberg 1.10 answer the direct query wrongly or not at all:

    * a time-travel filter is bound to the *current* schema when Iceberg projects it onto the
      partition specs, so a column named as it was in that snapshot fails with "Cannot find
      field" (apache/iceberg#16510); icesql binds it to the snapshot's schema;
    * a projection of only struct fields that a file lacks (``s.dflt`` alone) loses the
      struct's NULLs: Spark returns the field's default for rows whose ``s`` is NULL;
    * a filter on a column with an ``initial-default`` drops the rows of files written before
      the column (the Parquet row-group filter takes it for all NULL, apache/iceberg#16690);
    * the vectorized reader fails on a ``decimal(9, 2)`` default read alone ("Cannot cast
      default value to int")."""
    rows = spark.sql(f"SELECT * FROM {source}").localCheckpoint()
    rows.createOrReplaceTempView("scanned_rows")
    expected = spark.sql(query.format(src="scanned_rows")).collect()
    ours = query.format(src=source)
    for route in (con.native, con.streamed):
        assert_same_rows(expected, route.execute(ours).fetchall(), ordered=False, context=ours)
    return expected


# --- writing rows in the table's current shape ---------------------------------------------


def _value_sql(data_type, path: str, exprs: dict[str, str]) -> str:
    """A Spark SQL expression over ``range()``'s ``id`` giving a value of ``data_type``, built
    from ``exprs`` (dotted field path -> expression; map values are ``m.value.*``, list
    elements ``l.element.*``)."""
    from pyspark.sql.types import ArrayType, MapType, StructType

    if isinstance(data_type, StructType):
        parts = ", ".join(
            f"'{f.name}', {_value_sql(f.dataType, f'{path}.{f.name}', exprs)}"
            for f in data_type.fields
        )
        return f"IF(id % 7 = 3, NULL, named_struct({parts}))"
    if isinstance(data_type, MapType):
        value = _value_sql(data_type.valueType, f"{path}.value", exprs)
        return f"map(concat('k', id % 3), {value})"
    if isinstance(data_type, ArrayType):
        element = _value_sql(data_type.elementType, f"{path}.element", exprs)
        return f"IF(id % 5 = 1, array(), array({element}, {element}))"
    return exprs[path]


def _insert(spark, table: str, exprs: dict[str, str], start: int, count: int) -> None:
    """Spark INSERTs ``count`` rows (``range(start, start + count)``) in the current schema."""
    spark.sql(f"REFRESH TABLE {table}")
    schema = spark.table(table).schema
    select = ", ".join(
        f"{_value_sql(f.dataType, f.name, exprs)} AS `{f.name}`" for f in schema.fields
    )
    spark.sql(f"INSERT INTO {table} SELECT {select} FROM range({start}, {start + count})")


@dataclass
class Evolved:
    """A table Spark evolved, with the snapshot written after each change."""

    table: str
    version: int
    snapshots: list[tuple[str, int]] = field(default_factory=list)  # (step, snapshot id)
    spark_columns: dict[int, list[str]] = field(default_factory=dict)  # snapshot -> names


def _evolve(
    spark,
    table: str,
    version: int,
    create: str,
    exprs: dict[str, str],
    steps: list[tuple[str, list[str] | Callable[[], None], dict[str, str]]],
    rows: int,
) -> Evolved:
    """Create ``table``, insert, then per step: run its DDL (SQL texts, or a function for Java
    API changes), update the expressions and insert again."""
    ns = table.split(".")[0]
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{ns}")
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(create.format(table=table, version=version))
    exprs = dict(exprs)
    evolved = Evolved(table, version)
    for step, (label, ddl, new_exprs) in enumerate([("create", [], {}), *steps]):
        if callable(ddl):
            ddl()
        else:
            for sql in ddl:
                spark.sql(sql.format(table=table))
        exprs.update(new_exprs)
        _insert(spark, table, exprs, 100 * (step + 1), rows)
        snapshot = snapshot_ids(spark, table)[-1]
        evolved.snapshots.append((label, snapshot))
        evolved.spark_columns[snapshot] = spark.table(table).columns
    return evolved


def _check_every_snapshot(spark, con, evolved: Evolved) -> None:
    """``SELECT *`` and ``count(*)`` at every snapshot, each with the snapshot's schema."""
    schema_ids = set()
    for label, snapshot in evolved.snapshots:
        query = f"SELECT * FROM {evolved.table} VERSION AS OF {snapshot}"
        expected = _check(spark, con, query)
        # Spark time travel uses the schema of the snapshot: the columns of that moment
        assert list(expected[0].asDict()) == evolved.spark_columns[snapshot], label
        cursor = con.execute(query)
        assert [d[0] for d in cursor.description] == evolved.spark_columns[snapshot], label
        cursor.fetchall()
        _check(spark, con, f"SELECT count(*) FROM {evolved.table} VERSION AS OF {snapshot}")
        schema_ids.add(con.execute(f"EXPLAIN {query}").fetchone()[0].split("(schema ")[1][:3])
    assert len(schema_ids) > 1


# --- columns ---------------------------------------------------------------------------------

COLUMNS_CREATE = (
    "CREATE TABLE {table} (id INT, name STRING, i INT, f FLOAT, d DECIMAL(9, 2), old STRING,"
    " gone STRING, s STRUCT<a: INT, b: FLOAT, c: STRING>, m MAP<STRING, STRUCT<x: INT>>,"
    " l ARRAY<STRUCT<y: INT>>, deep STRUCT<inner: STRUCT<p: INT>>, li ARRAY<INT>,"
    " mi MAP<STRING, INT>) USING iceberg PARTITIONED BY (bucket(2, i), old)"
    " TBLPROPERTIES ('format-version' = '{version}')"
)
COLUMNS_EXPRS = {
    "id": "CAST(id AS INT)",
    "name": "IF(id % 6 = 5, NULL, concat('n', id))",
    "i": "CAST(id * 7 - 1000 AS INT)",
    "f": "CAST(id / 4.0 AS FLOAT)",
    "d": "CAST(id * 1.25 AS DECIMAL(9, 2))",
    "old": "element_at(array('x', 'y', 'z'), CAST(id % 3 + 1 AS INT))",
    "gone": "concat('g', id)",
    "s.a": "CAST(id AS INT)",
    "s.b": "CAST(id / 2.0 AS FLOAT)",
    "s.c": "concat('c', id)",
    "m.value.x": "CAST(id AS INT)",
    "l.element.y": "CAST(id * 2 AS INT)",
    "deep.inner.p": "CAST(id * 3 AS INT)",
    "li.element": "CAST(id AS INT)",
    "mi.value": "CAST(-id AS INT)",
}


def _column_steps(spark, table: str, version: int) -> list:
    steps = [
        ("add", ["ALTER TABLE {table} ADD COLUMN added STRING"], {"added": "concat('a', id)"}),
        (
            "rename",
            ["ALTER TABLE {table} RENAME COLUMN old TO renamed"],
            {"renamed": COLUMNS_EXPRS["old"]},
        ),
        ("drop", ["ALTER TABLE {table} DROP COLUMN gone"], {}),
        (
            "int to bigint",
            ["ALTER TABLE {table} ALTER COLUMN i TYPE BIGINT"],
            {"i": "(id % 13 - 6) * 1000000000"},
        ),  # beyond int's range both ways
        (
            "float to double",
            ["ALTER TABLE {table} ALTER COLUMN f TYPE DOUBLE"],
            {"f": "CAST(id AS DOUBLE) * 1e37"},
        ),  # beyond float's range
        (
            "decimal(9,2) to decimal(12,2)",
            ["ALTER TABLE {table} ALTER COLUMN d TYPE DECIMAL(12, 2)"],
            {"d": "CAST(id * 1000000.25 AS DECIMAL(12, 2))"},
        ),  # beyond 9 digits
        (
            "reorder",
            [
                "ALTER TABLE {table} ALTER COLUMN added FIRST",
                "ALTER TABLE {table} ALTER COLUMN name AFTER d",
            ],
            {},
        ),
        ("nested add", ["ALTER TABLE {table} ADD COLUMN s.n STRING"], {"s.n": "concat('sn', id)"}),
        (
            "nested rename, widen, reorder",
            [
                "ALTER TABLE {table} RENAME COLUMN s.a TO a2",
                "ALTER TABLE {table} ALTER COLUMN s.a2 TYPE BIGINT",
                "ALTER TABLE {table} ALTER COLUMN s.b TYPE DOUBLE",
                "ALTER TABLE {table} ALTER COLUMN s.n FIRST",
            ],
            {"s.a2": "id * 10000000000", "s.b": "CAST(id AS DOUBLE) * 1e38"},
        ),
        ("nested drop", ["ALTER TABLE {table} DROP COLUMN s.c"], {}),
        (
            "map value and list element fields added",
            [
                "ALTER TABLE {table} ADD COLUMN m.value.z STRING",
                "ALTER TABLE {table} ADD COLUMN l.element.z STRING",
            ],
            {"m.value.z": "concat('mz', id)", "l.element.z": "concat('lz', id)"},
        ),
        (
            "list element and map value widened, deeper struct evolved",
            [
                "ALTER TABLE {table} ALTER COLUMN li.element TYPE BIGINT",
                "ALTER TABLE {table} ALTER COLUMN mi.value TYPE BIGINT",
                "ALTER TABLE {table} RENAME COLUMN deep.inner.p TO p2",
                "ALTER TABLE {table} ADD COLUMN deep.inner.q STRING",
            ],
            {
                "li.element": "id * 10000000000",
                "mi.value": "-id * 10000000000",
                "deep.inner.p2": "CAST(id * 3 AS INT)",
                "deep.inner.q": "concat('q', id)",
            },
        ),
        (
            "drop and re-add name",
            ["ALTER TABLE {table} DROP COLUMN name", "ALTER TABLE {table} ADD COLUMN name STRING"],
            {"name": "IF(id % 4 = 0, NULL, concat('new', id))"},
        ),
    ]
    if version >= 3:
        steps.append(
            (
                "initial defaults",
                lambda: _add_defaults(spark, table),
                {
                    "c": "CAST(id % 3 AS INT)",
                    "dc": "CAST(id AS DECIMAL(9, 2))",
                    "s.dflt": "concat('sd', id)",
                },
            )
        )
    return steps


def _add_defaults(spark, table: str) -> None:
    """Columns with an ``initial-default``, committed through the Java API (Spark 3.5's SQL
    rejects ``DEFAULT``: "setting default values in Spark is currently unsupported")."""
    jvm = spark._jvm
    types, literal = jvm.org.apache.iceberg.types.Types, jvm.org.apache.iceberg.expressions.Literal
    update = java_table(spark, table).updateSchema()
    update.addColumn("c", types.IntegerType.get(), "defaults to 5", literal.of(5))
    update.addColumn(
        "dc",
        types.DecimalType.of(9, 2),
        "defaults to 1.25",
        literal.of(jvm.java.math.BigDecimal("1.25")),
    )
    update.addColumn("s", "dflt", types.StringType.get(), "defaults to 'dv'", literal.of("dv"))
    update.commit()
    spark.sql(f"REFRESH TABLE {table}")


@pytest.fixture(scope="module", params=VERSIONS, ids=lambda v: f"v{v}")
def columns_table(request, spark) -> Evolved:
    version = request.param
    table = f"evo_v{version}.columns"
    return _evolve(
        spark,
        table,
        version,
        COLUMNS_CREATE,
        COLUMNS_EXPRS,
        _column_steps(spark, table, version),
        rows=12,
    )


COLUMN_QUERIES = [
    "SELECT * FROM {t}",
    # widened: values beyond the old type's range; old files have 4-byte / (9,2) bounds
    "SELECT id, i FROM {t} WHERE i > 3000000000",
    "SELECT id, i FROM {t} WHERE i < -3000000000",
    "SELECT id, i FROM {t} WHERE i = 393",
    "SELECT id, i FROM {t} WHERE i BETWEEN -1000 AND 2000",
    "SELECT id, f FROM {t} WHERE f > 3.5e38",
    "SELECT id, f FROM {t} WHERE f < 30.0",
    "SELECT id, d FROM {t} WHERE d > 10000000",
    "SELECT id, d FROM {t} WHERE d = 125.00",
    # renamed (also the identity partition source) and re-added columns
    "SELECT id, renamed FROM {t} WHERE renamed = 'y'",
    "SELECT id FROM {t} WHERE renamed IN ('x', 'z') AND i < 0",
    "SELECT id, name FROM {t} WHERE name IS NULL",
    "SELECT id, name FROM {t} WHERE name = 'n101' OR name = 'new1201'",
    "SELECT id, added FROM {t} WHERE added IS NOT NULL AND added < 'a5'",
    # nested
    "SELECT id, s FROM {t} WHERE s.a2 > 5000000000",
    "SELECT id, s.a2, s.b FROM {t} WHERE s.b > 1e10 OR s.a2 < 300",
    "SELECT id, s.n FROM {t} WHERE s.n IS NOT NULL",
    "SELECT id, m, l FROM {t} WHERE id % 2 = 0",
    # (only z of m's values makes Spark 3.5 + Iceberg 1.10 fail on files without z:
    # "[m, key_value, key] ... is not in the store"; x keeps the key column read)
    "SELECT id, m['k1'].x, m['k1'].z, l[0].z FROM {t}",
    "SELECT id, li, mi, deep FROM {t} WHERE deep.inner.p2 > 900 OR deep.inner.q IS NOT NULL",
    "SELECT id, li[1], mi['k2'], deep.inner.q FROM {t} WHERE id % 3 = 2",
    # aggregates
    "SELECT count(*), count(name), count(added), count(s.n), sum(i), min(i), max(i),"
    " sum(f), max(d), min(d), max(s.a2) FROM {t}",
    "SELECT renamed, count(*), sum(i), max(d), min(s.b) FROM {t} GROUP BY renamed",
]
# defaulted columns: Spark's answers come from outside its scan (see _check_outside_scan)
V3_QUERIES = [
    "SELECT id, c, dc, s, s.dflt FROM {src}",
    "SELECT c, count(*), sum(dc) FROM {src} GROUP BY c",
    "SELECT dc, count(*) FROM {src} GROUP BY dc",
    *(
        f"SELECT id, c, dc, s.dflt FROM {{src}} WHERE {where}"
        for where in (
            "c = 5",
            "c IS NULL",
            "c IS NOT NULL AND c < 2",
            "dc = 1.25",
            "dc > 100",
            "s.dflt = 'dv'",
            "id % 7 = 3",  # s is NULL there: so is s.dflt, not its default
        )
    ),
]


def test_columns_evolved(spark, con, columns_table):
    table = columns_table.table
    for query in COLUMN_QUERIES:
        _check(spark, con, query.format(t=table))
    if columns_table.version >= 3:
        for query in V3_QUERIES:
            _check_outside_scan(spark, con, table, query)
    assert _check(spark, con, f"SELECT count(*) FROM {table} WHERE i > 3000000000")[0][0] > 0
    assert _check(spark, con, f"SELECT count(*) FROM {table} WHERE f > 3.5e38")[0][0] > 0
    assert _check(spark, con, f"SELECT count(*) FROM {table} WHERE d > 10000000")[0][0] > 0
    # the re-added name is a new field: the old values never come back
    assert _check(spark, con, f"SELECT count(*) FROM {table} WHERE name NOT LIKE 'new%'")[0][0] == 0
    # pruning with metrics written under the old types (4-byte int and float bounds)
    for where in ("i > 3000000000", "i < -3000000000", "f > 3.5e38", "d > 10000000"):
        _assert_prunes(spark, con, table, where, exact=True)


def test_columns_at_every_snapshot(spark, con, columns_table):
    _check_every_snapshot(spark, con, columns_table)
    table = columns_table.table
    snapshots = dict(columns_table.snapshots)
    # filters on columns as they were named and typed then
    _check(spark, con, f"SELECT id, i FROM {table} VERSION AS OF {snapshots['rename']} WHERE i > 0")
    _check(
        spark,
        con,
        f"SELECT id, name FROM {table} VERSION AS OF {snapshots['nested drop']}"
        f" WHERE name = 'n101' OR name IS NULL",
    )
    # a tag reads with its snapshot's schema, a branch with the table's current schema
    spark.sql(f"ALTER TABLE {table} CREATE TAG early AS OF VERSION {snapshots['rename']}")
    spark.sql(f"ALTER TABLE {table} CREATE BRANCH early_b AS OF VERSION {snapshots['rename']}")
    tagged = _check(spark, con, f"SELECT * FROM {table} VERSION AS OF 'early'")
    assert "gone" in tagged[0].asDict()
    branched = _check(spark, con, f"SELECT * FROM {table}.branch_early_b")
    assert "gone" not in branched[0].asDict() and "name" in branched[0].asDict()
    _check(spark, con, f"SELECT id, name FROM {table} VERSION AS OF 'early_b' WHERE i > 0")
    assert _check_outside_scan(
        spark,
        con,
        f"{table} VERSION AS OF {snapshots['add']}",
        "SELECT id, old, gone FROM {src} WHERE old = 'x'",
    )
    assert _check_outside_scan(
        spark,
        con,
        f"{table} VERSION AS OF {snapshots['nested add']}",
        "SELECT id, s.a FROM {src} WHERE s.a > 300",
    )


# --- partition specs ---------------------------------------------------------------------

PARTS_CREATE = (
    "CREATE TABLE {table} (id INT, ts TIMESTAMP, cat STRING, v DOUBLE) USING iceberg"
    " PARTITIONED BY (days(ts)) TBLPROPERTIES ('format-version' = '{version}')"
)
PARTS_EXPRS = {
    "id": "CAST(id AS INT)",
    # about five months from 2024-01-01, hours varying
    "ts": "timestamp_seconds(1704067200 + (id * 7919 * 113) % 13000000)",
    "cat": "element_at(array('a', 'b', 'c'), CAST(id % 3 + 1 AS INT))",
    "v": "id * 0.5",
}
PARTS_STEPS = [
    ("add bucket", ["ALTER TABLE {table} ADD PARTITION FIELD bucket(4, id)"], {}),
    (
        "days to months",
        ["ALTER TABLE {table} REPLACE PARTITION FIELD days(ts) WITH months(ts)"],
        {},
    ),
    ("drop bucket", ["ALTER TABLE {table} DROP PARTITION FIELD bucket(4, id)"], {}),
    (
        "add identity, rename source",
        [
            "ALTER TABLE {table} ADD PARTITION FIELD cat",
            "ALTER TABLE {table} RENAME COLUMN ts TO et",
        ],
        {"et": PARTS_EXPRS["ts"]},
    ),
    (
        "widen bucket source",
        ["ALTER TABLE {table} ALTER COLUMN id TYPE BIGINT"],
        {"id": "id * 1000000000"},
    ),
]


# v3 changes nothing in partition evolution; v1 keeps a dropped field as a void transform
@pytest.fixture(scope="module", params=[1, 2], ids=lambda v: f"v{v}")
def parts_table(request, spark) -> Evolved:
    version = request.param
    return _evolve(
        spark, f"evo_v{version}.parts", version, PARTS_CREATE, PARTS_EXPRS, PARTS_STEPS, rows=30
    )


PARTS_QUERIES = [
    "SELECT * FROM {t}",
    "SELECT * FROM {t} WHERE et >= TIMESTAMP '2024-02-01' AND et < TIMESTAMP '2024-03-01'",
    "SELECT id, et FROM {t} WHERE et < TIMESTAMP '2024-01-20 12:00:00'",
    "SELECT id, et FROM {t} WHERE et > TIMESTAMP '2024-05-10'",
    "SELECT id, v FROM {t} WHERE id = 107",
    "SELECT id, v FROM {t} WHERE id IN (103, 311, 450, 600000000000)",
    "SELECT id FROM {t} WHERE id > 3000000000",
    "SELECT id, cat FROM {t} WHERE cat = 'b'",
    "SELECT id FROM {t} WHERE cat = 'b' AND et >= TIMESTAMP '2024-03-01'",
    "SELECT cat, month(et), count(*), sum(v), max(id) FROM {t} GROUP BY cat, month(et)",
    "SELECT _spec_id, count(*), sum(v) FROM {t} GROUP BY _spec_id",
    "SELECT _partition, count(*) FROM {t} GROUP BY _partition",
    "SELECT id, _spec_id, _partition FROM {t} WHERE id % 9 = 0",
]


def test_partition_specs_evolved(spark, con, parts_table):
    table = parts_table.table
    for query in PARTS_QUERIES:
        _check(spark, con, query.format(t=table))
    specs = spark.sql(f"SELECT DISTINCT spec_id FROM {table}.files").collect()
    assert len(specs) == 5  # the widening keeps the spec
    # each filter prunes files of every spec: by days, months or metrics; by bucket
    for where in (
        "et >= TIMESTAMP '2024-02-01' AND et < TIMESTAMP '2024-02-08'",
        "id = 107",
        "cat = 'b' AND et < TIMESTAMP '2024-01-15'",
    ):
        _assert_prunes(spark, con, table, where, exact=False)


def test_partition_specs_at_every_snapshot(spark, con, parts_table):
    _check_every_snapshot(spark, con, parts_table)
    table = parts_table.table
    for _, snapshot in parts_table.snapshots[:4]:  # ts is renamed at step 4
        assert _check_outside_scan(
            spark,
            con,
            f"{table} VERSION AS OF {snapshot}",
            "SELECT id, ts FROM {src}"
            " WHERE ts >= TIMESTAMP '2024-02-01' AND ts < TIMESTAMP '2024-02-15'",
        )
        _check(spark, con, f"SELECT id FROM {table} VERSION AS OF {snapshot} WHERE id = 107")


# --- name mapping ------------------------------------------------------------------------

MAPPED_ARROW = pa.schema(
    [  # file column order differs from the table's
        ("old", pa.string()),
        ("id", pa.int32()),
        ("extra", pa.string()),  # not in the table: ignored
        ("ts", pa.timestamp("us", tz="UTC")),
        ("st", pa.struct([("p", pa.int32()), ("q", pa.string())])),
        ("li", pa.list_(pa.int64())),
        ("mp", pa.map_(pa.string(), pa.int32())),
        ("amount", pa.decimal128(9, 2)),
        ("x", pa.string()),
        ("small", pa.int16()),  # INT in the table
        ("items", pa.list_(pa.struct([("u", pa.int32()), ("v", pa.string())]))),
        ("mv", pa.map_(pa.string(), pa.struct([("w", pa.int32())]))),
    ]
)
MAPPED_CREATE = (
    "CREATE TABLE {table} (id INT, old STRING, ts TIMESTAMP, st STRUCT<p: INT, q: STRING>,"
    " li ARRAY<BIGINT>, mp MAP<STRING, INT>, amount DECIMAL(9, 2), x STRING, small INT,"
    " items ARRAY<STRUCT<u: INT, v: STRING>>, mv MAP<STRING, STRUCT<w: INT>>{partition_column})"
    " USING iceberg {partitioning} TBLPROPERTIES ('format-version' = '{version}')"
)


def _mapped_rows(start: int, count: int) -> pa.Table:
    import datetime as dt
    import decimal

    ids = list(range(start, start + count))
    return pa.table(
        {
            "old": [f"o{i % 4}" if i % 5 else None for i in ids],
            "id": ids,
            "extra": [f"e{i}" for i in ids],
            "ts": [dt.datetime(2024, 1, 1, tzinfo=dt.UTC) + dt.timedelta(hours=7 * i) for i in ids],
            "st": [None if i % 6 == 0 else {"p": i, "q": f"q{i}"} for i in ids],
            "li": [[i, i + 1] if i % 3 else None for i in ids],
            "mp": [[("k", i)] if i % 2 else [] for i in ids],
            "amount": [decimal.Decimal(i) / 4 for i in ids],
            "x": [f"x{i}" for i in ids],
            "small": [i % 100 - 50 for i in ids],
            "items": [[{"u": i, "v": f"v{i}"}] if i % 4 else [] for i in ids],
            "mv": [[("w", {"w": -i})] if i % 3 != 1 else None for i in ids],
        },
        schema=MAPPED_ARROW,
    )


def _write_source(root: str, partitions: dict[str, int] | None) -> None:
    """pyarrow Parquet files without field ids; ``partitions``: Hive directory -> first id.
    The second file of each directory names list elements ``item`` (as older writers did)
    instead of the standard ``element``: the mapping's ``element`` must still find them."""
    shutil.rmtree(root, ignore_errors=True)
    for directory, start in (partitions or {"": 0}).items():
        os.makedirs(os.path.join(root, directory), exist_ok=True)
        for part in range(2):
            path = os.path.join(root, directory, f"part-{part}.parquet")
            pq.write_table(
                _mapped_rows(start + 10 * part, 10), path, use_compliant_nested_type=part == 0
            )
            assert all(f.metadata is None for f in pq.read_schema(path)), "field ids written"


MAPPED_EXPRS = {
    "id": "CAST(id AS INT)",
    "old": "concat('o', id % 4)",
    "ts": "timestamp_seconds(1704067200 + id * 3600)",
    "st.p": "CAST(id AS INT)",
    "st.q": "concat('q', id)",
    "li.element": "id",
    "mp.value": "CAST(id AS INT)",
    "amount": "CAST(id / 4 AS DECIMAL(9, 2))",
    "x": "concat('x', id)",
    "small": "CAST(id % 100 AS INT)",
    "items.element.u": "CAST(id AS INT)",
    "items.element.v": "concat('v', id)",
    "mv.value.w": "CAST(-id AS INT)",
    "cat": "'c'",
}
MAPPED_STEPS = [
    (
        "renames",
        [
            "ALTER TABLE {table} RENAME COLUMN old TO newer",
            "ALTER TABLE {table} RENAME COLUMN st.p TO p2",
        ],
        {"newer": MAPPED_EXPRS["old"], "st.p2": MAPPED_EXPRS["st.p"]},
    ),
    (
        "widen",
        [
            "ALTER TABLE {table} ALTER COLUMN id TYPE BIGINT",
            "ALTER TABLE {table} ALTER COLUMN amount TYPE DECIMAL(12, 2)",
        ],
        {"id": "id * 10000000000"},
    ),
    (
        "drop and re-add x",
        [
            "ALTER TABLE {table} DROP COLUMN x",
            "ALTER TABLE {table} ADD COLUMN x STRING",
            "ALTER TABLE {table} ADD COLUMN later STRING",
        ],
        {"x": "concat('nx', id)", "later": "concat('l', id)"},
    ),
    (
        "nested",
        [
            "ALTER TABLE {table} ALTER COLUMN small TYPE BIGINT",
            "ALTER TABLE {table} RENAME COLUMN items.element.u TO u2",
            "ALTER TABLE {table} ADD COLUMN items.element.nw STRING",
            "ALTER TABLE {table} ADD COLUMN mv.value.nw STRING",
        ],
        {
            "items.element.u2": "CAST(id AS INT)",
            "items.element.nw": "concat('nw', id)",
            "mv.value.nw": "concat('mw', id)",
            "small": "id * 10000000000",
        },
    ),
    (
        "merge-on-read delete, copy-on-write update",
        [
            "ALTER TABLE {table} SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')",
            "DELETE FROM {table} WHERE id % 4 = 1",
            "UPDATE {table} SET newer = 'upd' WHERE id IN (3, 4)",
        ],
        {},
    ),  # one imported file
]


def _mapped(spark, tmp_path_factory, version: int, partitioned: bool) -> Evolved:
    name = "mapped" if partitioned else "mapped_flat"
    table = f"evo_v{version}.{name}"
    source = str(tmp_path_factory.mktemp(f"{name}-v{version}-source"))
    _write_source(source, {"cat=a": 0, "cat=b": 100} if partitioned else None)
    create = MAPPED_CREATE.format(
        table="{table}",
        version="{version}",
        partition_column=", cat STRING" if partitioned else "",
        partitioning="PARTITIONED BY (cat)" if partitioned else "",
    )
    exprs = dict(MAPPED_EXPRS)
    if not partitioned:
        del exprs["cat"]
    add_files = (
        f"CALL local.system.add_files(table => '{table}', source_table => '`parquet`.`{source}`')"
    )
    steps = [("add_files", [add_files], {}), *MAPPED_STEPS]
    evolved = _evolve(spark, table, version, create, exprs, steps, rows=5)
    mapping = spark.sql(f"SHOW TBLPROPERTIES {table} ('schema.name-mapping.default')").collect()
    assert '"newer", "old"' in mapping[0].value.replace(" ", "").replace(",", ", "), mapping
    return evolved


@pytest.fixture(scope="module", params=VERSIONS, ids=lambda v: f"v{v}")
def mapped_table(request, spark, tmp_path_factory) -> Evolved:
    return _mapped(spark, tmp_path_factory, request.param, partitioned=True)


@pytest.fixture(scope="module")
def mapped_flat_table(spark, tmp_path_factory) -> Evolved:
    return _mapped(spark, tmp_path_factory, 2, partitioned=False)


MAPPED_QUERIES = [
    "SELECT * FROM {t}",
    "SELECT id, newer FROM {t} WHERE newer = 'o1'",
    "SELECT id, st FROM {t} WHERE st.p2 > 105",
    "SELECT id, amount FROM {t} WHERE amount > 20",
    "SELECT id, x FROM {t} WHERE x LIKE 'x1%'",
    "SELECT id, ts FROM {t} WHERE ts < TIMESTAMP '2024-01-03'",
    "SELECT newer, count(*), sum(amount), max(st.p2), count(li), count(x) FROM {t} GROUP BY newer",
    "SELECT id, small, items, mv FROM {t} WHERE small < 0 OR small > 1000",
    "SELECT id, items[0].u2, items[0].nw, mv['w'].w FROM {t} WHERE size(items) > 0",
]


def test_name_mapped_files(spark, con, mapped_table):
    table = mapped_table.table
    for query in MAPPED_QUERIES + [
        "SELECT id, cat FROM {t} WHERE cat = 'b'",
        "SELECT cat, count(*), min(id), sum(amount) FROM {t} GROUP BY cat",
    ]:
        _check(spark, con, query.format(t=table))
    # the partition column is only in the directory names (and the partition tuple)
    files = spark.sql(
        f"SELECT file_path FROM {table}.files WHERE partition.cat = 'b'"
        f" AND file_path LIKE '%-source%/cat=b/%'"
    ).collect()
    assert files  # imported files are still live (the DELETE left position deletes / DVs)
    assert all("cat" not in pq.read_schema(f.file_path.removeprefix("file:")).names for f in files)
    assert _check(spark, con, f"SELECT count(*) FROM {table} WHERE cat = 'b'")[0][0] > 0
    _assert_prunes(spark, con, table, "id = 107", exact=False)


def test_name_mapped_files_unpartitioned(spark, con, mapped_flat_table):
    table = mapped_flat_table.table
    for query in MAPPED_QUERIES:
        _check(spark, con, query.format(t=table))
    # x was dropped and re-added: the mapping moved the name "x" to the new field, so the
    # id-less files' x column now reads as the new x (field-id files keep their old x hidden)
    old_x = _check(spark, con, f"SELECT count(*) FROM {table} WHERE x LIKE 'x%'")[0][0]
    assert old_x == 20 - 5  # the imported rows, less the merge-on-read DELETE's


def test_name_mapped_files_at_every_snapshot(spark, con, mapped_table):
    _check_every_snapshot(spark, con, mapped_table)


def test_files_without_field_ids_need_a_name_mapping(spark, con, tmp_path_factory):
    """Without ``schema.name-mapping.default``, icesql refuses id-less files by name.

    Deliberate difference: Iceberg Java then assigns "fallback" ids by column position
    (``ParquetSchemaUtil.addFallbackIds``), a legacy rule the spec does not have. It can only
    work for files whose columns stand in the table's order; with these files (another
    order) Spark fails deep in its reader ("Not a primitive type"). icesql raises an error
    naming the file and the missing property instead."""
    table = "evo_v2.unmapped"
    source = str(tmp_path_factory.mktemp("unmapped-source"))
    _write_source(source, None)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.evo_v2")
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(MAPPED_CREATE.format(table=table, version=2, partition_column="", partitioning=""))
    spark.sql(
        f"CALL local.system.add_files(table => '{table}', source_table => '`parquet`.`{source}`')"
    )
    flat = f"SELECT id, old, amount, x FROM {table}"  # columns DuckDB's reader could take
    _check(spark, con, f"SELECT * FROM {table}")  # with the mapping add_files set
    _check(spark, con, flat)
    # add_files records the files' metrics under the mapped ids: metrics do not show which
    # files hold field ids, only the footers do
    counts = spark.sql(f"SELECT value_counts FROM {table}.files").collect()
    assert counts and all(row.value_counts for row in counts)
    spark.sql(f"ALTER TABLE {table} UNSET TBLPROPERTIES ('schema.name-mapping.default')")
    with pytest.raises(Exception, match="Not a primitive type"):  # ids by position
        spark.sql(f"SELECT * FROM {table}").collect()
    for route in (con.native, con.streamed):  # the native one would otherwise read NULLs
        for query in (f"SELECT * FROM {table}", flat):
            with pytest.raises(icesql.NotSupportedError, match=r"part-\d\.parquet.*name-mapping"):
                route.execute(query).fetchall()
