"""Spark's own SQL tests as the measure of icesql (issue 40): a differential harness.

A selection of the input files of Spark's ``SQLQueryTestSuite`` (``inputs/``, copied from
apache/spark branch-3.5; ``inputs/NOTICE``) runs through real Spark 3.5.8 and through icesql
over the same Iceberg tables, and the report counts the queries that agree, return different
rows, raise in icesql where Spark answers, and answer where Spark raises.

``python -m benchmarks.spark_sql_tests --spark`` makes Spark's answers and compares;
without ``--spark`` an earlier run's answers are used. Modules: ``splitting`` (a file into
queries, as the suite splits it), ``statements`` (what changes so both engines run on
Iceberg), ``spark_side`` / ``icesql_side`` (each engine's answers), ``hive_format`` (icesql's
rows as Spark's strings), ``answers`` (an answer, and the file Spark's are kept in),
``compare`` (the outcome of one query), ``report`` (markdown and JSON), ``run`` (the command).
"""
