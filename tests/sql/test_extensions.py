"""The ALTER TABLE / SHOW entries of the dialect: the typed node each form parses to (text ->
node fields), and errors that point at the text."""

from __future__ import annotations

import pytest
from sqlglot import exp

from icesql.errors import NotSupportedError, ProgrammingError
from icesql.sql import nodes
from icesql.sql.dialect import parse, parse_one, parse_term
from icesql.sql.nodes import SortTerm, Term

T = ("db", "t")


def _action(sql: str) -> nodes.AlterTableAction:
    statement = parse_one(sql)
    assert isinstance(statement, exp.Alter) and statement.args["kind"] == "TABLE"
    assert nodes.name_of(statement.this) == T
    (action,) = statement.args["actions"]
    return action


def _fields(node: exp.Expr, names: dict[str, object]) -> dict[str, object]:
    return {name: getattr(node, name) for name in names}


def test_every_alter_table_goes_to_the_entry_table():
    assert isinstance(_action("ALTER TABLE db.t ADD COLUMN c INT"), nodes.AddColumns)
    assert isinstance(
        _action("alter table db.t set tblproperties ('a' = 'b')"), nodes.SetTableProperties
    )


@pytest.mark.parametrize(
    ("sql", "node", "fields"),
    [
        (
            "ALTER TABLE db.t ADD PARTITION FIELD bucket(16, id) AS shard",
            nodes.AddPartitionField,
            {"term": Term("bucket[16]", ("id",)), "field_name": "shard"},
        ),
        (
            "ALTER TABLE db.t ADD PARTITION FIELD truncate(s, 4)",
            nodes.AddPartitionField,
            {"term": Term("truncate[4]", ("s",)), "field_name": None},
        ),
        (
            "ALTER TABLE db.t ADD PARTITION FIELD date_hour(ts)",
            nodes.AddPartitionField,
            {"term": Term("hour", ("ts",)), "field_name": None},
        ),
        (
            "ALTER TABLE `db`.`t` DROP PARTITION FIELD st.`day`",
            nodes.DropPartitionField,
            {"term": Term("identity", ("st", "day")), "field_name": None},
        ),
        (
            "ALTER TABLE db.t DROP PARTITION FIELD id_bucket_16",
            nodes.DropPartitionField,
            {"term": Term("identity", ("id_bucket_16",)), "field_name": "id_bucket_16"},
        ),
        (
            "ALTER TABLE db.t DROP PARTITION FIELD identity(x)",
            nodes.DropPartitionField,
            {"term": Term("identity", ("x",)), "field_name": None},
        ),
        (
            "ALTER TABLE db.t REPLACE PARTITION FIELD ts_day WITH hours(ts)",
            nodes.ReplacePartitionField,
            {"term": Term("hour", ("ts",)), "field_name": None},
        ),
        (
            "ALTER TABLE db.t REPLACE PARTITION FIELD bucket(4, x) WITH bucket(8, x) AS b8",
            nodes.ReplacePartitionField,
            {"term": Term("bucket[8]", ("x",)), "field_name": "b8"},
        ),
        (
            "ALTER TABLE db.t WRITE ORDERED BY a DESC NULLS LAST, days(ts)",
            nodes.WriteDistributionAndOrdering,
            {
                "distribution": "range",
                "order": (
                    SortTerm(Term("identity", ("a",)), "desc", "nulls-last"),
                    SortTerm(Term("day", ("ts",)), "asc", None),
                ),
            },
        ),
        (
            "ALTER TABLE db.t WRITE LOCALLY ORDERED BY a",
            nodes.WriteDistributionAndOrdering,
            {"distribution": None, "order": (SortTerm(Term("identity", ("a",))),)},
        ),
        (
            "ALTER TABLE db.t WRITE DISTRIBUTED BY PARTITION LOCALLY ORDERED BY bucket(4, id) ASC NULLS FIRST",
            nodes.WriteDistributionAndOrdering,
            {
                "distribution": "hash",
                "order": (SortTerm(Term("bucket[4]", ("id",)), "asc", "nulls-first"),),
            },
        ),
        (
            "ALTER TABLE db.t WRITE DISTRIBUTED BY PARTITION",
            nodes.WriteDistributionAndOrdering,
            {"distribution": "hash", "order": ()},
        ),
        (
            "ALTER TABLE db.t WRITE UNORDERED",
            nodes.WriteDistributionAndOrdering,
            {"distribution": "none", "order": ()},
        ),
        (
            "ALTER TABLE db.t SET IDENTIFIER FIELDS a, st.b",
            nodes.SetIdentifierFields,
            {"paths": (("a",), ("st", "b"))},
        ),
        (
            "ALTER TABLE db.t DROP IDENTIFIER FIELDS a",
            nodes.DropIdentifierFields,
            {"paths": (("a",),)},
        ),
        (
            "ALTER TABLE db.t DROP COLUMNS (a, b)",
            nodes.DropColumns,
            {"paths": (("a",), ("b",)), "if_exists": False},
        ),
        (
            "ALTER TABLE db.t DROP COLUMN IF EXISTS st.a",
            nodes.DropColumns,
            {"paths": (("st", "a"),), "if_exists": True},
        ),
        (
            "ALTER TABLE db.t RENAME COLUMN st.a TO b",
            nodes.RenameColumn,
            {"path": ("st", "a"), "new_name": "b"},
        ),
        (
            "ALTER TABLE db.t RENAME TO cat.db.u",
            nodes.RenameTable,
            {"new_name": ("cat", "db", "u")},
        ),
        (
            "ALTER TABLE db.t RENAME TO a.b.c.d",
            nodes.RenameTable,
            {"new_name": ("a", "b", "c", "d")},
        ),
        (
            "ALTER TABLE db.t ALTER COLUMN a AFTER b",
            nodes.AlterColumn,
            {"path": ("a",), "first": False, "after": "b", "data_type": None, "comment": None},
        ),
        (
            "ALTER TABLE db.t ALTER a.b FIRST",
            nodes.AlterColumn,
            {"path": ("a", "b"), "first": True, "after": None},
        ),
        (
            "ALTER TABLE db.t CHANGE COLUMN a COMMENT 'x'",
            nodes.AlterColumn,
            {"comment": "x", "first": False},
        ),
        (
            "ALTER TABLE db.t ALTER COLUMN a DROP NOT NULL",
            nodes.AlterColumn,
            {"drop_not_null": True, "set_not_null": False},
        ),
        (
            "ALTER TABLE db.t ALTER COLUMN a SET NOT NULL",
            nodes.AlterColumn,
            {"drop_not_null": False, "set_not_null": True},
        ),
        (
            "ALTER TABLE db.t SET TBLPROPERTIES ('a' = 'b', c.d = true, 'e' 10)",
            nodes.SetTableProperties,
            {"properties": (("a", "b"), ("c.d", "true"), ("e", "10"))},
        ),
        (
            "ALTER TABLE db.t UNSET TBLPROPERTIES IF EXISTS ('a', 'b')",
            nodes.UnsetTableProperties,
            {"keys": ("a", "b"), "if_exists": True},
        ),
    ],
)
def test_alter_table_forms(sql, node, fields):
    action = _action(sql)
    assert type(action) is node
    assert _fields(action, fields) == fields


