"""Spark 4's variant functions on DuckDB's ``VARIANT``.

``parse_json`` is DuckDB's JSON-to-VARIANT cast and ``variant_get`` a chain of
``variant_extract`` calls (DuckDB counts array positions from 1) and a cast. Where DuckDB's
answer would differ from Spark's, the input or the statement is refused:

* DuckDB parses a JSON number with a fraction or exponent as DOUBLE, Spark as DECIMAL when it
  fits; integers above 18 digits become DOUBLE too. ``parse_json`` of such text is refused at
  run time (a conservative test of the text: a string holding ``: 1.5`` is refused too).
* DuckDB has one null for SQL NULL, a variant null and a missing field. ``parse_json('null')``
  (a top-level variant null, which DuckDB would store as SQL NULL) is refused;
  ``is_variant_null`` is answered only for ``variant_get(v, path, 'variant')``, by asking the
  parent object or array whether the field exists.
* DuckDB rounds a fraction cast to an integer, Spark truncates: such a value is refused.
  A variant cast to STRING is the string itself, the JSON text of an object or array, or the
  scalar as Spark prints it where DuckDB prints it alike (``_as_string``).
* ``schema_of_variant`` and ``variant_explode`` have no DuckDB counterpart of the same output.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> sql = "SELECT variant_get(v, '$.a[0]', 'int') FROM t"
>>> "VARIANT_EXTRACT(VARIANT_EXTRACT(v, 'a'), 1)" in apply_spark_semantics(parse_one(sql)).sql("duckdb")
True
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp

from icesql.errors import ProgrammingError
from icesql.sql.spark.base import (
    FLOATING,
    INTEGRAL,
    TEXTUAL,
    T,
    arg_data_type,
    arg_type,
    call,
    literal_string,
    refuse,
    refuse_when,
)

__all__ = ["parse_variant_path"]

# a number token with a fraction or exponent, or an integer of 19+ digits, after [ : , or at
# the start: DuckDB would store a DOUBLE where Spark stores a DECIMAL or BIGINT
_INEXACT_NUMBER = r"(^|[\[:,])\s*-?[0-9]+([.eE]|[0-9]{18})"
_ATOMIC = (
    INTEGRAL
    | FLOATING
    | TEXTUAL
    | {
        T.BOOLEAN,
        T.DECIMAL,
        T.DATE,
        T.TIMESTAMP,
        T.TIMESTAMPNTZ,
        T.TIMESTAMPTZ,
        T.VARBINARY,
        T.BINARY,
    }
)
_NAME = re.compile(r"\.([^.\[]+)")
_QUOTED = re.compile(r"\[(?:'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\")\]")
_INDEX = re.compile(r"\[([0-9]+)\]")


def parse_variant_path(path: str) -> list[str | int]:
    """Spark's variant path (``$.a.b[0]``, ``$['a.b']``) as field names and array indexes.

    >>> parse_variant_path("$.a['b.c'][2]")
    ['a', 'b.c', 2]
    """
    if not path.startswith("$"):
        raise ProgrammingError(f"[INVALID_VARIANT_GET_PATH] {path!r} is not a valid variant path")
    steps: list[str | int] = []
    pos = 1
    while pos < len(path):
        for pattern in (_NAME, _QUOTED, _INDEX):
            m = pattern.match(path, pos)
            if m is not None:
                break
        else:
            raise ProgrammingError(
                f"[INVALID_VARIANT_GET_PATH] {path!r} is not a valid variant path"
            )
        if pattern is _INDEX:
            steps.append(int(m.group(1)))
        else:
            name = m.group(1) if m.group(1) is not None else m.group(2)
            steps.append(re.sub(r"\\(.)", r"\1", name) if pattern is _QUOTED else name)
        pos = m.end()
    return steps


def _extract(value: exp.Expr, step: str | int) -> exp.Expr:
    key = exp.Literal.string(step) if isinstance(step, str) else exp.Literal.number(step + 1)
    return call("variant_extract", value, key)


def _follow(value: exp.Expr, steps: list[str | int]) -> exp.Expr:
    for step in steps:
        value = _extract(value, step)
    return value


def _typeof(value: exp.Expr) -> exp.Expr:
    return call("variant_typeof", value)


def _as_string(value: exp.Expr, kind: type[exp.Cast], construct: str) -> exp.Expr:
    """Spark: a string as itself, an object or array as its JSON text, a scalar as Spark casts
    that scalar to STRING (integers, booleans and dates print alike in DuckDB; decimals,
    floating point, timestamps and binary do not, and are refused), a variant null as NULL."""
    typeof = _typeof(value.copy())
    varchar = exp.DataType.build("VARCHAR")

    def matches(pattern: str) -> exp.Expr:
        return call("regexp_matches", typeof.copy(), exp.Literal.string(pattern))

    def eq(name: str) -> exp.Expr:
        return exp.EQ(this=typeof.copy(), expression=exp.Literal.string(name))

    as_json = exp.Cast(this=call("to_json", value.copy()), to=varchar)
    refused = refuse_when(
        exp.true(),
        construct,
        "a variant decimal, floating point, time, timestamp, binary or uuid value cast to STRING",
        exp.Null(),
    )
    return exp.Case(
        ifs=[
            exp.If(this=eq("VARCHAR"), true=kind(this=value.copy(), to=varchar)),
            exp.If(this=eq("VARIANT_NULL"), true=exp.Null()),
            exp.If(
                this=matches(r"^(OBJECT|ARRAY)\(|^(U?INT[0-9]+|BOOL_TRUE|BOOL_FALSE)$"),
                true=as_json,
            ),
            exp.If(
                this=eq("DATE"),
                true=exp.Cast(
                    this=kind(this=value.copy(), to=exp.DataType.build("DATE")), to=varchar
                ),
            ),
        ],
        default=refused,
    )


def _as(value: exp.Expr, to: exp.DataType, construct: str, strict: bool) -> exp.Expr:
    """The variant ``value`` cast to the atomic type ``to`` as Spark casts it."""
    if to.this == T.VARIANT:
        return value
    if to.this not in _ATOMIC:
        refuse(construct, f"casting a variant to {to.sql('spark')} (only atomic types)")
    kind = exp.Cast if strict else exp.TryCast
    if to.this in TEXTUAL:
        return _as_string(value, kind, construct)
    cast = kind(this=value.copy(), to=to)
    if to.this in INTEGRAL:
        fractional = exp.or_(
            exp.In(
                this=_typeof(value.copy()),
                expressions=[exp.Literal.string("DOUBLE"), exp.Literal.string("FLOAT")],
            ),
            exp.Like(this=_typeof(value), expression=exp.Literal.string("DECIMAL%")),
        )
        return refuse_when(
            fractional,
            construct,
            "a fractional variant value cast to an integer (DuckDB rounds)",
            cast,
        )
    return cast


def _literal_args(node: exp.Anonymous, name: str) -> tuple[exp.Expr, list[str | int], str | None]:
    args = node.expressions
    if len(args) not in (2, 3):
        raise ProgrammingError(f"{name}() takes 2 or 3 arguments, not {len(args)}")
    path = literal_string(args[1])
    if path is None:
        raise ProgrammingError(f"{name}(): the path must be a string literal")
    kind = literal_string(args[2]) if len(args) == 3 else "variant"
    if kind is None:
        raise ProgrammingError(f"{name}(): the type must be a string literal")
    return args[0], parse_variant_path(path), kind


def _variant_get(node: exp.Anonymous) -> exp.Expr:
    name = str(node.this).lower()
    value, steps, kind = _literal_args(node, name)
    try:
        to = exp.DataType.build(kind or "variant", dialect="spark")
    except Exception:
        raise ProgrammingError(f"{name}(): unknown type {kind!r}") from None
    return _as(_follow(value.copy(), steps), to, f"{name}()", strict=name == "variant_get")


def _is_variant_null(node: exp.Anonymous) -> exp.Expr:
    arg = node.expressions[0] if len(node.expressions) == 1 else None
    inner = arg.meta.get("icesql_variant_get") if arg is not None else None
    if inner is None:
        refuse(
            "is_variant_null()",
            "DuckDB cannot tell a variant null from SQL NULL;"
            " it is answered only for variant_get(v, path, 'variant')",
        )
    value, steps = inner
    if not steps:
        refuse("is_variant_null()", "DuckDB cannot tell a top-level variant null from SQL NULL")
    parent = _follow(value.copy(), steps[:-1])
    last = steps[-1]
    if isinstance(last, str):
        exists: exp.Expr = call(
            "list_contains", call("variant_keys", parent.copy()), exp.Literal.string(last)
        )
    else:
        exists = exp.GT(
            this=call("variant_array_length", parent.copy()), expression=exp.Literal.number(last)
        )
    is_null = exp.EQ(
        this=_typeof(_extract(parent, last)), expression=exp.Literal.string("VARIANT_NULL")
    )
    return call("coalesce", exp.and_(exists, is_null), exp.false())


def _mark_variant_get(node: exp.Anonymous) -> exp.Expr:
    """variant_get rewritten, remembering (value, path) for an enclosing is_variant_null."""
    new = _variant_get(node)
    value, steps, kind = _literal_args(node, str(node.this).lower())
    if (kind or "variant").lower() == "variant":
        new.meta["icesql_variant_get"] = (value.copy(), steps)
    return new


def _parse_json(node: exp.Expr, strict: bool) -> exp.Expr:
    text = node.this if isinstance(node, exp.ParseJSON) else node.expressions[0]
    name = "parse_json()" if strict else "try_parse_json()"
    json = (exp.Cast if strict else exp.TryCast)(this=text.copy(), to=exp.DataType.build("JSON"))
    value: exp.Expr = exp.Cast(this=json, to=exp.DataType.build("VARIANT"))
    inexact = call("regexp_matches", text.copy(), exp.Literal.string(_INEXACT_NUMBER))
    top_null = call("regexp_matches", text.copy(), exp.Literal.string(r"^\s*null\s*$"))
    value = refuse_when(
        top_null, name, "a top-level JSON null (DuckDB stores it as SQL NULL)", value
    )
    return refuse_when(
        inexact,
        name,
        "JSON numbers with a fraction, an exponent or more than"
        " 18 digits (DuckDB parses them as DOUBLE, Spark as DECIMAL)",
        value,
    )


def _cast(node: exp.Cast) -> exp.Expr:
    to = node.to
    if not isinstance(to, exp.DataType):
        return node
    source = arg_type(node)
    if source == T.JSON:  # sqlglot's type of parse_json(): Spark has no JSON type
        source = T.VARIANT
    if to.this == T.VARIANT:
        literal = node.this
        decimal_literal = (
            isinstance(literal, exp.Literal)
            and not literal.is_string
            and "e" not in literal.this.lower()
        )  # Spark's 1.7 is a DECIMAL
        if source in FLOATING and not decimal_literal:
            refuse(
                "CAST(... AS VARIANT)",
                "of FLOAT/DOUBLE values (DuckDB prints them unlike Spark in to_json)",
            )
        return node
    if source == T.VARIANT:
        return _as(
            node.this.copy(), to, "CAST(variant AS ...)", strict=not isinstance(node, exp.TryCast)
        )
    return node


def _refused(why: str) -> Callable[[exp.Anonymous], exp.Expr]:
    def rule(node: exp.Anonymous) -> exp.Expr:
        refuse(f"{str(node.this).lower()}()", why)

    return rule


_COMPLEX = {T.STRUCT, T.ARRAY, T.MAP}


def _complex_key(found: exp.DataType | None) -> bool:
    """Whether a MAP inside ``found`` has a struct, array or map key."""
    if found is None:
        return False
    for node in found.walk():
        if isinstance(node, exp.DataType) and node.this == T.MAP and node.expressions:
            key = node.expressions[0]
            if isinstance(key, exp.DataType) and key.this in _COMPLEX:
                return True
    return False


def _to_json(node: exp.JSONFormat) -> exp.Expr:
    """``to_json`` of a map keyed by structs, arrays or maps: Spark writes the key as its
    own text form (``[1,2]`` for a struct), DuckDB as its literal; refused."""
    built = [
        key
        for m in node.this.find_all(exp.VarMap)
        for key in (m.args["keys"].expressions if isinstance(m.args.get("keys"), exp.Array) else [])
    ]
    literal_key = any(isinstance(k, exp.Struct | exp.Array | exp.VarMap) for k in built)
    if literal_key or _complex_key(arg_data_type(node)):
        refuse(
            "to_json() of a map with struct, array or map keys",
            "Spark writes such keys as its own text",
        )
    return node


RULES = {
    exp.ParseJSON: lambda node: _parse_json(node, strict=True),
    exp.Cast: _cast,
    exp.JSONFormat: _to_json,
}
FUNCTIONS = {
    "try_parse_json": lambda node: _parse_json(node, strict=False),
    "variant_get": _mark_variant_get,
    "try_variant_get": _mark_variant_get,
    "is_variant_null": _is_variant_null,
    "schema_of_variant": _refused("DuckDB has no function printing Spark's variant schema"),
    "schema_of_variant_agg": _refused("DuckDB has no function printing Spark's variant schema"),
}
TYPED = {exp.Cast, exp.JSONFormat}
TYPED_FUNCTIONS: set[str] = set()


def needs_types(node: exp.Expr) -> bool:
    """A cast reads its argument's type only to or from VARIANT (else text.py's rule)."""
    return isinstance(node, exp.Cast)
