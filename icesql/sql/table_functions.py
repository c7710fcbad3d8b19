"""Which table-valued functions a statement may call: Spark's, never DuckDB's.

icesql hands the translated statement to DuckDB, whose own table functions read files and
the network (``read_csv``, ``read_text``, ``read_parquet``, ``glob``, ``sqlite_scan``...) or
expose the engine (``duckdb_settings``, ``query``). They are not Spark SQL, so a ``FROM`` or
``LATERAL`` item that calls a function must name one of Spark's generators or table-valued
functions; anything else is refused before DuckDB sees it. (DuckDB itself is also locked:
``icesql.engine`` turns its external access off, beyond the catalogs' own directories.)

>>> from icesql.sql.dialect import parse  # which calls check_table_functions
>>> len(parse("SELECT * FROM range(3)"))
1
>>> try:
...     parse("SELECT * FROM read_text('/etc/hostname')")
... except NotSupportedError as e:
...     print(str(e).split(":")[0])
table function read_text() is not Spark SQL
"""

from __future__ import annotations

from sqlglot import exp

from icesql.errors import NotSupportedError

# Spark's table-valued functions and generators by the name they are written with
SPARK_TABLE_FUNCTIONS = frozenset(
    "range explode explode_outer posexplode posexplode_outer inline inline_outer stack"
    " json_tuple".split()
)
# how sqlglot's Spark parser types some of them (the _outer forms subclass these)
_GENERATOR_NODES = (exp.Explode, exp.Inline, exp.Stack)
# DuckDB scalar functions that tell the host's configuration (paths, settings); not Spark's
HOST_FUNCTIONS = frozenset({"current_setting", "getvariable", "getenv"})


# Spark 4 table functions refused with the reason
_SPARK4_TABLE_FUNCTIONS = {
    name: "DuckDB cannot tell a variant null from SQL NULL in the rows it would produce"
    for name in ("variant_explode", "variant_explode_outer")
}


def check_table_functions(statement: exp.Expr) -> None:
    """Refuse a ``FROM`` / ``JOIN`` / ``LATERAL`` item that calls anything but a Spark
    table-valued function, and DuckDB's ``HOST_FUNCTIONS``, naming them (``NotSupportedError``)."""
    for node in statement.find_all(exp.Table, exp.Lateral, exp.Anonymous):
        if isinstance(node, exp.Anonymous):
            if str(node.this).lower() in HOST_FUNCTIONS:
                raise NotSupportedError(f"function {str(node.this).lower()}() is not Spark SQL")
            continue
        call = node.this
        if isinstance(call, (exp.Identifier, exp.Dot, exp.Subquery, exp.Query)) or call is None:
            continue
        name = _name(call)
        if isinstance(call, _GENERATOR_NODES) and name in SPARK_TABLE_FUNCTIONS:
            continue
        if isinstance(call, exp.Anonymous) and name in SPARK_TABLE_FUNCTIONS:
            continue
        if name in _SPARK4_TABLE_FUNCTIONS:
            raise NotSupportedError(
                f"table function {name}() is not supported: {_SPARK4_TABLE_FUNCTIONS[name]}"
            )
        raise NotSupportedError(
            f"table function {name}() is not Spark SQL: a query reads Iceberg tables, registered"
            f" objects and Spark's table-valued functions ({', '.join(sorted(SPARK_TABLE_FUNCTIONS))})"
        )


def _name(call: exp.Expr) -> str:
    if isinstance(call, exp.Anonymous):
        return str(call.this).lower()
    if isinstance(call, exp.Func):
        return call.sql_name().lower()
    return call.key.lower()
