"""What the harness changes in a test file's statements so both engines run them on Iceberg.

Spark's suite runs in Spark's built-in catalog, where ``CREATE TABLE ... USING parquet`` and
``CREATE VIEW`` make Parquet tables and catalog views. Here both engines open one Iceberg
``hadoop`` catalog, so:

* ``CREATE TABLE ... USING parquet`` (or ``orc``, ``json``, ``csv``, ``avro``, ``text``)
  becomes ``USING iceberg``, in both engines (:func:`rewrite`);
* ``CREATE [OR REPLACE] VIEW`` becomes a temporary view (the hadoop catalog keeps no views);
* a temporary view (:func:`temp_view_name` names it) is data for the queries after it: Spark
  creates it, writes its rows into an Iceberg table, and both engines then read the view as
  ``SELECT * FROM`` that table (``spark_side``), so they query the same rows;
* the suite's built-in tables (``testdata``, ``arraydata``, ``mapdata``, made by
  ``SQLQueryTestSuite.createTestTables``) are Iceberg tables of the same rows in namespace
  :data:`DATA_NAMESPACE`, seen as temporary views by a file that reads one and does not make
  its own (:func:`builtin_tables_read`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "BUILTIN_TABLES",
    "DATA_NAMESPACE",
    "builtin_tables_read",
    "builtin_view",
    "namespace",
    "rewrite",
    "temp_view_name",
]

DATA_NAMESPACE = "sqltests_data"

# SQLQueryTestSuite.createTestTables, as SQL over Iceberg (aggtest, onek and tenk1 are the
# PostgreSQL files' data, which this harness does not run)
BUILTIN_TABLES = {
    "testdata": "SELECT CAST(id AS INT) AS key, CAST(id AS STRING) AS value FROM range(1, 101)",
    "arraydata": (
        "SELECT * FROM VALUES (array(1, 2, 3), array(array(1, 2, 3))),"
        " (array(2, 3, 4), array(array(2, 3, 4))) AS t(arraycol, nestedarraycol)"
    ),
    "mapdata": (
        "SELECT * FROM VALUES (map(1, 'a1', 2, 'b1', 3, 'c1', 4, 'd1', 5, 'e1')),"
        " (map(1, 'a2', 2, 'b2', 3, 'c2', 4, 'd2')), (map(1, 'a3', 2, 'b3', 3, 'c3')),"
        " (map(1, 'a4', 2, 'b4')), (map(1, 'a5')) AS t(mapcol)"
    ),
}

_TEMP_VIEW = re.compile(
    r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?TEMP(?:ORARY)?\s+VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    r"(`[^`]+`|\w+)",
    re.IGNORECASE,
)
_VIEW = re.compile(r"^(\s*CREATE\s+(?:OR\s+REPLACE\s+)?)VIEW\b", re.IGNORECASE)
_CREATE_TABLE = re.compile(
    r"^\s*(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:EXTERNAL\s+)?|REPLACE\s+)TABLE\b", re.IGNORECASE
)
_FILE_FORMAT = re.compile(r"\bUSING\s+(?:parquet|orc|json|csv|avro|text)\b", re.IGNORECASE)


def namespace(name: str, engine: str) -> str:
    """The namespace a file's tables live in for one engine (``s`` Spark, ``i`` icesql): each
    engine runs the file's own ``CREATE TABLE`` / ``INSERT`` in a namespace of its own."""
    stem = re.sub(r"[^a-z0-9]+", "_", name.removesuffix(".sql").lower()).strip("_")
    return f"{engine}_{stem}"


def rewrite(sql: str) -> str:
    """The statement both engines run in place of ``sql`` (module docstring)."""
    if _CREATE_TABLE.match(sql):
        return _FILE_FORMAT.sub("USING iceberg", sql, count=1)
    return _VIEW.sub(r"\1TEMPORARY VIEW", sql, count=1)


def temp_view_name(sql: str) -> str | None:
    """The name a ``CREATE [OR REPLACE] TEMP[ORARY] VIEW`` statement makes, else None."""
    match = _TEMP_VIEW.match(sql)
    return match.group(1) if match else None


def builtin_tables_read(queries: Sequence[str]) -> list[str]:
    """The built-in tables the queries read and do not make themselves."""
    text = "\n".join(queries)
    made = {(temp_view_name(rewrite(q)) or "").strip("`").lower() for q in queries}
    return [
        name
        for name in BUILTIN_TABLES
        if name not in made and re.search(rf"\b{name}\b", text, re.IGNORECASE)
    ]


def builtin_view(name: str, catalog: str = "local") -> str:
    """The statement that shows built-in table ``name`` to a file as a temporary view."""
    return f"CREATE TEMPORARY VIEW {name} AS SELECT * FROM {catalog}.{DATA_NAMESPACE}.{name}"
