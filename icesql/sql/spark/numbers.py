"""Spark's arithmetic where DuckDB's answers differ: casts, rounding, division, logarithms.

>>> from icesql.sql.dialect import parse_one
>>> from icesql.sql.semantics import apply_spark_semantics
>>> apply_spark_semantics(parse_one("SELECT pmod(a, 3) FROM t")).sql("duckdb")
'SELECT CASE WHEN a % NULLIF(3, 0) < 0 THEN (a % NULLIF(3, 0) + 3) % NULLIF(3, 0) ELSE a % NULLIF(3, 0) END FROM t'
"""

from __future__ import annotations

from decimal import Decimal

from sqlglot import exp

from icesql.sql.spark.base import (
    FLOATING,
    FRACTIONAL,
    INTEGRAL,
    TEXTUAL,
    TYPES_KEY,
    T,
    arg_data_type,
    arg_type,
    call,
    decimal_digits,
    literal_int,
    refuse,
)
from icesql.sql.spark.casts import trimmed_all
from icesql.sql.spark.decimal_types import (
    FOR_TYPE,
    MAX_DIGITS,
    Digits,
    add,
    divide,
    integer_literal_digits,
    literal_digits,
    multiply,
    remainder,
    rounded,
    wider,
)
from icesql.sql.spark.functions import DECIMAL_DIVIDE
from icesql.sql.spark.overflow import integral_type, negated_typed_literal, wrapped

# a double is rounded through its decimal text (as Spark does) while it fits DECIMAL(38, 20)
_DECIMAL_TEXT_LIMIT = "1e17"
_DECIMAL_TEXT_SCALE = 20
# format_number formats a DECIMAL through a DOUBLE, exact up to this many digits
_DOUBLE_DIGITS = 15


def _cast(node: exp.Cast) -> exp.Expr:
    # Spark truncates toward zero when casting fractions (and numeric strings) to integers;
    # DuckDB rounds to nearest
    target = node.to.this if isinstance(node.to, exp.DataType) else None
    operand = arg_type(node)
    if target not in INTEGRAL or operand is None:
        return node
    if operand == T.INTERVAL:
        refuse(
            "a cast of an INTERVAL to an integral type",
            "Spark casts the interval's count of its end unit, DuckDB's cast is NULL",
        )
    if operand in FLOATING and target in _SATURATED:
        return _saturating(node, target)
    if negated_typed_literal(node):
        return node  # -128Y: the minus's rule makes the literal (overflow.RULES)
    source = integral_type(node, "this")  # a literal's from its value: 2147483648 is a BIGINT
    if source is not None and _WIDTH[target] < _WIDTH[source]:
        # a narrowing cast keeps the low bits (Java's (short) i); DuckDB's is NULL past the range
        return wrapped(node.this, target)
    if operand in FRACTIONAL:
        node.set("this", exp.func("trunc", node.this))
    elif operand in TEXTUAL and node.args.get("safe"):
        return _try_cast_text(node, target)
    elif operand in TEXTUAL:
        return text_to_integral(node, target)
    return node


def text_to_integral(node: exp.Cast, target: T) -> exp.Expr:
    """Spark's ``CAST(text AS INT)`` (ANSI off, ``UTF8String.toInt``): trimmed digits with
    an optional fraction, truncated (``'1.23'`` is 1, ``'1e2'`` NULL); DuckDB rounds and
    reads exponents."""
    text = trimmed_all(node.this)
    number = exp.RegexpLike(this=text.copy(), expression=exp.Literal.string(_DIGITS))
    as_decimal = exp.TryCast(this=text, to=exp.DataType.build("DECIMAL(38, 9)"))
    node.set("this", exp.func("trunc", as_decimal))
    return exp.Case(
        ifs=[exp.If(this=number, true=node)], default=exp.cast(exp.Null(), target.value)
    )


_WIDTH = {T.TINYINT: 8, T.SMALLINT: 16, T.INT: 32, T.BIGINT: 64}
_WHOLE_NUMBER = r"^[+-]?[0-9]+$"
_DIGITS = r"^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)$"


def _try_cast_text(node: exp.Cast, target: T) -> exp.Expr:
    """``TRY_CAST(text AS INT)`` casts as ANSI mode does (``UTF8String.toIntExact``): the
    text, trimmed, must be a whole number (``'1.23'`` is NULL, where CAST truncates it)."""
    text = trimmed_all(node.this)
    whole = exp.RegexpLike(this=text.copy(), expression=exp.Literal.string(_WHOLE_NUMBER))
    return exp.Case(
        ifs=[exp.If(this=whole, true=exp.TryCast(this=text, to=exp.DataType.build(target.value)))],
        default=exp.cast(exp.Null(), target.value),
    )


