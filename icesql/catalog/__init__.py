"""Catalogs: where a table's current metadata file is found and swapped atomically (today the
file-system catalog in Spark's ``hadoop`` layout), and the loaded ``Table``.

Catalogs know no SQL: nothing here imports ``icesql.sql`` (a contract in ``pyproject.toml``).
"""
