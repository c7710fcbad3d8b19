"""The REST catalog client against a real ``icesql serve`` (and PyIceberg's RestCatalog as the
other client of the same server); a tiny proxy in front of the server injects the answers a
flaky or contended server gives (409, 500, a lost answer)."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pyarrow as pa
import pytest
from conftest import REST_TOKEN

import icesql
from icesql.catalog.base import CommitStateUnknownError
from icesql.catalog.rest import RestCatalog
from icesql.errors import OperationalError, ProgrammingError


def _connect(uri: str, **properties: str) -> icesql.Connection:
    return icesql.connect(catalog="rest", uri=uri, name="rest", properties=properties)


@pytest.fixture
def connect():
    """``_connect``, each connection closed after the test: a REST catalog keeps its HTTP
    connection alive, and one left to the garbage collector is warned of as unclosed."""
    made: list[icesql.Connection] = []

    def connect(uri: str, **properties: str) -> icesql.Connection:
        con = _connect(uri, **properties)
        made.append(con)
        return con

    yield connect
    for con in made:
        con.close()


def test_an_unreachable_server_is_named():
    with pytest.raises(OperationalError, match=r"REST catalog 'prod' \(http://127\.0\.0\.1:9\)"):
        icesql.connect(catalog="rest", uri="http://127.0.0.1:9", name="prod")


def test_a_uri_that_is_not_http_is_refused():
    with pytest.raises(OperationalError, match="not an http"):
        icesql.connect(catalog="rest", uri="ftp://x/catalog")


def test_every_statement_through_the_server_and_pyiceberg_sees_it(rest, connect):
    con = connect(rest.uri)
    assert isinstance(con.catalog, RestCatalog)
    con.execute("CREATE NAMESPACE db")
    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (s)"
        " TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'a')")
    con.execute("DELETE FROM db.t WHERE id = 2")
    con.execute("ALTER TABLE db.t ADD COLUMN x INT")
    con.execute("UPDATE db.t SET x = 5 WHERE id = 3")
    con.execute("CREATE TABLE db.c AS SELECT * FROM db.t")
    con.execute("ALTER TABLE db.c RENAME TO db.d")
    assert con.execute("SHOW TABLES IN db").fetchall() == [("db", "d", False), ("db", "t", False)]
    first = con.execute("SELECT snapshot_id FROM db.t.snapshots ORDER BY committed_at").fetchone()[
        0
    ]
    assert con.execute(f"SELECT id FROM db.t VERSION AS OF {first} ORDER BY id").fetchall() == [
        (1,),
        (2,),
        (3,),
    ]

    from pyiceberg.catalog.rest import RestCatalog as PyIcebergRest

    with PyIcebergRest("rest", uri=rest.uri) as theirs:
        table = theirs.load_table("db.t")
        assert table.scan().to_arrow().sort_by("id").to_pylist() == [
            {"id": 1, "s": "a", "x": None},
            {"id": 3, "s": "a", "x": 5},
        ]
        assert theirs.load_table("db.d").scan().to_arrow().num_rows == 2
        table.append(
            pa.table({"id": pa.array([4], pa.int64()), "s": ["c"], "x": pa.array([7], pa.int32())})
        )
    assert con.execute("SELECT id, x FROM db.t ORDER BY id").fetchall() == [
        (1, None),
        (3, 5),
        (4, 7),
    ]
    con.execute("DROP TABLE db.d PURGE")
    assert [t for _, t, _ in con.execute("SHOW TABLES IN db").fetchall()] == ["t"]


def test_racing_connections_commit_every_row(rest, connect):
    con = connect(rest.uri)
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (writer INT, i INT) USING iceberg")
    errors: list[BaseException] = []

    def writer(w: int) -> None:
        try:
            with _connect(rest.uri) as other:
                for i in range(5):
                    other.execute("INSERT INTO db.t VALUES (?, ?)", [w, i])
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert con.execute("SELECT count(*), count(DISTINCT writer * 10 + i) FROM db.t").fetchone() == (
        15,
        15,
    )
    history = con.execute(
        "SELECT snapshot_id, parent_id FROM db.t.history ORDER BY made_current_at"
    ).fetchall()
    assert [p for _, p in history] == [None] + [s for s, _ in history[:-1]]


def test_tokens_and_client_credentials(rest_with_token, connect):
    with pytest.raises(OperationalError, match=r"REST catalog 'rest'.*\(401\)"):
        connect(rest_with_token.uri)
    with pytest.raises(OperationalError, match=r"REST catalog 'rest'.*\(401\)"):
        connect(rest_with_token.uri, token="wrong")
    by_token = connect(rest_with_token.uri, token=REST_TOKEN)
    by_token.execute("CREATE NAMESPACE db")
    by_credential = connect(rest_with_token.uri, credential="client:client-secret")
    assert by_credential.execute("SHOW NAMESPACES").fetchall() == [("db",)]
    with pytest.raises(OperationalError, match="OAuth2 token request"):
        connect(rest_with_token.uri, credential="client:wrong")


def test_path_like_names_are_refused_and_nothing_is_made(rest, connect):
    con = connect(rest.uri)
    with pytest.raises(
        ProgrammingError, match=r"REST catalog 'rest'.*invalid name part 'a/b'.*\(400\)"
    ):
        con.execute("CREATE NAMESPACE `a/b`")
    assert con.execute("SHOW NAMESPACES").fetchall() == []


class FaultProxy:
    """Forwards to the server; ``fault(method, path)`` may answer instead: an int status (the
    request never reaches the server), or "lose" (forwarded, then the answer is dropped)."""

    def __init__(
        self,
        upstream: str,
        fault: Callable[[str, str], int | str | None],
        rewrite: Callable[[str, str, bytes], bytes] | None = None,
    ) -> None:
        host, port = upstream.split("//", 1)[1].split(":")

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                action = fault(self.command, self.path)
                if isinstance(action, int):
                    data = (
                        b'{"error": {"message": "injected", "type": "Injected", "code": %d}}'
                        % action
                    )
                    self.send_response(action)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                upstream = http.client.HTTPConnection(host, int(port), timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                upstream.request(self.command, self.path, body=body, headers=headers)
                response = upstream.getresponse()
                data = response.read()
                upstream.close()
                if action == "lose":
                    self.close_connection = True
                    self.connection.close()
                    return
                if rewrite is not None:
                    data = rewrite(self.command, self.path, data)
                self.send_response(response.status)
                for key, value in response.getheaders():
                    if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = do_HEAD = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _is_commit(method: str, path: str) -> bool:
    return method == "POST" and "/tables/t" in path and not path.endswith("/metrics")


@pytest.fixture
def table_behind_proxy(rest, connect):
    con = connect(rest.uri)
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id INT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1)")
    return con


def test_a_409_is_a_lost_race_retried(rest, table_behind_proxy, connect):
    answers = [409, 409]
    proxy = FaultProxy(
        rest.uri, lambda m, p: answers.pop(0) if _is_commit(m, p) and answers else None
    )
    try:
        con = connect(proxy.uri)
        con.execute("INSERT INTO db.t VALUES (2)")
        assert answers == []  # both refusals were met, and the third attempt committed
    finally:
        proxy.close()
    assert table_behind_proxy.execute("SELECT id FROM db.t ORDER BY id").fetchall() == [(1,), (2,)]


def test_a_500_on_commit_is_an_unknown_outcome_never_retried(rest, table_behind_proxy, connect):
    seen: list[str] = []

    def fault(method: str, path: str) -> int | None:
        if _is_commit(method, path):
            seen.append(path)
            return 500
        return None

    proxy = FaultProxy(rest.uri, fault)
    try:
        con = connect(proxy.uri)
        with pytest.raises(
            CommitStateUnknownError, match=r"db\.t \(catalog 'rest'\) may have succeeded"
        ):
            con.execute("INSERT INTO db.t VALUES (2)")
        assert len(seen) == 1  # not retried blindly
    finally:
        proxy.close()
    assert table_behind_proxy.execute("SELECT id FROM db.t").fetchall() == [(1,)]


def test_a_lost_answer_is_unknown_though_the_commit_landed(rest, table_behind_proxy, connect):
    proxy = FaultProxy(rest.uri, lambda m, p: "lose" if _is_commit(m, p) else None)
    try:
        con = connect(proxy.uri)
        with pytest.raises(CommitStateUnknownError, match="may have succeeded"):
            con.execute("INSERT INTO db.t VALUES (2)")
    finally:
        proxy.close()
    # the server applied it: nothing was cleaned up, so the new snapshot's files are all there
    assert table_behind_proxy.execute("SELECT id FROM db.t ORDER BY id").fetchall() == [(1,), (2,)]


def test_vended_credentials_configure_the_tables_files(rest, table_behind_proxy, connect):
    """A LoadTableResult's ``config`` (and ``storage-credentials``) is what the server vends
    for the table's files: it reaches the FileIO of that table only."""
    import json

    def vend(method: str, path: str, data: bytes) -> bytes:
        if method == "GET" and path.split("?")[0].endswith("/tables/t"):
            body = json.loads(data)
            body["config"] = {"s3.access-key-id": "vended-id"}
            body["storage-credentials"] = [
                {"prefix": "s3://", "config": {"s3.session-token": "tok"}}
            ]
            return json.dumps(body).encode()
        return data

    proxy = FaultProxy(rest.uri, lambda m, p: None, vend)
    try:
        con = connect(proxy.uri)
        table = con.catalog.load_table(("db", "t"))
        assert table.io.properties["s3.access-key-id"] == "vended-id"
        assert table.io.properties["s3.session-token"] == "tok"
        assert "s3.access-key-id" not in con.catalog.io.properties
        assert con.execute("SELECT id FROM db.t").fetchall() == [(1,)]
    finally:
        proxy.close()


