"""register_table: a SQL catalog registers an existing metadata file and reports its current
snapshot's totals; the file-system catalog refuses, as Java's HadoopCatalog does."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import NotSupportedError, ProgrammingError


def test_register_an_existing_metadata_file(tmp_path):
    con = icesql.connect(
        catalog="sql", uri=f"sqlite:///{tmp_path}/cat.db", warehouse=str(tmp_path / "wh")
    )
    try:
        con.execute("CREATE NAMESPACE db")
        con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
        con.execute("INSERT INTO db.t VALUES (1), (2)")
        con.execute("INSERT INTO db.t VALUES (3)")
        table = con.catalog.load_table(("db", "t"))
        cur = con.execute("CALL system.register_table('db.copy', ?)", (table.metadata_location,))
        assert [d[0] for d in cur.description] == [
            "current_snapshot_id",
            "total_records_count",
            "total_data_files_count",
        ]
        assert cur.fetchall() == [(table.metadata.current_snapshot().snapshot_id, 3, 2)]
        assert con.execute("SELECT count(*) FROM db.copy").fetchone() == (3,)
        with pytest.raises(ProgrammingError, match="empty argument metadata_file"):
            con.execute("CALL system.register_table(table => 'db.other', metadata_file => '')")
    finally:
        con.close()


def test_the_file_system_catalog_cannot_register(tmp_path):
    con = icesql.connect(str(tmp_path))
    try:
        with pytest.raises(NotSupportedError, match="register tables"):
            con.execute("CALL system.register_table('db.t', 'file:/x/v1.metadata.json')")
    finally:
        con.close()
