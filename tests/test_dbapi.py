"""PEP 249 behaviour of connections and cursors (statements that need no table)."""

import datetime
from decimal import Decimal

import pyarrow as pa
import pytest

import icesql
from icesql.errors import NoSuchNamespaceError


def test_module_globals():
    assert icesql.apilevel == "2.0"
    assert icesql.paramstyle == "qmark"
    assert icesql.threadsafety == 1
    for name in (
        "Warning",
        "Error",
        "InterfaceError",
        "DatabaseError",
        "DataError",
        "OperationalError",
        "IntegrityError",
        "InternalError",
        "ProgrammingError",
        "NotSupportedError",
    ):
        assert issubclass(getattr(icesql, name), Exception)
    assert issubclass(icesql.DatabaseError, icesql.Error)
    assert issubclass(icesql.ProgrammingError, icesql.DatabaseError)
    assert issubclass(icesql.CommitConflictError, icesql.OperationalError)


def test_execute_returns_cursor_and_fetches(con):
    cur = con.cursor()
    assert cur.execute("SELECT id, id * 2 AS twice FROM range(5) t(id) ORDER BY id") is cur
    assert cur.fetchone() == (0, 0)
    assert cur.fetchmany(2) == [(1, 2), (2, 4)]
    cur.arraysize = 3
    assert cur.fetchmany() == [(3, 6), (4, 8)]
    assert cur.fetchone() is None
    assert cur.fetchall() == []


def test_description_and_type_objects(con):
    cur = con.execute(
        "SELECT 1 AS i, CAST(2 AS BIGINT) AS l, 'x' AS s, CAST(1.5 AS DECIMAL(9,2)) AS d,"
        " DATE '2024-01-02' AS dt, X'01' AS b"
    )
    names = [d[0] for d in cur.description]
    assert names == ["i", "l", "s", "d", "dt", "b"]
    codes = [d[1] for d in cur.description]
    assert codes == ["INT", "BIGINT", "STRING", "DECIMAL(9,2)", "DATE", "BINARY"]
    assert codes[0] == icesql.NUMBER and codes[2] == icesql.STRING
    assert codes[4] == icesql.DATETIME and codes[5] == icesql.BINARY
    assert codes[2] != icesql.NUMBER
    assert cur.description[3][4:6] == (9, 2)
    assert cur.fetchone() == (1, 2, "x", Decimal("1.50"), datetime.date(2024, 1, 2), b"\x01")
    assert cur.rowcount == -1


def test_parameters_are_bound_not_pasted(con):
    hostile = "x'); SELECT 'pwned"
    cur = con.execute("SELECT ? AS a, ? + 1 AS b", (hostile, 41))
    assert cur.fetchall() == [(hostile, 42)]


def test_parameters_bind_in_text_order_even_with_limit(con):
    cur = con.execute("SELECT id FROM range(10) t(id) WHERE id >= ? ORDER BY id LIMIT ?", (7, 2))
    assert cur.fetchall() == [(7,), (8,)]


def test_parameter_count_mismatch_is_programming_error(con):
    with pytest.raises(icesql.ProgrammingError, match="1 parameter marker"):
        con.execute("SELECT ?", ())
    with pytest.raises(icesql.ProgrammingError, match="qmark"):
        con.execute("SELECT ?", {"a": 1})


def test_executemany_runs_each_parameter_set(con):
    cur = con.cursor()
    cur.executemany("SELECT ? * 2", [(1,), (2,), (3,)])
    assert cur.fetchall() == [(6,)]


def test_iteration_and_arrow_fetchers(con):
    cur = con.execute("SELECT id FROM range(100000) t(id)")
    first = next(iter(cur))
    assert first == (0,)
    rest = cur.fetch_arrow_table()
    assert isinstance(rest, pa.Table)
    assert rest.num_rows == 99999 and rest.column(0)[0].as_py() == 1

    reader = con.execute("SELECT id FROM range(100000) t(id)").fetch_record_batch()
    assert isinstance(reader, pa.RecordBatchReader)
    assert sum(b.num_rows for b in reader) == 100000


