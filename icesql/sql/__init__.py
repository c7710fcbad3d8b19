"""Spark SQL, as icesql reads it: the dialect and its Iceberg extensions (typed nodes), the one
binding pass of a query (``bound_query``), Spark's output names, types and store assignment,
partition clauses and transform terms, identifier resolution, and the translation to DuckDB.

This layer turns sqlglot trees into Iceberg expressions and DuckDB SQL; it never reads or
writes table files itself (that is ``scan`` and ``write``), and ``expressions`` below it
knows nothing of sqlglot.
"""
