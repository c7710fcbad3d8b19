"""``Connection.sql``: lazy relations (``icesql.dbapi.relation``), their results and how they look in
a terminal and in a notebook (``_repr_html_``, through IPython's own display formatter)."""

from __future__ import annotations

import sys
from decimal import Decimal

import pyarrow as pa
import pytest

import icesql
from icesql.dbapi.relation import DISPLAY_ROWS, Relation

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")


@pytest.fixture
def con(tmp_path):
    with icesql.connect(str(tmp_path)) as connection:
        connection.execute(
            "CREATE TABLE db.t (id BIGINT, name STRING, d DECIMAL(9,2)) USING iceberg"
        )
        connection.execute(
            "INSERT INTO db.t SELECT id, concat('n', id), CAST(id AS DECIMAL(9,2)) / 4"
            " FROM range(50) r(id)"
        )
        yield connection


def pulled_stream(batches: int, rows: int = 10):
    """A RecordBatchReader of ``batches`` batches and a list that counts those pulled."""
    pulled: list[int] = []

    def make():
        for i in range(batches):
            pulled.append(i)
            yield pa.record_batch({"id": pa.array(range(i * rows, (i + 1) * rows), pa.int64())})

    return pa.RecordBatchReader.from_batches(pa.schema([("id", pa.int64())]), make()), pulled


def test_a_query_runs_when_read_not_when_made(con):
    stream, pulled = pulled_stream(5)
    rel = con.sql("SELECT * FROM stream")
    assert isinstance(rel, Relation) and pulled == []
    before = con.sql("SELECT count(*) AS n FROM db.t")
    con.execute("INSERT INTO db.t VALUES (100, 'x', 1)")
    assert before.fetchall() == [(51,)]  # made before the INSERT, run after it
    assert len(rel.fetchall()) == 50 and pulled == [0, 1, 2, 3, 4]


def test_each_result_method_runs_the_query(con):
    rel = con.sql("SELECT id, name, d FROM db.t WHERE id < ? ORDER BY id", (3,))
    assert rel.fetchall() == [
        (0, "n0", Decimal("0.00")),
        (1, "n1", Decimal("0.25")),
        (2, "n2", Decimal("0.50")),
    ]
    df = rel.df()
    assert df["id"].tolist() == [0, 1, 2] and df["d"].dtype == pd.ArrowDtype(pa.decimal128(9, 2))
    assert rel.fetchdf()["name"].tolist() == ["n0", "n1", "n2"]
    frame = rel.pl()
    assert isinstance(frame, pl.DataFrame) and frame["name"].to_list() == ["n0", "n1", "n2"]
    table = rel.arrow()
    assert table.schema.field("d").type == pa.decimal128(9, 2) and table.num_rows == 3
    assert pa.table(rel).column("id").to_pylist() == [0, 1, 2]  # the Arrow PyCapsule stream
    assert pl.DataFrame(rel)["id"].to_list() == [0, 1, 2]
    assert [b.num_rows for b in rel.fetch_record_batch(2)] == [2, 1]


def test_fetch_methods_share_one_run(con):
    rel = con.sql("SELECT id FROM db.t WHERE id < 4 ORDER BY id")
    assert rel.fetchone() == (0,)
    assert rel.fetchmany(2) == [(1,), (2,)]
    assert rel.fetchall() == [(3,)]
    assert rel.fetchone() == (0,)  # read to the end: the next fetch is a new run


def test_a_relation_is_a_table_in_later_sql(con):
    small = con.sql("SELECT id, name FROM db.t WHERE id >= 48")
    assert small is not None
    rows = con.execute("SELECT s.name FROM small s JOIN db.t t USING (id) ORDER BY 1").fetchall()
    assert rows == [("n48",), ("n49",)]


def test_a_relation_is_a_merge_source_beside_other_variables(con):
    """The relation's own run, inside the MERGE, leaves the MERGE its caller's variables."""
    changes = pa.table({"id": [1, 100], "name": ["ONE", "hundred"], "d": [None, None]})  # noqa: F841
    source = con.sql("SELECT id, name, CAST(d AS DECIMAL(9,2)) AS d FROM changes")  # noqa: F841
    con.execute(
        "MERGE INTO db.t t USING source s ON t.id = s.id"
        " WHEN MATCHED THEN UPDATE SET name = s.name WHEN NOT MATCHED THEN INSERT *"
    )
    assert con.execute(
        "SELECT id, name FROM db.t WHERE id IN (0, 1, 100) ORDER BY id"
    ).fetchall() == [(0, "n0"), (1, "ONE"), (100, "hundred")]
    extra = pa.table({"id": [7]})  # noqa: F841
    con.execute(
        "CREATE TABLE db.u USING iceberg AS SELECT id FROM source UNION ALL SELECT id FROM extra"
    )
    assert con.execute("SELECT id FROM db.u ORDER BY id").fetchall() == [(1,), (7,), (100,)]


def test_other_statements_run_at_once(con):
    assert con.sql("INSERT INTO db.t VALUES (100, 'x', 1)") is None
    assert con.execute("SELECT count(*) FROM db.t").fetchone() == (51,)
    tables = con.sql("SHOW TABLES IN db")
    assert tables.columns == ["namespace", "tableName", "isTemporary"]
    con.execute("CREATE TABLE db.u (x INT) USING iceberg")
    assert tables.fetchall() == [("db", "t", False)]  # rows of the statement run before
    with pytest.raises(icesql.ProgrammingError, match="PARSE_SYNTAX_ERROR"):
        con.sql("SELEC 1")  # reported when made, not when first read
    with pytest.raises(
        icesql.ProgrammingError,
        match=r"^\[TABLE_OR_VIEW_NOT_FOUND\] The table or view `nope` cannot",
    ):
        con.sql("SELECT * FROM nope").fetchall()


