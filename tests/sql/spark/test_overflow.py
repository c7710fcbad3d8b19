"""Spark's wrapping integer arithmetic (ANSI off): the rules of ``icesql.sql.spark.overflow``
and the engine's rerun of a statement DuckDB refused with an integer overflow.

The answers are Java's two's-complement arithmetic (``_wrap``), and those of Spark 3.5 in
``tests/interop/test_sql_compat.py``.
"""

from __future__ import annotations

import pytest

import icesql
from icesql.sql.spark.overflow import wrapping_integers
from tests.sql.spark.conftest import answer, rewrite

INT, LONG = 32, 64


def _wrap(value: int, bits: int) -> int:
    return (value + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1)


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        ("2147483647 + 1", _wrap(2**31, INT)),
        ("-2147483647 - 2", _wrap(-(2**31) - 1, INT)),
        ("2147483647 * 2147483647", _wrap((2**31 - 1) ** 2, INT)),
        ("abs(-2147483648)", -(2**31)),
        ("-(-2147483648)", -(2**31)),
        ("2147483648 + 1", 2**31 + 1),  # 2147483648 is a BIGINT: no wrap
        ("9223372036854775807 + 1", -(2**63)),
        ("-9223372036854775807 - 2", _wrap(-(2**63) - 1, LONG)),
        ("9223372036854775807 * 3", _wrap((2**63 - 1) * 3, LONG)),
        ("(2147483647 + 1) * 2147483648", -(2**31) * 2**31),  # INT wraps, then a BIGINT product
        ("(2147483647 + 2147483648) * 4294967296", _wrap((2**31 - 1 + 2**31) * 2**32, LONG)),
        ("CAST(100 AS TINYINT) + CAST(100 AS TINYINT)", _wrap(200, 8)),
        ("CAST(30000 AS SMALLINT) * CAST(2 AS SMALLINT)", _wrap(60000, 16)),
    ],
)
def test_wrapping_constants(expr, spark_answer):
    with wrapping_integers():
        assert answer(f"SELECT {expr}") == [(spark_answer,)]


def test_wrapping_columns_and_sums():
    tables = {
        "t": ({"i": "INT", "l": "BIGINT"}, [(2**31 - 1, 2**63 - 1), (-(2**31), -(2**63)), (5, 7)])
    }
    with wrapping_integers():
        rows = answer(
            "SELECT i + 1, i * i, -i, abs(i), l + 1, l * l, -l, abs(l), i + l FROM t", tables
        )
        sums = answer("SELECT sum(l), sum(i) FROM t", tables)
        running = answer("SELECT sum(l) OVER (ORDER BY i) FROM t ORDER BY i", tables)
    expected = []
    for i, long_ in tables["t"][1]:
        expected.append(
            (
                _wrap(i + 1, INT),
                _wrap(i * i, INT),
                _wrap(-i, INT),
                _wrap(abs(i), INT),
                _wrap(long_ + 1, LONG),
                _wrap(long_ * long_, LONG),
                _wrap(-long_, LONG),
                _wrap(abs(long_), LONG),
                _wrap(i + long_, LONG),
            )
        )
    assert rows == expected
    total = _wrap(2**63 - 1 - 2**63 + 7, LONG)
    assert sums == [(total, -(2**31) + 2**31 - 1 + 5)]
    assert running == [(-(2**63),), (_wrap(-(2**63) + 7, LONG),), (total,)]


def test_negative_literal_bounds_keep_their_type():
    # -2147483648 is one INT literal in Spark, so its abs wraps (DuckDB negates a BIGINT)
    assert answer("SELECT typeof(-2147483648), typeof(-9223372036854775808), typeof(-5)") == [
        ("int", "bigint", "int")
    ]


def test_no_wrapping_unless_rerun():
    # the normal translation leaves integer operators as written: no cost where nothing overflows
    assert rewrite("SELECT i + 1 FROM t", {"t": ({"i": "INT"}, [])}) == "SELECT i + 1 FROM t"


@pytest.fixture
def ints(con):
    con.execute("CREATE TABLE db.ints (k INT, i INT, l BIGINT)")
    con.execute(
        "INSERT INTO db.ints VALUES (1, 2147483647, 9223372036854775807),"
        " (2, -2147483648, -9223372036854775808), (3, 5, 7)"
    )
    return con


