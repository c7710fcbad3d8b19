import types

import pytest
import sqlglot.parser
from sqlglot import exp

from icesql.errors import InterfaceError, ProgrammingError
from icesql.sql.dialect import (
    number_parameters,
    parse,
    parse_one,
    require_interpreted,
    split_statements,
)


def test_sqlglot_s_compiled_build_is_refused_naming_it_and_the_fix():
    # sqlglotc puts a compiled module beside each .py of sqlglot's package; its Parser takes
    # no subclass written in Python (TypeError at the first parse), so icesql refuses it
    compiled = types.ModuleType("sqlglot.parser")
    compiled.__file__ = "/venv/site-packages/sqlglot/parser.cpython-311-x86_64-linux-gnu.so"
    with pytest.raises(InterfaceError, match=r"parser\.cpython-311.*pip uninstall sqlglotc"):
        require_interpreted(compiled)
    require_interpreted(sqlglot.parser)  # the build the tests run on: pure Python
    assert sqlglot.parser.__file__.endswith(".py")


def test_for_system_version_parses_as_version():
    node = parse_one("SELECT * FROM db.t FOR SYSTEM_VERSION AS OF 5").find(exp.Table)
    version = node.args["version"]
    assert version.name == "VERSION"
    assert version.expression.this == "5"


@pytest.mark.parametrize(
    "sql, kind",
    [
        ("SELECT * FROM db.t VERSION AS OF 1", "VERSION"),
        ("SELECT * FROM db.t TIMESTAMP AS OF '2024-01-01'", "TIMESTAMP"),
        ("SELECT * FROM db.t FOR SYSTEM_TIME AS OF '2024-01-01'", "TIMESTAMP"),
    ],
)
def test_time_travel_clauses(sql, kind):
    assert parse_one(sql).find(exp.Table).args["version"].name == kind


def test_syntax_error_names_line_and_column():
    with pytest.raises(ProgrammingError) as info:
        parse("SELECT *\nFROM WHERE x = 1")
    message = str(info.value)
    assert message.startswith(
        "[PARSE_SYNTAX_ERROR] Syntax error at or near 'WHERE': Expected table name. SQLSTATE: 42601"
        " (line 2, pos 5)"
    )
    assert info.value.position == (2, 6) and info.value.length == 5  # type: ignore[attr-defined]


def test_parameters_numbered_in_text_order():
    statement = parse_one("SELECT ? AS a FROM t WHERE y = ? AND z IN (?, ?) LIMIT ?")
    assert number_parameters(statement) == 5
    by_parent = {}
    for p in statement.find_all(exp.Placeholder):
        by_parent.setdefault(p.parent.key, []).append(p.meta["icesql_param"])
    assert by_parent == {"alias": [0], "eq": [1], "in": [2, 3], "limit": [4]}


def test_split_statements_keeps_text_and_ignores_quoted_semicolons():
    text = "select ';' as a; select 2;;\n select 3 -- done\n"
    assert split_statements(text) == ["select ';' as a", "select 2", "select 3 -- done"]


def test_timestamptz_ns_is_a_type_where_a_type_stands_and_a_name_elsewhere():
    """sqlglot has no nanosecond timestamp with zone: the dialect reads Iceberg's (and DuckDB's)
    name as a user-defined type of that name, in column definitions and casts only."""
    created = parse_one("CREATE TABLE t (a timestamptz_ns, b TIMESTAMP_NS) USING iceberg")
    kinds = [d for d in created.find_all(exp.DataType)]
    assert (
        kinds[0].this == exp.DataType.Type.USERDEFINED and kinds[0].args["kind"] == "TIMESTAMPTZ_NS"
    )
    assert kinds[1].this == exp.DataType.Type.TIMESTAMP_NS
    query = parse_one(
        "SELECT timestamptz_ns, CAST(x AS timestamptz_ns), x::TIMESTAMPTZ_NS,"
        " timestamptz_ns(1) FROM t AS timestamptz_ns"
    )
    assert query.sql("duckdb") == (
        "SELECT timestamptz_ns, TRY_CAST(x AS TIMESTAMPTZ_NS),"
        " TRY_CAST(x AS TIMESTAMPTZ_NS), TIMESTAMPTZ_NS(1)"
        " FROM t AS timestamptz_ns"
    )
    altered = parse_one("ALTER TABLE t ADD COLUMN c timestamptz_ns")
    assert altered.find(exp.DataType).args["kind"] == "TIMESTAMPTZ_NS"


def test_spark_s_bare_decimal_is_decimal_10_0():
    # Spark 3.5.8: CAST('1.5' AS DECIMAL) is 2, a DECIMAL(10, 0) (DuckDB's bare DECIMAL is (18, 3))
    cast = parse_one("SELECT CAST(x AS DEC)").expressions[0]
    assert cast.to.sql(dialect="spark") == "DECIMAL(10, 0)"


def test_a_decimal_literal_with_an_exponent_is_written_plainly():
    # Spark 3.5.8: 123.0E-28BD is 0.00000000000000000000000001230, a DECIMAL(29, 29)
    cast = parse_one("SELECT 123.0E-28BD").expressions[0]
    assert cast.this.name == "0.00000000000000000000000001230"
