"""How Spark 3.5 prints function calls in the names of unaliased select items.

Spark prints a call as ``name(arg, ...)`` with its expression's ``prettyName``: usually the
name as written in lower case, but some expressions print a fixed name (the math functions in
upper case, ``array_agg`` as ``collect_list``) and some print their default arguments
(``locate('b', s)`` is ``locate(b, s, 1)``). Checked against Spark's names for the examples of
``DESCRIBE FUNCTION EXTENDED`` of every built-in function.
"""

from __future__ import annotations

_UPPER = (
    "acos acosh asin asinh atan atan2 atanh cbrt cos cosh cot csc degrees e exp expm1 hypot log"
    " log10 log1p log2 pi power radians sec sin sinh sqrt tan tanh spark_partition_id regexp"
    " regexp_like rlike"
).split()

# the name as written (lower case) -> the name Spark prints
FUNCTION_NAMES: dict[str, str] = {
    **{name: name.upper() for name in _UPPER},
    "signum": "SIGNUM",
    "array_agg": "collect_list",
    "dateadd": "date_add",
    "curdate": "current_date",
    "current_schema": "current_database",
    "random": "rand",
    "user": "current_user",
    "to_varchar": "to_char",
}

# Spark's cast functions (date(x), string(x)): casts it does not print, so only x is printed
CAST_FUNCTIONS = frozenset(
    "date timestamp string int bigint smallint tinyint double float boolean decimal binary".split()
)

# functions whose printed name hides or changes arguments in ways not reproduced here
OPAQUE_FUNCTIONS = frozenset(
    "from_json from_csv to_json to_csv schema_of_json schema_of_csv datepart aes_encrypt"
    " aes_decrypt try_aes_decrypt mask sentences hll_sketch_agg hll_union hll_union_agg"
    " make_dt_interval make_ym_interval array_sort assert_true convert_timezone"
    " explode explode_outer posexplode posexplode_outer inline inline_outer stack json_tuple"
    " window session_window window_time".split()
)

# the name Spark prints -> (number of arguments written, texts of the defaults it adds)
_FORMAT = "yyyy-MM-dd HH:mm:ss"
DEFAULT_ARGUMENTS: dict[str, dict[int, tuple[str, ...]]] = {
    "locate": {2: ("1",)},
    "position": {2: ("1",)},
    "lpad": {2: (" ",)},
    "rpad": {2: (" ",)},
    "split": {2: ("-1",)},
    "regexp_replace": {3: ("1",)},
    "regexp_extract": {2: ("1",)},
    "regexp_extract_all": {2: ("1",)},
    "regexp_instr": {2: ("0",)},
    "months_between": {2: ("true",)},
    "from_unixtime": {1: (_FORMAT,)},
    "unix_timestamp": {0: ("current_timestamp()", _FORMAT), 1: (_FORMAT,)},
    "to_unix_timestamp": {1: (_FORMAT,)},
    "percentile_approx": {2: ("10000",)},
    "approx_percentile": {2: ("10000",)},
    "percentile": {2: ("1",)},
    "substr": {2: ("2147483647",)},
    "substring": {2: ("2147483647",)},
    "str_to_map": {1: (",", ":"), 2: (":",)},
    "round": {1: ("0",)},
    "sort_array": {1: ("true",)},
    "overlay": {3: ("-1",)},
    "bround": {1: ("0",)},
}
