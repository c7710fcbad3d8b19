"""The ALTER TABLE / SHOW parser: what each form parses to, and errors that point at the text."""

from __future__ import annotations

import pytest

from icesql.errors import NotSupportedError, ProgrammingError
from icesql.sql import extensions as ext
from icesql.sql.dialect import parse


def _parse(sql: str) -> object:
    (node,) = parse(sql)
    return ext.parse_command(*ext.command_parts(node))


def test_every_alter_table_goes_to_the_extension_parser():
    assert isinstance(_parse("ALTER TABLE db.t ADD COLUMN c INT"), ext.AddColumns)
    assert isinstance(_parse("alter table db.t set tblproperties ('a' = 'b')"), ext.SetTableProperties)


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("ALTER TABLE db.t ADD PARTITION FIELD bucket(16, id) AS shard",
         ext.AddPartitionField(("db", "t"), ext.Term("bucket[16]", ("id",)), "shard")),
        ("ALTER TABLE db.t ADD PARTITION FIELD truncate(s, 4)",
         ext.AddPartitionField(("db", "t"), ext.Term("truncate[4]", ("s",)), None)),
        ("ALTER TABLE `db`.`t` DROP PARTITION FIELD st.`day`",
         ext.DropPartitionField(("db", "t"), ext.Term("identity", ("st", "day")), None)),
        ("ALTER TABLE db.t REPLACE PARTITION FIELD ts_day WITH hours(ts)",
         ext.ReplacePartitionField(("db", "t"), ext.DropPartitionField(("db", "t"), ext.Term("identity", ("ts_day",)), "ts_day"),
                                   ext.Term("hour", ("ts",)), None)),
        ("ALTER TABLE db.t WRITE ORDERED BY a DESC NULLS LAST, days(ts)",
         ext.WriteDistributionAndOrdering(("db", "t"), "range", (
             ext.SortTerm(ext.Term("identity", ("a",)), "desc", "nulls-last"),
             ext.SortTerm(ext.Term("day", ("ts",)), "asc", None)))),
        ("ALTER TABLE db.t WRITE LOCALLY ORDERED BY a",
         ext.WriteDistributionAndOrdering(("db", "t"), None, (ext.SortTerm(ext.Term("identity", ("a",))),))),
        ("ALTER TABLE db.t WRITE UNORDERED", ext.WriteDistributionAndOrdering(("db", "t"), "none", ())),
        ("ALTER TABLE db.t SET IDENTIFIER FIELDS a, st.b", ext.SetIdentifierFields(("db", "t"), (("a",), ("st", "b")))),
        ("ALTER TABLE db.t DROP COLUMNS (a, b)", ext.DropColumns(("db", "t"), (("a",), ("b",)))),
        ("ALTER TABLE db.t RENAME COLUMN st.a TO b", ext.RenameColumn(("db", "t"), ("st", "a"), "b")),
        ("ALTER TABLE db.t ALTER COLUMN a AFTER b", ext.AlterColumn(("db", "t"), ("a",), position=ext.Position("b"))),
        ("ALTER TABLE db.t UNSET TBLPROPERTIES IF EXISTS ('a', 'b')", ext.UnsetTableProperties(("db", "t"), ("a", "b"), True)),
        ("SHOW TABLES IN db LIKE 'a*'", ext.ShowTables(("db",), "a*")),
        ("SHOW TBLPROPERTIES db.t ('k')", ext.ShowTableProperties(("db", "t"), "k")),
        ("SHOW CREATE TABLE local.db.t", ext.ShowCreateTable(("local", "db", "t"))),
    ],
)
def test_forms(sql, expected):
    assert _parse(sql) == expected


def test_column_types_are_sqlglots():
    parsed = _parse("ALTER TABLE db.t ADD COLUMNS (m MAP<STRING, ARRAY<STRUCT<x: INT>>> COMMENT 'm>1' FIRST)")
    (column,) = parsed.columns
    assert column.type.sql(dialect="spark") == "MAP<STRING, ARRAY<STRUCT<x: INT>>>"
    assert column.comment == "m>1" and column.position == ext.Position(None)


@pytest.mark.parametrize(
    ("sql", "error", "pattern"),
    [
        ("ALTER TABLE db.t ADD COLUMN", ProgrammingError, "expected a name"),
        ("ALTER TABLE db.t FROB", ProgrammingError, "near 'FROB'.*expected an ALTER TABLE action"),
        ("ALTER TABLE db.t ADD PARTITION FIELD bucket(id)", ProgrammingError, "positive N"),
        ("ALTER TABLE db.t ADD PARTITION FIELD zorder(id)", ProgrammingError, "unknown partition transform"),
        ("ALTER TABLE db.t WRITE SIDEWAYS", ProgrammingError, "ORDERED BY"),
        ("ALTER TABLE db.t CREATE TAG t1", NotSupportedError, "CREATE TAG"),
        ("SHOW FUNCTIONS", NotSupportedError, "SHOW FUNCTIONS"),
    ],
)
def test_errors(sql, error, pattern):
    with pytest.raises(error, match=pattern):
        _parse(sql)