def test_mixed_fetches_across_conversion_chunks_and_batches(con):
    """fetchone converts rows a slice at a time; every fetcher continues where the last
    stopped, across slices and DuckDB batches."""
    cur = con.execute("SELECT id FROM range(200000) t(id)")
    got = [cur.fetchone()[0]]
    got += [r[0] for r in cur.fetchmany(1500)]
    got += [cur.fetchone()[0] for _ in range(3)]
    got += [r[0] for r in cur.fetchmany(70000)]
    got += cur.fetch_arrow_table().column(0).to_pylist()
    assert got == list(range(200000))
    assert cur.fetchone() is None


def test_nested_values_become_python_containers(con):
    cur = con.execute(
        "SELECT named_struct('a', 1, 'b', 'x') AS s, array(1, 2) AS l, map('k', 1) AS m"
    )
    assert cur.fetchone() == ({"a": 1, "b": "x"}, [1, 2], {"k": 1})


def test_spark_semantics_of_date_functions(con):
    cur = con.execute(
        "SELECT date_add(DATE '2024-01-31', 1), add_months(DATE '2024-01-31', 1),"
        " trunc(DATE '2024-05-17', 'MM'), date_sub(DATE '1970-01-01', 1)"
    )
    assert cur.fetchone() == (
        datetime.date(2024, 2, 1),
        datetime.date(2024, 2, 29),
        datetime.date(2024, 5, 1),
        datetime.date(1969, 12, 31),
    )


def test_errors_are_pep249_and_clean(con):
    with pytest.raises(icesql.ProgrammingError) as info:
        con.execute("SELECT nope FROM range(3) t(id)")
    assert "nope" in str(info.value) and "__icesql" not in str(info.value)
    with pytest.raises(icesql.DataError, match="out of range"):
        con.execute("SELECT DATE '2024-13-45'").fetchall()
    # Spark (non-ANSI) casts a bad string to NULL rather than failing
    assert con.execute("SELECT CAST('abc' AS INT)").fetchall() == [(None,)]
    with pytest.raises(icesql.ProgrammingError, match="one statement"):
        con.execute("SELECT 1; SELECT 2")


def test_closed_cursor_and_connection(con, tmp_path):
    cur = con.cursor()
    with pytest.raises(icesql.InterfaceError):
        cur.fetchone()
    cur.close()
    with pytest.raises(icesql.InterfaceError):
        cur.execute("SELECT 1")
    other = icesql.connect(str(tmp_path))
    other.commit()
    other.rollback()
    other.close()
    assert other.closed
    with pytest.raises(icesql.InterfaceError):
        other.cursor().execute("SELECT 1")


def test_unknown_catalog_type_is_not_supported():
    with pytest.raises(icesql.NotSupportedError, match="catalog type"):
        icesql.connect(catalog="hive", uri="thrift://x")


# -- several catalogs ----------------------------------------------------------------------


def _sqlite_tables(db):
    import sqlite3

    with sqlite3.connect(db) as c:
        return sorted(
            c.execute(
                "SELECT catalog_name, table_namespace, table_name, metadata_location FROM iceberg_tables"
            ).fetchall()
        )


def _hadoop_tables(warehouse):
    return sorted(
        p.parent.parent.relative_to(warehouse).parts
        for p in warehouse.glob("**/metadata/version-hint.text")
    )


@pytest.fixture
def two(tmp_path):
    """A hadoop folder (``local``, the default) and a SQLite SQL catalog (``prod``)."""
    catalogs = {
        "local": {"type": "hadoop", "warehouse": str(tmp_path / "fs")},
        "prod": {
            "type": "jdbc",
            "uri": f"sqlite:///{tmp_path}/c.db",
            "warehouse": str(tmp_path / "sq"),
        },
    }
    with icesql.connect(catalogs=catalogs, default="local", create=True) as connection:
        connection.execute("CREATE NAMESPACE db")
        connection.execute("CREATE TABLE db.u (id INT, name STRING)")
        connection.execute("INSERT INTO local.db.u VALUES (1, 'one'), (2, 'two')")
        connection.execute("CREATE NAMESPACE prod.db")
        connection.execute("CREATE TABLE prod.db.t (id INT, v DOUBLE)")
        connection.execute("INSERT INTO prod.db.t VALUES (1, 1.5), (2, 2.5), (3, 3.5)")
        yield connection


