"""Spark SQL queries over the fixture tables whose answer must be the same in Spark and icesql.

Each entry is ``(id, sql)``. ``{name}`` placeholders are filled from
:meth:`SparkTables <interop.spark_tables.SparkTables>` facts by :func:`placeholders`
(snapshot ids and commit times exist only once the tables are written). A query's rows are
compared in order only when it has a top-level ``ORDER BY``; every such ORDER BY here is a
total order, so ties cannot make a correct engine fail.

Choosing queries: the answer must not depend on a semantic where Spark and DuckDB differ,
unless icesql is expected to reproduce Spark's (that is the point of translating Spark SQL):
kept are Spark's NULL ordering (ASC = NULLS FIRST), 0-based ``arr[i]``, ``m['k']``,
``date_add`` returning DATE, ``concat_ws`` skipping NULLs. Left out on purpose: integer
overflow (Spark wraps, DuckDB raises), ``size(NULL)`` (-1 in Spark), casts of doubles to
strings (different text), ``avg`` of decimals only compared by value, and range predicates
(``>``, ``<``) on float/double columns holding NaN: Spark evaluates ``NaN > 0.5`` as true, yet
Spark + Iceberg 1.10 drops NaN rows when that predicate is pushed into the Iceberg scan
(``WHERE d > 0.5`` and ``WHERE d + 0 > 0.5`` disagree), so there is no single reference answer.
"""

from __future__ import annotations

from .spark_tables import SparkTables


def placeholders(tables: SparkTables) -> dict[str, str]:
    main = tables.history_main
    return {
        "s1": str(main[0].snapshot_id),
        "s2": str(main[1].snapshot_id),
        "s3": str(main[2].snapshot_id),
        "s4": str(main[3].snapshot_id),
        "t_s2": main[1].timestamp_sql,
        "t_s3": main[2].timestamp_sql,
        "t_between_2_3": tables.history_between_2_and_3,
    }


PROJECTIONS = [
    ("star_all_types", "SELECT * FROM db.all_types"),
    ("some_columns", "SELECT c_string, id, c_dec38 FROM db.all_types"),
    (
        "expressions",
        "SELECT id, c_int + 1 AS i1, -c_long AS neg, c_dec9 * 2 AS dec2, c_double / 4 AS quarter, "
        "c_float * 2 AS f2, NOT c_bool AS nb FROM db.all_types WHERE id IN (1, 3, 6, 7)",
    ),
    ("star_nested", "SELECT * FROM db.nested"),
    ("star_partitioned", "SELECT * FROM db.part_two_fields"),
    ("catalog_prefix", "SELECT id, c_string FROM local.db.all_types WHERE id < 4"),
    ("format_v1", "SELECT * FROM db.small_v1"),
    ("format_v3", "SELECT * FROM db.small_v3"),
    ("distinct", "SELECT DISTINCT s FROM db.part_identity_int"),
]

