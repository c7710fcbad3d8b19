"""New files in the format the table asks for: ``write.format.default`` for data files and
``write.delete.format.default`` (default: the data format) for delete files; a format icesql
cannot write faithfully is refused with NotSupportedError naming the property, and nothing
is committed. (Spark reading these files: tests/interop/test_orc_avro_spark.py.)"""

from __future__ import annotations

import glob

import pyarrow as pa
import pytest

import icesql
from icesql.errors import NotSupportedError


@pytest.fixture
def con(tmp_path):
    connection = icesql.connect(str(tmp_path))
    connection.execute("CREATE NAMESPACE db")
    yield connection
    connection.close()


def _create(con, props: str) -> None:
    con.execute(
        "CREATE TABLE db.t (id INT, s STRING, ts TIMESTAMP) USING iceberg PARTITIONED BY (s)"
        f" TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read',"
        f" 'write.update.mode' = 'merge-on-read', {props})"
    )


def _formats(con) -> set[tuple[int, str]]:
    rows = con.execute("SELECT content, file_format, file_path FROM db.t.files").fetchall()
    for _, fmt, path in rows:
        assert path.endswith("." + fmt.lower())
    return {(c, f) for c, f, _ in rows}


VALUES = "(1, 'a', TIMESTAMP '2024-01-01 00:00:00'), (2, 'a', NULL), (3, 'b', NULL)"


@pytest.mark.parametrize("fmt", ["orc", "avro", "parquet"])
def test_data_and_delete_files_in_the_table_format(con, fmt):
    _create(con, f"'write.format.default' = '{fmt}'")
    con.execute(f"INSERT INTO db.t VALUES {VALUES}")
    con.execute("DELETE FROM db.t WHERE id = 2")
    con.execute("UPDATE db.t SET s = 'b' WHERE id = 1")
    assert _formats(con) == {(0, fmt.upper()), (1, fmt.upper())}
    assert con.execute("SELECT id, s FROM db.t ORDER BY id").fetchall() == [(1, "b"), (3, "b")]


def test_delete_format_property_wins_over_the_data_format(con):
    _create(con, "'write.format.default' = 'orc', 'write.delete.format.default' = 'avro'")
    con.execute(f"INSERT INTO db.t VALUES {VALUES}")
    con.execute("DELETE FROM db.t WHERE id = 2")
    assert _formats(con) == {(0, "ORC"), (1, "AVRO")}
    assert [r[0] for r in con.execute("SELECT id FROM db.t ORDER BY id").fetchall()] == [1, 3]


def test_ctas_and_compaction_follow_the_property(con):
    _create(con, "'write.format.default' = 'avro'")
    con.execute(f"INSERT INTO db.t VALUES {VALUES}")
    con.execute(f"INSERT INTO db.t VALUES {VALUES}")
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('write.format.default' = 'orc')")
    con.execute(
        "CALL system.rewrite_data_files(table => 'db.t', options => map('min-input-files', '1'))"
    )
    assert {f for c, f in _formats(con)} == {"ORC"}
    con.execute(
        "CREATE TABLE db.c USING iceberg TBLPROPERTIES ('write.format.default' = 'avro')"
        " AS SELECT * FROM db.t"
    )
    fmts = con.execute("SELECT DISTINCT file_format FROM db.c.files").fetchall()
    assert fmts == [("AVRO",)]
    assert sorted(con.execute("SELECT id FROM db.c").fetchall()) == [
        (1,),
        (1,),
        (2,),
        (2,),
        (3,),
        (3,),
    ]


@pytest.mark.parametrize("prop", ["write.format.default", "write.delete.format.default"])
def test_unknown_format_refused_naming_the_property(con, tmp_path, prop):
    _create(con, f"'{prop}' = 'csv'")
    before = con.execute("SELECT count(*) FROM db.t.snapshots").fetchall()
    if prop == "write.delete.format.default":
        con.execute(f"INSERT INTO db.t VALUES {VALUES}")
        before = con.execute("SELECT count(*) FROM db.t.snapshots").fetchall()
        with pytest.raises(NotSupportedError, match=prop):
            con.execute("DELETE FROM db.t WHERE id = 2")
    else:
        with pytest.raises(NotSupportedError, match=prop):
            con.execute(f"INSERT INTO db.t VALUES {VALUES}")
        assert not glob.glob(str(tmp_path / "db" / "t" / "data" / "**" / "*.*"), recursive=True)
    assert con.execute("SELECT count(*) FROM db.t.snapshots").fetchall() == before


def test_orc_timestamp_outside_nanosecond_range(con):
    """Written faithfully (ORC stores seconds + nanos); pyarrow's ORC reader holds
    nanoseconds since 1970 and cannot read it back: NotSupportedError, not a corrupt file."""
    _create(con, "'write.format.default' = 'orc'")
    con.execute("INSERT INTO db.t VALUES (1, 'a', TIMESTAMP '2999-01-01 00:00:00')")
    assert con.execute("SELECT id FROM db.t").fetchall() == [(1,)]
    if int(pa.__version__.split(".")[0]) >= 26:
        with pytest.raises(NotSupportedError, match="1677-2262"):
            con.execute("SELECT ts FROM db.t").fetchall()
        return
    # pyarrow 20's ORC reader does not check: the nanoseconds wrap round; a wrapped value is
    # never a whole number of microseconds (2**64 is not a multiple of 1000 within 70,000
    # years), which the reader detects in a column an Iceberg writer truncated to micros
    with pytest.raises(
        NotSupportedError, match=r"\.orc: column 'ts' holds a timestamp outside 1677-2262"
    ):
        con.execute("SELECT ts FROM db.t").fetchall()