def test_register_a_table_by_its_metadata_file(rest, connect):
    con = connect(rest.uri)
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id INT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1), (2)")
    location = con.catalog.load_table(("db", "t")).metadata_location
    con.catalog.register_table(("db", "again"), location)
    assert con.execute("SELECT id FROM db.again ORDER BY id").fetchall() == [(1,), (2,)]
    with pytest.raises(icesql.Error, match="again"):
        con.catalog.register_table(("db", "again"), location)


def test_a_token_is_never_printed(rest_with_token, caplog, connect):
    with caplog.at_level("DEBUG"):
        with pytest.raises(OperationalError) as e:
            connect(rest_with_token.uri, token="wrong-but-secret-token")
        assert "wrong-but-secret-token" not in str(e.value) + repr(e.value)
        with pytest.raises(OperationalError) as e:
            connect(rest_with_token.uri, credential="client:a-secret-that-is-wrong")
        assert "a-secret-that-is-wrong" not in str(e.value) + repr(e.value)
        con = connect(rest_with_token.uri, token=REST_TOKEN)
        con.execute("CREATE NAMESPACE db")
        con.execute("CREATE TABLE db.t (id bigint)")
        with pytest.raises(icesql.Error) as e:
            con.execute("SELECT * FROM db.missing")
        assert REST_TOKEN not in str(e.value) + repr(con.catalogs)
        assert REST_TOKEN not in str(con.execute("EXPLAIN SELECT * FROM db.t").fetchall())
    assert REST_TOKEN not in caplog.text
    assert "a-secret-that-is-wrong" not in caplog.text