WHERE = [
    ("where_eq", "SELECT id, c_string FROM db.all_types WHERE c_int = 42"),
    ("where_range", "SELECT id FROM db.all_types WHERE c_long > -1000 AND c_long <= 100"),
    ("where_is_null", "SELECT id FROM db.all_types WHERE c_string IS NULL"),
    ("where_is_not_null", "SELECT id, c_bool FROM db.all_types WHERE c_bool IS NOT NULL"),
    ("where_in", "SELECT id, c_int FROM db.all_types WHERE id IN (1, 3, 5)"),
    ("where_not_in", "SELECT id FROM db.all_types WHERE c_int NOT IN (1, -1)"),
    ("where_between", "SELECT id, c_dec9 FROM db.all_types WHERE c_dec9 BETWEEN -20 AND 20"),
    ("where_or", "SELECT id FROM db.all_types WHERE c_bool OR c_int < 0"),
    ("where_not", "SELECT id FROM db.all_types WHERE NOT c_bool"),
    ("where_like", "SELECT id, s FROM db.part_identity_string WHERE s LIKE 'ap%'"),
    ("where_date", "SELECT id, c_date FROM db.all_types WHERE c_date < DATE '1970-01-01'"),
    (
        "where_timestamp",
        "SELECT id FROM db.all_types WHERE c_ts >= TIMESTAMP '1969-12-31 23:59:59' "
        "AND c_ts < TIMESTAMP '2025-01-01 00:00:00'",
    ),
    (
        "where_timestamp_ntz",
        "SELECT id FROM db.all_types WHERE c_ts_ntz < TIMESTAMP_NTZ '1970-01-01 00:00:00'",
    ),
    ("where_nan", "SELECT id FROM db.all_types WHERE isnan(c_double)"),
    (
        "where_infinite",
        "SELECT id, c_float FROM db.all_types WHERE c_float = CAST('Infinity' AS FLOAT) "
        "OR c_double = CAST('-Infinity' AS DOUBLE)",
    ),
    ("where_unicode", "SELECT id FROM db.all_types WHERE c_string = '日本語'"),
    ("where_empty_string", "SELECT id FROM db.all_types WHERE c_string = ''"),
    ("where_binary", "SELECT id FROM db.all_types WHERE c_binary = X'0102'"),
    ("where_decimal38", "SELECT id FROM db.all_types WHERE c_dec38 > 1000000000.5"),
    ("where_nested_field", "SELECT id FROM db.nested WHERE st.a > 0"),
    ("where_identity_int", "SELECT id, n FROM db.part_identity_int WHERE n = 5"),
    ("where_identity_string_null", "SELECT id FROM db.part_identity_string WHERE s IS NULL"),
    ("where_identity_date", "SELECT id, d FROM db.part_identity_date WHERE d < DATE '1970-01-01'"),
    ("where_bucket", "SELECT id, s FROM db.part_bucket WHERE id = -6 OR id = 12"),
    (
        "where_truncate_string",
        "SELECT id, s FROM db.part_truncate_string WHERE s >= 'b' AND s < 'c'",
    ),
    ("where_truncate_int", "SELECT id, n FROM db.part_truncate_int WHERE n < 0"),
    ("where_years", "SELECT id FROM db.part_years WHERE ts < TIMESTAMP '1970-01-01 00:00:00'"),
    (
        "where_months",
        "SELECT id FROM db.part_months WHERE ts >= TIMESTAMP '2024-01-01 00:00:00' "
        "AND ts < TIMESTAMP '2024-02-01 00:00:00'",
    ),
    ("where_days", "SELECT id, ts FROM db.part_days WHERE CAST(ts AS DATE) = DATE '1969-12-31'"),
    (
        "where_hours",
        "SELECT id FROM db.part_hours WHERE ts BETWEEN TIMESTAMP '2024-01-15 10:00:00' "
        "AND TIMESTAMP '2024-01-15 11:00:00'",
    ),
    (
        "where_two_fields",
        "SELECT id, s FROM db.part_two_fields WHERE id > 0 AND ts > TIMESTAMP '1969-06-01 00:00:00'",
    ),
]

AGGREGATES = [
    ("group_by", "SELECT n, count(*) AS c, sum(id) AS total FROM db.part_identity_int GROUP BY n"),
    ("having", "SELECT s, count(*) AS c FROM db.part_bucket GROUP BY s HAVING count(*) > 1"),
    (
        "group_by_year",
        "SELECT year(ts) AS y, count(*) AS c, min(id) AS lo, max(id) AS hi FROM db.part_years "
        "GROUP BY year(ts)",
    ),
    (
        "aggregates_all_types",
        "SELECT count(*), count(c_string), min(c_int), max(c_long), sum(c_dec9), avg(c_int), "
        "min(c_date), max(c_ts), min(c_string), max(c_dec38) FROM db.all_types",
    ),
    ("count_distinct", "SELECT count(DISTINCT n) AS c FROM db.part_identity_int"),
    ("group_by_nested_field", "SELECT st.b, count(*) AS c FROM db.nested GROUP BY st.b"),
]

