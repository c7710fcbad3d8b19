"""PEP 249 behaviour of connections and cursors (statements that need no table)."""

import datetime
from decimal import Decimal

import pyarrow as pa
import pytest

import icesql


@pytest.fixture
def con(tmp_path):
    with icesql.connect(str(tmp_path)) as connection:
        yield connection


def test_module_globals():
    assert icesql.apilevel == "2.0"
    assert icesql.paramstyle == "qmark"
    assert icesql.threadsafety == 1
    for name in ("Warning", "Error", "InterfaceError", "DatabaseError", "DataError",
                 "OperationalError", "IntegrityError", "InternalError", "ProgrammingError",
                 "NotSupportedError"):
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
    cur = con.execute(
        "SELECT id FROM range(10) t(id) WHERE id >= ? ORDER BY id LIMIT ?", (7, 2)
    )
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
    cur = con.execute("SELECT named_struct('a', 1, 'b', 'x') AS s, array(1, 2) AS l,"
                      " map('k', 1) AS m")
    assert cur.fetchone() == ({"a": 1, "b": "x"}, [1, 2], {"k": 1})


def test_spark_semantics_of_date_functions(con):
    cur = con.execute("SELECT date_add(DATE '2024-01-31', 1), add_months(DATE '2024-01-31', 1),"
                      " trunc(DATE '2024-05-17', 'MM'), date_sub(DATE '1970-01-01', 1)")
    assert cur.fetchone() == (datetime.date(2024, 2, 1), datetime.date(2024, 2, 29),
                              datetime.date(2024, 5, 1), datetime.date(1969, 12, 31))


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