# --- what a commit sends: the builder's recorded updates and the requirements they call for ---
# PyIceberg's models of the spec parse each request, its requirements hold on the version the
# statement started from, and PyIceberg's ``update_table_metadata`` turns that version into
# the one the server made.

CHANGES = [
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


def _sent_commits(con: icesql.Connection) -> list[dict]:
    """The bodies of the commits ``con``'s REST client sends from now on."""
    sent: list[dict] = []
    http = con.catalog._http
    request = http.request

    def recording(method, path, query=None, body=None):
        if method == "POST" and isinstance(body, dict) and "requirements" in body:
            sent.append(body)
        return request(method, path, query, body)

    http.request = recording
    return sent


def _run_recorded(con: icesql.Connection, statements: list[str]) -> tuple[list, list[dict]]:
    """Each statement's commit body, and the table's metadata after each statement."""
    sent = _sent_commits(con)
    versions = []
    for statement in statements:
        before = len(sent)
        con.execute(statement)
        assert len(sent) == before + 1, statement  # one commit per statement
        versions.append(con.catalog.load_table(("db", "t")).metadata)
    return versions, sent


@pytest.fixture
def commits(rest):
    with _connect(rest.uri) as con:
        con.execute("CREATE NAMESPACE db")
        yield _run_recorded(con, CHANGES)


def _pyiceberg(md):
    from pyiceberg.table.metadata import TableMetadataUtil

    return TableMetadataUtil.parse_raw(md.to_json())


def _models():
    pydantic = pytest.importorskip("pydantic")
    update_module = pytest.importorskip("pyiceberg.table.update")
    return (
        update_module,
        pydantic.TypeAdapter(update_module.TableUpdate),
        pydantic.TypeAdapter(update_module.TableRequirement),
    )


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


def test_each_commit_replays_on_its_base(commits):
    update_module, updates_model, requirements_model = _models()
    versions, sent = commits
    for base, body, new in zip(versions, sent[1:], versions[1:]):
        theirs = _pyiceberg(base)
        for requirement in body["requirements"]:
            requirements_model.validate_python(requirement).validate(theirs)
        applied = update_module.update_table_metadata(
            theirs, tuple(updates_model.validate_python(u) for u in body["updates"])
        )
        assert _essence(applied) == _essence(_pyiceberg(new))


def test_a_stale_change_fails_its_requirements(commits):
    """The schema change was based on version 2; once version 3 moved the schema on, a
    replay of it is refused, as a server would refuse it with a 409."""
    _, _, requirements_model = _models()
    versions, sent = commits
    requirements = sent[2]["requirements"]
    kinds = {r["type"] for r in requirements}
    assert {
        "assert-table-uuid",
        "assert-current-schema-id",
        "assert-last-assigned-field-id",
    } <= kinds
    newer = _pyiceberg(versions[2])
    with pytest.raises(Exception, match="schema"):
        for requirement in requirements:
            requirements_model.validate_python(requirement).validate(newer)
    assert versions[3].current_schema_id == versions[2].current_schema_id  # PARTITION kept it


def test_an_append_asserts_only_its_branch(commits):
    versions, sent = commits
    base, new, body = versions[6], versions[7], sent[7]  # the INSERT after the property changes
    assert body["requirements"] == [
        {"type": "assert-table-uuid", "uuid": base.table_uuid},
        {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": base.current_snapshot_id},
    ]
    updates = body["updates"]
    assert [u["action"] for u in updates] == ["add-snapshot", "set-snapshot-ref"]
    assert updates[1] == {
        "action": "set-snapshot-ref",
        "ref-name": "main",
        "type": "branch",
        "snapshot-id": new.current_snapshot_id,
    }


def test_a_new_table_is_one_create_change(commits):
    _, updates_model, _ = _models()
    body = commits[1][0]
    assert body["requirements"] == [{"type": "assert-create"}]
    updates = body["updates"]
    parsed = [updates_model.validate_python(u) for u in updates]
    assert [u["action"] for u in updates][:2] == ["assign-uuid", "upgrade-format-version"]
    assert {type(u).__name__ for u in parsed} >= {
        "AddSchemaUpdate",
        "AddPartitionSpecUpdate",
        "SetPropertiesUpdate",
        "SetLocationUpdate",
    }
    props = next(u for u in updates if u["action"] == "set-properties")["updates"]
    assert props["owner"] == "a"


def test_an_expiry_asserts_every_ref_and_the_kept_spec_and_schema(rest, connect):
    """Removing snapshots (expire_snapshots) asserts every ref's head, so a ref moved in the
    meantime fails the commit instead of being dropped with its snapshot; removing a ref
    asserts where it was; removing specs and schemas asserts the default spec and current
    schema that were kept."""
    _, _, requirements_model = _models()
    con = connect(rest.uri)
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1)")
    con.execute("ALTER TABLE db.t CREATE TAG old")
    con.execute("ALTER TABLE db.t ADD COLUMN s STRING")
    con.execute("INSERT OVERWRITE db.t VALUES (2, 'b')")
    con.execute("INSERT INTO db.t VALUES (3, 'c')")
    base = con.catalog.load_table(("db", "t")).metadata
    (dropped, _), (drop, expire) = _run_recorded(
        con,
        [
            "ALTER TABLE db.t DROP TAG old",
            "CALL system.expire_snapshots(table => 'db.t', older_than =>"
            " TIMESTAMP '2100-01-01 00:00:00', clean_expired_metadata => true)",
        ],
    )
    requirements = drop["requirements"] + expire["requirements"]
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
    for body in (drop, expire):  # no repeats
        assert len(body["requirements"]) == len(
            {json.dumps(r, sort_keys=True) for r in body["requirements"]}
        )
    actions = [u["action"] for u in expire["updates"]]
    assert "remove-snapshots" in actions and "remove-schemas" in actions
    for on, body in ((base, drop), (dropped, expire)):
        theirs = _pyiceberg(on)
        for requirement in body["requirements"]:
            requirements_model.validate_python(requirement).validate(theirs)
