"""The web UI on ``icesql serve``: catalog, namespace, table and snapshot pages load over HTTP,
the table page's health numbers and advice are the report's (and go once the advised CALL
ran), pages hold no script and escape every name and value, writes are refused, and with a
token the pages need it (a form sets an HttpOnly cookie)."""

from __future__ import annotations

import http.client
import re
import urllib.parse
from html.parser import HTMLParser

import pytest

import icesql

XSS = "<script>alert(1)</script>"


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.links += [v for k, v in attrs if k in ("href", "src") and v]


def _get(rest, path, headers=None, method="GET", body=None):
    conn = http.client.HTTPConnection("127.0.0.1", rest.server.port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        conn.close()


def _connect(rest):
    return icesql.connect(
        catalog="rest",
        uri=rest.uri,
        warehouse=rest.warehouse,
        name="rest",
        properties={"token": rest.token} if rest.token else None,
    )


@pytest.fixture
def planted(rest):
    con = _connect(rest)
    con.execute("CREATE NAMESPACE db")
    con.execute(
        "CREATE TABLE db.t (id BIGINT COMMENT 'the id', p INT) USING iceberg PARTITIONED BY (p)"
        " TBLPROPERTIES ('write.delete.mode'='merge-on-read')"
    )
    for i in range(6):
        con.execute(f"INSERT INTO db.t VALUES ({i}, 0), ({i + 10}, 1)")
    con.execute("ALTER TABLE db.t ADD COLUMN note STRING")
    yield con
    con.close()


def _safe(page: str) -> _Tags:
    tags = _Tags()
    tags.feed(page)
    assert "script" not in tags.tags
    assert all(link.startswith("/ui/") for link in tags.links), tags.links  # nothing external
    return tags


def test_pages_from_the_catalog_to_a_snapshot(rest, planted):
    status, headers, page = _get(rest, "/ui")
    assert status == 308 and headers["Location"] == "/ui/"
    status, headers, page = _get(rest, "/ui/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "script-src" not in headers["Content-Security-Policy"]  # default-src 'none'
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY"
    assert '<a href="/ui/catalogs/rest">rest</a>' in page  # the catalogs
    _safe(page)
    status, _, page = _get(rest, "/ui/catalogs/rest")
    assert status == 200 and '<a href="/ui/catalogs/rest/namespaces/db">db</a>' in page
    status, _, page = _get(rest, "/ui/catalogs/rest/namespaces/db")
    assert status == 200 and '<a href="/ui/catalogs/rest/tables/db/t">t</a>' in page
    status, _, page = _get(rest, "/ui/catalogs/rest/tables/db/t")
    assert status == 200
    _safe(page)
    assert "<td>1</td><td>id</td><td>long</td><td></td><td>the id</td>" in page  # field ids
    assert "added note" in page  # the schema's evolution
    assert "p: identity(2)" in page
    assert page.count("<svg") >= 5
    t = planted.catalog.load_table(("db", "t"))
    snapshot = t.metadata.current_snapshot_id
    status, _, css = _get(rest, "/ui/assets/ui.css")
    assert status == 200 and "font-family" in css
    status, _, page = _get(rest, f"/ui/catalogs/rest/tables/db/t/snapshots/{snapshot}")
    assert status == 200 and "added-data-files" in page
    assert _get(rest, "/ui/catalogs/rest/tables/db/t/snapshots/1")[0] == 404
    assert _get(rest, "/ui/catalogs/rest/tables/db/nope")[0] == 404
    assert _get(rest, "/ui/catalogs/rest/namespaces/nope")[0] == 404
    assert _get(rest, "/ui/catalogs/nope")[0] == 404
    assert _get(rest, "/ui/elsewhere")[0] == 404


def test_the_health_numbers_and_advice_go_after_the_call(rest, planted):
    files = planted.execute("SELECT count(*) FROM db.t.files").fetchone()[0]
    _, _, page = _get(rest, "/ui/catalogs/rest/tables/db/t")
    assert f"{files:,} files" in page
    (call,) = re.findall(r"<code>(CALL [^<]*)</code>", page)
    assert call == "CALL rest.system.rewrite_data_files(table =&gt; &#x27;db.t&#x27;)"
    assert 'data-code="small-files"' in page
    planted.execute(call.replace("=&gt;", "=>").replace("&#x27;", "'")).fetchall()
    _, _, page = _get(rest, "/ui/catalogs/rest/tables/db/t")
    assert "data-code=" not in page and "No problems found." in page


def test_names_and_values_that_are_markup_are_escaped(rest):
    con = _connect(rest)
    try:
        con.execute("CREATE NAMESPACE `<i>ns`")
        con.execute(
            f"CREATE TABLE `<i>ns`.`<b>t` (id INT) USING iceberg"
            f" TBLPROPERTIES ('note'='\"quoted\" {XSS}')"
        )
        con.execute("INSERT INTO `<i>ns`.`<b>t` VALUES (1)")
    finally:
        con.close()
    _, _, page = _get(rest, "/ui/catalogs/rest")
    assert "<i>" not in page and "&lt;i&gt;ns" in page
    namespace = urllib.parse.quote("<i>ns", safe="")
    path = f"/ui/catalogs/rest/tables/{namespace}/{urllib.parse.quote('<b>t', safe='')}"
    assert f'href="/ui/catalogs/rest/namespaces/{namespace}"' in page
    assert f'href="{path}"' in _get(rest, f"/ui/catalogs/rest/namespaces/{namespace}")[2]
    status, _, page = _get(rest, path)
    assert status == 200
    tags = _safe(page)
    assert "b" not in tags.tags and "i" not in tags.tags
    assert XSS not in page and "&quot;quoted&quot; &lt;script&gt;" in page


def test_the_ui_is_read_only(rest, planted):
    for method in ("POST", "PUT", "DELETE"):
        assert _get(rest, "/ui/catalogs/rest/tables/db/t", method=method, body=b"x")[0] == 405


def test_a_token_server_asks_for_the_token(rest_with_token):
    rest = rest_with_token
    status, headers, _ = _get(rest, "/ui/")
    assert status == 303 and headers["Location"] == "/ui/login"
    status, _, page = _get(rest, "/ui/login")
    assert status == 200 and 'type="password"' in page
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    status, _, page = _get(rest, "/ui/login", form, "POST", b"token=wrong")
    assert status == 403 and "not valid" in page
    status, headers, _ = _get(rest, "/ui/login", form, "POST", f"token={rest.token}".encode())
    assert status == 303 and headers["Location"] == "/ui/"
    cookie = headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/ui" in cookie
    value = cookie.split(";")[0]
    assert _get(rest, "/ui/", {"Cookie": value})[0] == 200
    assert _get(rest, "/ui/", {"Cookie": "icesql_ui_token=wrong"})[0] == 303
    assert _get(rest, "/ui/", {"Authorization": f"Bearer {rest.token}"})[0] == 200
    assert _get(rest, "/ui/assets/ui.css")[0] == 200  # the stylesheet holds nothing secret


def test_the_server_binds_localhost_by_default(rest):
    assert rest.server.host == "127.0.0.1"


FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def _run(rest, sql, headers=None):
    body = urllib.parse.urlencode({"sql": sql}).encode()
    return _get(rest, "/ui/sql", {**FORM, **(headers or {})}, "POST", body)


def test_the_sql_editor_reads_and_explains_but_never_writes_without_a_token(rest, planted):
    status, _, page = _get(rest, "/ui/sql")
    assert status == 200 and "Read-only" in page and "<textarea" in page
    status, _, page = _run(rest, "SELECT p, count(*) AS n FROM db.t GROUP BY p ORDER BY p")
    assert status == 200 and "<th>p</th><th>n</th>" in page
    assert "<tr><td>0</td><td>6</td></tr><tr><td>1</td><td>6</td></tr>" in page
    status, _, page = _run(rest, "EXPLAIN SELECT * FROM db.t WHERE p = 0")
    assert status == 200 and "<pre>" in page
    status, _, page = _run(rest, "SHOW TABLES IN db")
    assert status == 200 and "<td>t</td>" in page
    before = planted.catalog.load_table(("db", "t")).metadata_location
    for write in (
        "DELETE FROM db.t WHERE id = 1",
        "CALL rest.system.rewrite_data_files(table => 'db.t')",
        "CREATE TABLE db.x (id INT) USING iceberg",
        "SELECT 1; DELETE FROM db.t",
    ):
        status, _, page = _run(rest, write)
        assert status == 403 and "need the server&#x27;s token" in page, write
    assert planted.catalog.load_table(("db", "t")).metadata_location == before
    status, _, page = _run(rest, f"SELECT '{XSS}' AS x")
    assert XSS not in page and "&lt;script&gt;" in page
    status, _, page = _run(rest, "SELECT * FROM db.nope")
    assert status == 200 and 'class="error"' in page and "db.nope" in page


def test_a_form_of_another_site_is_refused(rest, planted):
    status, _, _ = _run(rest, "SELECT 1", {"Origin": "http://evil.example"})
    assert status == 403
    port = rest.server.port
    assert _run(rest, "SELECT 1", {"Origin": f"http://127.0.0.1:{port}"})[0] == 200


def test_with_the_token_the_sql_editor_writes(rest_with_token):
    rest = rest_with_token
    con = _connect(rest)
    try:
        con.execute("CREATE NAMESPACE db")
        con.execute("CREATE TABLE db.t (id INT) USING iceberg")
    finally:
        con.close()
    assert _run(rest, "SELECT 1")[0] == 303  # the pages need the token first
    auth = {"Authorization": f"Bearer {rest.token}"}
    status, _, page = _get(rest, "/ui/sql", auth)
    assert status == 200 and "Any statement runs" in page
    status, _, page = _run(rest, "INSERT INTO db.t VALUES (1), (2)", auth)
    assert status == 200 and "OK, 2 rows" in page
    status, _, page = _run(rest, "SELECT count(*) AS n FROM db.t", auth)
    assert "<tr><td>2</td></tr>" in page
