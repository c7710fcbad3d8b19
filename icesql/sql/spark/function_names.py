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


# Spark 3.5's built-in functions (SHOW SYSTEM FUNCTIONS): a call DuckDB does not know is one
# icesql does not support, not a misspelt name
SPARK_FUNCTIONS = frozenset(
    """
    abs acos acosh add_months aes_decrypt aes_encrypt aggregate and any any_value
    approx_count_distinct approx_percentile array array_agg array_append array_compact
    array_contains array_distinct array_except array_insert array_intersect array_join
    array_max array_min array_position array_prepend array_remove array_repeat array_size
    array_sort array_union arrays_overlap arrays_zip ascii asin asinh assert_true atan atan2
    atanh avg base64 between bigint bin binary bit_and bit_count bit_get bit_length bit_or
    bit_xor bitmap_bit_position bitmap_bucket_number bitmap_construct_agg bitmap_count
    bitmap_or_agg bool_and bool_or boolean bround btrim cardinality case cast cbrt ceil
    ceiling char char_length character_length chr coalesce collect_list collect_set concat
    concat_ws contains conv convert_timezone corr cos cosh cot count count_if count_min_sketch
    covar_pop covar_samp crc32 csc cume_dist curdate current_catalog current_database
    current_date current_schema current_timestamp current_timezone current_user date date_add
    date_diff date_format date_from_unix_date date_part date_sub date_trunc dateadd datediff
    datepart day dayofmonth dayofweek dayofyear decimal decode degrees dense_rank div double e
    element_at elt encode endswith equal_null every exists exp explode explode_outer expm1
    extract factorial filter find_in_set first first_value flatten float floor forall
    format_number format_string from_csv from_json from_unixtime from_utc_timestamp get
    get_json_object getbit greatest grouping grouping_id hash hex histogram_numeric
    hll_sketch_agg hll_sketch_estimate hll_union hll_union_agg hour hypot if ifnull ilike in
    initcap inline inline_outer input_file_block_length input_file_block_start input_file_name
    instr int isnan isnotnull isnull java_method json_array_length json_object_keys json_tuple
    kurtosis lag last last_day last_value lcase lead least left len length levenshtein like ln
    localtimestamp locate log log10 log1p log2 lower lpad ltrim luhn_check make_date
    make_dt_interval make_interval make_timestamp make_timestamp_ltz make_timestamp_ntz
    make_ym_interval map map_concat map_contains_key map_entries map_filter map_from_arrays
    map_from_entries map_keys map_values map_zip_with mask max max_by md5 mean median min
    min_by minute mod mode monotonically_increasing_id month months_between named_struct nanvl
    negative next_day not now nth_value ntile nullif nvl nvl2 octet_length or overlay
    parse_url percent_rank percentile percentile_approx pi pmod posexplode posexplode_outer
    position positive pow power printf quarter radians raise_error rand randn random range
    rank reduce reflect regexp regexp_count regexp_extract regexp_extract_all regexp_instr
    regexp_like regexp_replace regexp_substr regr_avgx regr_avgy regr_count regr_intercept
    regr_r2 regr_slope regr_sxx regr_sxy regr_syy repeat replace reverse right rint rlike
    round row_number rpad rtrim schema_of_csv schema_of_json sec second sentences sequence
    session_window sha sha1 sha2 shiftleft shiftright shiftrightunsigned shuffle sign signum
    sin sinh size skewness slice smallint some sort_array soundex space spark_partition_id
    split split_part sql_keywords sqrt stack startswith std stddev stddev_pop stddev_samp
    str_to_map string struct substr substring substring_index sum tan tanh timestamp
    timestamp_micros timestamp_millis timestamp_seconds tinyint to_binary to_char to_csv
    to_date to_json to_number to_timestamp to_timestamp_ltz to_timestamp_ntz to_unix_timestamp
    to_utc_timestamp to_varchar transform transform_keys transform_values translate trim trunc
    try_add try_aes_decrypt try_avg try_divide try_element_at try_multiply try_subtract
    try_sum try_to_binary try_to_number try_to_timestamp typeof ucase unbase64 unhex unix_date
    unix_micros unix_millis unix_seconds unix_timestamp upper url_decode url_encode user uuid
    var_pop var_samp variance version weekday weekofyear when width_bucket window window_time
    xpath xpath_boolean xpath_double xpath_float xpath_int xpath_long xpath_number xpath_short
    xpath_string xxhash64 year zip_with
    """.split()
)