# Spark (ANSI off) casts a double to INT / BIGINT as the JVM does: NaN is 0, values beyond
# the type's range are its bounds; DuckDB's cast of them fails (NULL under TRY_CAST)
_SATURATED = {T.INT: (-(2**31), 2**31 - 1), T.BIGINT: (-(2**63), 2**63 - 1)}


def _saturating(node: exp.Cast, target: T) -> exp.Expr:
    low, high = _SATURATED[target]
    value = node.this
    node.set("this", exp.func("trunc", value.copy()))
    bound = exp.Literal.number  # the bounds compare as doubles: 2^63-1 is 2^63 there
    return exp.Case(
        ifs=[
            exp.If(this=exp.func("isnan", value.copy()), true=exp.Literal.number(0)),
            exp.If(
                this=exp.GTE(this=value.copy(), expression=exp.cast(bound(high), "DOUBLE")),
                true=exp.cast(bound(high), target.value),
            ),
            exp.If(
                this=exp.LTE(this=value, expression=exp.cast(bound(low), "DOUBLE")),
                true=exp.cast(bound(low), target.value),
            ),
        ],
        default=node,
    )


def _nonzero(divisor: exp.Expr) -> exp.Expr:
    # Spark (ANSI off) answers NULL for x % 0, x div 0, pmod(x, 0); DuckDB raises
    return exp.Nullif(this=divisor, expression=exp.Literal.number(0))


def _mod(node: exp.Mod) -> exp.Expr:
    typed = _decimal_arithmetic(node)  # reads the divisor as written (1.5 is a DECIMAL)
    node.set("expression", _nonzero(node.expression))
    return typed


def _int_div(node: exp.IntDiv) -> exp.Expr:
    # `a div b` truncates the exact quotient toward zero; DuckDB's // of decimals does not
    # truncate at all, so decimals divide their unscaled integers (brought to one scale)
    divisor = _nonzero(node.expression)
    if T.DECIMAL not in (arg_type(node, "this"), arg_type(node, "expression")):
        node.set("expression", divisor)  # Spark's div is a BIGINT whatever integers it divides
        return exp.Cast(this=node, to=exp.DataType.build("BIGINT"))
    left, right = _decimal_of(node, "this"), _decimal_of(node, "expression")
    exact = _exact_operand(node, "this") and _exact_operand(node, "expression")
    if left is not None and right is not None and exact:
        (p1, s1), (p2, s2) = left, right
        scale = max(s1, s2)
        if max(p1 + scale - s1, p2 + scale - s2) <= MAX_DIGITS:
            dividend = _scaled(_unscaled(node.this, s1), scale - s1)
            quotient: exp.Expr = exp.IntDiv(
                this=dividend,
                expression=_nonzero(_scaled(_unscaled(node.expression, s2), scale - s2)),
            )
            return exp.TryCast(this=quotient, to=exp.DataType.build("BIGINT"))
    whole = exp.Sub(this=node.this.copy(), expression=exp.Mod(this=node.this, expression=divisor))
    quotient = exp.Div(this=exp.Paren(this=whole), expression=divisor.copy())
    return exp.Cast(this=quotient, to=exp.DataType.build("BIGINT"))


def _scaled(unscaled: exp.Expr, places: int) -> exp.Expr:
    if places == 0:
        return unscaled
    return exp.Mul(this=unscaled, expression=exp.cast(exp.Literal.number(10**places), "HUGEINT"))


def _pmod(node: exp.Anonymous) -> exp.Expr:
    if len(node.expressions) != 2:
        return node
    value, divisor = node.expressions
    rem = exp.Mod(this=value, expression=_nonzero(divisor))
    negative = exp.LT(this=rem.copy(), expression=exp.Literal.number(0))
    wrapped = exp.Mod(
        this=exp.Paren(this=exp.Add(this=rem.copy(), expression=divisor.copy())),
        expression=_nonzero(divisor.copy()),
    )
    result = exp.Case(ifs=[exp.If(this=negative, true=wrapped)], default=rem)
    # with a DECIMAL, Spark's pmod has the type of % (DecimalPrecision's Remainder rule)
    types = node.meta.get(TYPES_KEY, {})
    remainder = exp.Mod(this=value.copy(), expression=divisor.copy())
    remainder.meta[TYPES_KEY] = {
        k: types[f"expressions.{i}"]
        for i, k in enumerate(("this", "expression"))
        if f"expressions.{i}" in types
    }
    typed = _decimal_arithmetic(remainder)
    if typed is remainder:
        return result
    return exp.TryCast(this=result, to=typed.args["to"])


