"""icesql benchmarks (issue 7): one command that generates Iceberg tables once, then times
icesql against the physical limit (DuckDB ``read_parquet`` over the same live files) and
against PyIceberg, each run in a fresh subprocess so peak memory is per run.

``python -m benchmarks --help``; ``--smoke`` runs everything on a few thousand rows.
Modules: ``config`` (sizes and queries), ``lineitem`` (rows), ``iceberg_files`` (Parquet
files and Iceberg metadata written with icesql's writers), ``datagen`` (the cached tables),
``worker`` (one measured run), ``measure`` (subprocess + rusage), ``scenarios`` (what is
compared with what, and the targets), ``peers`` (the other engines' virtualenvs), ``report``
(table and JSON), ``run`` (the command).
"""
