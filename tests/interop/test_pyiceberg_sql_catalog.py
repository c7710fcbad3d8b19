"""PyIceberg's ``SqlCatalog`` and icesql share one SQLite catalog: each reads the other's
commits, and racing writers in two processes lose nothing."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pyarrow as pa
import pytest

import icesql

pyiceberg_sql = pytest.importorskip("pyiceberg.catalog.sql")


@pytest.fixture
def uri(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'catalog.db'}"


@pytest.fixture
def warehouse(tmp_path) -> str:
    return str(tmp_path / "wh")


@pytest.fixture
def pyiceberg(uri, warehouse):
    return pyiceberg_sql.SqlCatalog("local", uri=uri, warehouse=f"file://{warehouse}")


@pytest.fixture
def con(uri, warehouse):
    connection = icesql.connect(catalog="sql", uri=uri, warehouse=warehouse)
    yield connection
    connection.close()


def _sorted_rows(table: pa.Table) -> list[dict]:
    return sorted(table.to_pylist(), key=lambda r: r["id"])


def test_icesql_reads_what_pyiceberg_wrote(pyiceberg, con):
    from pyiceberg.expressions import EqualTo

    pyiceberg.create_namespace("db")
    data = pa.table(
        {
            "id": pa.array([1, 2, 3, 4], pa.int64()),
            "name": pa.array(["a", "b", None, "d"]),
            "price": pa.array([1.5, 2.5, 3.5, None]),
        }
    )
    table = pyiceberg.create_table("db.t", schema=data.schema)
    table.append(data)
    table.append(
        pa.table(
            {
                "id": pa.array([5], pa.int64()),
                "name": pa.array(["e"]),
                "price": pa.array([5.5]),
            }
        )
    )
    table.delete(EqualTo("id", 2))
    expected = _sorted_rows(pyiceberg.load_table("db.t").scan().to_arrow())
    assert [r["id"] for r in expected] == [1, 3, 4, 5]
    cursor = con.execute("SELECT id, name, price FROM db.t ORDER BY id")
    assert [dict(zip(("id", "name", "price"), row)) for row in cursor.fetchall()] == expected
    history = con.execute("SELECT snapshot_id FROM db.t.snapshots ORDER BY committed_at").fetchall()
    assert [s for (s,) in history] == [
        s.snapshot_id for s in pyiceberg.load_table("db.t").snapshots()
    ]


def test_pyiceberg_reads_what_icesql_committed(pyiceberg, con):
    con.execute("CREATE NAMESPACE db")
    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (s)"
        " TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'a'), (4, 'c')")
    con.execute("DELETE FROM db.t WHERE id = 3")  # a position delete file
    con.execute("ALTER TABLE db.t ADD COLUMN x INT")
    con.execute("INSERT INTO db.t VALUES (5, 'b', 50)")
    table = pyiceberg.load_table("db.t")
    summary = table.current_snapshot().summary
    assert summary["total-position-deletes"] == "1"
    assert _sorted_rows(table.scan().to_arrow()) == [
        {"id": 1, "s": "a", "x": None},
        {"id": 2, "s": "b", "x": None},
        {"id": 4, "s": "c", "x": None},
        {"id": 5, "s": "b", "x": 50},
    ]
    # and PyIceberg commits on top of icesql's, which icesql then reads
    table.append(
        pa.table(
            {
                "id": pa.array([6], pa.int64()),
                "s": pa.array(["d"]),
                "x": pa.array([60], pa.int32()),
            }
        )
    )
    assert con.execute("SELECT id, x FROM db.t WHERE id >= 5 ORDER BY id").fetchall() == [
        (5, 50),
        (6, 60),
    ]
    assert con.execute("SELECT count(*) FROM db.t.snapshots").fetchone() == (4,)  # ALTER adds none


def test_namespaces_and_properties_are_shared(pyiceberg, con):
    pyiceberg.create_namespace("made_by_pyiceberg", {"owner": "p"})
    con.execute("CREATE NAMESPACE made_by_icesql")
    assert sorted(pyiceberg.list_namespaces()) == [("made_by_icesql",), ("made_by_pyiceberg",)]
    assert con.catalog.namespace_properties(("made_by_pyiceberg",)) == {"owner": "p"}
    assert pyiceberg.load_namespace_properties("made_by_icesql") == {"exists": "true"}
    con.execute("DROP NAMESPACE made_by_pyiceberg")
    assert pyiceberg.list_namespaces() == [("made_by_icesql",)]
    # Spark's clauses and its reserved keys (SupportsNamespaces' comment, location)
    con.execute(
        "CREATE NAMESPACE described COMMENT 'sales data' LOCATION '/data/described'"
        " WITH DBPROPERTIES ('team' = 'ana')"
    )
    con.execute("CREATE SCHEMA plain WITH PROPERTIES ('team' = 'bo')")
    assert pyiceberg.load_namespace_properties("described") == {
        "comment": "sales data",
        "location": "/data/described",
        "team": "ana",
    }
    assert pyiceberg.load_namespace_properties("plain") == {"team": "bo"}
    with pytest.raises(icesql.ProgrammingError, match="CREATE TABLE takes TBLPROPERTIES"):
        con.execute("CREATE TABLE plain.t (id INT) WITH DBPROPERTIES ('a' = 'b')")


_WRITER = textwrap.dedent("""
    import sys
    import icesql
    uri, warehouse, writer = sys.argv[1], sys.argv[2], int(sys.argv[3])
    con = icesql.connect(catalog="sql", uri=uri, warehouse=warehouse)
    for i in range(10):
        con.execute("INSERT INTO db.t VALUES (?, ?)", [writer, i])
    con.close()
""")


def test_two_processes_racing_commits_keep_a_linear_history(pyiceberg, con, uri, warehouse):
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (writer INT, i INT) USING iceberg")
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, uri, warehouse, str(w)]) for w in (1, 2)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    rows = con.execute("SELECT writer, i FROM db.t ORDER BY writer, i").fetchall()
    assert rows == [(w, i) for w in (1, 2) for i in range(10)]
    table = pyiceberg.load_table("db.t")
    snapshots = table.snapshots()
    assert len(snapshots) == 20
    parents = [s.parent_snapshot_id for s in snapshots]
    assert parents == [None] + [s.snapshot_id for s in snapshots[:-1]]  # one line, none lost
    assert [s.sequence_number for s in snapshots] == list(range(1, 21))
