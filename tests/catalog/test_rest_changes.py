"""A commit read off two metadata versions as REST requirements and updates: PyIceberg's
models of the spec parse them, its requirements hold on the base version, and its
``update_table_metadata`` turns the base into the version icesql made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import icesql
from icesql.catalog.rest_changes import table_changes
from icesql.metadata.table_metadata import TableMetadata, parse_table_metadata

pydantic = pytest.importorskip("pydantic")
update_module = pytest.importorskip("pyiceberg.table.update")
from pyiceberg.table.metadata import TableMetadataUtil  # noqa: E402

UPDATES = pydantic.TypeAdapter(update_module.TableUpdate)
REQUIREMENTS = pydantic.TypeAdapter(update_module.TableRequirement)

STATEMENTS = [
    "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (s)"
    " TBLPROPERTIES ('format-version' = '2', 'owner' = 'a')",
    "INSERT INTO db.t VALUES (1, 'a'), (2, 'b')",
    "ALTER TABLE db.t ADD COLUMN x INT",
    "ALTER TABLE db.t ADD PARTITION FIELD bucket(4, id)",
    "ALTER TABLE db.t WRITE ORDERED BY id",
    "ALTER TABLE db.t SET TBLPROPERTIES ('owner' = 'b', 'k' = 'v')",
    "ALTER TABLE db.t UNSET TBLPROPERTIES ('k')",
    "INSERT INTO db.t VALUES (3, 'c', 3)",
    "DELETE FROM db.t WHERE id = 1",
]


@pytest.fixture(scope="module")
def versions(tmp_path_factory) -> list[TableMetadata]:
    """Every metadata version of a table that went through ``STATEMENTS``."""
    warehouse = tmp_path_factory.mktemp("wh")
    con = icesql.connect(str(warehouse))
    con.execute("CREATE NAMESPACE db")
    for statement in STATEMENTS:
        con.execute(statement)
    folder = Path(warehouse, "db", "t", "metadata")
    paths = sorted(folder.glob("v*.metadata.json"), key=lambda p: int(p.name[1:].split(".")[0]))
    assert len(paths) == len(STATEMENTS)
    return [parse_table_metadata(p.read_bytes(), path=str(p)) for p in paths]


def _pyiceberg(md: TableMetadata):
    return TableMetadataUtil.parse_raw(md.to_json())


def _essence(md) -> dict:
    """What a commit must carry over, in PyIceberg's JSON form."""
    raw = json.loads(md.model_dump_json(by_alias=True, exclude_none=True))
    keys = (
        "format-version",
        "table-uuid",
        "location",
        "last-column-id",
        "schemas",
        "current-schema-id",
        "partition-specs",
        "default-spec-id",
        "last-partition-id",
        "sort-orders",
        "default-sort-order-id",
        "properties",
        "snapshots",
        "current-snapshot-id",
        "refs",
        "last-sequence-number",
    )
    return {k: raw.get(k) for k in keys}


def test_each_commit_replays_on_its_base(versions):
    for base, new in zip(versions, versions[1:]):
        requirements, updates = table_changes(base, new)
        theirs = _pyiceberg(base)
        for requirement in requirements:
            REQUIREMENTS.validate_python(requirement).validate(theirs)
        applied = update_module.update_table_metadata(
            theirs, tuple(UPDATES.validate_python(u) for u in updates)
        )
        assert _essence(applied) == _essence(_pyiceberg(new))


def test_a_stale_change_fails_its_requirements(versions):
    """The schema change was based on version 2; once version 3 moved the schema on, a
    replay of it is refused, as a server would refuse it with a 409."""
    base, new, later = versions[1], versions[2], versions[3]
    requirements, _ = table_changes(base, new)
    kinds = {r["type"] for r in requirements}
    assert {
        "assert-table-uuid",
        "assert-current-schema-id",
        "assert-last-assigned-field-id",
    } <= kinds
    newer = _pyiceberg(versions[2])
    with pytest.raises(Exception, match="schema"):
        for requirement in requirements:
            REQUIREMENTS.validate_python(requirement).validate(newer)
    assert later.current_schema_id == new.current_schema_id  # ALTER ... PARTITION kept it


def test_an_append_asserts_only_its_branch(versions):
    base, new = versions[6], versions[7]  # the INSERT after the property changes
    requirements, updates = table_changes(base, new)
    assert requirements == [
        {"type": "assert-table-uuid", "uuid": base.table_uuid},
        {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": base.current_snapshot_id},
    ]
    assert [u["action"] for u in updates] == ["add-snapshot", "set-snapshot-ref"]
    assert updates[1] == {
        "action": "set-snapshot-ref",
        "ref-name": "main",
        "type": "branch",
        "snapshot-id": new.current_snapshot_id,
    }


def test_a_new_table_is_one_create_change(versions):
    requirements, updates = table_changes(None, versions[0])
    assert requirements == [{"type": "assert-create"}]
    parsed = [UPDATES.validate_python(u) for u in updates]
    assert [u["action"] for u in updates][:2] == ["assign-uuid", "upgrade-format-version"]
    assert {type(u).__name__ for u in parsed} >= {
        "AddSchemaUpdate",
        "AddPartitionSpecUpdate",
        "SetPropertiesUpdate",
        "SetLocationUpdate",
    }
    props = next(u for u in updates if u["action"] == "set-properties")["updates"]
    assert props["owner"] == "a"


def test_an_expiry_asserts_every_ref_and_the_kept_spec_and_schema(tmp_path):
    """Removing snapshots (expire_snapshots) asserts every ref's head, so a ref moved in the
    meantime fails the commit instead of being dropped with its snapshot; removing specs and
    schemas asserts the default spec and current schema that were kept."""
    con = icesql.connect(str(tmp_path))
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1)")
    con.execute("ALTER TABLE db.t CREATE TAG old")
    con.execute("ALTER TABLE db.t ADD COLUMN s STRING")
    con.execute("INSERT OVERWRITE db.t VALUES (2, 'b')")
    con.execute("INSERT INTO db.t VALUES (3, 'c')")
    base = con.catalog.load_table(("db", "t")).metadata
    con.execute("ALTER TABLE db.t DROP TAG old")
    con.execute(
        "CALL system.expire_snapshots(table => 'db.t', older_than =>"
        " TIMESTAMP '2100-01-01 00:00:00', clean_expired_metadata => true)"
    )
    middle = con.catalog.load_table(("db", "t")).metadata
    requirements, updates = table_changes(
        parse_table_metadata(base.to_json()), parse_table_metadata(middle.to_json())
    )
    assert {
        "type": "assert-ref-snapshot-id",
        "ref": "main",
        "snapshot-id": base.current_snapshot_id,
    } in requirements
    assert {
        "type": "assert-ref-snapshot-id",
        "ref": "old",
        "snapshot-id": base.refs["old"].snapshot_id,
    } in requirements
    assert {
        "type": "assert-current-schema-id",
        "current-schema-id": base.current_schema_id,
    } in requirements
    assert len(requirements) == len(
        {json.dumps(r, sort_keys=True) for r in requirements}
    )  # no repeats
    actions = [u["action"] for u in updates]
    assert "remove-snapshots" in actions and "remove-schemas" in actions
    theirs = _pyiceberg(base)
    for requirement in requirements:
        REQUIREMENTS.validate_python(requirement).validate(theirs)
    con.close()
