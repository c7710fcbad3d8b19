"""Spark's string functions where DuckDB's answers differ.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT substring(s, 0, 2) FROM t")).sql("duckdb")
'SELECT SUBSTRING(s, 1, 2) FROM t'
"""

from __future__ import annotations

import re
from collections.abc import Callable

import sqlglot
from sqlglot import exp

from icesql.sql.spark.base import (
    FLOATING,
    INTEGRAL,
    TEXTUAL,
    TIMESTAMPS,
    T,
    arg_type,
    call,
    literal_int,
    literal_string,
    null_if_any_null,
    refuse,
    refuse_when,
)
from icesql.sql.spark.numbers import round_half_up

# Spark functions with no DuckDB function of the same meaning: refuse rather than answer wrong
_OTHER_VALUES = {
    "hash": "Spark's Murmur3 hash()",
    "xxhash64": "Spark's xxhash64()",
}


def _substring(node: exp.Substring) -> exp.Expr:
    # Spark treats start position 0 as 1; DuckDB counts it as a position before the string
    start = node.args.get("start")
    if isinstance(start, exp.Literal) and not start.is_string and start.this == "0":
        node.set("start", exp.Literal.number(1))
    elif start is not None and not isinstance(start, exp.Literal):
        node.set(
            "start",
            exp.Case(
                ifs=[
                    exp.If(
                        this=exp.EQ(this=start.copy(), expression=exp.Literal.number(0)),
                        true=exp.Literal.number(1),
                    )
                ],
                default=start,
            ),
        )
    return node


def _left_right(node: exp.Left | exp.Right) -> exp.Expr:
    # Spark: a length below 1 gives ''; DuckDB's left/right count a negative one from the end
    length = node.expression
    if isinstance(length, exp.Literal) and not length.is_string:
        if int(length.this) < 0:
            node.set("expression", exp.Literal.number(0))
        return node
    node.set(
        "expression",
        exp.Case(
            ifs=[
                exp.If(
                    this=exp.LT(this=length.copy(), expression=exp.Literal.number(0)),
                    true=exp.Literal.number(0),
                )
            ],
            default=length,
        ),
    )
    return node


def _locate(node: exp.StrPosition) -> exp.Expr:
    # Spark's locate(substr, str, pos): 0 for a NULL pos or one below 1 (then NULL only for a
    # NULL substr or str); DuckDB searches from the string's start or answers NULL
    position = node.args.get("position")
    if position is None or (
        isinstance(position, exp.Literal) and not position.is_string and int(position.this) >= 1
    ):
        return node
    zero = exp.Literal.number(0)
    either_null = exp.Or(
        this=exp.Is(this=node.this.copy(), expression=exp.Null()),
        expression=exp.Is(this=node.args["substr"].copy(), expression=exp.Null()),
    )
    return exp.Case(
        ifs=[
            exp.If(this=exp.Is(this=position.copy(), expression=exp.Null()), true=zero),
            exp.If(this=either_null, true=exp.Null()),
            exp.If(
                this=exp.LT(this=position.copy(), expression=exp.Literal.number(1)),
                true=zero.copy(),
            ),
        ],
        default=node,
    )


def _is_null(node: exp.Anonymous) -> exp.Expr:
    if len(node.expressions) != 1:
        return node
    test = exp.Is(this=node.expressions[0], expression=exp.Null())
    return exp.Paren(this=test if node.name.lower() == "isnull" else exp.Not(this=test))


# Java's toUpperCase maps these to several letters; DuckDB's upper maps ß to ẞ, leaves the rest
_FULL_UPPER = {
    "ß": "SS",
    "ﬀ": "FF",
    "ﬁ": "FI",
    "ﬂ": "FL",
    "ﬃ": "FFI",
    "ﬄ": "FFL",
    "ﬅ": "ST",
    "ﬆ": "ST",
}


def _upper(node: exp.Upper) -> exp.Expr:
    value = node.this
    for letter, capitals in _FULL_UPPER.items():
        value = call("replace", value, exp.Literal.string(letter), exp.Literal.string(capitals))
    node.set("this", value)
    return node


def _initcap(node: exp.Initcap) -> exp.Expr:
    # Spark lowers the text, then title-cases each word's first letter; ß has no title case
    return call("replace", node, exp.Literal.string("ẞ"), exp.Literal.string("ß"))


def _other_values(node: exp.Anonymous) -> exp.Expr:
    name = str(node.this).lower()
    refuse(_OTHER_VALUES[name], f"DuckDB's {name} gives other values")


