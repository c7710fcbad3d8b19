"""SET / RESET: per-connection settings with Spark's outputs (checked against Spark 3.5:
values shown as typed, ``<undefined>`` for unknown keys, a known setting's default)."""

from __future__ import annotations

import pytest

import icesql

MODE = "spark.sql.sources.partitionOverwriteMode"


def _rows(con, sql):
    cur = con.execute(sql)
    return cur.fetchall() if cur.description else None


def test_set_show_and_reset(con):
    assert _rows(con, "SET") == []
    assert _rows(con, f"SET {MODE}") == [(MODE, "STATIC")]
    assert _rows(con, f"SET {MODE} = Dynamic") == [(MODE, "Dynamic")]
    assert _rows(con, f"set {MODE}") == [(MODE, "Dynamic")]
    assert _rows(con, "SET my.key =  two words  ") == [("my.key", "two words")]
    assert _rows(con, "SET `quoted.key`='x'") == [("quoted.key", "'x'")]
    assert _rows(con, "SET") == [("my.key", "two words"), ("quoted.key", "'x'"), (MODE, "Dynamic")]
    assert _rows(con, "SET nobody.set.this") == [("nobody.set.this", "<undefined>")]
    assert _rows(con, f"RESET {MODE}") is None
    assert _rows(con, f"SET {MODE}") == [(MODE, "STATIC")]
    con.execute("RESET")
    assert _rows(con, "SET") == []
    cur = con.execute("SET -v")
    assert [d[0] for d in cur.description] == ["key", "value", "meaning", "Since version"]
    assert (MODE, "STATIC") in [r[:2] for r in cur.fetchall()]


def test_settings_belong_to_one_connection(con, tmp_path):
    con.execute(f"SET {MODE}=dynamic")
    other = icesql.connect(str(tmp_path))
    try:
        assert _rows(other, f"SET {MODE}") == [(MODE, "STATIC")]
    finally:
        other.close()


@pytest.mark.parametrize(
    ("sql", "error", "pattern"),
    [
        (
            f"SET {MODE} = sometimes",
            icesql.ProgrammingError,
            "should be one of DYNAMIC, STATIC, but was SOMETIMES",
        ),
        ("SET spark.sql.session.timeZone = America/New_York", icesql.NotSupportedError, "UTC"),
        ("SET spark.sql.caseSensitive = true", icesql.NotSupportedError, "case-insensitively"),
        ("SET spark.sql.caseSensitive = maybe", icesql.ProgrammingError, "true, false"),
        ("SET spark.sql.storeAssignmentPolicy = LEGACY", icesql.NotSupportedError, "ANSI"),
        ("SET = 1", icesql.ProgrammingError, "needs a key"),
    ],
)
def test_bad_values_are_refused_and_change_nothing(con, sql, error, pattern):
    with pytest.raises(error, match=pattern):
        con.execute(sql)
    assert _rows(con, "SET") == []


def test_values_icesql_follows_anyway_are_accepted(con):
    assert _rows(con, "SET spark.sql.session.timeZone = UTC") == [
        ("spark.sql.session.timeZone", "UTC")
    ]
    assert _rows(con, "SET spark.sql.caseSensitive=false") == [("spark.sql.caseSensitive", "false")]


def test_reset_and_set_do_not_swallow_other_statements(con):
    con.execute("CREATE TABLE db.t (reset INT, s STRING) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1, 'a')")
    assert con.execute("SELECT reset FROM db.t").fetchall() == [(1,)]
