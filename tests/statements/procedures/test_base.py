"""Binding a CALL's arguments as Spark does: positional or named, types up-cast, every error
naming the procedure and the argument; unknown and not-yet-built procedures refused."""

from __future__ import annotations

import pytest

from icesql.errors import NotSupportedError, ProgrammingError


def _columns(cur) -> list[str]:
    return [d[0] for d in cur.description]


def test_positional_named_and_parameter_arguments_reach_the_procedure(con, history):
    for sql, params in [
        (f"CALL system.ancestors_of('db.t', {history[1]})", ()),
        (f"CALL local.system.ancestors_of(snapshot_id => {history[1]}, TABLE => 'db.t')", ()),
        ("CALL system.ancestors_of(?, ?)", ("db.t", history[1])),
        ("CALL SYSTEM.ANCESTORS_OF('local.db.t', ?)", (history[1],)),
    ]:
        cur = con.execute(sql, params)
        assert _columns(cur) == ["snapshot_id", "timestamp"]
        assert [r[0] for r in cur.fetchall()] == [history[1], history[0]]


def test_expressions_are_evaluated_and_dates_up_cast_to_timestamps(con, history):
    # no snapshot is older than 2000-01-01
    with pytest.raises(ProgrammingError, match="no valid snapshot older than: 946684800000"):
        con.execute("CALL system.rollback_to_timestamp('db.t', DATE '2000-01-01')")
    with pytest.raises(ProgrammingError, match="no valid snapshot older than: 946684800000"):
        con.execute(
            "CALL system.rollback_to_timestamp('db.t', TIMESTAMP '1999-12-31 23:00:00'"
            " + INTERVAL 1 HOUR)"
        )


@pytest.mark.parametrize(
    ("sql", "error", "message"),
    [
        ("CALL system.rollback_to_snapshot('db.t', 'x')", ProgrammingError,
         "system.rollback_to_snapshot: Wrong arg type for snapshot_id: cannot cast StringType to LongType"),
        ("CALL system.rollback_to_snapshot('db.t', 1.5)", ProgrammingError,
         "cannot cast DecimalType to LongType"),
        ("CALL system.rollback_to_timestamp('db.t', '2024-01-01')", ProgrammingError,
         "Wrong arg type for timestamp: cannot cast StringType to TimestampType"),
        ("CALL system.rollback_to_snapshot('db.t')", ProgrammingError,
         r"system.rollback_to_snapshot: Missing required parameters: \[snapshot_id\]"),
        ("CALL system.rollback_to_snapshot(table => 'db.t', snapshot => 1)", ProgrammingError,
         "Unknown argument: snapshot"),
        ("CALL system.rollback_to_snapshot(table => 'db.t', table => 'db.t')", ProgrammingError,
         "Duplicate procedure argument: table"),
        ("CALL system.rollback_to_snapshot('db.t', 1, 2)", ProgrammingError, "Too many arguments"),
        ("CALL system.rollback_to_snapshot(table => 'db.t', 1)", ProgrammingError,
         "Named and positional arguments cannot be mixed"),
        ("CALL system.rollback_to_snapshot('db.nope', 1)", ProgrammingError,
         "system.rollback_to_snapshot: table not found: db.nope"),
        ("CALL system.frobnicate('db.t')", ProgrammingError, "Procedure system.frobnicate not found"),
        ("CALL other.rollback_to_snapshot('db.t', 1)", ProgrammingError,
         "Procedure other.rollback_to_snapshot not found"),
        ("CALL nocat.system.ancestors_of('db.t')", ProgrammingError, "catalog 'nocat' not found"),
        ("CALL system.migrate('db.t')", NotSupportedError, "system.migrate cannot run here"),
        ("CALL system.rewrite_table_path(table => 'db.t')", NotSupportedError,
         "rewrite_table_path"),
    ],
)  # fmt: skip
def test_errors_name_the_procedure_and_argument(con, history, sql, error, message):
    with pytest.raises(error, match=message):
        con.execute(sql)