# Java Formatter conversions: %[index$][flags][width][.precision]conversion
_SPEC = re.compile(r"%(?:(\d+)\$|(<))?([-#+ 0,(]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])")


def _format_string(node: exp.Expr) -> exp.Expr:
    """format_string / printf: Java's Formatter spelled as DuckDB printf calls, one per
    conversion, so a NULL argument prints ``null`` (with the width and precision of a %s) as
    Java does, instead of making DuckDB's whole result NULL."""
    if isinstance(node, exp.Format):
        pattern_node, args, types = (
            node.this,
            node.expressions,
            [arg_type(node, "expressions", i) for i in range(len(node.expressions))],
        )
    else:
        pattern_node, args = node.expressions[0], node.expressions[1:]
        types = [arg_type(node, "expressions", i + 1) for i in range(len(args))]
    pattern = literal_string(pattern_node)
    if pattern is None:
        refuse("format_string() with a computed format", "the format must be a literal")
    parts: list[exp.Expr] = []
    position, previous, next_arg = 0, None, 0
    for match in _SPEC.finditer(pattern):
        if match.start() > position:
            parts.append(exp.Literal.string(pattern[position : match.start()]))
        position = match.end()
        index, relative, flags, width, precision, conversion = match.groups()
        if conversion == "%":
            parts.append(exp.Literal.string("%"))
            continue
        if conversion == "n":
            parts.append(exp.Literal.string("\n"))
            continue
        if relative:
            arg_index = previous
        elif index:
            arg_index = int(index) - 1
        else:
            arg_index, next_arg = next_arg, next_arg + 1
        if arg_index is None or arg_index >= len(args):
            refuse(f"format_string() conversion {match.group(0)!r}", "it has no argument")
        previous = arg_index
        parts.append(
            _conversion(
                match.group(0),
                flags,
                width,
                precision,
                conversion,
                args[arg_index],
                types[arg_index],
            )
        )
    if position < len(pattern):
        parts.append(exp.Literal.string(pattern[position:]))
    if not parts:
        return exp.Literal.string("")
    return parts[0] if len(parts) == 1 else call("concat", *parts)


def _conversion(
    spec: str,
    flags: str,
    width: str | None,
    precision: str | None,
    conversion: str,
    value: exp.Expr,
    kind: T | None,
) -> exp.Expr:
    unsupported = set(flags) - set("-0+ ,")
    if unsupported or conversion not in "sdf":
        refuse(f"format_string() conversion {spec!r}", "DuckDB's printf has no equivalent")
    if conversion == "s" and (
        kind in FLOATING or kind in TIMESTAMPS or kind in (T.DATE, T.ARRAY, T.MAP, T.STRUCT)
    ):
        refuse(f"format_string() %s of a {kind.value}", "Spark prints such values its own way")
    if conversion == "d" and kind not in INTEGRAL:
        refuse("format_string() %d of a value that is not an integer", "cast it to an integer type")
    if conversion == "f" and kind not in FLOATING:  # Spark itself refuses %f of a DECIMAL
        refuse("format_string() %f of a value that is not a DOUBLE or FLOAT", "cast it to DOUBLE")
    printed = value.copy()
    if conversion == "f":  # Java rounds HALF_UP on the decimal digits: round first, exactly
        printed = round_half_up(value.copy(), kind, int(precision) if precision is not None else 6)
    size = (width or "") + (f".{precision}" if precision else "")
    null_spec = "%" + ("-" if "-" in flags else "") + size + "s"
    return exp.Case(
        ifs=[
            exp.If(
                this=exp.Is(this=value, expression=exp.Null()),
                true=call("printf", exp.Literal.string(null_spec), exp.Literal.string("null")),
            )
        ],
        default=call("printf", exp.Literal.string(f"%{flags}{size}{conversion}"), printed),
    )


def _regexp_replace(node: exp.RegexpReplace) -> exp.Expr:
    """Java's replacement text ($1 a group, \\x a literal x) in RE2's spelling (\\1)."""
    position = node.args.get("position")
    if position is not None and literal_int(position) != 1:
        refuse("regexp_replace() from a position", "only the whole string is translated")
    replacement = node.args.get("replacement")
    text = literal_string(replacement)
    if text is None:
        if replacement is not None:
            refuse("regexp_replace() with a computed replacement", "it must be a literal")
        return node
    out, i = [], 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            out.append("\\\\" if text[i + 1] == "\\" else text[i + 1])
            i += 2
        elif char == "$":
            group = re.match(r"\d+", text[i + 1 :])
            if group is None or len(group.group()) > 1:
                refuse(f"regexp_replace() replacement {text!r}", "only $0 to $9 group references")
            out.append("\\" + group.group())
            i += 2
        else:
            out.append(char)
            i += 1
    node.set("replacement", exp.Literal.string("".join(out)))
    return node