def test_overflow_reruns_with_wrapping(ints):
    cur = ints.execute("SELECT 2147483647 + 1, 9223372036854775807 + 1, abs(-2147483648)")
    assert cur.fetchall() == [(-(2**31), -(2**63), -(2**31))]
    assert [d[1].lower() for d in cur.description] == ["int", "bigint", "int"]
    cur = ints.execute("SELECT abs(-2147483648), -(-9223372036854775808)")
    assert cur.fetchall() == [(-(2**31), -(2**63))]
    assert [d[1].lower() for d in cur.description] == ["int", "bigint"]
    cur = ints.execute("SELECT k, i + 1, l * 2, -i FROM db.ints ORDER BY k")
    assert cur.fetchall() == [
        (1, -(2**31), -2, -(2**31) + 1),
        (2, -(2**31) + 1, 0, -(2**31)),
        (3, 6, 14, -5),
    ]
    assert [d[1].lower() for d in cur.description] == ["int", "int", "bigint", "int"]
    # a streamed projection (no ORDER BY) overflows when its first batch is read
    assert sorted(ints.execute("SELECT i + 1 FROM db.ints").fetchall()) == [
        (-(2**31),),
        (-(2**31) + 1,),
        (6,),
    ]
    assert ints.execute("SELECT sum(l) FROM db.ints").fetchall() == [(_wrap(-1 + 7, LONG),)]
    assert ints.execute("SELECT sum(i) FROM db.ints WHERE k < 3").fetchall() == [(-1,)]
    assert ints.execute("SELECT sum(i + i) FROM db.ints").fetchall() == [(_wrap(-2, LONG) + 10,)]


def test_overflow_rerun_with_parameters_and_in_dml(ints):
    assert ints.execute("SELECT i + ? FROM db.ints WHERE k = 1", [1]).fetchall() == [(-(2**31),)]
    ints.execute("INSERT INTO db.ints SELECT k + 10, i * 2, l + 1 FROM db.ints WHERE k = 1")
    assert ints.execute("SELECT i, l FROM db.ints WHERE k = 11").fetchall() == [(-2, -(2**63))]
    ints.execute("CREATE TABLE db.wrapped AS SELECT i + 1 AS j FROM db.ints WHERE k = 1")
    assert ints.execute("SELECT j FROM db.wrapped").fetchall() == [(-(2**31),)]
    assert [d[1].lower() for d in ints.execute("SELECT j FROM db.wrapped").description] == ["int"]


@pytest.mark.parametrize(
    "expr, spark_answer",
    [
        ("CAST(2147483647 AS SMALLINT)", -1),
        ("CAST(40000 AS SMALLINT)", _wrap(40000, 16)),
        ("CAST(200 AS TINYINT)", _wrap(200, 8)),
        ("CAST(2147483648 AS INT)", -(2**31)),
        ("CAST(9223372036854775807 AS INT)", -1),
        ("CAST(-129 AS TINYINT)", 127),
        ("CAST(100 AS TINYINT)", 100),
    ],
)
def test_narrowing_casts_keep_the_low_bits(expr, spark_answer):
    # Spark (ANSI off) casts an integer to a narrower one as Java does; DuckDB's is NULL
    assert answer(f"SELECT {expr}") == [(spark_answer,)]


def test_sum_of_overflowing_rows_wraps_each_row(ints):
    # DuckDB's sum(x + c) -> sum(x) + c * count(x) rewrite would give the exact total
    assert ints.execute("SELECT sum(i + 2147483647) FROM db.ints").fetchall() == [
        (sum(_wrap(i + 2**31 - 1, INT) for i in (2**31 - 1, -(2**31), 5)),)
    ]


def test_an_overflow_after_rows_were_returned_is_a_clear_data_error(con):
    # the rerun happens only before the first batch is returned; later, the rows delivered
    # cannot be taken back: then a DataError that says so, never wrong rows
    con.execute("CREATE TABLE db.big (id BIGINT, i INT)")
    con.execute(
        "INSERT INTO db.big SELECT id, CASE WHEN id = 299999 THEN 2147483647 ELSE 1 END"
        " FROM range(300000)"
    )
    try:
        rows = con.execute("SELECT id, i + 1 FROM db.big").fetchall()
    except icesql.DataError as e:
        assert "Overflow" in str(e) and "order the rows" in str(e)
    else:
        assert sorted(rows)[-1] == (299999, -(2**31)) and len(rows) == 300000
    ordered = con.execute("SELECT id, i + 1 FROM db.big ORDER BY id DESC LIMIT 1").fetchall()
    assert ordered == [(299999, -(2**31))]
