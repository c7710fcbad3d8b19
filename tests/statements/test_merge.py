"""MERGE INTO without Spark: clause order, every action, errors that change nothing.

The same table contents are checked in every layout (format v2/v3, copy-on-write and
merge-on-read, partitioned or not); Spark agreement is in tests/interop/test_dml_merge.py.
"""

from __future__ import annotations

import pytest

import icesql

LAYOUTS = [
    (2, "copy-on-write", ""),
    (2, "merge-on-read", "PARTITIONED BY (cat)"),
    (3, "merge-on-read", ""),
    (3, "copy-on-write", "PARTITIONED BY (cat)"),
]


@pytest.fixture(params=LAYOUTS, ids=lambda p: f"v{p[0]}-{p[1]}-{'part' if p[2] else 'flat'}")
def con(request, tmp_path):
    version, mode, part = request.param
    connection = icesql.connect(str(tmp_path))
    connection.execute(
        f"CREATE TABLE db.t (id BIGINT, cat STRING, v INT) USING iceberg {part}"
        f" TBLPROPERTIES ('format-version'='{version}', 'write.merge.mode'='{mode}')"
    )
    connection.execute("INSERT INTO db.t VALUES (1, 'a', 10), (2, 'a', 20), (3, 'b', 30)")
    connection.execute("INSERT INTO db.t VALUES (4, 'b', 40), (5, 'c', 50)")
    connection.execute("CREATE TABLE db.s (id BIGINT, cat STRING, v INT, op STRING) USING iceberg")
    connection.execute(
        "INSERT INTO db.s VALUES (2, 'a', 200, 'u'), (3, 'b', 300, 'd'), (6, 'c', 600, 'i'),"
        " (7, NULL, NULL, 'i')"
    )
    yield connection
    connection.close()


def _rows(con):
    return sorted(con.execute("SELECT id, cat, v FROM db.t").fetchall())


def _version(con):
    return con.catalog.load_table(("db", "t")).metadata_location


def test_every_clause_kind_in_order(con):
    cur = con.execute(
        "MERGE INTO db.t t USING db.s s ON t.id = s.id"
        " WHEN MATCHED AND s.op = 'd' THEN DELETE"
        " WHEN MATCHED THEN UPDATE SET v = s.v + t.v"
        " WHEN NOT MATCHED AND s.cat IS NOT NULL THEN INSERT (id, cat, v) VALUES (s.id, s.cat, s.v)"
        " WHEN NOT MATCHED BY SOURCE AND t.id = 1 THEN DELETE"
        " WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = -t.v"
    )
    assert cur.rowcount == 6  # 1 update, 1 delete, 1 insert, 1 + 2 by source
    assert _rows(con) == [(2, "a", 220), (4, "b", -40), (5, "c", -50), (6, "c", 600)]


@pytest.mark.parametrize("name", ["t", "db.t", "local.db.t"])
def test_an_unaliased_target_is_named_by_any_tail_of_its_name(con, name):
    """Spark resolves ``t.v``, ``db.t.v`` and ``local.db.t.v`` to the target's column."""
    con.execute(
        f"MERGE INTO db.t USING db.s s ON {name}.id = s.id"
        f" WHEN MATCHED AND {name}.cat = 'a' THEN UPDATE SET {name}.v = s.v + {name}.v"
        " WHEN NOT MATCHED AND s.cat IS NOT NULL THEN INSERT (id, cat, v) VALUES (s.id, s.cat, s.v)"
    )
    assert _rows(con) == [
        (1, "a", 10),
        (2, "a", 220),
        (3, "b", 30),
        (4, "b", 40),
        (5, "c", 50),
        (6, "c", 600),
    ]


