"""The Spark SQL tests differential (benchmarks/spark_sql_tests) measures what it says.

The split follows Spark's ``SQLQueryTestHelper``; icesql's rows are formatted as Spark's
``HiveResult`` formats Spark's own (checked on Spark's values of every type); and a run over
one vendored file and one written here answers from Spark, compares, reads the answers back
from the cache, and catches a wrong answer planted in it.
"""

from __future__ import annotations

import json
import os
import shutil

import pyarrow as pa
import pytest

from benchmarks.spark_sql_tests import hive_format, run, spark_side, statements
from benchmarks.spark_sql_tests.splitting import split_input

# --------------------------------------------------------------------------------------------
# Splitting, as SQLQueryTestHelper.runSqlTestCase splits (no Spark)
# --------------------------------------------------------------------------------------------

FILE = """-- a comment line is dropped
--SET spark.sql.ansi.enabled=true, spark.sql.x = 1
--CONFIG_DIM1 spark.sql.codegen.wholeStage=true
--IMPORT other.sql
select 1; select 'a\\;b';
  -- an indented comment line
select 2
-- a comment inside the query
from t;
;
--QUERY-DELIMITER-START
select '/*' ; select 3;
--QUERY-DELIMITER-END
select 4;"""


def test_split_follows_the_suite():
    split = split_input("f.sql", FILE, lambda name: {"other.sql": "select 0;\n-- x\n"}[name])
    assert split.queries == (
        "select 0",  # --IMPORT's code comes first
        "select 1",
        "select 'a\\;b'",  # an escaped semicolon does not split
        "select 2\nfrom t",  # comment lines dropped, pieces trimmed
        "select '/*' ; select 3",  # one query between the delimiters
        "select 4",
    )
    assert split.settings == (("spark.sql.ansi.enabled", "true"), ("spark.sql.x", "1"))
    assert split.config_dims == ("--CONFIG_DIM1 spark.sql.codegen.wholeStage=true",)


def test_statements_are_rewritten_to_iceberg():
    assert statements.rewrite("create table t(c int) using json") == (
        "create table t(c int) USING iceberg"
    )
    assert statements.rewrite("CREATE VIEW v(a) AS VALUES (1)").startswith(
        "CREATE TEMPORARY VIEW v(a)"
    )
    # a join's USING is not a table format
    assert statements.rewrite("SELECT * FROM a JOIN b USING (k)") == (
        "SELECT * FROM a JOIN b USING (k)"
    )
    assert statements.temp_view_name("create or replace temp view `x y` as select 1") == "`x y`"
    assert statements.temp_view_name("CREATE GLOBAL TEMP VIEW g AS SELECT 1") is None
    assert statements.builtin_tables_read(
        ["CREATE TEMPORARY VIEW testData AS SELECT 1", "SELECT * FROM testdata, mapdata"]
    ) == ["mapdata"]


# --------------------------------------------------------------------------------------------
# Formatting: Spark's own values, formatted here, equal Spark's hiveResultString
# --------------------------------------------------------------------------------------------

TYPES_QUERY = """SELECT 1Y, 2S, 3, -4L, 1.5D, 1.0E7D, 1.0E-4D, 123456.789D, CAST(2.5 AS FLOAT),
  CAST(1.0E10 AS FLOAT), 1.20BD, CAST(0 AS DECIMAL(5, 3)), 'x', X'41', true, NULL,
  DATE'2020-01-02', TIMESTAMP'2020-01-02 03:04:05.120', TIMESTAMP'2020-01-02 03:04:05',
  TIMESTAMP_NTZ'2020-01-02 03:04:05.000001', array(1, NULL), array('a', NULL),
  map(2, 'b', 1, 'a'), named_struct('a', 1, 'b', 'x', 'c', CAST(NULL AS STRING)),
  array(named_struct('d', 1.5D)), -0.0D, CAST('NaN' AS DOUBLE), CAST('-Infinity' AS DOUBLE),
  INTERVAL '1 02:03:04.5' DAY TO SECOND, INTERVAL '-3' HOUR"""


