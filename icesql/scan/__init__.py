"""Reading a table: snapshot selection (time travel, refs), planning from manifests (the file
filter of ``expressions``, the delete index), and the table scan handed to DuckDB, either as
``read_parquet`` with position deletes as keep-masks and equality deletes as anti-joins, or as
an Arrow stream applying the deletes in icesql; metadata tables and ``EXPLAIN``'s scan plan.

Reading never depends on writing: nothing here imports ``icesql.write`` (a contract in
``pyproject.toml``).
"""