def test_upsert_with_stars(con):
    con.execute(
        "MERGE INTO db.t t USING (SELECT id, cat, v FROM db.s) s ON t.id = s.id"
        " WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )
    assert _rows(con) == [
        (1, "a", 10),
        (2, "a", 200),
        (3, "b", 300),
        (4, "b", 40),
        (5, "c", 50),
        (6, "c", 600),
        (7, None, None),
    ]


def test_source_reading_the_target_itself(con):
    con.execute(
        "MERGE INTO db.t t USING (SELECT id, v FROM db.t WHERE cat = 'a') s ON t.id = s.id + 1"
        " WHEN MATCHED THEN UPDATE SET v = s.v"
    )
    assert _rows(con) == [(1, "a", 10), (2, "a", 10), (3, "b", 20), (4, "b", 40), (5, "c", 50)]


@pytest.mark.parametrize(
    "statement, operation",
    [
        (
            "MERGE INTO db.t t USING db.s s ON t.id = s.id + 100 WHEN MATCHED THEN DELETE",
            "overwrite",
        ),
        (
            "MERGE INTO db.t t USING db.s s ON t.id = s.id AND s.v < 0 WHEN MATCHED THEN UPDATE SET v = 0"
            " WHEN NOT MATCHED BY SOURCE AND t.id > 100 THEN DELETE",
            "overwrite",
        ),
        (
            "MERGE INTO db.t t USING (SELECT * FROM db.s WHERE id < 4) s ON t.id = s.id"
            " WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)",
            "append",
        ),
    ],
    ids=["no-match", "conditions-false", "insert-only"],
)
def test_a_merge_that_changes_nothing_commits_an_empty_snapshot(
    con, tmp_path, statement, operation
):
    """As Spark does (tests/interop/test_dml_merge.py): no file written, one empty snapshot."""
    rows = _rows(con)
    files = {p for p in tmp_path.rglob("*.parquet")}
    before = con.catalog.load_table(("db", "t")).metadata.current_snapshot()
    assert con.execute(statement).rowcount == 0
    after = con.catalog.load_table(("db", "t")).metadata.current_snapshot()
    assert after.parent_snapshot_id == before.snapshot_id
    assert after.operation == operation
    changed = {k: v for k, v in after.summary.items() if not k.startswith(("total-", "engine-"))}
    assert changed == {"operation": operation, "changed-partition-count": "0"}
    assert {k: v for k, v in after.summary.items() if k.startswith("total-")} == {
        k: v for k, v in before.summary.items() if k.startswith("total-")
    }
    assert _rows(con) == rows and {p for p in tmp_path.rglob("*.parquet")} == files


def test_row_lineage_of_updated_rows(con):
    if con.catalog.load_table(("db", "t")).metadata.format_version < 3:
        pytest.skip("row lineage is v3")
    before = dict(con.execute("SELECT id, _row_id FROM db.t").fetchall())
    con.execute(
        "MERGE INTO db.t t USING db.s s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 0"
        " WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)"
    )
    after = {
        r[0]: r[1:]
        for r in con.execute(
            "SELECT id, _row_id, _last_updated_sequence_number FROM db.t"
        ).fetchall()
    }
    seq = con.catalog.load_table(("db", "t")).metadata.last_sequence_number
    for key in (2, 3):  # updated: same id, stamped with the MERGE's sequence number
        assert after[key] == (before[key], seq)
    for key in (1, 4, 5):  # untouched (or copied): same id, older sequence number
        assert after[key][0] == before[key] and after[key][1] < seq
    new_ids = [after[6][0], after[7][0]]
    assert len(set(new_ids)) == 2 and min(new_ids) > max(before.values())


@pytest.mark.parametrize(
    "statement, message",
    [
        (
            "MERGE INTO db.t t USING (SELECT 1 AS id UNION ALL SELECT 1) s ON t.id = s.id"
            " WHEN MATCHED THEN UPDATE SET v = 1",
            "MERGE_CARDINALITY_VIOLATION",
        ),
        (
            "MERGE INTO db.t t USING db.s s ON t.id = s.id WHEN MATCHED THEN UPDATE SET nope = 1",
            "no column 'nope'",
        ),
        (
            "MERGE INTO db.t t USING db.s s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.op",
            "cannot safely cast `v` STRING to INT",
        ),
        (
            "MERGE INTO db.t t USING db.s s ON t.id = s.id WHEN MATCHED THEN DELETE"
            " WHEN MATCHED AND s.v > 1 THEN UPDATE SET v = 1",
            "NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION",
        ),
        (
            "MERGE INTO db.t t USING (SELECT id, v FROM db.s) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *",
            "source has no column",
        ),
        (
            "MERGE INTO db.missing t USING db.s s ON t.id = s.id WHEN MATCHED THEN DELETE",
            "db.missing",
        ),
        (
            "MERGE INTO db.t t USING db.s s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = t.id * 3000000000",
            "CAST_OVERFLOW_IN_TABLE_INSERT",
        ),
    ],
)
def test_bad_merges_raise_and_change_nothing(con, tmp_path, statement, message):
    before, rows = _version(con), _rows(con)
    files = {p for p in tmp_path.rglob("*") if p.is_file()}
    with pytest.raises(icesql.Error, match=message):
        con.execute(statement)
    assert _version(con) == before and _rows(con) == rows
    assert {p for p in tmp_path.rglob("*") if p.is_file()} == files  # nothing left behind


def test_targets_row_level_changes_cannot_address_are_refused(con):
    with pytest.raises(icesql.NotSupportedError, match="time travel in the target"):
        con.execute(
            "MERGE INTO db.t VERSION AS OF 1 AS t USING db.s s ON t.id = s.id"
            " WHEN MATCHED THEN DELETE"
        )
    con.execute("CREATE TABLE db.hiding (id BIGINT, _file STRING) USING iceberg")
    con.execute("INSERT INTO db.hiding VALUES (2, 'x')")
    with pytest.raises(icesql.NotSupportedError, match="_file hide the metadata columns"):
        con.execute("MERGE INTO db.hiding t USING db.s s ON t.id = s.id WHEN MATCHED THEN DELETE")
    assert con.execute("SELECT count(*) FROM db.hiding").fetchone() == (1,)


def test_a_lone_unconditional_delete_needs_no_cardinality_check(con):
    con.execute(
        "MERGE INTO db.t t USING (SELECT 1 AS id UNION ALL SELECT 1) s ON t.id = s.id"
        " WHEN MATCHED THEN DELETE"
    )
    assert [r[0] for r in _rows(con)] == [2, 3, 4, 5]


def test_a_column_added_while_the_merge_is_planned_does_not_reach_the_merge(tmp_path, monkeypatch):
    """The plan is made on the schema the statement loaded, and the query reads that same
    loaded table (the statement loads each table once). A concurrent ADD COLUMN between the
    two (found by tests/reliability's mixed workload) used to crash in pyarrow
    (``rename_columns``: 8 columns, 9 names) when the query loaded the table again; now the
    merge reads and writes the schema it planned on, and the added column reads as NULL."""
    from icesql.statements import merge as merge_module

    con = icesql.connect(str(tmp_path))
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id BIGINT, v BIGINT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1, 10)")
    other = icesql.connect(str(tmp_path))
    real = merge_module.run_target_query

    def altered_meanwhile(*args, **kwargs):
        other.execute("ALTER TABLE db.t ADD COLUMN extra STRING")
        return real(*args, **kwargs)

    monkeypatch.setattr(merge_module, "run_target_query", altered_meanwhile)
    before = con.catalog.load_table(("db", "t")).metadata.current_snapshot_id
    con.execute(
        "MERGE INTO db.t t USING (SELECT 1 AS id, 20 AS v) s ON t.id = s.id"
        " WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)"
    )
    after = con.catalog.load_table(("db", "t")).metadata
    assert after.current_snapshot_id != before  # one commit, over the ALTER's
    assert [f.name for f in after.schema().fields] == ["id", "v", "extra"]  # the ALTER stays
    assert con.execute("SELECT id, v, extra FROM db.t").fetchall() == [(1, 20, None)]
