"""A warehouse with table db.t of three appended snapshots, for the procedure tests."""

from __future__ import annotations

import pytest

import icesql


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE NAMESPACE db")
    connection.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    yield connection
    connection.close()


@pytest.fixture
def history(con) -> list[int]:
    """The ids of three appends to db.t (rows 0, 1, 2), oldest first."""
    ids = []
    for i in range(3):
        con.execute(f"INSERT INTO db.t VALUES ({i})")
        ids.append(con.catalog.load_table(("db", "t")).metadata.current_snapshot().snapshot_id)
    return ids