def _substring_index(node: exp.SubstringIndex) -> exp.Expr:
    """The text before the count-th delimiter (after the count-th from the end if negative).
    Spark counts overlapping occurrences; a delimiter that can overlap itself is refused."""
    value, delimiter, count = node.this, node.args["delimiter"], node.args["count"]
    text = literal_string(delimiter)
    if text is None:
        refuse("substring_index() with a computed delimiter", "it must be a literal")
    if any(text[:k] == text[-k:] for k in range(1, len(text))):
        refuse(f"substring_index() with delimiter {text!r}", "its occurrences can overlap")
    if text == "":
        return exp.Case(
            ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=exp.Null())],
            default=exp.Literal.string(""),
        )
    parts = call("string_split", value.copy(), delimiter.copy())
    front = call("list_slice", parts.copy(), exp.Literal.number(1), count.copy())
    back = call("list_slice", parts, count.copy(), exp.Literal.number(-1))
    zero = exp.EQ(this=count.copy(), expression=exp.Literal.number(0))
    positive = exp.GT(this=count.copy(), expression=exp.Literal.number(0))
    answer = exp.Case(
        ifs=[
            exp.If(this=zero, true=exp.Literal.string("")),
            exp.If(this=positive, true=call("array_to_string", front, delimiter.copy())),
        ],
        default=call("array_to_string", back, delimiter.copy()),
    )
    return exp.Case(
        ifs=[exp.If(this=exp.Is(this=value, expression=exp.Null()), true=exp.Null())],
        default=answer,
    )


def _split(node: exp.RegexpSplit) -> exp.Expr:
    # split(s, regex, limit): limit <= 0 means no limit; 1 the whole string
    limit = node.args.get("limit")
    count = literal_int(limit) if limit is not None else 0
    if count is not None and count <= 0:
        node.set("limit", None)
        return _split_all(node)
    if count == 1:
        whole = exp.Array(expressions=[node.this.copy()])
        return exp.Case(
            ifs=[exp.If(this=exp.Is(this=node.this, expression=exp.Null()), true=exp.Null())],
            default=whole,
        )
    refuse("split() with a limit above 1", "DuckDB's regexp split has no limit")


def _split_all(node: exp.RegexpSplit) -> exp.Expr:
    """Spark splits '' into [''] (DuckDB by an empty pattern into []) and answers NULL for a
    NULL pattern (DuckDB: the whole string)."""
    text, pattern = node.this, node.expression
    empty = exp.EQ(this=text.copy(), expression=exp.Literal.string(""))
    whole = exp.Array(expressions=[exp.Literal.string("")])
    split = exp.Case(ifs=[exp.If(this=empty, true=whole)], default=node)
    return null_if_any_null(split, pattern)


def _split_part(node: exp.SplitPart) -> exp.Expr:
    """split_part by an empty delimiter: Spark answers the whole string as part 1 or -1 and
    '' as any other; DuckDB splits it into characters."""
    delimiter, index = node.args.get("delimiter"), node.args.get("part_index")
    if delimiter is None or index is None:
        return node
    empty = exp.EQ(this=delimiter.copy(), expression=exp.Literal.string(""))
    ends = exp.In(this=index.copy(), expressions=[exp.Literal.number(1), exp.Literal.number(-1)])
    whole = exp.Case(ifs=[exp.If(this=ends, true=node.this.copy())], default=exp.Literal.string(""))
    return exp.Case(ifs=[exp.If(this=empty, true=whole)], default=node)


def _replace(node: exp.Replace) -> exp.Expr:
    if node.args.get("replacement") is None:  # replace(s, x) removes x
        node.set("replacement", exp.Literal.string(""))
    return node


def _octet_length(node: exp.Anonymous) -> exp.Expr:
    if len(node.expressions) != 1:
        return node
    return (
        call("strlen", node.expressions[0]) if arg_type(node, "expressions", 0) in TEXTUAL else node
    )


