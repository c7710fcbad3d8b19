"""Fixtures of the Spark interop tests: Spark-written tables and an icesql connection to them."""

from __future__ import annotations

import pytest

from .spark_tables import SparkTables, create_spark_tables


@pytest.fixture(scope="session")
def spark_tables(spark, spark_warehouse: str) -> SparkTables:
    """Every fixture table of ``spark_tables.py``, created once per session in namespace ``db``."""
    return create_spark_tables(spark, spark_warehouse)


@pytest.fixture(scope="module")
def con(spark_warehouse: str):
    """An icesql connection to the shared warehouse, one per test module."""
    import icesql

    connection = icesql.connect(spark_warehouse)
    yield connection
    connection.close()


@pytest.fixture
def icesql_connection(spark_tables: SparkTables):
    """An icesql connection to the warehouse holding the fixture tables."""
    import icesql

    connection = icesql.connect(spark_tables.warehouse)
    yield connection
    connection.close()
