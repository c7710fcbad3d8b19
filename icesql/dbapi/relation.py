"""``Connection.sql(query)``: a query as a lazy relation, for notebooks and scripts.

A relation is a query, not a result: nothing runs when it is made, and each way of reading
it (``df()``, ``pl()``, ``arrow()``, the Arrow stream, ``show()``) runs the query again, as
DuckDB's relations do, so a relation made before an INSERT shows the rows after it.
``fetchone``/``fetchmany``/``fetchall`` share one run that they read on from. Displaying it
(``repr``, Jupyter's ``_repr_html_``, ``show()``) fetches only the rows it shows plus one, and
takes the row count from ``SELECT count(*)`` over the query rather than from fetching
everything; the shown preview is kept, so a notebook's several formats run the query once.

Python objects a query names (DataFrames, Arrow data) are looked up in the namespaces of the
code that called ``sql()`` (kept by the relation), not of the code that reads it later, e.g.
a notebook's display machinery.
Statements that are not queries (DDL, DML, SHOW, CALL...) run at once, as in DuckDB: one
that returns rows gives a relation over those rows, fetched whole (they are small: a
listing, a plan, a procedure's output), others give None.
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from icesql._lazy import lazy_module
from icesql.dbapi_frames import to_pandas, to_polars
from icesql.errors import Error
from icesql.session import Result
from icesql.sql.dialect import DIALECT, parse
from icesql.sql.python_sources import PythonScope
from icesql.text_table import RULE, cell_text, is_numeric, text_table

if TYPE_CHECKING:
    import pyarrow as pa

    from icesql.dbapi import Connection, Cursor
else:  # pyarrow loads on first use (icesql._lazy)
    pa = lazy_module("pyarrow")

__all__ = ["DISPLAY_ROWS", "Relation", "sql"]

DISPLAY_ROWS = 20  # rows a relation's repr / _repr_html_ / show() prints by default


def sql(
    connection: Connection, query: str, params: Sequence[Any] | None, python: PythonScope
) -> Relation | None:
    """A lazy relation for a query; any other statement runs now (module docstring)."""
    statements = parse(query)  # a syntax error is reported here, not on first use
    if len(statements) == 1 and isinstance(statements[0], exp.Query):
        return Relation(connection, query, params, python, statement=statements[0])
    cursor = connection.cursor()._execute(query, params, python)
    if cursor.description is None:
        cursor.close()
        return None
    with cursor:
        return Relation(connection, query, params, python, rows=cursor.fetch_arrow_table())


@dataclass(frozen=True)
class _Preview:
    """What a display shows: the columns, their Spark types, the first rows, the row count
    (None when it could not be counted, e.g. a Python stream already read)."""

    columns: list[str]
    types: list[str]
    rows: list[tuple]
    count: int | None

    @property
    def truncated(self) -> bool:
        return self.count is None or self.count > len(self.rows)

    def footer(self) -> str:
        cols = f"{len(self.columns)} column{'s' if len(self.columns) != 1 else ''}"
        if self.count is None:
            return f"more than {len(self.rows)} rows (first {len(self.rows)} shown), {cols}"
        rows = f"{self.count:,} row{'s' if self.count != 1 else ''}"
        shown = f" (first {len(self.rows)} shown)" if self.truncated else ""
        return f"{rows}{shown} x {cols}"


class Relation:
    """A query that runs when it is read (module docstring). Made by ``Connection.sql``.

    Each way of reading it runs the query again, so it shows the table as it is then; the
    fetch methods share one run.

    >>> import tempfile
    >>> import icesql
    >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
    ...     _ = con.execute("CREATE TABLE db.t (id bigint) USING iceberg")
    ...     rel = con.sql("SELECT count(*) AS n FROM db.t")
    ...     rel.fetchall()
    ...     _ = con.execute("INSERT INTO db.t VALUES (1), (2)")
    ...     rel.fetchall()
    [(0,)]
    [(2,)]
    """

    def __init__(
        self,
        connection: Connection,
        query: str,
        params: Sequence[Any] | None,
        python: PythonScope,
        statement: exp.Expr | None = None,
        rows: pa.Table | None = None,
    ):
        self._connection = connection
        self._query = query
        self._params = list(params) if params is not None else None
        self._python = python
        self._statement = statement
        self._rows = rows  # the rows of a statement already run (not a query)
        self._fetching: Cursor | None = None  # the run fetchone/fetchmany/fetchall read on
        self._preview: _Preview | None = None

    @property
    def query(self) -> str:
        """The SQL text the relation runs, as given to ``Connection.sql``.

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     con.sql("SELECT 1 AS one").query
        'SELECT 1 AS one'
        """
        return self._query

    # -- running ---------------------------------------------------------------------------
    def _cursor(self, query: str | None = None) -> Cursor:
        """A cursor on a new run of the query (or ``query``, e.g. its count). Every run of a
        relation goes through here, and through the connection's engine, so the connection's
        progress listeners (``add_progress_listener``) follow it like any statement."""
        cursor = self._connection.cursor()
        if self._rows is not None and query is None:
            return cursor._load(Result(reader=self._rows.to_reader()))
        return cursor._execute(query or self._query, self._params, self._python)

    def _count(self) -> int | None:
        """The number of rows, by ``SELECT count(*)`` over the query; None when that run
        fails (a Python stream the query reads can be read only once)."""
        if self._rows is not None:
            return self._rows.num_rows
        assert isinstance(self._statement, exp.Query)  # only a query is counted
        counting = exp.select(exp.Count(this=exp.Star())).from_(
            self._statement.copy().subquery("icesql_relation")
        )
        try:
            with self._cursor(counting.sql(dialect=DIALECT)) as cursor:
                row = cursor.fetchone()
        except Error:
            return None
        return int(row[0]) if row else None

    # -- results -----------------------------------------------------------------------------
    def arrow(self) -> pa.Table:
        """All rows as one ``pyarrow.Table``, Iceberg's types kept as Arrow's;
        ``fetch_arrow_table`` is the same, under the cursor's name for it.

        Returns:
            Every row of a new run of the query (the fetch methods' run is left as it is).

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     table = con.sql("SELECT id, 'n' || id AS name FROM range(3) t(id)").arrow()
        ...     table.num_rows, table.schema.names
        (3, ['id', 'name'])
        """
        with self._cursor() as cursor:
            return cursor.fetch_arrow_table()

    fetch_arrow_table = arrow

    def df(self) -> Any:
        """All rows as a pandas DataFrame (the extra ``icesql[pandas]``).

        Columns get Arrow-backed dtypes, so every column keeps its type: integers with NULLs
        stay integers, decimals stay exact (``icesql.dbapi_frames``).

        Returns:
            A ``pandas.DataFrame`` of every row of a new run of the query.

        Raises:
            ImportError: pandas is not installed, naming the extra that installs it.

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     con.sql("SELECT 1 AS n UNION ALL SELECT NULL").df()["n"].tolist()
        [1, <NA>]
        """
        return to_pandas(self.arrow(), "Relation.df()")

    def fetchdf(self) -> Any:
        """The same as ``df()``, under DuckDB's other name for it.

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     con.sql("SELECT 'a' AS s").fetchdf().shape
        (1, 1)
        """
        return to_pandas(self.arrow(), "Relation.fetchdf()")

    def pl(self) -> Any:
        """All rows as a polars DataFrame (the extra ``icesql[polars]``).

        Returns:
            A ``polars.DataFrame`` of every row of a new run of the query.

        Raises:
            ImportError: polars is not installed, naming the extra that installs it.

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     con.sql("SELECT 1 AS n").pl().to_dicts()
        [{'n': 1}]
        """
        return to_polars(self.arrow(), "Relation.pl()")

    def fetch_record_batch(self, rows_per_batch: int | None = None) -> pa.RecordBatchReader:
        """All rows as a streamed ``pyarrow.RecordBatchReader`` of a new run of the query.

        Args:
            rows_per_batch: batches of exactly that many rows but the last (DuckDB's rule);
                by default the batches as the scan produces them.

        Returns:
            A reader that reads the rows as it is read, so a large result never sits in
            memory at once; the run stays open until the reader is read to the end.

        Raises:
            ProgrammingError: ``rows_per_batch`` is below 1.

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     reader = con.sql("SELECT * FROM range(5) t(id)").fetch_record_batch(2)
        ...     [batch.num_rows for batch in reader]
        [2, 2, 1]
        """
        cursor = self._cursor()
        reader = cursor.fetch_record_batch(rows_per_batch)

        def batches() -> Iterator[pa.RecordBatch]:
            with cursor:
                yield from reader

        return pa.RecordBatchReader.from_batches(reader.schema, batches())

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The Arrow PyCapsule stream of a new run, so ``pa.table(rel)``, ``pl.DataFrame(rel)``
        and DuckDB read the rows without a copy.

        Args:
            requested_schema: the schema the reader asks for (Arrow's PyCapsule protocol).

        Returns:
            A PyCapsule holding an ``ArrowArrayStream``.

        >>> import tempfile
        >>> import icesql
        >>> import pyarrow as pa
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     pa.table(con.sql("SELECT * FROM range(4) t(id)")).num_rows
        4
        """
        return self.fetch_record_batch().__arrow_c_stream__(requested_schema)

    def fetchone(self) -> tuple | None:
        """The next row of the run the fetch methods share (started on the first call).

        Returns:
            The row as a tuple, None when there are no more.

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     rel = con.sql("SELECT * FROM range(2) t(id)")
        ...     rel.fetchone(), rel.fetchone(), rel.fetchone()
        ((0,), (1,), None)
        """
        return self._fetch_cursor().fetchone()

    def fetchmany(self, size: int = 1) -> list[tuple]:
        """The next rows of the run the fetch methods share (started on the first call).

        Args:
            size: how many rows at most; fewer once the rows run out.

        Returns:
            The rows as a list of tuples, empty when there are no more.

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     rel = con.sql("SELECT * FROM range(5) t(id)")
        ...     rel.fetchmany(2), rel.fetchmany(4)
        ([(0,), (1,)], [(2,), (3,), (4,)])
        """
        return self._fetch_cursor().fetchmany(size)

    def fetchall(self) -> list[tuple]:
        """The remaining rows of the shared run (all of them on a fresh relation); the next
        fetch starts a new run.

        Returns:
            The rows as a list of tuples.

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     rel = con.sql("SELECT * FROM range(3) t(id)")
        ...     rel.fetchone()
        ...     rel.fetchall()
        ...     rel.fetchall()
        (0,)
        [(1,), (2,)]
        [(0,), (1,), (2,)]
        """
        rows = self._fetch_cursor().fetchall()
        self._fetching = None  # read to the end: the next fetch starts a new run
        return rows

    def _fetch_cursor(self) -> Cursor:
        if self._fetching is None:
            self._fetching = self._cursor()
        return self._fetching

    # -- what it looks like --------------------------------------------------------------------
    @property
    def columns(self) -> list[str]:
        """The names of the columns the query returns (from the display's preview run).

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     con.sql("SELECT 1 AS id, 'a' AS name").columns
        ['id', 'name']
        """
        return self._shown().columns

    @property
    def types(self) -> list[str]:
        """The columns' Spark SQL types (``BIGINT``, ``DECIMAL(10,2)``, ...), in the order of
        ``columns``.

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     con.sql("SELECT CAST(1.5 AS DECIMAL(10, 2)) AS price, 'a' AS name").types
        ['DECIMAL(10,2)', 'STRING']
        """
        return self._shown().types

    def show(self, max_rows: int = DISPLAY_ROWS) -> None:
        """Print the first rows as a text table with the column types and the row count.

        Args:
            max_rows: how many rows to print at most; a ``...`` row stands for the others.

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     con.sql("SELECT id, 'n' || id AS name FROM range(3) t(id)").show(max_rows=2)
        +--------+--------+
        | id     | name   |
        | BIGINT | STRING |
        +--------+--------+
        |      0 | n0     |
        |      1 | n1     |
        | ...    | ...    |
        +--------+--------+
        3 rows (first 2 shown) x 2 columns
        """
        print(_text(self._shown(max_rows)))

    def __repr__(self) -> str:
        """The text table ``show()`` prints, of the first ``DISPLAY_ROWS`` rows (the REPL's
        display of a relation)."""
        return _text(self._shown())

    def _repr_html_(self) -> str:
        """Jupyter's rendering: an HTML table of the first ``DISPLAY_ROWS`` rows with the
        column types and the row count.

        >>> import tempfile
        >>> import icesql
        >>> with tempfile.TemporaryDirectory() as warehouse, icesql.connect(warehouse) as con:
        ...     con.sql("SELECT 1 AS n")._repr_html_()
        '<table class="icesql-relation"><thead><tr><th>n<br>...</table><p>1 row x 1 column</p>'
        """
        return _html(self._shown())

    def _shown(self, max_rows: int = DISPLAY_ROWS) -> _Preview:
        """The first ``max_rows`` rows and the count; kept for the default size, so the
        several formats a notebook asks for run the query once."""
        if max_rows == DISPLAY_ROWS and self._preview is not None:
            return self._preview
        with self._cursor() as cursor:
            rows = cursor.fetchmany(max_rows + 1)
            description = cursor.description or []
        count = len(rows) if len(rows) <= max_rows else self._count()
        preview = _Preview(
            [d[0] for d in description], [str(d[1]) for d in description], rows[:max_rows], count
        )
        if max_rows == DISPLAY_ROWS:
            self._preview = preview
        return preview


def _text(p: _Preview) -> str:
    """The preview as a text table: names, types, a rule, the rows, the footer."""
    cells = [[_one_line(cell_text(v)) for v in row] for row in p.rows]
    numeric = [any(is_numeric(r[i]) for r in p.rows) for i in range(len(p.columns))]
    names = [_one_line(c) for c in p.columns]
    dots: list[Sequence[str] | None] = [["..." for _ in names]] if p.truncated else []
    lines = [RULE, names, p.types, RULE, *cells, *dots, RULE]
    table = text_table(lines, numeric, left={1, 2, len(lines) - 2} if dots else {1, 2})
    return f"{table}\n{p.footer()}"


def _one_line(text: str) -> str:
    """A cell kept on its line, so the columns stay aligned."""
    return text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def _html(p: _Preview) -> str:
    e = html.escape
    head = "".join(
        f'<th>{e(c)}<br><span style="font-weight:normal;opacity:0.7">{e(t)}</span></th>'
        for c, t in zip(p.columns, p.types)
    )
    body = []
    for row in p.rows:
        tds = "".join(
            f'<td style="text-align:right">{e(cell_text(v))}</td>'
            if is_numeric(v)
            else f"<td>{e(cell_text(v))}</td>"
            for v in row
        )
        body.append(f"<tr>{tds}</tr>")
    if p.truncated:
        body.append("<tr>" + "<td>&hellip;</td>" * len(p.columns) + "</tr>")
    return (
        '<table class="icesql-relation">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        f"<p>{e(p.footer())}</p>"
    )
