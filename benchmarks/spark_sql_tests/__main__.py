"""``python -m benchmarks.spark_sql_tests``: see ``benchmarks.spark_sql_tests.run``."""

from benchmarks.spark_sql_tests.run import main

raise SystemExit(main())