def _round_half(
    node: exp.Expr, operand: T | None, value: exp.Expr, scale: exp.Expr | None, duck_name: str
) -> exp.Expr:
    """Spark rounds a FLOAT/DOUBLE through its shortest decimal text (``BigDecimal(d)``), so
    ``round(1.005D, 2)`` is 1.01; DuckDB scales the binary value and gets 1.0. Decimals and
    integers round exactly in both engines."""
    places = literal_int(scale) if scale is not None else 0
    if operand not in FLOATING or places is None or places > _DECIMAL_TEXT_SCALE:
        return node
    as_double = value if operand == T.DOUBLE else exp.cast(value, "DOUBLE")
    text = exp.cast(exp.cast(as_double.copy(), "VARCHAR"), f"DECIMAL(38, {_DECIMAL_TEXT_SCALE})")
    exact = exp.cast(call(duck_name, text, exp.Literal.number(places)), operand.value)
    fits = exp.LT(
        this=exp.func("abs", as_double.copy()), expression=exp.Literal.number(_DECIMAL_TEXT_LIMIT)
    )
    plain = call(duck_name, value.copy(), exp.Literal.number(places))
    return exp.Case(ifs=[exp.If(this=fits, true=exact)], default=plain)


def round_half_up(value: exp.Expr, operand: T | None, places: int) -> exp.Expr:
    """``value`` rounded HALF_UP to ``places`` as Spark (and Java's Formatter) round it."""
    rounded = exp.Round(this=value, decimals=exp.Literal.number(places))
    return _round_half(rounded, operand, value.copy(), exp.Literal.number(places), "round")


def _round(node: exp.Round) -> exp.Expr:
    if arg_type(node) == T.DECIMAL:
        return _decimal_rounded(node, arg_data_type(node), node.args.get("decimals"))
    integral = _integral_rounded(node, node.this, node.args.get("decimals"), "round")
    if integral is not None:
        return integral
    return _round_half(node, arg_type(node), node.this, node.args.get("decimals"), "round")


def _integral_rounded(
    node: exp.Expr, value: exp.Expr, places_node: exp.Expr | None, duck_name: str
) -> exp.Expr | None:
    """round/bround of an integer keeps its type in Spark (RoundBase): itself for d >= 0, and
    for a negative d the exact rounding narrowed to the type's low bits (``BigDecimal``'s
    ``byteValue``...: ``round(-128Y, -1)`` is 126); DuckDB widens the type, or raises."""
    if isinstance(node, exp.Anonymous):
        kind = integral_type(node, "expressions", 0)
    else:
        kind = integral_type(node, "this")
    places = literal_int(places_node) if places_node is not None else 0
    if kind is None or places is None:
        return None
    if places >= 0:
        return exp.cast(value, kind.value)
    exact = call(duck_name, exp.cast(value, "DECIMAL(38, 0)"), exp.Literal.number(places))
    return wrapped(exp.cast(exact, "HUGEINT"), kind)


def _bit_count(node: exp.BitwiseCount) -> exp.Expr:
    """Spark counts the bits of an integer widened to a long (``bit_count(-1Y)`` is 64), as an
    INT; DuckDB counts them at the operand's own width."""
    if integral_type(node, "this") is None:
        return node
    widened = exp.BitwiseCount(this=exp.cast(node.this, "BIGINT"))
    return exp.cast(widened, "INT")


def _decimal_rounded(
    node: exp.Expr, found: exp.DataType | None, places_node: exp.Expr | None
) -> exp.Expr:
    """round/bround of DECIMAL(p, s) to d places is Spark's DECIMAL(p - s + 1 + min(d, s),
    min(d, s)) (room for the carry), DECIMAL(max(p - s + 1, 1 - d), 0) for a negative d;
    DuckDB keeps p. The rounded value is exact in both; the cast gives Spark's type."""
    places = literal_int(places_node) if places_node is not None else 0
    if found is None or places is None:
        return node
    return _try_cast(node, rounded(decimal_digits(found), places))


def _try_cast(node: exp.Expr, digits: Digits) -> exp.Expr:
    """``node`` as DECIMAL(``digits``): NULL where it does not fit, as Spark (ANSI off)."""
    return exp.TryCast(this=node, to=exp.DataType.build(f"DECIMAL({digits[0]}, {digits[1]})"))


