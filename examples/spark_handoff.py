"""The Spark hand-off: the same SQL text on DuckDB (here) and on Spark, over the same tables.

A query that outgrows one machine does not need rewriting: ``SET icesql.engine = spark`` (or
``connect(engine="spark")``, or ``"auto"`` above a planned scan size) sends the statement's
text to a SparkSession that icesql gives the connection's catalogs, under the same names. Here
the Spark is ``local[2]``; on a cluster it is ``spark="spark://host:7077"`` or ``"yarn"``.

Needs pyspark (``pip install 'icesql[spark]'``), Java 17, and the Iceberg Spark runtime: by
default Spark downloads ``org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.2``;
``ICESQL_SPARK_JARS`` (comma-separated jar paths) gives the jars instead. Without pyspark or
Java it says so and exits 0. Pass a folder as the first argument to keep the warehouse.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import icesql

NEEDS = "needs pyspark and Java (pip install 'icesql[spark]'; Java 17)"
ICEBERG_EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
ICEBERG_RUNTIME = "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.2"
QUERY = (
    "SELECT region, count(*) AS orders, sum(amount) AS revenue FROM shop.orders"
    " WHERE ordered_at >= ? GROUP BY region ORDER BY region"
)


def missing() -> str | None:
    """What this machine lacks to run Spark, or None."""
    try:
        import pyspark  # noqa: F401 - only whether it imports
    except ImportError:
        return NEEDS
    java_home = os.environ.get("JAVA_HOME")
    if shutil.which("java") or (java_home and Path(java_home, "bin", "java").is_file()):
        return None
    return NEEDS


def start_spark(scratch: Path) -> Any:
    """A local SparkSession with the Iceberg runtime (icesql declares its catalogs in it)."""
    from pyspark.sql import SparkSession

    jars = os.environ.get("ICESQL_SPARK_JARS", "").strip()
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("icesql-spark-handoff")
        .config(*(("spark.jars", jars) if jars else ("spark.jars.packages", ICEBERG_RUNTIME)))
        .config("spark.sql.extensions", ICEBERG_EXTENSIONS)  # CALL, branches: at start-up only
        .config("spark.driver.bindAddress", "127.0.0.1")  # local[2]: this machine only
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
        .config("spark.local.dir", str(scratch))
        .config("spark.sql.warehouse.dir", str(scratch / "spark-warehouse"))
    )
    try:
        spark = builder.getOrCreate()
    except Exception as e:  # no Iceberg runtime to be had, a JVM that does not start...
        sys.exit(f"cannot start Spark ({type(e).__name__}); offline, set ICESQL_SPARK_JARS")
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main(folder: Path) -> None:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = start_spark(folder / "spark-scratch")
    # statements run locally (DuckDB) until told otherwise; spark= may also be a master URL
    # ("spark://host:7077", "yarn"), with spark_conf= a spark-defaults.conf, to build one
    con = icesql.connect(str(folder / "warehouse"), create=True, spark=spark)
    con.execute(
        "CREATE TABLE shop.orders (id BIGINT, region STRING, amount DECIMAL(10,2),"
        " ordered_at TIMESTAMP) USING iceberg PARTITIONED BY (region)"
    )
    con.execute(
        "INSERT INTO shop.orders VALUES (1, 'eu', 10.50, TIMESTAMP '2024-03-01 09:00:00'),"
        " (2, 'us', 99.99, TIMESTAMP '2024-03-01 17:30:00'),"
        " (3, 'eu', 5.00, TIMESTAMP '2024-03-02 08:15:00')"
    )

    local = con.execute(QUERY, ("2024-03-01",))
    local_rows = local.fetchall()
    print(f"{local.engine}: {local_rows}")

    con.execute("SET icesql.engine = spark")  # the same text, now on Spark
    remote = con.execute(QUERY, ("2024-03-01",))
    spark_rows = remote.fetchall()
    print(f"{remote.engine}: {spark_rows}")
    print("same rows on both engines:", [tuple(r) for r in spark_rows] == local_rows)

    con.execute("INSERT INTO shop.orders VALUES (4, 'us', 1.25, TIMESTAMP '2024-03-03 12:00:00')")
    con.execute("RESET icesql.engine")  # back to connect()'s engine: local
    count = con.execute("SELECT count(*) FROM shop.orders").fetchone()
    print("rows after Spark's INSERT, read locally:", count[0])
    print(
        "snapshots:",
        con.execute(
            "SELECT operation, summary['added-records'] FROM shop.orders.snapshots"
            " ORDER BY committed_at"
        ).fetchall(),
    )

    con.execute("SET icesql.engine = auto")  # Spark only above icesql.engine.autoThresholdBytes
    explained = QUERY.replace("?", "DATE '2024-03-01'")  # EXPLAIN under auto: no ? markers
    plan = con.execute(f"EXPLAIN {explained}").fetchone()[0]
    print("auto:", " | ".join(plan.splitlines()[:2]))
    con.close()
    spark.stop()  # a session given to icesql is the caller's to stop


if __name__ == "__main__":
    lacking = missing()
    if lacking:
        print(f"skipped: {lacking}")
        sys.exit(0)
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory(prefix="icesql-spark-") as tmp:
            main(Path(tmp))