DAY, HOUR, MINUTE = 86_400_000, 3_600_000, 60_000


@pytest.mark.parametrize(
    ("sql", "fields"),
    [
        (
            "ALTER TABLE db.t CREATE BRANCH b",
            {
                "ref_name": "b",
                "kind": "branch",
                "create": True,
                "or_replace": False,
                "if_not_exists": False,
                "snapshot_id": None,
                "max_ref_age_ms": None,
                "min_snapshots_to_keep": None,
                "max_snapshot_age_ms": None,
            },
        ),
        (
            "ALTER TABLE db.t CREATE BRANCH IF NOT EXISTS `audit-branch` AS OF VERSION 1234",
            {"ref_name": "audit-branch", "if_not_exists": True, "snapshot_id": 1234},
        ),
        (
            "alter table db.t create or replace branch b retain 30 days"
            " with snapshot retention 3 snapshots 2 hours",
            {
                "create": True,
                "or_replace": True,
                "max_ref_age_ms": 30 * DAY,
                "min_snapshots_to_keep": 3,
                "max_snapshot_age_ms": 2 * HOUR,
            },
        ),
        (
            "ALTER TABLE db.t REPLACE BRANCH b AS OF VERSION 7 WITH SNAPSHOT RETENTION 5 MINUTES",
            {
                "create": False,
                "or_replace": True,
                "snapshot_id": 7,
                "min_snapshots_to_keep": None,
                "max_snapshot_age_ms": 5 * MINUTE,
            },
        ),
        (
            "ALTER TABLE db.t CREATE BRANCH b WITH SNAPSHOT RETENTION 4 SNAPSHOTS",
            {"min_snapshots_to_keep": 4, "max_snapshot_age_ms": None},
        ),
        (
            "ALTER TABLE db.t CREATE TAG `historical-tag` AS OF VERSION 1 RETAIN 365 DAYS",
            {
                "ref_name": "historical-tag",
                "kind": "tag",
                "snapshot_id": 1,
                "max_ref_age_ms": 365 * DAY,
            },
        ),
        (
            "ALTER TABLE db.t CREATE OR REPLACE TAG t1",
            {"kind": "tag", "create": True, "or_replace": True},
        ),
        (
            "ALTER TABLE db.t REPLACE TAG t1 RETAIN 2 HOURS",
            {"create": False, "max_ref_age_ms": 2 * HOUR},
        ),
    ],
)
def test_branch_and_tag_forms(sql, fields):
    action = _action(sql)
    assert type(action) is nodes.CreateOrReplaceRef
    assert _fields(action, fields) == fields