def _floor_ceil_places(node: exp.Floor | exp.Ceil) -> exp.Expr:
    """``floor(x, d)`` / ``ceil(x, d)`` are DECIMALs in Spark (RoundFloor / RoundCeil: the
    operand as a DECIMAL(p, s), the result DECIMAL(p - s + k + 1, k) with k = min(s, d), 0 for
    a negative d), exact; DuckDB answers a DOUBLE. The nearest value at d places (DuckDB's
    exact decimal round) is one unit off the floor or the ceiling at most."""
    places = literal_int(node.args.get("decimals"))
    found = arg_data_type(node)
    if places is None or found is None:
        return node
    digits = _branch_decimal(node, "this", None, node.this)  # a literal's own digits
    if digits is None and found.this not in FLOATING:
        return node
    precision, scale = digits or FOR_TYPE[found.this]
    value = exp.cast(node.this, f"DECIMAL({precision}, {scale})")
    result: exp.Expr = value
    if places < scale:
        nearest = exp.func("round", value.copy(), exp.Literal.number(places))
        unit = exp.cast(
            exp.Literal.number(f"{Decimal(1).scaleb(-places):f}"),
            f"DECIMAL({max(places, 0) + max(1 - places, 1)}, {max(places, 0)})",
        )
        floor = isinstance(node, exp.Floor)
        off = (
            exp.GT(this=nearest.copy(), expression=value.copy())
            if floor
            else exp.LT(this=nearest.copy(), expression=value.copy())
        )
        step = (exp.Sub if floor else exp.Add)(this=nearest.copy(), expression=unit)
        result = exp.Case(ifs=[exp.If(this=off, true=step)], default=nearest)
    return _try_cast(result, rounded((precision, scale), places))


def _floor_ceil(node: exp.Floor | exp.Ceil) -> exp.Expr:
    """Spark's floor/ceil of a DECIMAL(p, s) is DECIMAL(p - s + 1, 0), of anything else a
    BIGINT (a DOUBLE converted as Spark casts it: NaN 0, saturated); DuckDB keeps the type."""
    if node.args.get("decimals") is not None:
        return _floor_ceil_places(node)
    operand = arg_type(node)
    if operand == T.DECIMAL:
        found = arg_data_type(node)
        assert found is not None  # arg_type read DECIMAL from it
        return _try_cast(node, rounded(decimal_digits(found), 0))
    if operand in FLOATING:
        return _saturating(exp.Cast(this=node, to=exp.DataType.build("BIGINT")), T.BIGINT)
    if operand in INTEGRAL:  # DuckDB's floor of a BIGINT goes through a DOUBLE
        return exp.Cast(this=node.this, to=exp.DataType.build("BIGINT"))
    return node


# the value arguments of the conditionals whose result type is the widest of them
_BRANCHES: dict[type[exp.Expr], tuple[str, ...]] = {
    exp.Coalesce: ("this", "expressions"),
    exp.Greatest: ("this", "expressions"),
    exp.Least: ("this", "expressions"),
    exp.If: ("true", "false"),
    exp.Case: ("default",),
}


def _branch_slots(node: exp.Expr) -> list[tuple[exp.Expr, str, int | None, exp.Expr]]:
    """(owner, key, index, value) of each branch value; a CASE's are in its WHEN nodes."""
    slots: list[tuple[exp.Expr, str, int | None, exp.Expr]] = []
    owners = [(node, _BRANCHES[type(node)])]
    if isinstance(node, exp.Case):
        owners += [(when, ("true",)) for when in node.args.get("ifs") or []]
    for owner, keys in owners:
        for key in keys:
            value = owner.args.get(key)
            if isinstance(value, list):
                slots += [(owner, key, i, v) for i, v in enumerate(value)]
            elif value is not None:
                slots.append((owner, key, None, value))
    return slots


# types whose text DuckDB writes as Spark does, so a string branch widens them exactly
_SAME_TEXT = {*INTEGRAL, T.DECIMAL, T.DATE, T.BOOLEAN}


def _text_widened(
    slots: list[tuple[exp.Expr, str, int | None, exp.Expr]], kinds: list[T | None]
) -> bool:
    """Spark (ANSI off) widens a number, date or boolean meeting a STRING in coalesce/nvl/
    if/CASE to STRING (TypeCoercion's implicit cast); DuckDB casts the string to the other
    type and fails on 'n/a'. Casts such branches to STRING; False when no string meets
    another type, or when one's text would differ (a DOUBLE, a TIMESTAMP: left as they are)."""
    texts = [
        k in TEXTUAL or _string_literal(v) for (_, _, _, v), k in zip(slots, kinds, strict=True)
    ]
    others = [
        k
        for (_, _, _, v), k, t in zip(slots, kinds, texts, strict=True)
        if not t and not isinstance(_bare(v), exp.Null)
    ]
    if not any(texts) or not others or any(k not in _SAME_TEXT for k in others):
        return False
    for (owner, key, index, value), kind, text in zip(slots, kinds, texts, strict=True):
        if not text and kind is not None:
            owner.set(key, exp.cast(value, "VARCHAR"), index)
    return True