def _base64(node: exp.ToBase64) -> exp.Expr:
    if arg_type(node) in TEXTUAL:
        node.set("this", call("encode", node.this))
    return node


def _btrim(node: exp.Anonymous) -> exp.Expr:
    return call("trim", *node.expressions) if 1 <= len(node.expressions) <= 2 else node


def _pad(node: exp.Pad) -> exp.Expr:
    # an empty pad only cuts: lpad('abc', 5, '') is 'abc', lpad('abc', 2, '') is 'ab'
    if literal_string(node.args.get("fill_pattern")) != "":
        return node
    length = exp.func("greatest", node.expression.copy(), exp.Literal.number(0))
    return call("substring", node.this, exp.Literal.number(1), length)


def _levenshtein(node: exp.Levenshtein) -> exp.Expr:
    """DuckDB counts edits of UTF-8 bytes, Spark of characters: refused for non-ASCII text."""
    threshold = node.args.get("ins_cost")  # sqlglot files Spark's third argument here
    if any(node.args.get(k) is not None for k in ("del_cost", "sub_cost", "max_dist")):
        return node
    left, right = node.this, node.expression
    distance = call("levenshtein", left.copy(), right.copy())
    if threshold is not None:  # more than threshold edits: -1
        over = exp.GT(this=distance.copy(), expression=threshold)
        distance = exp.Case(ifs=[exp.If(this=over, true=exp.Literal.number(-1))], default=distance)
    non_ascii = exp.or_(
        *(
            exp.NEQ(this=call("strlen", s.copy()), expression=call("length", s.copy()))
            for s in (left, right)
        )
    )
    return refuse_when(
        non_ascii,
        "levenshtein() of non-ASCII text",
        "DuckDB counts bytes, Spark characters",
        distance,
    )


# Java's Double.toString from DuckDB's shortest text: plain within [1e-3, 1e7), else d.dddE±n
_JAVA_DOUBLE = """CASE WHEN isnan(v) THEN 'NaN' WHEN v = CAST('inf' AS DOUBLE) THEN 'Infinity'
 WHEN v = CAST('-inf' AS DOUBLE) THEN '-Infinity'
 WHEN v = 0 OR (abs(v) >= 0.001 AND abs(v) < 10000000) THEN CAST(v AS VARCHAR)
 ELSE (CASE WHEN v < 0 THEN '-' ELSE '' END) || substr({d}, 1, 1) || '.'
   || CASE WHEN length({d}) > 1 THEN substr({d}, 2) ELSE '0' END || 'E' || CAST({e} AS VARCHAR) END"""
_TEXT = "CAST(abs(v) AS VARCHAR)"
_MANTISSA = f"split_part({_TEXT}, 'e', 1)"
_WHOLE = f"split_part({_MANTISSA}, '.', 1)"
_DIGITS = f"({_WHOLE} || split_part({_MANTISSA}, '.', 2))"
_EXPONENT = (
    f"(CASE WHEN contains({_TEXT}, 'e') THEN CAST(split_part({_TEXT}, 'e', 2) AS INTEGER)"
    f" ELSE 0 END + length({_WHOLE}) - 1 - (length({_DIGITS}) - length(ltrim({_DIGITS}, '0'))))"
)
_JAVA_DOUBLE_SQL = _JAVA_DOUBLE.format(d=f"rtrim(ltrim({_DIGITS}, '0'), '0')", e=_EXPONENT)


def spark_string(value: exp.Expr, kind: T | None) -> exp.Expr | None:
    """``value`` as Spark's CAST(... AS STRING) writes it, where DuckDB writes it otherwise:
    doubles and floats as Java prints them (1.0E7, 1.0E-4), timestamps without the zone."""
    if kind in FLOATING:
        body = sqlglot.parse_one(_JAVA_DOUBLE_SQL, read="duckdb")
        one = exp.Array(expressions=[value])  # v evaluated once, named by a lambda
        return call(
            "list_extract",
            call(
                "list_transform", one, exp.Lambda(this=body, expressions=[exp.to_identifier("v")])
            ),
            exp.Literal.number(1),
        )
    if kind in (T.TIMESTAMPTZ, T.TIMESTAMPLTZ):
        return exp.cast(exp.cast(value, "TIMESTAMP"), "VARCHAR")
    return None


def _cast_to_string(node: exp.Cast) -> exp.Expr:
    if not isinstance(node.to, exp.DataType) or node.to.this not in TEXTUAL:
        return node
    written = spark_string(node.this, arg_type(node))
    return written if written is not None else node