@pytest.mark.parametrize(
    ("sql", "fields"),
    [
        ("ALTER TABLE db.t DROP BRANCH b", {"ref_name": "b", "kind": "branch", "if_exists": False}),
        (
            "ALTER TABLE db.t DROP TAG IF EXISTS `t-1`",
            {"ref_name": "t-1", "kind": "tag", "if_exists": True},
        ),
    ],
)
def test_drop_branch_and_tag(sql, fields):
    action = _action(sql)
    assert type(action) is nodes.DropRef
    assert _fields(action, fields) == fields


def test_replace_partition_field_keeps_the_old_field_as_written():
    action = _action("ALTER TABLE db.t REPLACE PARTITION FIELD ts_day WITH hours(ts)")
    assert type(action.old) is nodes.DropPartitionField
    assert (action.old.term, action.old.field_name) == (Term("identity", ("ts_day",)), "ts_day")


def test_column_types_are_sqlglots():
    action = _action(
        "ALTER TABLE db.t ADD COLUMNS (m MAP<STRING, ARRAY<STRUCT<x: INT>>> COMMENT 'm>1' FIRST)"
    )
    (column,) = action.columns
    assert type(column) is nodes.NewColumn
    assert column.data_type.sql(dialect="spark") == "MAP<STRING, ARRAY<STRUCT<x: INT>>>"
    assert (column.path, column.not_null, column.comment) == (("m",), False, "m>1")
    assert (column.first, column.after) == (True, None)


def test_add_columns_each_with_its_own_position():
    action = _action(
        "ALTER TABLE db.t ADD COLUMN st.c DECIMAL(10, 2) NOT NULL AFTER a, d FIXED(16)"
    )
    first, second = action.columns
    assert (first.path, first.data_type.sql(dialect="spark"), first.not_null, first.after) == (
        ("st", "c"),
        "DECIMAL(10, 2)",
        True,
        "a",
    )
    assert (second.path, second.data_type.this, second.first, second.after) == (
        ("d",),
        exp.DType.FIXEDSTRING,
        False,
        None,
    )