def _string_literal(node: exp.Expr) -> bool:
    return isinstance(_bare(node), exp.Literal) and _bare(node).is_string


def typed_without_decimals(node: exp.Expr) -> bool:
    """A conditional with a string literal branch reads its branches' types (to widen them to
    STRING) even where no DECIMAL can occur."""
    if isinstance(node, exp.If) and isinstance(node.parent, exp.Case):  # a WHEN of a CASE
        return typed_without_decimals(node.parent)
    return type(node) in _BRANCHES and any(_string_literal(v) for *_, v in _branch_slots(node))


def _widened(node: exp.Expr) -> exp.Expr:
    """Spark widens a BIGINT meeting a DECIMAL in coalesce/nvl/if/CASE/greatest/least to
    DECIMAL(20, 0) (DecimalType.forType), DuckDB to DECIMAL(19, 0): the result is one digit
    narrower. Casting the BIGINT branches first gives Spark's type; the values are exact."""
    slots = _branch_slots(node)
    kinds = [arg_type(owner, key, index) for owner, key, index, _ in slots]
    if _text_widened(slots, kinds):
        return node
    if T.DECIMAL not in kinds or T.BIGINT not in kinds or any(k in FLOATING for k in kinds):
        return node
    for (owner, key, index, value), kind in zip(slots, kinds, strict=True):
        if kind == T.BIGINT:
            owner.set(key, exp.cast(value, "DECIMAL(20, 0)"), index)
    return node


def _bround(node: exp.Anonymous) -> exp.Expr:
    # HALF_EVEN; DuckDB's round_even, through the decimal text for doubles as round() does
    args = node.expressions
    if not 1 <= len(args) <= 2:
        return node
    scale = args[1] if len(args) == 2 else exp.Literal.number(0)
    operand = arg_type(node, "expressions", 0)
    if operand == T.DECIMAL:
        return _decimal_rounded(
            call("round_even", args[0], scale), arg_data_type(node, "expressions", 0), scale
        )
    integral = _integral_rounded(node, args[0], scale, "round_even")
    if integral is not None:
        return integral
    rounded = _round_half(node, operand, args[0], scale, "round_even")
    return call("round_even", args[0], scale) if rounded is node else rounded


def _positive_log_argument(value: exp.Expr) -> exp.Expr:
    # Spark's logarithms answer NULL for x <= 0; DuckDB gives -inf or NaN
    positive = exp.GT(this=value.copy(), expression=exp.Literal.number(0))
    return exp.Case(ifs=[exp.If(this=positive, true=value)])


def _ln(node: exp.Ln) -> exp.Expr:
    node.set("this", _positive_log_argument(node.this))
    return node


def _log(node: exp.Log) -> exp.Expr:
    if node.expression is None:
        node.set("this", _positive_log_argument(node.this))
        return node
    if not (isinstance(node.this, exp.Literal) and node.this.is_number):
        node.set("this", _positive_log_argument(node.this))
    node.set("expression", _positive_log_argument(node.expression))
    return node


def _is_nan(node: exp.IsNan) -> exp.Expr:
    # Spark's isnan(NULL) is false
    return exp.func("coalesce", node, exp.false())


def _format_number(node: exp.Anonymous) -> exp.Expr:
    """``format_number(x, d)``: grouped thousands, ``d`` places rounded HALF_EVEN (Java's
    DecimalFormat), ``NaN`` and ``∞`` for the special doubles, NULL for a negative ``d``."""
    if len(node.expressions) != 2:
        return node
    value, places_node = node.expressions
    places = literal_int(places_node)
    if places is None:
        refuse(
            "format_number() with a pattern or a computed number of places",
            "only a literal number of decimal places is translated",
        )
    if places < 0:
        return exp.Null()
    operand = arg_type(node, "expressions", 0)
    if operand in INTEGRAL:
        text = call("format", exp.Literal.string("{:,}"), value)
        if places == 0:
            return text
        return exp.DPipe(this=text, expression=exp.Literal.string("." + "0" * places))
    if operand == T.DECIMAL:
        data_type = arg_data_type(node, "expressions", 0)
        precision = _decimal_precision(data_type)
        if precision is None or precision > _DOUBLE_DIGITS:
            refuse(
                "format_number() of a DECIMAL wider than 15 digits",
                "DuckDB formats it through a DOUBLE and would lose digits",
            )
        value = exp.cast(call("round_even", value, exp.Literal.number(places)), "DOUBLE")
    elif operand not in FLOATING:
        refuse(
            "format_number() of a value of unknown or non-numeric type",
            "cast the argument to DOUBLE, DECIMAL or an integer type",
        )
    text = call("format", exp.Literal.string(f"{{:,.{places}f}}"), value)
    if operand == T.DECIMAL:
        return text
    special = [
        exp.If(this=call("isnan", value.copy()), true=exp.Literal.string("NaN")),
        exp.If(
            this=exp.EQ(
                this=value.copy(), expression=exp.cast(exp.Literal.string("inf"), "DOUBLE")
            ),
            true=exp.Literal.string("∞"),
        ),
        exp.If(
            this=exp.EQ(
                this=value.copy(), expression=exp.cast(exp.Literal.string("-inf"), "DOUBLE")
            ),
            true=exp.Literal.string("-∞"),
        ),
    ]
    return exp.Case(ifs=special, default=text)