JOINS = [
    (
        "join_inner",
        "SELECT a.id, a.c_string, n.st.a FROM db.all_types a JOIN db.nested n ON a.id = n.id",
    ),
    (
        "join_left",
        "SELECT p.id, p.s, h.v FROM db.part_identity_int p LEFT JOIN db.history h ON p.id = h.id",
    ),
    (
        "join_partitioned",
        "SELECT a.id, b.n FROM db.part_bucket a JOIN db.part_truncate_int b ON a.id = b.id "
        "WHERE b.n > 0",
    ),
    (
        "join_formats",
        "SELECT v1.id, v1.s, v3.x FROM db.small_v1 v1 JOIN db.small_v3 v3 ON v1.id = v3.id",
    ),
]

WINDOWS = [
    (
        "window_row_number",
        "SELECT id, s, row_number() OVER (PARTITION BY s ORDER BY id) AS rn "
        "FROM db.part_identity_string",
    ),
    (
        "window_running_sum",
        "SELECT id, sum(n) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS run "
        "FROM db.part_days",
    ),
    (
        "window_lag_lead",
        "SELECT id, lag(id) OVER (ORDER BY ts, id) AS prev, lead(id) OVER (ORDER BY ts, id) AS next "
        "FROM db.part_hours",
    ),
    (
        "window_rank",
        "SELECT s, n, id, rank() OVER (PARTITION BY s ORDER BY n DESC) AS r "
        "FROM db.part_identity_string WHERE s IS NOT NULL",
    ),
]

ORDERING = [
    (
        "order_by_double_nan",
        "SELECT id, c_double FROM db.all_types ORDER BY c_double DESC NULLS LAST, id",
    ),
    ("order_by_string_limit", "SELECT id, s FROM db.part_identity_string ORDER BY s, id LIMIT 5"),
    (
        "order_by_date_nulls_first",
        "SELECT id, c_date FROM db.all_types ORDER BY c_date, id LIMIT 3",
    ),
    (
        "order_by_timestamp_desc",
        "SELECT id, ts FROM db.part_months ORDER BY ts DESC NULLS FIRST, id LIMIT 4",
    ),
    ("order_by_unicode", "SELECT id, c_string FROM db.all_types ORDER BY c_string DESC, id"),
]

SUBQUERIES = [
    (
        "scalar_subquery",
        "SELECT id FROM db.part_identity_int WHERE n > (SELECT avg(n) FROM db.part_identity_int)",
    ),
    (
        "in_subquery",
        "SELECT id, v FROM db.history WHERE id IN (SELECT id FROM db.part_bucket WHERE id > 2)",
    ),
    (
        "exists_subquery",
        "SELECT a.id FROM db.all_types a WHERE EXISTS "
        "(SELECT 1 FROM db.nested n WHERE n.id = a.id AND n.arr IS NOT NULL)",
    ),
    (
        "derived_table",
        "SELECT r, count(*) AS c FROM (SELECT n % 3 AS r FROM db.part_identity_int "
        "WHERE n IS NOT NULL) AS t GROUP BY r",
    ),
    (
        "cte",
        "WITH pos AS (SELECT id, n FROM db.part_identity_int WHERE n > 0), "
        "names AS (SELECT id, s FROM db.part_identity_string) "
        "SELECT pos.id, pos.n, names.s FROM pos JOIN names ON pos.id = names.id",
    ),
    (
        "case",
        "SELECT id, CASE WHEN n < 0 THEN 'neg' WHEN n = 0 THEN 'zero' WHEN n > 0 THEN 'pos' "
        "ELSE 'null' END AS sign FROM db.part_identity_int",
    ),
    ("union_all", "SELECT id FROM db.small_v1 UNION ALL SELECT id FROM db.small_v3 WHERE id > 2"),
]