def _concat(node: exp.Expr) -> exp.Expr:
    # concat(s, d) and s || d convert their arguments as CAST(... AS STRING) does
    keys = ["expressions"] if isinstance(node, exp.Concat) else ["this", "expression"]
    for key in keys:
        values = node.args.get(key)
        for i, value in enumerate(values if isinstance(values, list) else [values]):
            index = i if isinstance(values, list) else None
            written = spark_string(value.copy(), arg_type(node, key, index))
            if written is not None:
                node.set(key, written, index) if index is not None else node.set(key, written)
    return node


def _length(node: exp.Length) -> exp.Expr:
    # Spark's length (char_length, character_length) is an INT; DuckDB's a BIGINT
    return exp.Cast(this=node, to=exp.DataType.build("INT"))


def _regexp_extract_all(node: exp.RegexpExtractAll) -> exp.Expr:
    # Spark's matcher.group(i) of a group that took no part in a match is '' there (it
    # writes the group as UTF8String.fromString(null) -> ""), DuckDB's NULL
    x = exp.to_identifier("x")
    keep = exp.Lambda(
        this=exp.func("coalesce", exp.column(x), exp.Literal.string("")), expressions=[x]
    )
    return call("list_transform", node, keep)


# Java's URLEncoder (Spark's url_encode) leaves . - * _ as they are and writes a space as +;
# DuckDB's url_encode leaves . - _ ~ and writes %20, %2A: the three differences put right
_URL_ENCODER = (("%20", "+"), ("~", "%7E"), ("%2A", "*"))


def _url_encode(node: exp.Anonymous) -> exp.Expr:
    if len(node.expressions) != 1:
        return node
    encoded: exp.Expr = call("url_encode", node.expressions[0])
    for duckdb_text, java_text in _URL_ENCODER:
        encoded = exp.func(
            "replace", encoded, exp.Literal.string(duckdb_text), exp.Literal.string(java_text)
        )
    return encoded


def _json_of_kind(kind: str, function: str) -> Callable[[exp.Expr], exp.Expr]:
    """Spark's json_array_length / json_object_keys: NULL for text that is not JSON or whose
    outermost value is not an array / object (DuckDB: 0, [] or an error)."""

    def rule(node: exp.Expr) -> exp.Expr:
        text = node.this if not isinstance(node, exp.Anonymous) else node.expressions[0]
        if isinstance(node, exp.Anonymous) and len(node.expressions) != 1:
            return node
        if isinstance(node, exp.JSONKeys) and (node.expression or node.expressions):
            return node  # a path argument: not Spark's json_object_keys
        is_kind = exp.EQ(
            this=exp.func("try", call("json_type", text.copy())),
            expression=exp.Literal.string(kind),
        )
        value = call(function, text.copy())
        if kind == "ARRAY":
            value = exp.cast(value, "INT")  # Spark's INT, DuckDB's UBIGINT
        return exp.Case(ifs=[exp.If(this=is_kind, true=value)])

    return rule


RULES = {
    exp.JSONKeys: _json_of_kind("OBJECT", "json_keys"),
    exp.RegexpExtractAll: _regexp_extract_all,
    exp.Length: _length,
    exp.Cast: _cast_to_string,
    exp.Concat: _concat,
    exp.DPipe: _concat,
    exp.Substring: _substring,
    exp.Left: _left_right,
    exp.Right: _left_right,
    exp.StrPosition: _locate,
    exp.Format: _format_string,
    exp.RegexpReplace: _regexp_replace,
    exp.SubstringIndex: _substring_index,
    exp.RegexpSplit: _split,
    exp.SplitPart: _split_part,
    exp.Replace: _replace,
    exp.ToBase64: _base64,
    exp.Pad: _pad,
    exp.Levenshtein: _levenshtein,
    exp.Upper: _upper,
    exp.Initcap: _initcap,
}
FUNCTIONS = {
    **{name: _other_values for name in _OTHER_VALUES},
    "isnull": _is_null,
    "isnotnull": _is_null,
    "printf": _format_string,
    "octet_length": _octet_length,
    "btrim": _btrim,
    "url_encode": _url_encode,
    "json_array_length": _json_of_kind("ARRAY", "json_array_length"),
}
TYPED = {exp.Format, exp.ToBase64, exp.Concat, exp.DPipe}
TYPED_FUNCTIONS = {"printf", "octet_length"}