def test_two_catalogs_join_and_each_write_lands_in_its_catalog(two, tmp_path):
    assert sorted(two.catalogs) == ["local", "prod"] and two.catalog.name == "local"
    rows = two.execute(
        "SELECT u.name, t.v FROM prod.db.t JOIN local.db.u u ON t.id = u.id ORDER BY t.id"
    ).fetchall()
    assert rows == [("one", 1.5), ("two", 2.5)]
    assert _hadoop_tables(tmp_path / "fs") == [("db", "u")]
    (row,) = _sqlite_tables(tmp_path / "c.db")
    assert row[:3] == ("prod", "db", "t") and f"{tmp_path}/sq/db/t/metadata/" in row[3]
    before = row[3]
    two.execute("UPDATE prod.db.t SET v = 0 WHERE id = 3")
    two.execute("DELETE FROM prod.db.t WHERE id = 1")
    two.execute(
        "MERGE INTO prod.db.t t USING (SELECT 5 AS id) s ON t.id = s.id"
        " WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 5.0)"
    )
    two.execute("ALTER TABLE prod.db.t ADD COLUMN note STRING")
    assert two.execute("SELECT id, v, note FROM prod.db.t ORDER BY id").fetchall() == [
        (2, 2.5, None),
        (3, 0.0, None),
        (5, 5.0, None),
    ]
    (after,) = _sqlite_tables(tmp_path / "c.db")
    assert after[3] != before  # the SQL catalog's pointer moved; the hadoop table did not
    assert len(list((tmp_path / "fs/db/u/metadata").glob("v*.metadata.json"))) == 2
    assert not (tmp_path / "fs/db/t").exists()


def test_time_travel_metadata_tables_and_show_in_the_other_catalog(two):
    (first,) = two.execute("SELECT snapshot_id FROM prod.db.t.snapshots").fetchall()[0:1]
    two.execute("INSERT INTO prod.db.t VALUES (4, 4.5)")
    assert two.execute(f"SELECT count(*) FROM prod.db.t VERSION AS OF {first[0]}").fetchone() == (
        3,
    )
    assert two.execute("SELECT count(*) FROM prod.db.t").fetchone() == (4,)
    assert two.execute("SHOW TABLES IN prod.db").fetchall() == [("db", "t", False)]
    assert two.execute("SHOW NAMESPACES IN prod").fetchall() == [("db",)]
    rows = dict((r[0], r[1]) for r in two.execute("DESCRIBE EXTENDED prod.db.t").fetchall())
    assert rows["Name"] == "prod.db.t"
    assert (
        two.execute("SHOW CREATE TABLE prod.db.t")
        .fetchone()[0]
        .startswith("CREATE TABLE prod.db.t")
    )


def test_ddl_on_qualified_names_and_use(two, tmp_path):
    two.execute("CREATE TABLE prod.db.c AS SELECT id FROM local.db.u")
    assert [r[2] for r in _sqlite_tables(tmp_path / "c.db")] == ["c", "t"]
    two.execute("ALTER TABLE prod.db.c RENAME TO db.c2")  # stays in prod
    with pytest.raises(icesql.NotSupportedError, match="stays in its catalog"):
        two.execute("ALTER TABLE prod.db.c2 RENAME TO local.db.c3")
    two.execute("USE prod")
    assert two.execute("SELECT count(*) FROM db.c2").fetchone() == (2,)  # now in prod
    two.execute("USE prod.db")
    assert two.execute("SELECT count(*) FROM t").fetchone() == (3,)
    two.execute("DROP TABLE c2")
    assert [r[2] for r in _sqlite_tables(tmp_path / "c.db")] == ["t"]
    with pytest.raises(NoSuchNamespaceError, match="namespace not found in catalog 'local': nope"):
        two.execute("USE local.nope")
    two.execute("USE local.db")
    assert two.execute("SELECT count(*) FROM u").fetchone() == (2,)
    two.execute("USE NAMESPACE db")
    two.execute("DROP NAMESPACE prod.db CASCADE")
    assert _sqlite_tables(tmp_path / "c.db") == []
    assert _hadoop_tables(tmp_path / "fs") == [("db", "u")]