FUNCTIONS = [
    (
        "string_functions",
        "SELECT id, upper(s), lower(s), length(s), substring(s, 2, 3), concat(s, '!'), "
        "concat_ws('-', s, 'x'), replace(s, 'a', 'A') FROM db.part_identity_string",
    ),
    (
        "string_functions_2",
        "SELECT id, trim(c_string), lpad(c_string, 8, '*'), instr(c_string, 'l'), "
        "coalesce(c_string, 'none'), left(c_string, 2) FROM db.all_types",
    ),
    (
        "nullif_coalesce",
        "SELECT id, coalesce(s, 'none') AS s, nullif(n, 5) AS n FROM db.part_identity_string",
    ),
    (
        "date_functions",
        "SELECT id, year(d), month(d), dayofmonth(d), datediff(d, DATE '1970-01-01'), "
        "dayofyear(d), d + 1 FROM db.part_identity_date",
    ),
    # Spark's date_add / date_sub return DATE; sqlglot 30 writes DuckDB `d + INTERVAL n DAY`,
    # a TIMESTAMP, so icesql must cast back (kept because Spark users write it everywhere).
    ("date_add_sub", "SELECT id, date_add(d, 10), date_sub(d, 1) FROM db.part_identity_date"),
    (
        "timestamp_functions",
        "SELECT id, hour(ts), minute(ts), second(ts), to_date(ts), date_trunc('MONTH', ts) "
        "FROM db.part_hours",
    ),
    (
        "math_functions",
        "SELECT id, abs(n), n % 4, greatest(n, 0), least(n, 0), round(c, 1) "
        "FROM (SELECT id, n, n / 3.0 AS c FROM db.part_identity_int) AS t",
    ),
]

NESTED = [
    (
        "nested_access",
        "SELECT id, st.a, st.b, arr[0], arr[2], m['k'], deep.inner.p, deep.inner.q, deep.r "
        "FROM db.nested",
    ),
    (
        "array_of_struct_access",
        "SELECT id, arr_st[0].x, arr_st[1].y, size(arr) FROM db.nested WHERE arr IS NOT NULL",
    ),
    ("explode", "SELECT id, explode(arr) AS v FROM db.nested"),
    ("struct_whole", "SELECT id, st, deep.inner FROM db.nested"),
]

TIME_TRAVEL = [
    ("version_as_of_id", "SELECT * FROM db.history VERSION AS OF {s1}"),
    ("version_as_of_tag", "SELECT * FROM db.history VERSION AS OF 't1'"),
    ("version_as_of_branch", "SELECT * FROM db.history VERSION AS OF 'b1'"),
    ("timestamp_as_of_commit", "SELECT * FROM db.history TIMESTAMP AS OF '{t_s2}'"),
    ("timestamp_as_of_between", "SELECT * FROM db.history TIMESTAMP AS OF '{t_between_2_3}'"),
    ("for_system_version", "SELECT * FROM db.history FOR SYSTEM_VERSION AS OF {s3}"),
    ("for_system_time", "SELECT * FROM db.history FOR SYSTEM_TIME AS OF '{t_s3}'"),
    ("branch_table", "SELECT * FROM db.history.branch_b1"),
    ("tag_table", "SELECT * FROM db.history.tag_t1"),
    ("current_history", "SELECT * FROM db.history"),
    (
        "time_travel_join",
        "SELECT cur.id, cur.v FROM db.history cur LEFT ANTI JOIN db.history VERSION AS OF {s2} old "
        "ON cur.id = old.id",
    ),
    (
        "time_travel_catalog_prefix",
        "SELECT id FROM local.db.history VERSION AS OF {s1} WHERE id > 1",
    ),
]

CORPUS: list[tuple[str, str]] = (
    PROJECTIONS
    + WHERE
    + AGGREGATES
    + JOINS
    + WINDOWS
    + ORDERING
    + SUBQUERIES
    + FUNCTIONS
    + NESTED
    + TIME_TRAVEL
)
assert len({name for name, _ in CORPUS}) == len(CORPUS), "query ids must be unique"
