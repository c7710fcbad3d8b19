"""``Catalog.commit(identifier, requirements, updates)``, the REST spec's commit, on every
catalog: the file-system and SQL catalogs check and apply it themselves, the REST client sends
it to the server as it is."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import CommitConflictError
from icesql.metadata.table_requirements import AssertCurrentSchemaId, AssertTableUUID
from icesql.metadata.table_updates import RemovePropertiesUpdate, SetPropertiesUpdate


@pytest.fixture(params=["hadoop", "sql", "rest"])
def con(request, tmp_path):
    if request.param == "hadoop":
        connection = icesql.connect(str(tmp_path / "wh"), create=True)
    elif request.param == "sql":
        connection = icesql.connect(
            catalog="sql", uri=f"sqlite:///{tmp_path / 'c.db'}", warehouse=str(tmp_path / "wh")
        )
    else:
        rest = request.getfixturevalue("rest")
        connection = icesql.connect(catalog="rest", uri=rest.uri, name="rest")
    connection.execute("CREATE NAMESPACE db")
    connection.execute("CREATE TABLE db.t (id BIGINT) USING iceberg TBLPROPERTIES ('a' = '1')")
    yield connection
    connection.close()


def _properties(con) -> dict[str, str]:
    props = con.catalog.load_table(("db", "t")).metadata.properties
    return {k: v for k, v in props.items() if k in ("a", "b")}


def test_updates_apply_when_the_requirements_hold(con):
    table = con.catalog.load_table(("db", "t"))
    committed = con.catalog.commit(
        ("db", "t"),
        [AssertTableUUID(table.metadata.table_uuid)],
        [SetPropertiesUpdate({"b": "2"}), RemovePropertiesUpdate(("a",))],
    )
    assert committed.metadata_location != table.metadata_location
    assert _properties(con) == {"b": "2"}


def test_a_requirement_that_no_longer_holds_fails_and_changes_nothing(con):
    schema_id = con.catalog.load_table(("db", "t")).metadata.current_schema_id
    con.execute("ALTER TABLE db.t ADD COLUMN x INT")  # another writer moved the schema on
    before = con.catalog.load_table(("db", "t")).metadata_location
    # RequirementFailedError where the catalog checks; the server's 409 CommitFailedError
    with pytest.raises(CommitConflictError, match="schema"):
        con.catalog.commit(
            ("db", "t"), [AssertCurrentSchemaId(schema_id)], [SetPropertiesUpdate({"b": "2"})]
        )
    assert con.catalog.load_table(("db", "t")).metadata_location == before
    assert _properties(con) == {"a": "1"}


def test_a_transaction_commits_all_tables_or_none(con):
    con.execute("CREATE TABLE db.u (id BIGINT) USING iceberg")
    t_uuid = con.catalog.load_table(("db", "t")).metadata.table_uuid
    u_before = con.catalog.load_table(("db", "u")).metadata_location
    change_t = (("db", "t"), [AssertTableUUID(t_uuid)], [SetPropertiesUpdate({"b": "t"})])
    stale_u = (
        ("db", "u"),
        [AssertTableUUID("00000000-0000-0000-0000-000000000000")],
        [SetPropertiesUpdate({"b": "u"})],
    )
    if type(con.catalog).__name__ == "FileSystemCatalog":
        with pytest.raises(icesql.NotSupportedError, match="cannot commit several tables at once"):
            con.catalog.commit_transaction([change_t])
        return
    with pytest.raises(CommitConflictError, match="UUID"):
        con.catalog.commit_transaction([change_t, stale_u])
    assert _properties(con) == {"a": "1"}  # t unchanged: u's requirement failed
    assert con.catalog.load_table(("db", "u")).metadata_location == u_before
    u_uuid = con.catalog.load_table(("db", "u")).metadata.table_uuid
    con.catalog.commit_transaction(
        [change_t, (("db", "u"), [AssertTableUUID(u_uuid)], [SetPropertiesUpdate({"b": "u"})])]
    )
    assert _properties(con) == {"a": "1", "b": "t"}
    assert con.catalog.load_table(("db", "u")).metadata.properties["b"] == "u"


def test_the_rest_client_asks_the_server_where_a_table_goes(rest):
    with icesql.connect(catalog="rest", uri=rest.uri, name="rest") as con:
        con.execute("CREATE NAMESPACE db")
        location = con.catalog.default_table_location(("db", "new"))
        assert location.rstrip("/").endswith("/db/new") and location.startswith(rest.warehouse)
        assert con.execute("SHOW TABLES IN db").fetchall() == []  # a staged create stores nothing