def test_formatting_matches_spark_on_its_own_values(spark, spark_warehouse):
    runner = spark_side.SparkRunner(spark, spark_warehouse)
    session = spark.newSession()
    session.sql("SET spark.sql.session.timeZone=UTC")
    answer = runner.answer(session, TYPES_QUERY)
    assert answer.ok, answer.error
    table = pa.Table.from_batches(session.sql(TYPES_QUERY)._collect_as_arrow())
    formatted = ["\t".join(row) for row in hive_format.format_rows(table, "UTC", answer.types)]
    assert formatted == answer.rows


def test_java_number_text():
    assert [hive_format.java_double(x) for x in (1.0, 1e7, 1e-3, 9.99e-4, -2.5e-10, 1e21)] == [
        "1.0",
        "1.0E7",
        "0.001",
        "9.99E-4",
        "-2.5E-10",
        "1.0E21",
    ]
    assert hive_format.java_float(0.1) == "0.1"  # the single-precision value's shortest digits


# --------------------------------------------------------------------------------------------
# A run: Spark's answers, icesql's, the outcomes, the cache, a planted wrong answer
# --------------------------------------------------------------------------------------------

HARNESS_FILE = """-- written by the test
--SET spark.sql.ansi.enabled=false
CREATE TEMPORARY VIEW t AS SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, NULL) AS t(id, s);
SELECT id, s FROM t ORDER BY id DESC;
SELECT s, id FROM t;
SELECT count(*) FROM no_such_table;
SELECT key, value FROM testdata WHERE key <= 2;
"""


def _statements(results_json: str, name: str) -> list[dict]:
    with open(results_json, encoding="utf-8") as f:
        files = {f["name"]: f for f in json.load(f)["files"]}
    return files[name]["statements"]


def test_run_answers_compares_and_catches_a_wrong_answer(spark, spark_warehouse, tmp_path):
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    shutil.copy(os.path.join(run.INPUTS, "struct.sql"), inputs)
    (inputs / "harness.sql").write_text(HARNESS_FILE)
    work = tmp_path / "work"
    argv = ["--inputs", str(inputs), "--work", str(work), "--warehouse", spark_warehouse]
    assert run.main([*argv, "--spark", "--quiet"], spark=spark) == 0

    answers_file = work / "spark-answers.json"
    answers = json.loads(answers_file.read_text())["files"]
    view, ordered, unordered, missing, builtin = answers["harness.sql"]["answers"]
    # the view's rows went to an Iceberg table both engines read
    assert view["setup"].startswith("CREATE OR REPLACE TEMPORARY VIEW t AS SELECT * FROM local.")
    assert ordered["rows"] == ["3\tNULL", "2\tb", "1\ta"] and ordered["sorted"]
    assert not unordered.get("sorted")
    assert missing["error_class"] == "TABLE_OR_VIEW_NOT_FOUND"
    assert sorted(builtin["rows"]) == ["1\t1", "2\t2"]
    # struct.sql: one view, then eight queries
    struct = answers["struct.sql"]["answers"]
    assert len(struct) == 9 and struct[0]["setup"] and all(a["ok"] for a in struct)

    results = work / "results.json"
    outcomes = [s["outcome"] for s in _statements(str(results), "harness.sql")]
    assert outcomes[0] == "setup"
    assert outcomes[1] == "agree" and outcomes[3] == "both raise"
    report = (work / "results.md").read_text()
    assert "| harness.sql |" in report and "| struct.sql |" in report

    # plant a wrong answer and a reordered one in the cache: the icesql-only run sees both
    data = json.loads(answers_file.read_text())
    planted = data["files"]["harness.sql"]["answers"]
    planted[1]["rows"] = ["3\tNULL", "1\ta", "2\tb"]  # the same rows in another order
    planted[4]["rows"] = ["1\t1", "2\tzwei"]
    answers_file.write_text(json.dumps(data))
    assert run.main([*argv, "--quiet", "harness.sql"]) == 0
    replayed = _statements(str(results), "harness.sql")
    assert replayed[1]["outcome"] == "differ" and replayed[1]["order_only"]
    assert replayed[4]["outcome"] == "differ" and not replayed[4]["order_only"]
    assert "2\tzwei" in (work / "results.md").read_text()


@pytest.mark.parametrize("name", ["inner-join.sql", "ansi/cast.sql"])
def test_vendored_inputs_split(name):
    split = run.select_files(run.INPUTS, [name])[0]
    assert split.queries and all(q.strip() == q for q in split.queries)
