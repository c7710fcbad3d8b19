"""Each table a statement names is looked up at most once and loaded at most once from its
catalog (``icesql.session.tables``): ALTER, SHOW, DESCRIBE, CREATE and CALL ask the
statement's record, and a handler that needs the table asks only for the table (a load that
finds none is its not-found answer), not whether it exists first. Counted on real catalogs:
a SQL catalog on SQLite and a file-system (``hadoop``) one, whose ``table_exists`` and
``load_table`` are wrapped to count their calls."""

from __future__ import annotations

import sys
from collections import Counter

import pytest

import icesql
from icesql.errors import NoSuchTableError

T = ("db", "t")


class Calls:
    """Counts the ``table_exists`` and ``load_table`` calls a statement makes of a catalog,
    per table, while the catalog's own methods answer them. A catalog's calls of its own
    (``create_table`` checking the name is free, a purging ``drop_table`` loading what it
    deletes) are part of that write, not a lookup of the statement's, and are not counted."""

    def __init__(self, catalog, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counts: Counter[tuple[str, tuple[str, ...]]] = Counter()
        for method in ("table_exists", "load_table"):
            real = getattr(catalog, method)

            def counted(identifier, *args, _real=real, _method=method, **kwargs):
                caller = sys._getframe(1).f_globals.get("__name__", "")
                if not caller.startswith("icesql.catalog."):
                    self.counts[_method, tuple(identifier)] += 1
                return _real(identifier, *args, **kwargs)

            monkeypatch.setattr(catalog, method, counted)

    def of(self, con, sql: str) -> dict[tuple[str, tuple[str, ...]], int]:
        """The calls ``sql`` makes, its rows (if any) read."""
        self.counts.clear()
        cursor = con.execute(sql)
        if cursor.description is not None:
            cursor.fetchall()
        return dict(self.counts)


@pytest.fixture(params=["sql", "hadoop"])
def con(request, tmp_path):
    if request.param == "sql":
        connection = icesql.connect(
            str(tmp_path / "wh"), catalog="sql", uri=f"sqlite:///{tmp_path}/catalog.db"
        )
    else:
        connection = icesql.connect(str(tmp_path / "wh"), create=True)
    connection.execute("CREATE NAMESPACE db")
    connection.execute("CREATE TABLE db.t (id bigint, name string) USING iceberg")
    connection.execute("INSERT INTO db.t VALUES (1, 'a')")
    yield connection
    connection.close()


@pytest.fixture
def calls(con, monkeypatch):
    return Calls(con.catalog, monkeypatch)


LOADED_ONCE = {("load_table", T): 1}


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE db.t SET TBLPROPERTIES ('k' = 'v')",
        "ALTER TABLE db.t ADD COLUMN extra int",
        "ALTER TABLE db.t CREATE BRANCH b",
        "SHOW TBLPROPERTIES db.t",
        "SHOW CREATE TABLE db.t",
        "DESCRIBE db.t",
        "DESCRIBE TABLE EXTENDED db.t",
        "CALL local.system.expire_snapshots(table => 'db.t', retain_last => 5)",
        "CALL local.system.rewrite_data_files(table => 'db.t')",
        "CREATE OR REPLACE TABLE db.t (id bigint) USING iceberg",
        "INSERT INTO db.t VALUES (2, 'b')",
        "INSERT INTO db.t SELECT id + 1, name FROM db.t",
        "DELETE FROM db.t WHERE id = 1",
        "UPDATE db.t SET name = 'b' WHERE id = 1",
        "MERGE INTO db.t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE",
    ],
)
def test_a_statement_on_a_table_loads_it_once_and_asks_nothing_else(con, calls, sql) -> None:
    assert calls.of(con, sql) == LOADED_ONCE


def test_a_procedure_that_reads_the_table_again_loads_it_once_more(con, calls) -> None:
    # remove_orphan_files loads the table again after listing the files, to keep what a
    # commit made meanwhile: that reload is its point
    con.execute("SET spark.testing = true")
    sql = "CALL local.system.remove_orphan_files(table => 'db.t', dry_run => true)"
    assert calls.of(con, sql) == {("load_table", T): 2}


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE TABLE db.t (id bigint) USING iceberg",  # fails: it exists
        "CREATE TABLE IF NOT EXISTS db.t (id bigint) USING iceberg",
        "CREATE TABLE db.u (id bigint) USING iceberg",
        "DROP TABLE db.t",
    ],
)
def test_create_and_drop_only_ask_whether_the_table_exists(con, calls, sql) -> None:
    calls.counts.clear()
    try:
        con.execute(sql)
    except icesql.Error:
        pass
    name = ("db", "u") if "db.u" in sql else T
    assert dict(calls.counts) == {("table_exists", name): 1}


def test_create_table_as_select_loads_its_source_once(con, calls) -> None:
    # the source is resolved by loading it, the load the query then reads
    assert calls.of(con, "CREATE TABLE db.u AS SELECT * FROM db.t") == {
        ("table_exists", ("db", "u")): 1,
        ("load_table", T): 1,
    }


def test_a_query_resolves_its_tables_by_loading_them(con, calls) -> None:
    assert calls.of(con, "SELECT * FROM db.t JOIN db.t AS again USING (id)") == LOADED_ONCE
    with pytest.raises(NoSuchTableError, match="nope"):
        con.execute("SELECT * FROM db.nope")


def test_a_replacement_reading_its_own_table_loads_it_once(con, calls) -> None:
    sql = "CREATE OR REPLACE TABLE db.t AS SELECT id FROM db.t"
    assert calls.of(con, sql) == LOADED_ONCE
    assert con.execute("SELECT * FROM db.t").fetchall() == [(1,)]


def test_describe_of_a_metadata_table_loads_its_table_once(con, calls) -> None:
    counts = calls.of(con, "DESCRIBE db.t.snapshots")
    assert counts[("load_table", T)] == 1
    assert all(n == 1 for n in counts.values()), counts


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("ALTER TABLE db.nope SET TBLPROPERTIES ('k' = 'v')", "TABLE_OR_VIEW_NOT_FOUND"),
        ("SHOW TBLPROPERTIES db.nope", "TABLE_OR_VIEW_NOT_FOUND"),
        ("DESCRIBE db.nope", "TABLE_OR_VIEW_NOT_FOUND"),
        (
            "CALL local.system.expire_snapshots(table => 'db.nope')",
            "procedure system.expire_snapshots: table not found: db.nope",
        ),
        ("REPLACE TABLE db.nope (id bigint) USING iceberg", "CANNOT_REPLACE_MISSING_TABLE"),
    ],
)
def test_a_missing_table_is_one_load_that_finds_none(con, calls, sql, message) -> None:
    calls.counts.clear()
    with pytest.raises(NoSuchTableError, match=message):
        con.execute(sql)
    assert dict(calls.counts) == {("load_table", ("db", "nope")): 1}


def test_a_table_dropped_twice_by_one_statement_is_gone_the_second_time(con) -> None:
    with pytest.raises(NoSuchTableError, match=r"TABLE_OR_VIEW_NOT_FOUND.*db\.t"):
        con.execute("DROP TABLE db.t, db.t")
    assert not con.catalog.table_exists(T)


def test_an_insert_into_a_branch_looks_its_table_up_once(con, calls) -> None:
    con.execute("ALTER TABLE db.t CREATE BRANCH b")
    # the suffixed name is no table: that one load answers it, then the table is loaded
    assert calls.of(con, "INSERT INTO db.t.branch_b VALUES (2, 'b')") == {
        ("load_table", ("db", "t", "branch_b")): 1,
        ("load_table", T): 1,
    }
