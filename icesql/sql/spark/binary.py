"""Spark's text-to-binary conversions: ``to_binary``, ``try_to_binary``, ``unhex``.

``to_binary(s [, fmt])`` decodes ``s`` as hex (the default: ``'abc'`` is ``0x0ABC``, an odd
length taking a leading zero), UTF-8 or base64, ``fmt`` a literal of those names in any
case; sqlglot would hand DuckDB its own ``to_binary``, which answers the text's bits as a
string. Malformed input is an error of ``to_binary`` and NULL for ``try_to_binary`` and
``unhex`` (DuckDB's ``unhex`` raises).

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT to_binary(s) FROM t")).sql("duckdb")
'SELECT UNHEX(s) FROM t'
"""

from __future__ import annotations

from sqlglot import exp

from icesql.errors import ProgrammingError
from icesql.sql.spark.base import call, refuse

_HEX = exp.Literal.string("[0-9a-fA-F]*")
_FORMATS = ("hex", "utf-8", "utf8", "base64")


def _valid_hex(text: exp.Expr) -> exp.Expr:
    return call("regexp_full_match", text, _HEX.copy())


def _null_unless_hex(text: exp.Expr) -> exp.Expr:
    """unhex(text), NULL where text is not hex digits (Spark's unhex and try_to_binary)."""
    return exp.Case(ifs=[exp.If(this=_valid_hex(text.copy()), true=call("unhex", text))])


def _decoded(name: str, text: exp.Expr, fmt: exp.Expr | None, lenient: bool) -> exp.Expr:
    while isinstance(fmt, exp.Cast) and isinstance(fmt.this, exp.Null):
        fmt = fmt.this
    if fmt is None:
        kind = "hex"
    elif isinstance(fmt, exp.Null):
        return exp.cast(exp.Null(), "BLOB")
    elif isinstance(fmt, exp.Literal) and fmt.is_string:
        kind = fmt.this.lower()
        if kind not in _FORMATS:
            raise ProgrammingError(
                f"{name}(): the format should be one of 'hex', 'utf-8', 'utf8' or 'base64',"
                f" but was '{fmt.this}'"
            )
    else:
        refuse(f"{name}() with a format computed by an expression", "write the format as a literal")
    if kind == "hex":
        return _null_unless_hex(text) if lenient else call("unhex", text)
    if kind in ("utf-8", "utf8"):
        return call("encode", text)
    if lenient:
        refuse("try_to_binary() of base64", "DuckDB's from_base64 raises on malformed text")
    return call("from_base64", text)


def _to_binary(node: exp.ToBinary) -> exp.Expr:
    lenient = bool(node.args.get("safe"))
    name = "try_to_binary" if lenient else "to_binary"
    return _decoded(name, node.this, node.args.get("format"), lenient=lenient)


def _try_to_binary(node: exp.Anonymous) -> exp.Expr:
    if not 1 <= len(node.expressions) <= 2:
        return node
    fmt = node.expressions[1] if len(node.expressions) == 2 else None
    return _decoded("try_to_binary", node.expressions[0], fmt, lenient=True)


def _unhex(node: exp.Unhex) -> exp.Expr:
    return _null_unless_hex(node.this) if not node.args.get("expression") else node


RULES = {
    exp.ToBinary: _to_binary,
    exp.Unhex: _unhex,
}
FUNCTIONS = {"try_to_binary": _try_to_binary}
TYPED: set = set()
TYPED_FUNCTIONS: set[str] = set()