def test_alter_column_type_and_comment():
    action = _action("ALTER TABLE db.t ALTER COLUMN n TYPE BIGINT COMMENT 'wide'")
    assert (action.path, action.data_type.sql(dialect="spark"), action.comment) == (
        ("n",),
        "BIGINT",
        "wide",
    )


def test_names_keep_back_quoted_parts_and_any_depth():
    statement = parse_one("ALTER TABLE `my db`.`my t` ADD COLUMN `a b`.c INT")
    assert nodes.name_of(statement.this) == ("my db", "my t")
    assert statement.args["actions"][0].columns[0].path == ("a b", "c")
    deep = parse_one("ALTER TABLE a.b.c.d DROP COLUMN e.f.g.h.i")
    assert nodes.name_of(deep.this) == ("a", "b", "c", "d")
    assert deep.args["actions"][0].paths == (("e", "f", "g", "h", "i"),)


def test_other_alter_statements_stay_sqlglots():
    assert parse_one("ALTER VIEW v AS SELECT 1").args["kind"] == "VIEW"


@pytest.mark.parametrize(
    ("sql", "node", "fields"),
    [
        ("SHOW TABLES", nodes.ShowTables, {"namespace": None, "pattern": None}),
        ("SHOW TABLES IN db LIKE 'a*'", nodes.ShowTables, {"namespace": ("db",), "pattern": "a*"}),
        (
            "show tables from cat.db 'a|b'",
            nodes.ShowTables,
            {"namespace": ("cat", "db"), "pattern": "a|b"},
        ),
        ("SHOW NAMESPACES", nodes.ShowNamespaces, {"namespace": None, "pattern": None}),
        (
            "SHOW DATABASES IN cat LIKE 'x'",
            nodes.ShowNamespaces,
            {"namespace": ("cat",), "pattern": "x"},
        ),
        ("SHOW SCHEMAS", nodes.ShowNamespaces, {"namespace": None}),
        ("SHOW CREATE TABLE local.db.t", nodes.ShowCreateTable, {"table": ("local", "db", "t")}),
        ("SHOW CREATE TABLE db.t AS SERDE", nodes.ShowCreateTable, {"table": ("db", "t")}),
        (
            "SHOW TBLPROPERTIES db.t ('k')",
            nodes.ShowTableProperties,
            {"table": ("db", "t"), "property_key": "k"},
        ),
        ("SHOW TBLPROPERTIES db.t (a.b)", nodes.ShowTableProperties, {"property_key": "a.b"}),
        ("SHOW TBLPROPERTIES db.t", nodes.ShowTableProperties, {"property_key": None}),
    ],
)
def test_show_forms(sql, node, fields):
    statement = parse_one(sql)
    assert type(statement) is node and isinstance(statement, exp.Show)
    assert _fields(statement, fields) == fields


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("bucket(16, id)", Term("bucket[16]", ("id",))),
        ("truncate(s, 4)", Term("truncate[4]", ("s",))),
        ("days(ts)", Term("day", ("ts",))),
        ("`st`.`a`", Term("identity", ("st", "a"))),
        ("void(x)", Term("void", ("x",))),
    ],
)
def test_partitioned_by_items(text, term):
    assert parse_term(text) == term


