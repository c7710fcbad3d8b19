"""Shared fixtures: one real Spark + Iceberg session for the whole test run.

* ``spark_warehouse`` — the session's warehouse folder (``str``); ``icesql.connect(it)`` and
  Spark's catalog ``local`` (``type=hadoop``, also Spark's default catalog) see the same tables.
* ``spark`` — the SparkSession (``local[2]``, time zone UTC), started once, on first use.

A test that uses either fixture gets the ``spark`` marker automatically (select or deselect
them with ``-m spark`` / ``-m "not spark"``). Spark tests are skipped only when no Java is
installed; any other failure to start Spark fails them. Helpers: ``tests/spark_support.py``.
"""

from __future__ import annotations

import os
import time

import pytest
import spark_support

# Spark's collect() turns timestamps into naive datetimes in the process time zone; make it UTC
# so they mean the same instants as icesql's values.
os.environ["TZ"] = "UTC"
time.tzset()

SPARK_FIXTURES = {"spark", "spark_warehouse"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    java = spark_support.java_executable()
    skip = pytest.mark.skip(reason="Spark interop tests need Java (no JAVA_HOME/bin/java or java on PATH)")
    for item in items:
        if SPARK_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.spark)
        if java is None and item.get_closest_marker("spark"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def spark_warehouse(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("warehouse"))


@pytest.fixture(scope="session")
def spark(spark_warehouse: str, tmp_path_factory: pytest.TempPathFactory):
    session = spark_support.start_spark(spark_warehouse, tmp_path_factory.mktemp("spark-scratch"))
    yield session
    session.stop()