def test_repr_has_names_types_and_row_count(con):
    text = repr(con.sql("SELECT id, name, d FROM db.t WHERE id < 2 ORDER BY id"))
    assert text.splitlines() == [
        "+--------+--------+--------------+",
        "| id     | name   | d            |",
        "| BIGINT | STRING | DECIMAL(9,2) |",
        "+--------+--------+--------------+",
        "|      0 | n0     |         0.00 |",
        "|      1 | n1     |         0.25 |",
        "+--------+--------+--------------+",
        "2 rows x 3 columns",
    ]
    rel = con.sql("SELECT id FROM db.t ORDER BY id")
    lines = repr(rel).splitlines()
    assert lines[-1] == f"50 rows (first {DISPLAY_ROWS} shown) x 1 column"
    assert lines[-3] == "| ...    |" and lines[-4] == f"| {DISPLAY_ROWS - 1:>6} |"
    assert rel.types == ["BIGINT"] and rel.columns == ["id"]
    lines = repr(con.sql("SELECT 'a\nb' AS x, 'tab\there' AS `y\nz`")).splitlines()
    assert lines[1:5] == [  # line breaks and tabs shown, so the columns stay aligned
        "| x      | y\\nz      |",
        "| STRING | STRING    |",
        "+--------+-----------+",
        "| a\\nb   | tab\\there |",
    ]
    bound = con.sql("SELECT id FROM db.t WHERE id >= ? ORDER BY id", (10,))  # counted with it
    assert repr(bound).splitlines()[-1] == f"40 rows (first {DISPLAY_ROWS} shown) x 1 column"


def test_show_prints_the_rows_asked_for(con, capsys):
    con.sql("SELECT id FROM db.t ORDER BY id").show(max_rows=3)
    out = capsys.readouterr().out.splitlines()
    assert out[4:7] == ["|      0 |", "|      1 |", "|      2 |"]
    assert out[-1] == "50 rows (first 3 shown) x 1 column"


def test_html_has_names_types_count_and_escapes(con):
    con.execute("INSERT INTO db.t VALUES (-1, '<b>&', NULL)")
    page = con.sql("SELECT id, name, d FROM db.t ORDER BY id")._repr_html_()
    assert page.startswith('<table class="icesql-relation"><thead><tr><th>id<br>')
    for name, kind in (("id", "BIGINT"), ("name", "STRING"), ("d", "DECIMAL(9,2)")):
        assert (
            f'<th>{name}<br><span style="font-weight:normal;opacity:0.7">{kind}</span></th>' in page
        )
    assert "<td>&lt;b&gt;&amp;</td>" in page and "<td>NULL</td>" in page
    assert page.count("<tr>") == 1 + DISPLAY_ROWS + 1  # header, shown rows, the ellipsis row
    assert page.endswith(f"<p>51 rows (first {DISPLAY_ROWS} shown) x 3 columns</p>")


def test_display_of_a_large_result_fetches_only_what_it_shows(con):
    stream, pulled = pulled_stream(1000, 1000)
    rel = con.sql("SELECT id FROM stream")
    text = repr(rel)
    assert len(pulled) < 500  # DuckDB reads a little ahead, but never the whole stream
    # the stream cannot be read again to count it: the display says so rather than guess
    assert (
        text.splitlines()[-1]
        == f"more than {DISPLAY_ROWS} rows (first {DISPLAY_ROWS} shown), 1 column"
    )
    huge = con.sql("SELECT id FROM range(100000000) r(id)")  # counted by a count(*) run
    assert (
        repr(huge).splitlines()[-1] == f"100,000,000 rows (first {DISPLAY_ROWS} shown) x 1 column"
    )


def test_ipython_display_runs_the_query_once(con, monkeypatch):
    formatters = pytest.importorskip("IPython.core.formatters")
    runs = []
    original = Relation._cursor

    def counted(self, query=None):
        runs.append(query)
        return original(self, query)

    monkeypatch.setattr(Relation, "_cursor", counted)
    rel = con.sql("SELECT id, name FROM db.t WHERE id < 3 ORDER BY id")
    assert runs == []
    shown, _ = formatters.DisplayFormatter().format(rel)
    assert "<th>name<br>" in shown["text/html"] and "3 rows x 2 columns" in shown["text/html"]
    assert "| BIGINT | STRING |" in shown["text/plain"]
    assert runs == [None]  # both formats from one run (3 rows: no count needed)


def test_missing_pandas_or_polars_names_the_extra(con, monkeypatch):
    rel = con.sql("SELECT 1 AS x")
    monkeypatch.setitem(sys.modules, "pandas", None)
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(ImportError, match=r"Relation.df\(\) needs pandas.*icesql\[pandas\]"):
        rel.df()
    with pytest.raises(ImportError, match=r"Relation.pl\(\) needs polars.*icesql\[polars\]"):
        rel.pl()
    assert rel.fetchall() == [(1,)]


def test_a_relation_run_reports_progress_like_any_statement(con):
    """Relations run through the connection, so its progress listeners (the shell's bar, a
    notebook's) follow them: files planned and read, and a last report."""
    seen = []
    stop = con.add_progress_listener(seen.append)
    rel = con.sql("SELECT count(*) FROM db.t")
    assert seen == []  # nothing runs until it is read
    assert rel.fetchall() == [(50,)]
    stop()
    assert seen and seen[-1].finished
    assert seen[-1].files_planned >= 1 and seen[-1].files_done == seen[-1].files_planned
