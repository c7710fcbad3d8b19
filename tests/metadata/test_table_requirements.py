"""The REST spec's table requirements: JSON both ways (the spec's ``AssertCreate`` ...
``AssertDefaultSortOrderId`` objects) and the checks a server runs before applying a commit."""

from __future__ import annotations

import pytest

from icesql.metadata.builder import new_table_metadata
from icesql.metadata.table_requirements import (
    InvalidUpdateError,
    RequirementFailedError,
    check_table_requirements,
    parse_requirement,
)
from icesql.spec.schema import Schema

from .test_table_updates import SCHEMA_JSON, SNAPSHOT_JSON, _apply

REQUIREMENTS = [
    {"type": "assert-create"},
    {"type": "assert-table-uuid", "uuid": "2cc52516-5e73-41f2-b139-545d41a4e151"},
    {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 3055729675574597004},
    {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": None},
    {"type": "assert-last-assigned-field-id", "last-assigned-field-id": 3},
    {"type": "assert-current-schema-id", "current-schema-id": 0},
    {"type": "assert-last-assigned-partition-id", "last-assigned-partition-id": 1000},
    {"type": "assert-default-spec-id", "default-spec-id": 0},
    {"type": "assert-default-sort-order-id", "default-sort-order-id": 0},
]


def _table():
    return new_table_metadata(
        "s3://b/wh/db/t",
        Schema.from_json(SCHEMA_JSON),
        table_uuid="2cc52516-5e73-41f2-b139-545d41a4e151",
    )


@pytest.mark.parametrize("obj", REQUIREMENTS, ids=lambda o: o["type"])
def test_every_requirement_reads_and_writes_the_specs_json(obj) -> None:
    assert parse_requirement(obj).to_json() == obj


def test_bad_requirements() -> None:
    with pytest.raises(InvalidUpdateError, match="unknown table requirement type 'assert-nothing'"):
        parse_requirement({"type": "assert-nothing"})
    with pytest.raises(InvalidUpdateError, match="'snapshot-id'"):
        parse_requirement({"type": "assert-ref-snapshot-id", "ref": "main"})


def test_requirements_on_a_missing_or_changed_table() -> None:
    md = _table()
    check_table_requirements(None, [parse_requirement({"type": "assert-create"})])
    with pytest.raises(RequirementFailedError, match="Requirement failed: table already exists"):
        parse_requirement({"type": "assert-create"}).check(md)
    with pytest.raises(RequirementFailedError, match="current table metadata is missing"):
        parse_requirement({"type": "assert-current-schema-id", "current-schema-id": 0}).check(None)
    with pytest.raises(RequirementFailedError, match="table UUID does not match"):
        parse_requirement({"type": "assert-table-uuid", "uuid": "x"}).check(md)
    for obj, message in [
        (
            {"type": "assert-current-schema-id", "current-schema-id": 1},
            "current schema changed: expected id 1 != 0",
        ),
        (
            {"type": "assert-last-assigned-field-id", "last-assigned-field-id": 9},
            "last assigned field id changed",
        ),
        (
            {"type": "assert-default-spec-id", "default-spec-id": 2},
            "default partition spec changed",
        ),
        (
            {"type": "assert-last-assigned-partition-id", "last-assigned-partition-id": 1},
            "partition id changed",
        ),
        (
            {"type": "assert-default-sort-order-id", "default-sort-order-id": 1},
            "default sort order changed",
        ),
    ]:
        with pytest.raises(RequirementFailedError, match=message):
            parse_requirement(obj).check(md)


def test_a_ref_must_be_where_the_change_saw_it() -> None:
    md = _table()
    absent = parse_requirement(
        {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": None}
    )
    absent.check(md)  # no snapshot yet: main does not exist
    moved = _apply(
        md,
        {"action": "add-snapshot", "snapshot": SNAPSHOT_JSON},
        {
            "action": "set-snapshot-ref",
            "ref-name": "main",
            "type": "branch",
            "snapshot-id": SNAPSHOT_JSON["snapshot-id"],
        },
    )
    with pytest.raises(RequirementFailedError, match="main"):
        absent.check(moved)
    parse_requirement(
        {
            "type": "assert-ref-snapshot-id",
            "ref": "main",
            "snapshot-id": SNAPSHOT_JSON["snapshot-id"],
        }
    ).check(moved)
    with pytest.raises(RequirementFailedError, match="main"):
        parse_requirement(
            {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 1}
        ).check(moved)