def _decimal_precision(data_type: exp.DataType | None) -> int | None:
    if data_type is None:
        return None
    params = data_type.expressions
    if not params:
        return 10  # DECIMAL without parameters is DECIMAL(10, 0)
    size = params[0].this if isinstance(params[0], exp.DataTypeParam) else params[0]
    return int(size.name) if isinstance(size, exp.Literal) else None


def _numeric_operand(node: exp.Expr, key: str, index: int | None = None) -> exp.Expr:
    """The operand of Spark's unary +/- (``positive``, ``negative``): a string one is cast
    to DOUBLE (Spark's implicit cast of a string where a number is wanted)."""
    value = node.expressions[index] if index is not None else node.args[key]
    is_text = (isinstance(value, exp.Literal) and value.is_string) or arg_type(
        node, key, index
    ) in TEXTUAL
    return exp.cast(value, "DOUBLE") if is_text else value


def _positive(node: exp.Anonymous) -> exp.Expr:
    return _numeric_operand(node, "expressions", 0) if len(node.expressions) == 1 else node


def _negative(node: exp.Negative) -> exp.Expr:
    return exp.Neg(this=exp.Paren(this=_numeric_operand(node, "this")))


def _neg(node: exp.Neg) -> exp.Expr:
    operand = node.this.unnest() if isinstance(node.this, exp.Paren) else node.this
    if not ((isinstance(operand, exp.Literal) and operand.is_string) or arg_type(node) in TEXTUAL):
        return node
    if isinstance(node.parent, exp.Interval) and isinstance(operand, exp.Literal):
        return exp.Literal.string(f"-{operand.name}")  # INTERVAL -'1' YEAR: the text negated
    return exp.Neg(this=exp.cast(node.this, "DOUBLE"))


def needs_types(node: exp.Expr) -> bool:
    """Every typed node of this area reads its types, but ``-5``: a number needs no cast."""
    return not (isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal))


def _e(node: exp.Anonymous) -> exp.Expr:
    return exp.func("exp", exp.Literal.number(1)) if not node.expressions else node


def _nanvl(node: exp.Nanvl) -> exp.Expr:
    value, fallback = node.this, node.expression
    return exp.Case(ifs=[exp.If(this=call("isnan", value.copy()), true=fallback)], default=value)


def _decimal_of(node: exp.Expr, key: str) -> tuple[int, int] | None:
    """Spark's DECIMAL view of one operand of arithmetic with a DECIMAL: its own precision
    and scale, an integer literal's digits, an integral type's (INT is DECIMAL(10, 0))."""
    operand = _bare(node.args[key])
    literal = integer_literal_digits(operand)
    if literal is not None:
        return literal
    number = _bare(operand.this) if isinstance(operand, exp.Neg) else operand
    if isinstance(number, exp.Literal) and number.is_number:
        return literal_digits(number.this)  # 1.5 is DECIMAL(2, 1) in Spark
    if isinstance(number, exp.Cast) and number.to.this == T.DECIMAL:
        return decimal_digits(number.to)  # Spark's type, as a rule below this one made it
    found = arg_data_type(node, key)
    if found is None:
        return None
    if found.this in INTEGRAL:
        return FOR_TYPE[found.this]
    if found.this != T.DECIMAL:
        return None
    return decimal_digits(found)


def _decimal_operands(node: exp.Expr) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Both operands' Spark DECIMAL (precision, scale) when one is a DECIMAL and neither is a
    DOUBLE (which makes a DOUBLE, in both engines)."""
    if not (_is_decimal(node, "this") or _is_decimal(node, "expression")):
        return None
    left, right = _decimal_of(node, "this"), _decimal_of(node, "expression")
    return None if left is None or right is None else (left, right)


def _decimal_arithmetic(node: exp.Expr) -> exp.Expr:
    """``+ - * %`` with a DECIMAL operand have Spark's result type (DecimalPrecision): DuckDB
    bounds a product at 18 digits where it fits and widens a BIGINT to 19, Spark to 20. The
    value DuckDB computes is exact; the cast gives it Spark's type (NULL past it, as Spark)."""
    operands = _decimal_operands(node)
    if operands is None:
        return node
    if isinstance(node, exp.Mod):
        return _try_cast(node, remainder(*operands))
    return _try_cast(node, (multiply if isinstance(node, exp.Mul) else add)(*operands))


