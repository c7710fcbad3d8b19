"""icesql.checks.toml_files: each declared check one record, with its line and arguments."""

from __future__ import annotations

import pytest

from icesql.checks.toml_files import TomlCheckFileError, read_toml_checks

TEXT = """\
# orders must be clean
[tables."db.orders"]
not_null = ["id", "customer_id"]
unique = ["id", ["customer_id", "day"]]
accepted_values = { status = ["new", "shipped"] }
relationships = { customer_id = "cat.db.customers.id" }
row_count = { min = 1, max = 10 }
freshness = { max_age = "24h", column = "updated_at" }
schema = { id = "bigint" }
exact_schema = { id = "bigint", status = "string" }
expression = ["amount >= 0"]
marks = ["nightly"]

[tables.events]
freshness = { max_age = "1h" }
"""


def test_every_check_is_one_record() -> None:
    checks = read_toml_checks(TEXT)
    assert [(c.name, c.line, c.check) for c in checks] == [
        ("db.orders::not_null(id)", 3, "not_null"),
        ("db.orders::not_null(customer_id)", 3, "not_null"),
        ("db.orders::unique(id)", 4, "unique"),
        ("db.orders::unique(customer_id,day)", 4, "unique"),
        ("db.orders::accepted_values(status)", 5, "accepted_values"),
        ("db.orders::relationships(customer_id)", 6, "relationship"),
        ("db.orders::row_count", 7, "row_count"),
        ("db.orders::freshness", 8, "fresh"),
        ("db.orders::schema", 9, "schema"),
        ("db.orders::exact_schema", 10, "schema"),
        ("db.orders::expression(amount >= 0)", 11, "no_rows"),
        ("events::freshness", 15, "fresh"),
    ]
    by_name = {c.name: c for c in checks}
    assert by_name["db.orders::relationships(customer_id)"].arguments == {
        "table": "db.orders",
        "column": "customer_id",
        "to_table": "cat.db.customers",
        "to_column": "id",
    }
    assert by_name["db.orders::exact_schema"].arguments["exact"] is True
    assert by_name["db.orders::expression(amount >= 0)"].arguments["sql"] == (
        "SELECT * FROM db.orders WHERE NOT (amount >= 0)"
    )
    assert {c.marks for c in checks} == {("nightly",), ()}
    # the plugin collects a table, then its checks: the name splits back at its "::"
    assert [(c.table, c.check_name) for c in checks[:1] + checks[-1:]] == [
        ("db.orders", "not_null(id)"),
        ("events", "freshness"),
    ]


@pytest.mark.parametrize(
    "text, line, message",
    [
        ('[tables."t"]\nnot_nul = ["a"]', 2, "unknown check 'not_nul'"),
        ('[tables."t"]\nrow_count = { minimum = 1 }', 2, "unknown: minimum"),
        ('[tables."t"]\nfreshness = { column = "c" }', 2, "needs max_age"),
        ('[tables."t"]\nrelationships = { a = "nodot" }', 2, "'<table>.<column>'"),
        ('[tables."t"]\nnot_null = []', 2, "a name or a list"),
        ('[tables."t"]\nnot_null = ["a",,]\n', 2, "Invalid"),
        ('[table."t"]\nnot_null = ["a"]', 0, "unknown top-level"),
    ],
)
def test_malformed_files_name_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(TomlCheckFileError, match=message) as info:
        read_toml_checks(text)
    assert info.value.line == line