@pytest.mark.parametrize(
    ("sql", "error", "pattern"),
    [
        ("ALTER TABLE db.t ADD COLUMN", ProgrammingError, "expected a name"),
        ("ALTER TABLE db.t FROB", ProgrammingError, "near 'FROB'.*expected an ALTER TABLE action"),
        ("ALTER TABLE db.t ADD PARTITION FIELD bucket(id)", ProgrammingError, "positive N"),
        (
            "ALTER TABLE db.t ADD PARTITION FIELD zorder(id)",
            ProgrammingError,
            "unknown partition transform",
        ),
        ("ALTER TABLE db.t WRITE SIDEWAYS", ProgrammingError, "ORDERED BY"),
        (
            "ALTER TABLE db.t CREATE TAG t1 WITH SNAPSHOT RETENTION 2 SNAPSHOTS",
            ProgrammingError,
            "near 'WITH'.*expected the end of the statement",
        ),
        (
            "ALTER TABLE db.t CREATE BRANCH b RETAIN 2 WEEKS",
            ProgrammingError,
            "near 'WEEKS'.*expected DAYS, HOURS or MINUTES",
        ),
        ("ALTER TABLE db.t REPLACE BRANCH IF NOT EXISTS b", ProgrammingError, "near 'NOT'"),
        ("ALTER TABLE db.t CREATE VIEW v", ProgrammingError, "expected BRANCH, TAG"),
        ("SHOW FUNCTIONS", NotSupportedError, "SHOW FUNCTIONS"),
    ],
)
def test_errors(sql, error, pattern):
    with pytest.raises(error, match=pattern):
        parse(sql)


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        (
            "ALTER TABLE db.t FROB",
            "near 'FROB' (line 1, column 18): expected an ALTER TABLE action",
        ),
        (
            "ALTER TABLE db.t ADD COLUM x INT",
            "near 'COLUM' (line 1, column 22): expected COLUMN, COLUMNS or PARTITION FIELD",
        ),
        (
            "ALTER TABLE db.t\n  WRITE SIDEWAYS",
            "near 'SIDEWAYS' (line 2, column 9): expected ORDERED BY",
        ),
        ("ALTER TABLE db.t SET TBLPROPERTIES ('a' = 'b'", "at the end: expected ')'"),
        (
            "ALTER DATABASE db SET LOCATION 'x'",
            "near 'DATABASE' (line 1, column 7): expected TABLE",
        ),
        (
            "SHOW TABLES IN db x",
            "SHOW statement near 'x' (line 1, column 19): expected a quoted string",
        ),
    ],
)
def test_errors_name_line_and_column(sql, message):
    with pytest.raises(ProgrammingError) as info:
        parse(sql)
    assert message in str(info.value)
    assert str(info.value).endswith("\n  " + sql)


def test_entry_methods_shadow_none_of_sqlglots():
    """The entry methods extend sqlglot's parser; one named like a sqlglot method would
    silently replace it (Hive's TRANSFORM(...) calls ``_parse_transform``)."""
    from sqlglot.dialects.spark import Spark

    from icesql.sql.extensions import ExtensionsParser

    own = {
        name
        for name in vars(ExtensionsParser)
        if name.startswith("_") and not name.startswith("__")
    }
    assert not {name for name in own if hasattr(Spark.Parser, name)}


def test_call_parses_positional_and_named_arguments():
    call = parse(
        "CALL local.system.rollback_to_timestamp(table => 'db.t', TIMESTAMP => TIMESTAMP '2024-01-01')"
    )[0]
    assert type(call) is nodes.Call and call.procedure == (
        "local",
        "system",
        "rollback_to_timestamp",
    )
    assert [a.arg_name for a in call.arguments] == ["table", "TIMESTAMP"]
    assert isinstance(call.arguments[1].expression, exp.Cast)
    call = parse("call system.ancestors_of('db.t', -5, ?)")[0]
    assert [a.arg_name for a in call.arguments] == [None, None, None]
    assert parse("CALL system.x()")[0].arguments == ()


@pytest.mark.parametrize(
    ("sql", "error", "message"),
    [
        (
            "CALL system.x(",
            ProgrammingError,
            "CALL statement at the end: expected an argument value",
        ),
        ("CALL system.x(1 2)", ProgrammingError, "near '2' .*expected ',' or '\\)'"),
        ("CALL system.x", ProgrammingError, "expected '\\('"),
        ("EXECUTE IMMEDIATE 'SELECT 1'", NotSupportedError, "EXECUTE statements are not supported"),
    ],
)
def test_call_errors(sql, error, message):
    with pytest.raises(error, match=message):
        parse(sql)