def _bare(operand: exp.Expr) -> exp.Expr:
    while isinstance(operand, exp.Paren):
        operand = operand.this
    return operand


# aggregates whose value is one of their operand's, of its type in both engines
_KEEPING_TYPE = (exp.Max, exp.Min, exp.AnyValue, exp.First, exp.Last)


def _exact_operand(node: exp.Expr, key: str) -> bool:
    """Whether the scale ``_decimal_of`` gives an operand is surely the one DuckDB computes:
    an integer, a column, a literal, a cast, min/max (over such a one) of any of them.
    Elsewhere (abs, a function) it is the inference's, and reading the digits at a wrong
    scale would give a wrong quotient."""
    operand = _bare(node.args[key])
    if isinstance(operand, exp.Neg):
        operand = _bare(operand.this)
    if isinstance(operand, exp.Window):
        operand = operand.this
    if isinstance(operand, _KEEPING_TYPE) and isinstance(operand.this, exp.Expr):
        operand = _bare(operand.this)
    return arg_type(node, key) in INTEGRAL or isinstance(
        operand, exp.Column | exp.Literal | exp.Cast
    )


def _is_decimal(node: exp.Expr, key: str) -> bool:
    # sqlglot types 1.5 as DOUBLE; Spark reads it as DECIMAL(2, 1)
    operand = _bare(node.args[key])
    number = _bare(operand.this) if isinstance(operand, exp.Neg) else operand
    if isinstance(number, exp.Literal) and number.is_number:
        return "." in number.this and "e" not in number.this.lower()
    if isinstance(number, exp.Cast) and number.to.this == T.DECIMAL:
        return True  # a rule's cast to Spark's type (avg of a DECIMAL, which sqlglot types DOUBLE)
    return arg_type(node, key) == T.DECIMAL


def _unscaled(value: exp.Expr, scale: int) -> exp.Expr:
    """The unscaled integer of a DECIMAL with ``scale`` places, exactly (as HUGEINT): DuckDB
    prints a DECIMAL with all its places, so its text without the point is the integer."""
    if scale == 0:
        return exp.cast(value, "HUGEINT")
    text = exp.cast(exp.cast(value, f"DECIMAL(38, {scale})"), "VARCHAR")
    return exp.cast(
        call("replace", text, exp.Literal.string("."), exp.Literal.string("")), "HUGEINT"
    )


def _branch_decimal(
    owner: exp.Expr, key: str, index: int | None, value: exp.Expr
) -> tuple[int, int] | None:
    """Spark's DECIMAL view of one branch of a conditional (DecimalType.forType: an INT is
    DECIMAL(10, 0), a BIGINT DECIMAL(20, 0); a decimal literal its digits), else None."""
    value = _bare(value)
    number = _bare(value.this) if isinstance(value, exp.Neg) else value
    if isinstance(number, exp.Literal) and number.is_number and "." in number.this:
        return literal_digits(number.this)
    if isinstance(number, exp.Cast) and number.to.this == T.DECIMAL:
        return decimal_digits(number.to)
    found = arg_data_type(owner, key, index)
    if found is None:
        return None
    if found.this in INTEGRAL:
        return FOR_TYPE[found.this]
    return decimal_digits(found) if found.this == T.DECIMAL and found.expressions else None


def _spark_decimal(operand: exp.Expr, node: exp.Expr, key: str) -> tuple[int, int] | None:
    """Spark's DECIMAL type of an operand whose type sqlglot only guesses: ``abs`` of a column
    or cast keeps its type; a conditional is the widest of its branches (DecimalPrecision's
    widerDecimalType, bounded at 38 digits). None when unsure (a DOUBLE branch, an unknown)."""
    if isinstance(operand, exp.Abs):
        inner = _bare(operand.this)
        if isinstance(inner, exp.Cast) and inner.to.this == T.DECIMAL:
            return decimal_digits(inner.to)
        found = arg_data_type(node, key)
        if isinstance(inner, exp.Column) and found is not None and found.this == T.DECIMAL:
            return decimal_digits(found) if found.expressions else None
        return None
    if type(operand) not in _BRANCHES:
        return None
    digits = []
    for owner, slot, index, value in _branch_slots(operand):
        if isinstance(_bare(value), exp.Null):
            continue
        branch = _branch_decimal(owner, slot, index, value)
        if branch is None:
            return None
        digits.append(branch)
    return wider(digits) if digits else None


