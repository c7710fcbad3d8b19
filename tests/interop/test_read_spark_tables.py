"""icesql reads what Spark wrote: every corpus query gives Spark's answer; errors are precise.

Reference answers come from the same Spark session that wrote the tables
(``spark.sql(q).collect()``); icesql runs the identical SQL text against the same warehouse.
Rows are compared after :func:`spark_support.normalize_value` (its docstring lists the rules),
in order only when the query has a top-level ORDER BY.
"""

from __future__ import annotations

import re

import pytest
from spark_support import assert_same_rows, has_top_level_order_by

import icesql

from .query_corpus import CORPUS, placeholders


@pytest.mark.parametrize("sql", [pytest.param(sql, id=name) for name, sql in CORPUS])
def test_query_matches_spark(sql, spark, spark_tables, icesql_connection):
    query = sql.format(**placeholders(spark_tables))
    expected = spark.sql(query).collect()
    actual = icesql_connection.execute(query).fetchall()
    assert_same_rows(expected, actual, ordered=has_top_level_order_by(query), context=query)


# --- errors ---------------------------------------------------------------------------------

POSITION = re.compile(r"\b(line|col|column|position|pos|char)\b\W{0,3}\d+", re.IGNORECASE)


@pytest.mark.parametrize(
    "sql",
    [
        "SELEC id FROM db.all_types",
        "SELECT id FROM db.all_types WHERE",
        "SELECT id,\n       FROM db.all_types\n WHERE id = = 1",
    ],
)
def test_syntax_error_names_a_position(sql, spark_tables, icesql_connection):
    with pytest.raises(icesql.ProgrammingError) as caught:
        icesql_connection.execute(sql).fetchall()
    assert POSITION.search(str(caught.value)), f"no line/column in: {caught.value}"


@pytest.mark.parametrize(
    ("sql", "names"),  # names: a regular expression the message must contain
    [
        ("SELECT * FROM db.no_such_table", "no_such_table"),
        ("SELECT * FROM no_such_ns.all_types", "no_such_ns"),
        ("SELECT no_such_column FROM db.all_types", "no_such_column"),
        ("SELECT st.no_such_field FROM db.nested", "no_such_field"),
        ("SELECT * FROM db.history VERSION AS OF 1234567", "1234567"),
        ("SELECT * FROM db.history VERSION AS OF 'no_such_ref'", "no_such_ref"),
        ("SELECT * FROM db.history.branch_no_such_branch", "no_such_branch"),
        ("SELECT * FROM db.history.tag_no_such_tag", "no_such_tag"),
        # the literal as written, or as Iceberg milliseconds
        (
            "SELECT * FROM db.history TIMESTAMP AS OF '1999-01-01 00:00:00'",
            "1999-01-01|915148800000",
        ),
    ],
)
def test_unknown_names_are_programming_errors(sql, names, spark, spark_tables, icesql_connection):
    with pytest.raises(Exception) as spark_error:  # the reference refuses it too
        spark.sql(sql).collect()
    assert spark_error.value is not None
    with pytest.raises(icesql.ProgrammingError) as caught:
        icesql_connection.execute(sql).fetchall()
    assert re.search(names, str(caught.value)), f"{names!r} not named in: {caught.value}"


@pytest.mark.parametrize("table", ["db.with_deletes", "db.with_dvs"])
def test_delete_files_are_refused_or_applied(table, spark, spark_tables, icesql_connection):
    """Until deletes are read, a table with delete files raises NotSupportedError; it must
    never return the deleted rows. Once deletes are implemented the answer must be Spark's."""
    query = f"SELECT * FROM {table}"
    expected = spark.sql(query).collect()
    assert len(expected) == 8  # ids 2 and 5 deleted
    try:
        actual = icesql_connection.execute(query).fetchall()
    except icesql.NotSupportedError as error:
        assert "delete" in str(error).lower(), error
        return
    assert_same_rows(expected, actual, ordered=False, context=query)


def test_delete_snapshot_before_the_delete_reads(spark, spark_tables, icesql_connection):
    """The snapshot before the DELETE has no delete files: it must read without trouble."""
    rows = spark.sql(
        "SELECT snapshot_id FROM db.with_deletes.snapshots ORDER BY committed_at"
    ).collect()
    query = f"SELECT * FROM db.with_deletes VERSION AS OF {rows[0].snapshot_id}"
    expected = spark.sql(query).collect()
    assert len(expected) == 10
    assert_same_rows(expected, icesql_connection.execute(query).fetchall(), ordered=False)
