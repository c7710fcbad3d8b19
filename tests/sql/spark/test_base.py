"""What the rewrite rules share: recorded argument types, literal readers, NULL propagation,
refusals at translation time and at run time."""

from __future__ import annotations

import duckdb
import pytest
from sqlglot import exp

import icesql
from icesql.sql.bound_query import bind_query
from icesql.sql.dialect import parse_one
from icesql.sql.spark.base import (
    RUNTIME_REFUSAL,
    TYPES_KEY,
    arg_data_type,
    arg_key,
    arg_type,
    call,
    copies,
    literal_int,
    literal_string,
    null_if_any_null,
    refuse,
    refuse_when,
)


def _value(node: exp.Expr) -> object:
    with duckdb.connect() as con:
        return con.execute(f"SELECT {node.sql('duckdb')}").fetchone()[0]


def _expr(sql: str) -> exp.Expr:
    return parse_one(f"SELECT {sql}").expressions[0]


@pytest.mark.parametrize(
    "sql, value",
    [
        ("3", 3),
        ("-3", -3),
        ("0", 0),
        ("- -3", 3),
        ("3.5", None),
        ("'3'", None),
        ("x", None),
        ("NULL", None),
        ("1 + 2", None),
    ],
)
def test_literal_int(sql, value):
    assert literal_int(_expr(sql)) == value


def test_literal_int_of_nothing():
    assert literal_int(None) is None
    assert literal_string(None) is None


@pytest.mark.parametrize("sql, value", [("'a b'", "a b"), ("''", ""), ("3", None), ("s", None)])
def test_literal_string(sql, value):
    assert literal_string(_expr(sql)) == value


def test_arg_key_names_list_positions():
    assert arg_key("this") == "this"
    assert arg_key("expressions", 1) == "expressions.1"


def test_argument_types_are_read_from_what_the_binding_pass_recorded():
    statement = parse_one("SELECT format_number(1.5D, 2), format_number(x, 2) FROM t")
    bind_query(statement, {})
    typed, untyped = statement.expressions
    assert TYPES_KEY in typed.meta
    assert arg_type(typed, "expressions", 0) == exp.DataType.Type.DOUBLE
    assert arg_data_type(typed, "expressions", 0).sql() == "DOUBLE"
    assert arg_type(typed, "expressions", 1) == exp.DataType.Type.INT
    assert arg_type(typed, "expressions", 5) is None
    assert arg_type(untyped, "expressions", 0) is None  # x has no known source: no type
    assert arg_type(exp.column("y")) is None  # nothing recorded at all


@pytest.mark.parametrize(
    "args, value",
    [(["1", "2"], "v"), (["1", "NULL"], None), (["NULL", "2"], None), ([], "v")],
)
def test_null_if_any_null_propagates_nulls(args, value):
    node = null_if_any_null(exp.Literal.string("v"), *(_expr(a) for a in args))
    assert _value(node) == value


def test_call_is_written_as_named_and_copies_are_independent():
    node = call("list_position", exp.column("a"), exp.Literal.number(1))
    assert node.sql("duckdb") == "LIST_POSITION(a, 1)"
    a = exp.column("a")
    (copied,) = copies(a)
    assert copied == a and copied is not a


def test_refuse_names_the_construct_and_why():
    with pytest.raises(
        icesql.NotSupportedError, match=r"^hash\(\) is not supported: other values$"
    ):
        refuse("hash()", "other values")


def test_refuse_when_answers_or_raises_at_run_time():
    value = exp.Literal.number(7)
    ok = refuse_when(exp.false(), "thing()", "why", value)
    assert _value(ok) == 7
    refused = refuse_when(exp.true(), "thing()", "why", value)
    with pytest.raises(duckdb.Error, match=f"{RUNTIME_REFUSAL}thing\\(\\): why"):
        _value(refused)
