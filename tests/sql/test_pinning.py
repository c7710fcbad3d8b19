"""icesql.sql.pinning: which table references a pin rewrites, and that the engine then reads
the pinned version (counted against the rows of that version read with an explicit clause)."""

from __future__ import annotations

import pytest
from data_checks_support import make_shop

import icesql
from icesql.sql.dialect import parse_one
from icesql.sql.pinning import pin_tables


def _pin(sql: str, **pin) -> str:
    return pin_tables(parse_one(sql), **pin).sql("spark")


def test_every_unversioned_reference_gets_the_clause() -> None:
    sql = (
        "WITH c AS (SELECT * FROM db.customers) SELECT * FROM db.orders o JOIN c USING (id)"
        " WHERE o.id IN (SELECT id FROM local.db.returns)"
    )
    assert _pin(sql, version="audit") == (
        "WITH c AS (SELECT * FROM db.customers VERSION AS OF 'audit') SELECT * FROM db.orders"
        " VERSION AS OF 'audit' AS o JOIN c USING (id) WHERE o.id IN (SELECT id FROM"
        " local.db.returns VERSION AS OF 'audit')"
    )


def test_explicit_versions_and_ref_suffixes_are_kept() -> None:
    assert _pin(
        "SELECT * FROM db.t TIMESTAMP AS OF '2020-01-01', db.u.branch_b, db.v.tag_x", version=5
    ) == (
        "SELECT * FROM db.t TIMESTAMP AS OF '2020-01-01' CROSS JOIN db.u.branch_b"
        " CROSS JOIN db.v.tag_x"
    )


def test_snapshot_ids_timestamps_and_table_functions() -> None:
    assert _pin("SELECT * FROM db.t", version=123) == "SELECT * FROM db.t VERSION AS OF 123"
    assert _pin("SELECT * FROM db.t.files", version="b") == (
        "SELECT * FROM db.t.files VERSION AS OF 'b'"
    )
    assert _pin("SELECT * FROM range(3)", version="b") == "SELECT * FROM RANGE(3)"
    assert _pin("SELECT 1 FROM db.t", timestamp="2024-05-01 10:00:00") == (
        "SELECT 1 FROM db.t TIMESTAMP AS OF '2024-05-01 10:00:00'"
    )


def test_no_pin_returns_the_statement_and_both_are_refused() -> None:
    statement = parse_one("SELECT * FROM db.t")
    assert pin_tables(statement) is statement
    with pytest.raises(icesql.ProgrammingError, match="not both"):
        pin_tables(statement, version="b", timestamp="2024-01-01")
    with pytest.raises(icesql.ProgrammingError, match="snapshot id or a branch"):
        pin_tables(statement, version="")


def test_the_engine_reads_the_pinned_version(tmp_path) -> None:
    shop = make_shop(str(tmp_path))
    con = icesql.connect(shop.warehouse)
    sql = "SELECT id, status FROM db.orders ORDER BY id, status"
    explicit = con.execute(
        f"SELECT id, status FROM db.orders VERSION AS OF {shop.clean_snapshot} ORDER BY id, status"
    ).fetchall()
    for pin in (
        {"version": shop.clean_snapshot},
        {"version": str(shop.clean_snapshot)},
        {"timestamp": shop.between},
    ):
        result = con.engine.execute_statement(pin_tables(parse_one(sql), **pin))
        assert [tuple(r.values()) for r in result.reader.read_all().to_pylist()] == explicit
        result.close()
    assert len(explicit) == 2 and len(con.execute(sql).fetchall()) == 4
    con.close()


def test_a_ref_pins_only_the_tables_that_have_it():
    from icesql.sql.dialect import parse_one
    from icesql.sql.pinning import pin_tables

    query = parse_one("SELECT * FROM db.orders o JOIN db.customers c ON o.cid = c.id")
    with_audit = {"orders"}
    pinned = pin_tables(query, version="audit", has_ref=lambda node, ref: node.name in with_audit)
    assert pinned.sql("spark") == (
        "SELECT * FROM db.orders VERSION AS OF 'audit' AS o JOIN db.customers AS c ON o.cid = c.id"
    )
    assert pin_tables(query, version="audti", has_ref=lambda node, ref: False).sql("spark") == (
        query.sql("spark")  # the caller reports a ref no table had
    )
    by_id = pin_tables(query, version="123", has_ref=lambda node, ref: False)
    assert by_id.sql("spark").count("VERSION AS OF '123'") == 2  # an id is no branch name
