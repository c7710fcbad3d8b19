"""The changelog scan's snapshots and tasks: a compaction (``replace``) is no change and takes
no ordinal, a file removed is DELETE rows, a range starts after its start snapshot."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import NotSupportedError
from icesql.scan.changelog import DELETE, INSERT, changelog_snapshots, plan_changes


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE TABLE db.t (id BIGINT) TBLPROPERTIES ('format-version'='2')")
    connection.execute("INSERT INTO db.t VALUES (1)")
    connection.execute("INSERT INTO db.t VALUES (2)")
    connection.execute(
        "CALL system.rewrite_data_files(table => 'db.t', options => map('rewrite-all', 'true'))"
    )
    connection.execute("DELETE FROM db.t WHERE id = 1")
    yield connection
    connection.close()


def test_a_compaction_takes_no_ordinal(con):
    table = con.catalog.load_table(("db", "t"))
    snapshots = changelog_snapshots(table, None, None)
    assert [s.operation for s in snapshots] == ["append", "append", "overwrite"]
    changes = plan_changes(table, snapshots)
    assert sorted((c.ordinal, c.change_type) for c in changes) == [
        (0, INSERT),
        (1, INSERT),
        (2, DELETE),  # the compacted file, removed whole
        (2, INSERT),  # rewritten with the row that stays
    ]
    first = snapshots[0].snapshot_id
    assert [s.snapshot_id for s in changelog_snapshots(table, first, None)] == [
        s.snapshot_id for s in snapshots[1:]
    ]


def test_delete_files_in_the_range_are_refused(tmp_path):
    with icesql.connect(str(tmp_path)) as con:
        con.execute(
            "CREATE TABLE db.m (id BIGINT) TBLPROPERTIES ('format-version'='2',"
            " 'write.delete.mode'='merge-on-read')"
        )
        con.execute("INSERT INTO db.m VALUES (1), (2)")
        con.execute("DELETE FROM db.m WHERE id = 1")
        table = con.catalog.load_table(("db", "m"))
        with pytest.raises(NotSupportedError, match="Delete files are currently not supported"):
            changelog_snapshots(table, None, None)