def _pin_spark_decimal(node: exp.Expr, key: str) -> None:
    """Cast an operand to its Spark DECIMAL type where that is known (``_spark_decimal``), so
    the scale the division reads is the one DuckDB computes (a value-preserving cast)."""
    operand = _bare(node.args[key])
    digits = _spark_decimal(operand, node, key)
    if digits is not None:
        node.set(key, exp.cast(node.args[key], f"DECIMAL({digits[0]}, {digits[1]})"))


def _decimal_divide(node: exp.Div) -> exp.Expr:
    """``/`` with a DECIMAL operand is a DECIMAL in Spark (DecimalPrecision: scale
    max(6, s1 + p2 + 1), bounded at 38 digits), rounded HALF_UP; DuckDB divides DOUBLEs.
    The quotient is exact long division of the unscaled integers (HUGEINT), where the scaled
    dividend fits 38 digits: always, unless the integral digits squeeze the scale to 6."""
    operands = _decimal_operands(node)
    if operands is None:
        return node
    for key in ("this", "expression"):
        if not _exact_operand(node, key):
            _pin_spark_decimal(node, key)
    operands = _decimal_operands(node)
    if operands is None:
        return node
    (p1, s1), (p2, s2) = operands
    precision, scale = divide(*operands)
    shift = scale - s1 + s2
    exact = _exact_operand(node, "this") and _exact_operand(node, "expression")
    if not exact:
        return node  # left as DuckDB's DOUBLE: an operand's scale is unknown
    if shift < 0 or p1 + shift > MAX_DIGITS:  # the scaled dividend would pass HUGEINT
        text = [exp.cast(node.args[key], "VARCHAR") for key in ("this", "expression")]
        quotient = call(
            DECIMAL_DIVIDE, *text, exp.Literal.number(precision), exp.Literal.number(scale)
        )
        return exp.TryCast(this=quotient, to=exp.DataType.build(f"DECIMAL({precision}, {scale})"))
    dividend = _scaled(_unscaled(node.this, s1), shift)
    divisor = _nonzero(_unscaled(node.expression, s2))
    quotient = exp.IntDiv(this=dividend.copy(), expression=divisor.copy())  # toward zero
    rest = exp.func("abs", exp.Mod(this=dividend.copy(), expression=divisor.copy()))
    half_up = exp.GTE(
        this=rest, expression=exp.Sub(this=exp.func("abs", divisor.copy()), expression=rest.copy())
    )
    away = exp.Mul(this=exp.func("sign", dividend), expression=exp.func("sign", divisor))
    rounded = exp.Case(
        ifs=[exp.If(this=half_up, true=exp.Add(this=quotient.copy(), expression=away))],
        default=quotient,
    )
    whole: exp.Expr = exp.cast(rounded, "DECIMAL(38, 0)")
    if scale:
        unit = exp.Literal.number("0." + "0" * (scale - 1) + "1")
        whole = exp.Mul(
            this=whole, expression=exp.cast(unit, f"DECIMAL({min(scale + 1, MAX_DIGITS)}, {scale})")
        )
    return exp.TryCast(this=whole, to=exp.DataType.build(f"DECIMAL({precision}, {scale})"))


RULES = {
    exp.Div: _decimal_divide,
    exp.Add: _decimal_arithmetic,
    exp.Sub: _decimal_arithmetic,
    exp.Mul: _decimal_arithmetic,
    exp.Cast: _cast,
    exp.Mod: _mod,
    exp.IntDiv: _int_div,
    exp.Round: _round,
    exp.Floor: _floor_ceil,
    exp.Coalesce: _widened,
    exp.Greatest: _widened,
    exp.Least: _widened,
    exp.If: _widened,
    exp.Case: _widened,
    exp.Ceil: _floor_ceil,
    exp.Ln: _ln,
    exp.Log: _log,
    exp.IsNan: _is_nan,
    exp.Negative: _negative,
    exp.Neg: _neg,
    exp.Nanvl: _nanvl,
    exp.BitwiseCount: _bit_count,
}
FUNCTIONS = {
    "pmod": _pmod,
    "bround": _bround,
    "format_number": _format_number,
    "positive": _positive,
    "e": _e,
}
TYPED = {
    exp.Cast,
    exp.IntDiv,
    exp.Mod,
    exp.Round,
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Div,
    exp.Floor,
    exp.Ceil,
    exp.BitwiseCount,
    exp.Negative,
    exp.Neg,
    *_BRANCHES,
}
DECIMAL_ONLY = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, *_BRANCHES)
TYPED_FUNCTIONS = {"bround", "format_number", "pmod", "positive"}