def test_spark_conf_dict_and_default_catalog(tmp_path):
    conf = {
        "spark.sql.catalog.a": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.a.type": "hadoop",
        "spark.sql.catalog.a.warehouse": str(tmp_path / "a"),
        "spark.sql.catalog.b": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.b.type": "hadoop",
        "spark.sql.catalog.b.warehouse": str(tmp_path / "b"),
        "spark.sql.defaultCatalog": "b",
    }
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with icesql.connect(spark_conf=conf) as con:
        assert con.catalog.name == "b"
        con.execute("CREATE NAMESPACE db")  # in b, the default
    assert (tmp_path / "b" / "db").is_dir() and not (tmp_path / "a" / "db").exists()
    with icesql.connect(spark_conf=conf, default="a") as con:
        assert con.catalog.name == "a"


def test_catalog_configuration_errors_name_the_catalog_and_write_nothing(tmp_path):
    with pytest.raises(icesql.ProgrammingError, match="default catalog 'nope' is not configured"):
        icesql.connect(catalogs={"a": {"warehouse": str(tmp_path)}}, default="nope")
    with pytest.raises(icesql.ProgrammingError, match="catalog 'a' is configured twice"):
        icesql.connect(str(tmp_path), name="a", catalogs={"a": {"warehouse": str(tmp_path)}})
    with pytest.raises(icesql.ProgrammingError, match="spark_conf: no Iceberg catalog"):
        icesql.connect(spark_conf={"spark.sql.catalog.d": "io.delta.sql.DeltaCatalog"})
    with pytest.raises(icesql.NotSupportedError, match="catalog 'h': catalog type 'hive'"):
        icesql.connect(catalogs={"s": {"uri": f"sqlite:///{tmp_path}/c.db"}, "h": {"type": "hive"}})
    assert list(tmp_path.iterdir()) == []


def test_fetch_record_batch_cuts_batches_of_the_rows_asked(tmp_path):
    con = icesql.connect(str(tmp_path))
    cur = con.execute("SELECT id FROM range(100000)")
    sizes = [b.num_rows for b in cur.fetch_record_batch(rows_per_batch=30000)]
    assert sizes == [30000, 30000, 30000, 10000]
    cur = con.execute("SELECT id FROM range(10)")
    assert [b.num_rows for b in cur.fetch_record_batch(rows_per_batch=3)] == [3, 3, 3, 1]
    with pytest.raises(icesql.ProgrammingError, match="rows_per_batch"):
        con.execute("SELECT 1").fetch_record_batch(rows_per_batch=0)


def test_parameters_are_bound_never_pasted(tmp_path):
    # issue 23: a value that would change the statement were it pasted stays a value
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.t (id bigint, s string)")
    evil = "x'); DROP TABLE db.t; --"
    con.execute("INSERT INTO db.t VALUES (?, ?)", [1, evil])
    con.execute("INSERT INTO db.t SELECT ?, ?", [2, "a' OR '1'='1"])
    assert con.execute("SELECT count(*) FROM db.t WHERE s = ?", ["x' OR '1'='1"]).fetchall() == [
        (0,)
    ]
    con.execute("UPDATE db.t SET s = ? WHERE id = ?", ["it's", 2])
    con.execute("DELETE FROM db.t WHERE s = ?", ["nope' OR 1=1 --"])
    con.execute(
        "MERGE INTO db.t USING (SELECT ? AS id, ? AS s) src ON db.t.id = src.id"
        " WHEN NOT MATCHED THEN INSERT *",
        [3, "read_text('/etc/hostname')"],
    )
    assert con.execute("SELECT * FROM db.t ORDER BY id LIMIT ?", [5]).fetchall() == [
        (1, evil),
        (2, "it's"),
        (3, "read_text('/etc/hostname')"),
    ]
    with pytest.raises(icesql.ProgrammingError, match="'1 OR 1=1' not found"):
        con.execute("SELECT * FROM db.t VERSION AS OF ?", ["1 OR 1=1"])
