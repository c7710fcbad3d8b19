"""Spark's names for unaliased select items; every expected name is the one Spark 3.5 gave
(the Spark-backed twin of these checks is tests/interop/test_sql_compat.py)."""

import pytest
from sqlglot import exp

import icesql
from icesql.sql.dialect import parse_one
from icesql.sql.output_names import name_select_items, spark_name


@pytest.mark.parametrize(
    "item, name",
    [
        ("count(*)", "count(1)"),
        ("count(DISTINCT i)", "count(DISTINCT i)"),
        ("sum(DISTINCT i)", "sum(DISTINCT i)"),
        ("sum(i) FILTER (WHERE i > 0)", "sum(i) FILTER (WHERE (i > 0))"),
        (
            "count(*) FILTER (WHERE i IS NULL AND k = 1)",
            "count(1) FILTER (WHERE ((i IS NULL) AND (k = 1)))",
        ),
        ("i + 1", "(i + 1)"),
        ("-i", "(- i)"),
        ("i div 2", "(i div 2)"),
        ("CAST(i AS STRING)", "i"),
        ("CAST(i + 1 AS BIGINT)", "CAST((i + 1) AS BIGINT)"),
        ("CAST(d AS DECIMAL(12, 2))", "d"),
        ("CAST(d + 1 AS DECIMAL(12, 2))", "CAST((d + 1) AS DECIMAL(12,2))"),
        ("'a'", "a"),
        ("1.50", "1.50"),
        ("1L", "1"),
        ("1.5D", "1.5"),
        ("2e3", "2000.0"),
        ("0.0001D", "1.0E-4"),
        ("12345678.9D", "1.23456789E7"),
        ("-1.5", "-1.5"),
        ("NULL", "NULL"),
        ("true", "true"),
        ("DATE '2024-01-01'", "DATE '2024-01-01'"),
        ("TIMESTAMP '2024-01-01'", "TIMESTAMP '2024-01-01 00:00:00'"),
        ("X'0a'", "X'0A'"),
        ("i <> 1", "(NOT (i = 1))"),
        ("i IS NOT NULL", "(i IS NOT NULL)"),
        ("i NOT IN (1, 2)", "(NOT (i IN (1, 2)))"),
        ("i BETWEEN 0 AND 1", "((i >= 0) AND (i <= 1))"),
        ("s LIKE 'h%'", "s LIKE h%"),
        ("s RLIKE 'h'", "RLIKE(s, h)"),
        ("s || s2", "concat(s, s2)"),
        ("CASE i WHEN 7 THEN 'x' END", "CASE WHEN (i = 7) THEN x END"),
        ("if(i > 0, 1, 2)", "(IF((i > 0), 1, 2))"),
        ("nvl(i, 0)", "nvl(i, 0)"),
        ("sqrt(d)", "SQRT(d)"),
        ("log(d)", "LOG(E(), d)"),
        ("ceil(d)", "CEIL(d)"),
        ("round(d)", "round(d, 0)"),
        ("substr(s, 2)", "substr(s, 2, 2147483647)"),
        ("locate('o', s)", "locate(o, s, 1)"),
        ("position('o' IN s)", "locate(o, s, 1)"),
        ("split(s, ',')", "split(s, ,, -1)"),
        ("first(i, true)", "first(i)"),
        ("percentile_approx(d, 0.5)", "percentile_approx(d, 0.5, 10000)"),
        ("extract(month FROM dt)", "extract(month FROM dt)"),
        ("ts + INTERVAL 1 DAY", "ts + INTERVAL '1' DAY"),
        ("struct(1 AS a).a", "struct(1 AS a).a"),
        ("named_struct('x', i)", "named_struct(x, i)"),
        ("m['a']", "m[a]"),
        ("t.i + 1", "(i + 1)"),
        ("db.t.i", "i"),
        ("s.f + 1", "(s.f + 1)"),
        (
            "row_number() OVER (ORDER BY k)",
            "row_number() OVER (ORDER BY k ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
        ),
        (
            "sum(i) OVER (PARTITION BY k)",
            "sum(i) OVER (PARTITION BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
        ),
        (
            "lag(i) OVER (ORDER BY k DESC)",
            "lag(i, 1, NULL) OVER (ORDER BY k DESC NULLS LAST ROWS BETWEEN -1 FOLLOWING AND -1 FOLLOWING)",
        ),
    ],
)
def test_spark_names(item, name):
    statement = parse_one(f"SELECT {item} FROM db.t")
    assert spark_name(statement.selects[0], {"t"}) == name


@pytest.mark.parametrize(
    "item", ["transform(arr, x -> x + 1)", "posexplode(arr)", "hll_sketch_agg(i)"]
)
def test_no_rule_keeps_duckdbs_name(item):
    assert spark_name(parse_one(f"SELECT {item} FROM t").selects[0], {"t"}) is None


def test_aliases_stars_and_alias_references_are_left_alone():
    statement = parse_one("SELECT *, i AS x, x, count(*) FROM t")
    name_select_items(statement)
    assert statement.sql() == 'SELECT *, i AS x, x, COUNT(*) AS "count(1)" FROM t'


def test_values_columns_are_named_like_sparks():
    statement = parse_one("SELECT * FROM VALUES (1, 'a')")
    name_select_items(statement)
    assert statement.find(exp.Values).alias_column_names == ["col1", "col2"]


def test_description_and_ctas_use_spark_names(tmp_path):
    with icesql.connect(str(tmp_path)) as con:
        cur = con.execute("SELECT count(*), max(id + 1) FROM range(3)")
        assert [d[0] for d in cur.description] == ["count(1)", "max((id + 1))"]
        cur = con.execute("SELECT id + 1, CAST(id AS STRING) FROM range(3)")
        assert [d[0] for d in cur.description] == ["(id + 1)", "id"]
        con.execute(
            "CREATE TABLE db.c USING iceberg AS SELECT id, id * 2, upper('x') FROM range(2)"
        )
        cur = con.execute("SELECT * FROM db.c")
        assert [d[0] for d in cur.description] == ["id", "(id * 2)", "upper(x)"]


def test_date_arithmetic_is_named_like_sparks_date_add(con):
    """Spark's analyzer turns ``date + n`` into ``date_add(date, n)`` (and ``date - n`` into
    ``date_sub``) before naming it; which items those are is known only from the column types
    (tests/interop/test_sql_compat.py checks the same names against Spark)."""
    con.execute("CREATE TABLE db.t (id INT, d DATE, x DOUBLE) USING iceberg")
    cur = con.execute(
        "SELECT d + 1, d - id, 1 + d, (d + 1), d + 1 + 1, DATE '2024-01-01' + 2, id + 1, x + 1,"
        " d + 1 AS named, (SELECT max(d) + 1 FROM db.t) FROM db.t"
    )
    names = [d[0] for d in cur.description]
    assert names[:9] == [
        "date_add(d, 1)",
        "date_sub(d, id)",
        "date_add(d, 1)",
        "date_add(d, 1)",
        "date_add(date_add(d, 1), 1)",
        "date_add(DATE '2024-01-01', 2)",
        "(id + 1)",
        "(x + 1)",
        "named",
    ]
