"""Unknown commit state: a catalog that applies the swap and then fails to say so (a timeout,
a dropped connection) must raise ``CommitStateUnknownError`` and must not delete the files of
that attempt, since they are the table's now (Iceberg Java's rule). Proved per catalog with
the failure each can really have: the file-system catalog's link that errors after linking,
the SQL catalog's UPDATE whose connection dies after it ran, and a REST server behind a
proxy that forwards the commit and then drops the client's connection unanswered.
"""

from __future__ import annotations

import http.server
import threading
import urllib.error
import urllib.request

import pytest
from maintenance_support import assert_every_reached_file_exists

import icesql
from icesql.catalog import exclusive_files
from icesql.catalog.base import CommitStateUnknownError
from icesql.errors import Error, OperationalError

pytestmark = pytest.mark.slow

STATEMENTS = [  # (SQL, the rows after it, the format versions), one after another
    (
        "INSERT INTO db.t VALUES (5, 'e'), (6, 'f')",
        [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e"), (6, "f")],
        (2, 3),
    ),
    ("DELETE FROM db.t WHERE id = 2", [(1, "a"), (3, "c"), (4, "d"), (5, "e"), (6, "f")], (2, 3)),
    (
        "UPDATE db.t SET s = 'u' WHERE id = 3",
        [(1, "a"), (3, "u"), (4, "d"), (5, "e"), (6, "f")],
        (2, 3),
    ),
    (
        "CALL system.rewrite_position_delete_files(table => 'db.t',"
        " options => map('rewrite-all', 'true'))",
        [(1, "a"), (3, "u"), (4, "d"), (5, "e"), (6, "f")],
        (2,),
    ),
    (
        "CALL system.rewrite_data_files(table => 'db.t', options => map('rewrite-all', 'true'))",
        [(1, "a"), (3, "u"), (4, "d"), (5, "e"), (6, "f")],
        (2, 3),
    ),
]


def _setup(con: icesql.Connection, version: int) -> None:
    con.execute("CREATE NAMESPACE IF NOT EXISTS db")
    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg TBLPROPERTIES ("
        f"'format-version' = '{version}', 'write.delete.mode' = 'merge-on-read',"
        " 'write.update.mode' = 'merge-on-read')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    con.execute("INSERT INTO db.t VALUES (3, 'c'), (4, 'd')")


def _each_statement_lands_although_unknown(
    con: icesql.Connection, version: int, arm, reconnect
) -> int:
    """Run every statement with the catalog failing after its swap; returns how many ran."""
    ran = 0
    for sql, rows, versions in STATEMENTS:
        if version not in versions:
            continue
        ran += 1
        before = con.catalog.load_table(("db", "t")).metadata.current_snapshot_id
        arm(True)
        try:
            with pytest.raises(CommitStateUnknownError, match="may have succeeded"):
                con.execute(sql)
        finally:
            arm(False)
        con = reconnect()
        after = con.catalog.load_table(("db", "t")).metadata.current_snapshot_id
        assert after != before, sql  # the swap happened
        assert_every_reached_file_exists(con)  # and nothing it references was deleted
        assert sorted(con.execute("SELECT id, s FROM db.t").fetchall()) == rows, sql
    con.execute("INSERT INTO db.t VALUES (9, 'z')")  # the table takes the next commit
    assert (9, "z") in con.execute("SELECT id, s FROM db.t").fetchall()
    return ran


@pytest.mark.parametrize("version", [2, 3])
def test_file_system_catalog_link_that_fails_after_linking(tmp_path, monkeypatch, version):
    con = icesql.connect(str(tmp_path))
    _setup(con, version)
    real = exclusive_files.publish_exclusive
    armed = [False]

    def publish(io, path, data):
        real(io, path, data)
        if armed[0] and "/db/t/" in path:
            raise OperationalError(f"cannot write {path}: timed out")

    monkeypatch.setattr(exclusive_files, "publish_exclusive", publish)
    assert _each_statement_lands_although_unknown(
        con, version, lambda on: armed.__setitem__(0, on), lambda: con
    ) == 5 - (version == 3)


@pytest.mark.parametrize("version", [2, 3])
def test_sql_catalog_update_whose_connection_dies_after_it_ran(tmp_path, version):
    con = icesql.connect(
        catalog="sql",
        uri=f"sqlite:///{tmp_path / 'c.db'}",
        warehouse=str(tmp_path / "w"),
        name="local",
    )
    _setup(con, version)
    db = con.catalog.db
    change, query = db.change, db.query
    armed, dead = [False], [False]

    def dying_change(statements, *args, **kwargs):
        out = change(statements, *args, **kwargs)
        if armed[0] and any("UPDATE iceberg_tables" in sql for sql, _ in statements):
            dead[0] = True  # from now on the connection is gone
            raise Error("connection lost: server closed the connection unexpectedly")
        return out

    def dead_query(*args, **kwargs):
        if dead[0]:
            raise Error("connection lost: no connection to the server")
        return query(*args, **kwargs)

    db.change, db.query = dying_change, dead_query

    def arm(on: bool) -> None:
        armed[0], dead[0] = on, False

    assert _each_statement_lands_although_unknown(con, version, arm, lambda: con) == 5 - (
        version == 3
    )


class _DroppingProxy(http.server.ThreadingHTTPServer):
    """Forwards every request to ``upstream``; while armed, a table commit (a POST to
    ``.../tables/<name>``) is forwarded and then the client's connection dropped unanswered."""

    def __init__(self, upstream: str) -> None:
        self.upstream, self.armed = upstream, False
        super().__init__(("127.0.0.1", 0), _Forward)

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Forward(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # quiet
        pass

    def _forward(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        req = urllib.request.Request(
            self.server.upstream + self.path, data=body, method=self.command
        )
        for key in ("Content-Type", "Authorization", "X-Iceberg-Access-Delegation"):
            if self.headers.get(key):
                req.add_header(key, self.headers[key])
        try:
            with urllib.request.urlopen(req, timeout=30) as answer:
                status, payload = answer.status, answer.read()
        except urllib.error.HTTPError as e:
            status, payload = e.code, e.read()
        commit = self.command == "POST" and "/tables/" in self.path and "/metrics" not in self.path
        if self.server.armed and commit:
            self.close_connection = True  # applied upstream; the answer never comes
            return
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_DELETE = do_HEAD = _forward


@pytest.mark.parametrize("version", [2, 3])
def test_rest_server_that_applies_and_drops_the_connection(rest, version):
    proxy = _DroppingProxy(rest.uri)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    try:
        con = icesql.connect(catalog="rest", uri=proxy.uri, name="rest")
        _setup(con, version)
        assert _each_statement_lands_although_unknown(
            con, version, lambda on: setattr(proxy, "armed", on), lambda: con
        ) == 5 - (version == 3)
    finally:
        proxy.shutdown()
        proxy.server_close()  # shutdown() only stops serve_forever; this closes the socket
