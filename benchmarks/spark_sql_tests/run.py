"""``python -m benchmarks.spark_sql_tests``: run the differential and write its report.

``--spark`` first (re)makes Spark's answers to the selected files (a JVM, minutes for the
whole selection) into the answers file and the Iceberg tables of their views into the
warehouse; every run then answers the same files with icesql and compares. Without
``--spark`` the answers and warehouse of an earlier ``--spark`` run are used (a file whose
queries changed since is reported as having no answers). ``--spark-only`` stops after Spark.
"""

from __future__ import annotations

import argparse
import datetime as dt
import fnmatch
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.spark_sql_tests import compare, icesql_side, report, spark_side
from benchmarks.spark_sql_tests.answers import AnswerFile
from benchmarks.spark_sql_tests.report import FileResult
from benchmarks.spark_sql_tests.splitting import InputFile, read_input

__all__ = ["main", "select_files"]

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "inputs")
DEFAULT_WORK = os.path.join(os.path.dirname(HERE), ".data", "spark_sql_tests")


def _input_names(inputs: str) -> list[str]:
    names = []
    for folder, _, files in os.walk(inputs):
        for file in files:
            if file.endswith(".sql"):
                names.append(os.path.relpath(os.path.join(folder, file), inputs))
    return sorted(n.replace(os.sep, "/") for n in names)


def select_files(inputs: str, patterns: Sequence[str]) -> list[InputFile]:
    """The input files whose names (paths under ``inputs``) match one of ``patterns``
    (every file when there are none)."""
    names = _input_names(inputs)
    chosen = [n for n in names if not patterns or any(fnmatch.fnmatch(n, p) for p in patterns)]
    if patterns and not chosen:
        raise SystemExit(f"no input file matches {list(patterns)} in {inputs}")
    return [read_input(inputs, name) for name in chosen]


def _inputs_commit(inputs: str) -> str:
    notice = os.path.join(inputs, "NOTICE")
    if not os.path.exists(notice):
        return "unknown"
    with open(notice, encoding="utf-8") as f:
        words = f.read().split()
    return next((w for w in words if len(w) == 40 and all(c in "0123456789abcdef" for c in w)), "")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.spark_sql_tests", description=__doc__)
    p.add_argument("files", nargs="*", help="input files (globs under the inputs folder)")
    p.add_argument("--spark", action="store_true", help="make Spark's answers first")
    p.add_argument("--spark-only", action="store_true", help="make Spark's answers and stop")
    p.add_argument("--inputs", default=INPUTS, help="inputs folder (default: the vendored one)")
    p.add_argument("--work", default=DEFAULT_WORK, help="warehouse, answers and results")
    p.add_argument("--warehouse", help="default <work>/warehouse")
    p.add_argument("--answers", help="Spark's answers (default <work>/spark-answers.json)")
    p.add_argument("--results", help="the report (default <work>/results.md, and .json)")
    p.add_argument("--master", default="local[1]", help="Spark master (default local[1])")
    p.add_argument("--time-zone", default="UTC", help="session time zone of both engines")
    p.add_argument("--quiet", action="store_true", help="no line per file")
    return p


def _log(args: argparse.Namespace, text: str) -> None:
    if not args.quiet:
        print(text, file=sys.stderr, flush=True)


def _make_spark_answers(
    args: argparse.Namespace, files: Sequence[InputFile], answers: AnswerFile, spark: Any
) -> None:
    own = spark is None
    if own:
        spark = spark_side.start_spark(
            args.warehouse, os.path.join(args.work, "spark-scratch"), args.master
        )
    try:
        runner = spark_side.SparkRunner(spark, args.warehouse, args.time_zone)
        answers.meta = {
            "spark": runner.spark_version(),
            "master": spark.sparkContext.master,
            "time zone": args.time_zone,
            "inputs": f"apache/spark branch-3.5 {_inputs_commit(args.inputs)}",
            "answered": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        }
        for test_file in files:
            start = time.monotonic()
            made = runner.run_file(test_file)
            answers.put(test_file, args.time_zone, made)
            answers.save()
            failed = sum(not a.ok for a in made)
            _log(
                args,
                f"spark  {test_file.name}: {len(made)} statements, {failed} raise"
                f" ({time.monotonic() - start:.0f} s)",
            )
    finally:
        if own:
            spark.stop()


def _compare_file(
    args: argparse.Namespace, test_file: InputFile, answers: AnswerFile
) -> FileResult:
    spark_answers = answers.get(test_file, args.time_zone)
    if spark_answers is None:
        return FileResult(test_file.name, [], [], [], note="no Spark answers: run with --spark")
    mine = icesql_side.run_file(args.warehouse, test_file, spark_answers, args.time_zone)
    outcomes = [compare.compare(s, m) for s, m in zip(spark_answers, mine)]
    return FileResult(test_file.name, spark_answers, mine, outcomes)


def main(argv: Sequence[str] | None = None, spark: Any = None) -> int:
    """Run the differential; ``spark`` is a running session to use instead of starting one
    (its default catalog must be the hadoop catalog on ``--warehouse``)."""
    args = _parser().parse_args(argv)
    args.warehouse = args.warehouse or os.path.join(args.work, "warehouse")
    answers_path = args.answers or os.path.join(args.work, "spark-answers.json")
    results_path = args.results or os.path.join(args.work, "results.md")
    files = select_files(args.inputs, args.files)
    answers = AnswerFile(answers_path)
    if args.spark or args.spark_only:
        _make_spark_answers(args, files, answers, spark)
    if args.spark_only:
        return 0
    if not os.path.isdir(args.warehouse):
        raise SystemExit(f"no warehouse at {args.warehouse}: run with --spark first")
    results = []
    for test_file in files:
        result = _compare_file(args, test_file, answers)
        totals = report.totals([result])
        _log(args, f"icesql {test_file.name}: {totals.agreeing}/{totals.queries} agree")
        results.append(result)
    meta = {**answers.meta, "icesql run": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")}
    os.makedirs(os.path.dirname(os.path.abspath(results_path)), exist_ok=True)
    with open(results_path, "w", encoding="utf-8") as f:
        f.write(report.markdown(results, meta))
    with open(os.path.splitext(results_path)[0] + ".json", "w", encoding="utf-8") as f:
        f.write(report.results_json(results, meta))
    print(report.summary(report.totals(results)) + f".\nReport: {results_path}")
    return 0
