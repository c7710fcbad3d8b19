"""View updates applied as Iceberg Java's ``ViewMetadata.Builder`` applies them."""

from __future__ import annotations

import pytest

from icesql.metadata.view_metadata import parse_view_metadata
from icesql.metadata.view_updates import (
    InvalidViewUpdateError,
    ViewRequirementFailedError,
    apply_view_updates,
    check_view_requirements,
    create_updates,
    replace_updates,
)
from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField, StringType

LONG = Schema((NestedField(0, "n", LongType(), required=False),))
TEXT = Schema((NestedField(0, "s", StringType(), required=False),))


def first(**props):
    return apply_view_updates(
        None,
        create_updates(
            "u-1", "/wh/db/v", LONG, "SELECT 1 AS n", ("db",), None, props, {}, now_ms=5
        ),
    )


def test_a_new_view_has_version_1_schema_0_and_one_log_entry():
    md = first(a="b")
    assert (md.uuid, md.location, md.current_version_id) == ("u-1", "/wh/db/v", 1)
    assert md.schema.schema_id == 0 and md.properties == {"a": "b"}
    assert md.raw["version-log"] == [{"timestamp-ms": 5, "version-id": 1}]
    assert parse_view_metadata(md.to_json()).to_json() == md.to_json()


def test_replacing_reuses_an_equal_schema_and_version():
    md = first()
    same = apply_view_updates(md, replace_updates(LONG, "SELECT 1 AS n", ("db",), None, {}, {}, 5))
    assert same.current_version_id == 1 and len(same.versions) == 1  # nothing new
    other = apply_view_updates(
        md, replace_updates(TEXT, "SELECT 'x' AS s", ("db",), None, {}, {}, 9)
    )
    assert other.current_version_id == 2 and [s.schema_id for s in other.schemas] == [0, 1]
    back = apply_view_updates(
        other, replace_updates(LONG, "SELECT 1 AS n", ("db",), None, {}, {}, 5)
    )
    assert back.current_version_id == 1 and len(back.versions) == 2  # rolled back by reuse
    assert [e["version-id"] for e in back.raw["version-log"]] == [1, 2, 1]


def test_old_versions_expire_by_the_history_property():
    md = first(**{"version.history.num-entries": "2"})
    for i in range(2, 5):
        sql = f"SELECT {i} AS n"
        md = apply_view_updates(md, replace_updates(LONG, sql, ("db",), None, {}, {}, i))
    assert [v.version_id for v in md.versions] == [3, 4]
    assert [e["version-id"] for e in md.raw["version-log"]] == [3, 4]


@pytest.mark.parametrize(
    ("update", "message"),
    [
        ({"action": "assign-uuid", "uuid": "other"}, "Cannot reassign uuid"),
        ({"action": "set-current-view-version", "view-version-id": 7}, "unknown version: 7"),
        ({"action": "upgrade-format-version", "format-version": 2}, "Unsupported format version"),
        ({"action": "set-snapshot-ref"}, "unknown or unsupported view update"),
        ({"action": "set-location", "location": 5}, "'location' must be a str"),
    ],
)
def test_bad_updates_are_refused(update, message):
    with pytest.raises(InvalidViewUpdateError, match=message):
        apply_view_updates(first(), [update])


def test_two_queries_of_one_dialect_and_a_dropped_dialect_are_refused():
    md = first()
    version = dict(md.current_version.raw)
    twice = [{"type": "sql", "sql": "SELECT 1", "dialect": "spark"}] * 2
    with pytest.raises(InvalidViewUpdateError, match="multiple queries for dialect spark"):
        apply_view_updates(
            md,
            [{"action": "add-view-version", "view-version": {**version, "representations": twice}}],
        )
    trino = [{"type": "sql", "sql": "SELECT 1", "dialect": "trino"}]
    with pytest.raises(InvalidViewUpdateError, match="loss of view dialects"):
        apply_view_updates(
            md,
            [
                {
                    "action": "add-view-version",
                    "view-version": {**version, "representations": trino},
                },
                {"action": "set-current-view-version", "view-version-id": -1},
            ],
        )


def test_the_uuid_requirement():
    md = first()
    check_view_requirements(md, [{"type": "assert-view-uuid", "uuid": "u-1"}])
    with pytest.raises(ViewRequirementFailedError, match="view UUID does not match"):
        check_view_requirements(md, [{"type": "assert-view-uuid", "uuid": "u-2"}])
