"""PEP 249 Connection and Cursor: a thin layer over the engine.

Every statement commits as it completes (Iceberg commits are atomic per statement), so a
connection never holds uncommitted work: ``commit()`` and ``rollback()`` have nothing to do.
Results stay Arrow streams until fetched, so ``fetchone()`` on a huge table reads little; a
query of no table is fetched by DuckDB itself (``icesql.engine.tuple_rows``: ``SELECT 1`` loads no
pyarrow).

The package is the connection's front: ``relation`` holds ``Connection.sql()``'s lazy
relations, which run on this module's cursors, so the two live in one unit.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from icesql._lazy import lazy_module
from icesql.catalog.base import Catalog
from icesql.catalog.config import (
    CatalogConfig,
    pyiceberg_catalogs,
    read_spark_defaults,
    spark_catalogs,
)
from icesql.catalog.loader import load_catalogs
from icesql.dbapi import relation
from icesql.dbapi_frames import to_pandas, to_polars
from icesql.dbapi_rows import to_rows
from icesql.dbapi_types import type_code
from icesql.engine import Engine
from icesql.engine.spark import SparkBackend, require_pyspark
from icesql.errors import InterfaceError, ProgrammingError
from icesql.notebook_progress import NotebookProgress, in_kernel
from icesql.progress import ProgressCallback
from icesql.session import Result
from icesql.session.settings import ENGINE, ENGINES, spark_conf_defaults
from icesql.sql.identifiers import catalog_named
from icesql.sql.python_sources import PythonScope, caller_scope
from icesql.sql.translate import duckdb_errors

if TYPE_CHECKING:
    import pyarrow as pa

    from icesql.health import TableHealth
else:  # pyarrow loads on first use (icesql._lazy)
    pa = lazy_module("pyarrow")


class Connection:
    """A DB-API connection to Iceberg catalogs: ``catalog`` the default one (unqualified names
    use it), ``catalogs`` all of them by name (``prod.db.t`` names table ``db.t`` of ``prod``).

    Made by :func:`connect`. Every statement commits as it completes, so ``commit`` and
    ``rollback`` have nothing to do; ``close`` (or leaving a ``with`` block) releases the
    DuckDB database and the catalogs' connections.
    """

    def __init__(self, catalog: Catalog, others: Sequence[Catalog] = ()):
        self._engine: Engine | None = Engine(catalog, others=others)
        self.catalog = catalog
        self.catalogs: dict[str, Catalog] = dict(self._engine.catalogs)

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            raise InterfaceError("connection is closed")
        return self._engine

    def cursor(self) -> Cursor:
        """A new :class:`Cursor`; cursors of one connection share its catalogs and settings."""
        return Cursor(self)

    def execute(self, sql: str, parameters: Sequence[Any] | None = None) -> Cursor:
        """Run one statement on a new cursor: ``cursor().execute(sql, parameters)``.

        Args:
            sql: one Spark SQL statement, with ``?`` for each parameter.
            parameters: the values of the ``?`` markers, in order.

        Returns:
            The new cursor, so that ``con.execute(...).fetchall()`` chains.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     con.execute("SELECT ? * 2", [21]).fetchall()
        [(42,)]
        """
        return self.cursor().execute(sql, parameters)

    def sql(self, query: str, params: Sequence[Any] | None = None) -> relation.Relation | None:
        """``query`` as a lazy relation (``icesql.dbapi.relation``).

        A query runs when read (``df()``, ``pl()``, ``arrow()``, ``fetchall()``, ``show()``,
        or shown in a notebook as an HTML table with the column types and row count), so a
        relation can be built on and only the final query runs. Statements that are not
        queries run at once, as ``execute`` would run them.

        Args:
            query: one Spark SQL statement, with ``?`` for each parameter.
            params: the values of the ``?`` markers, in order.

        Returns:
            A :class:`~icesql.dbapi.relation.Relation` over the query or the rows a statement
            returned; None for a statement that returns no rows.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     rel = con.sql("SELECT id, id * 2 AS twice FROM range(3) t(id)")
        ...     rel.fetchall()
        ...     rel.types
        [(0, 0), (1, 2), (2, 4)]
        ['BIGINT', 'BIGINT']
        """
        return relation.sql(self, query, params, caller_scope(self.engine.registered))

    def register(self, name: str, obj: Any) -> None:
        """Name a Python object holding rows so that SQL reads it as table ``name``.

        Unregistered objects are found too, as variables of the caller; registering names
        one for code that runs elsewhere (another function, a thread). An Iceberg table of
        the same name always wins, so a Python variable never hides a table.

        Args:
            name: the table name SQL uses.
            obj: a pandas or polars DataFrame, a polars LazyFrame, a pyarrow Table / Dataset
                / RecordBatchReader, or anything with ``__arrow_c_stream__``.

        >>> import tempfile
        >>> import pyarrow as pa
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     con.register("people", pa.table({"name": ["ada", "bob"]}))
        ...     con.execute("SELECT count(*) FROM people").fetchall()
        [(2,)]
        """
        self.engine.register(name, obj)

    def unregister(self, name: str) -> None:
        """Forget a name given to ``register``.

        Args:
            name: the registered name; one never registered is ignored, so cleanup code
                need not know what was registered.

        >>> import tempfile
        >>> import pyarrow as pa
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     con.register("people", pa.table({"name": ["ada"]}))
        ...     con.unregister("people")
        ...     con.execute("SELECT * FROM people")
        Traceback (most recent call last):
        ...
        icesql.errors.NoSuchTableError: [TABLE_OR_VIEW_NOT_FOUND] The table or view `people` cannot be found...
        """
        self.engine.unregister(name)

    def add_progress_listener(self, callback: ProgressCallback) -> Callable[[], None]:
        """Call ``callback`` as each statement of this connection progresses.

        Nobody listening costs nothing: statements only count what they do while a listener
        is there (a notebook adds one by itself, ``icesql.notebook_progress``).

        Args:
            callback: called with an ``icesql.progress.Progress`` (files and bytes planned
                and read, rows and files written) at each step.

        Returns:
            A function of no arguments that removes the listener.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     seen = []
        ...     stop = con.add_progress_listener(seen.append)
        ...     con.execute("SELECT 1").fetchall()
        ...     seen[-1].finished
        ...     stop()
        [(1,)]
        True
        """
        return self.engine.progress.add_listener(callback)

    def health(self, table: str, orphans: bool = False) -> TableHealth:
        """The health report of ``table``: file sizes, deletes, partitions, manifests and
        snapshots, computed from its manifests (never its data files), with advice: each
        problem's evidence, the ``CALL`` that fixes it and a dry run of that call.

        The report prints as text, shows its charts in a notebook (inline SVG) and gives
        ``to_dict()`` for programs (``icesql.health``). ``orphans`` also lists the table's
        storage for files no snapshot reaches.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     _ = con.execute("CREATE TABLE db.t (id INT) USING iceberg")
        ...     con.health("db.t").to_dict()["summary"]["data_files"]
        0
        """
        from icesql.health import table_health  # the planners load with the first report

        return table_health(self.engine, table, orphans)

    def commit(self) -> None:
        """Nothing to do: each statement has committed on its own when it returned."""
        self.engine  # noqa: B018 - raises on a closed connection

    def rollback(self) -> None:
        """Nothing to undo: there is never uncommitted work (see commit)."""
        self.engine  # noqa: B018

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
            for catalog in self.catalogs.values():
                catalog.close()
            self._engine = None

    @property
    def closed(self) -> bool:
        return self._engine is None

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Cursor:
    """A DB-API cursor: runs statements and fetches their rows.

    ``execute`` returns the cursor so calls chain. Rows stay an Arrow stream until fetched, so
    ``fetchone`` over a large table reads little; the ``fetch_*`` and frame methods each take
    the rows not fetched yet, and read them once.
    """

    def __init__(self, connection: Connection):
        self.connection = connection
        self.arraysize = 1
        self._result: Result | None = None
        self._batch: pa.RecordBatch | None = None
        self._rows: list[tuple] = []  # converted rows of ``_batch``, ``_pos`` the next
        self._pos = 0
        self._converted = 0  # rows of ``_batch`` converted so far
        self._closed = False
        self._converter: Any = None  # a DuckDB cursor that turns batches into tuples (_fill)
        self._description: list[tuple] | None = None
        self._rowcount = -1

    # -- PEP 249 attributes ----------------------------------------------------------------
    @property
    def description(self) -> list[tuple] | None:
        """PEP 249's seven items per column of the last statement's rows, None without rows.

        Each is ``(name, type_code, None, None, precision, scale, null_ok)``: precision and
        scale are set for decimals only; type codes compare equal to ``icesql.NUMBER``,
        ``icesql.STRING``... as PEP 249 asks.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     con.execute("SELECT CAST(1.5 AS DECIMAL(5, 2)) AS price, 'a' AS s").description
        [('price', 'DECIMAL(5,2)', None, None, 5, 2, True), ('s', 'STRING', None, None, None, None, True)]
        """
        return self._description

    @property
    def rowcount(self) -> int:
        """Rows the last statement inserted, updated, deleted or merged; -1 for a query (PEP
        249 allows it: counting would read every row before the first is fetched).

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     _ = con.execute("CREATE TABLE db.t (id bigint) USING iceberg")
        ...     con.execute("INSERT INTO db.t VALUES (1), (2), (3)").rowcount
        ...     con.execute("DELETE FROM db.t WHERE id > 1").rowcount
        3
        2
        """
        return self._rowcount

    @property
    def engine(self) -> str | None:
        """Which engine ran the last statement: ``local`` or ``spark`` (None before any)."""
        return self._result.engine if self._result is not None else None

    # -- execution -------------------------------------------------------------------------
    def execute(self, operation: str, parameters: Sequence[Any] | None = None) -> Cursor:
        """Run one statement; a data change has committed when this returns.

        Args:
            operation: one Spark SQL statement, with ``?`` for each parameter (``qmark``).
            parameters: the values of the ``?`` markers, in order.

        Returns:
            This cursor, its rows ready to fetch.

        Raises:
            ProgrammingError: the statement is invalid, names no table there is, or the
                parameters are a dict or a string (``qmark`` takes a sequence).
            CommitConflictError: another writer committed a conflicting change first.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     cur = con.cursor()
        ...     cur.execute("SELECT ? AS greeting", ["hello"]).fetchone()
        ('hello',)
        """
        self._check_open()
        return self._execute(operation, parameters, caller_scope(self.connection.engine.registered))

    def _execute(
        self, operation: str, parameters: Sequence[Any] | None, python: PythonScope
    ) -> Cursor:
        """``execute`` with names that are no Iceberg table looked up in ``python``."""
        self._check_open()
        self._reset()
        params = _check_params(parameters)
        return self._load(self.connection.engine.execute(operation, params, python))

    def _load(self, result: Result) -> Cursor:
        """Make ``result`` the cursor's current result (what ``execute`` produced)."""
        self._result = result
        self._rowcount = result.rowcount
        if result.duck_rows is not None:  # fetched by DuckDB as tuples (icesql.engine.tuple_rows)
            self._description = list(result.duck_rows.description)
        elif result.reader is not None:
            self._description = [
                (f.name, type_code(f.type), None, None, *_precision_scale(f.type), f.nullable)
                for f in result.reader.schema
            ]
        return self

    def executemany(self, operation: str, seq_of_parameters: Sequence[Sequence[Any]]) -> Cursor:
        """Run one statement once per parameter sequence, each run its own commit.

        Args:
            operation: one Spark SQL statement with ``?`` markers.
            seq_of_parameters: the values of the markers, one sequence per run.

        Returns:
            This cursor; ``rowcount`` is the sum of the runs' counts.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     _ = con.execute("CREATE TABLE db.t (id bigint) USING iceberg")
        ...     con.cursor().executemany("INSERT INTO db.t VALUES (?)", [[1], [2]]).rowcount
        2
        """
        self._check_open()
        total = 0
        any_count = False
        for parameters in seq_of_parameters:
            self.execute(operation, parameters)
            if self._rowcount >= 0:
                total += self._rowcount
                any_count = True
        self._rowcount = total if any_count else -1
        return self

    # -- fetching ------------------------------------------------------------------------
    def fetchone(self) -> tuple | None:
        """The next row as a tuple, None when there are no more.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     cur = con.execute("SELECT * FROM range(2) t(id)")
        ...     cur.fetchone(), cur.fetchone(), cur.fetchone()
        ((0,), (1,), None)
        """
        rows = self._take(1)
        return rows[0] if rows else None

    def fetchmany(self, size: int | None = None) -> list[tuple]:
        """The next rows, up to ``size`` of them (``arraysize`` by default, 1).

        Args:
            size: how many rows at most; fewer once the rows run out.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     cur = con.execute("SELECT * FROM range(5) t(id)")
        ...     cur.fetchmany(2), cur.fetchmany(4)
        ([(0,), (1,)], [(2,), (3,), (4,)])
        """
        return self._take(self.arraysize if size is None else size)

    def fetchall(self) -> list[tuple]:
        """Every remaining row as a list of tuples.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     con.execute("SELECT 'a' AS s, 1 AS n UNION ALL SELECT 'b', 2").fetchall()
        [('a', 1), ('b', 2)]
        """
        return self._take(None)

    def fetch_arrow_table(self) -> pa.Table:
        """The remaining rows as one ``pyarrow.Table``, Iceberg's types kept as Arrow's.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     con.execute("SELECT * FROM range(3) t(id)").fetch_arrow_table().num_rows
        3
        """
        reader = self.fetch_record_batch()
        with duckdb_errors(self._scans()):
            return reader.read_all()

    def arrow(self) -> pa.Table:
        """The remaining rows as one ``pyarrow.Table`` (DuckDB's name for ``fetch_arrow_table``)."""
        return self.fetch_arrow_table()

    def df(self) -> Any:
        """The remaining rows as a pandas DataFrame (the extra ``icesql[pandas]``).

        Columns get Arrow-backed dtypes, so every column keeps its type: integers with NULLs
        stay integers, decimals stay exact (``icesql.dbapi_frames``).

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     con.execute("SELECT 1 AS n UNION ALL SELECT NULL").df()["n"].tolist()
        [1, <NA>]
        """
        return to_pandas(self.fetch_arrow_table())

    def fetchdf(self) -> Any:
        """The same as ``df()``, under DuckDB's other name for it."""
        return to_pandas(self.fetch_arrow_table(), "Cursor.fetchdf()")

    def pl(self) -> Any:
        """The remaining rows as a polars DataFrame (the extra ``icesql[polars]``).

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     con.execute("SELECT 1 AS n").pl().to_dicts()
        [{'n': 1}]
        """
        return to_polars(self.fetch_arrow_table())

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The Arrow PyCapsule stream of the remaining rows, so that
        ``pa.RecordBatchReader.from_stream(cur)``, ``pl.DataFrame(cur)`` or DuckDB read them
        without a copy. Like ``fetch_record_batch`` the rows are streamed, and read once."""
        return self.fetch_record_batch().__arrow_c_stream__(requested_schema)

    def fetch_record_batch(self, rows_per_batch: int | None = None) -> pa.RecordBatchReader:
        """The remaining rows as a streamed ``pyarrow.RecordBatchReader``, read once.

        Args:
            rows_per_batch: batches of exactly that many rows but the last (DuckDB's rule);
                by default the batches as the scan produces them.

        Returns:
            A reader that reads the rows as it is read, so a large result never sits in
            memory at once.

        Raises:
            ProgrammingError: ``rows_per_batch`` is below 1.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
        ...     reader = con.execute("SELECT * FROM range(5) t(id)").fetch_record_batch(2)
        ...     [batch.num_rows for batch in reader]
        [2, 2, 1]
        """
        if rows_per_batch is not None and rows_per_batch < 1:
            raise ProgrammingError(f"rows_per_batch must be at least 1, got {rows_per_batch}")
        reader = self._reader()
        pending = self._pending_batch()
        scans = self._scans()

        def batches() -> Iterator[pa.RecordBatch]:
            if pending is not None and pending.num_rows:
                yield pending
            while True:
                with duckdb_errors(scans):
                    try:
                        batch = reader.read_next_batch()
                    except StopIteration:
                        return
                yield batch

        stream = batches() if rows_per_batch is None else _rebatch(batches(), rows_per_batch)
        return pa.RecordBatchReader.from_batches(reader.schema, stream)

    def __iter__(self) -> Iterator[tuple]:
        """The remaining rows, one at a time; converted a batch at a time, as ``fetchmany``
        does, and handed out from it, so stopping early leaves the rest to fetch."""
        if self._result is not None and self._result.duck_rows is not None:
            while (row := self.fetchone()) is not None:  # DuckDB fetches it: no conversion
                yield row
            return
        while True:
            if self._pos >= len(self._rows) and not self._fill(None):
                return
            row = self._rows[self._pos]
            self._pos += 1
            yield row

    # -- the rest of PEP 249 ---------------------------------------------------------------
    def setinputsizes(self, sizes: object) -> None:
        pass

    def setoutputsize(self, size: object, column: object = None) -> None:
        pass

    def close(self) -> None:
        self._reset()
        self._closed = True
        if self._converter is not None:
            self._converter.close()
            self._converter = None

    def __enter__(self) -> Cursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise InterfaceError("cursor is closed")
        self.connection.engine  # noqa: B018 - raises on a closed connection

    def _reset(self) -> None:
        if self._result is not None:
            self._result.close()
        self._result = None
        self._batch = None
        self._rows = []
        self._pos = 0
        self._converted = 0
        self._description = None
        self._rowcount = -1

    def _reader(self) -> pa.RecordBatchReader:
        self._check_open()
        if self._result is None:
            raise InterfaceError("no statement executed yet")
        if self._result.reader is None:
            raise InterfaceError("the last statement returned no rows to fetch")
        return self._result.reader

    def _scans(self) -> list:
        return self._result.scans if self._result is not None else []

    def _pending_batch(self) -> pa.RecordBatch | None:
        """The unfetched rest of the batch that fetchone/fetchmany started on."""
        if self._batch is None:
            return None
        rest = self._batch.slice(self._converted - (len(self._rows) - self._pos))
        self._batch, self._rows, self._pos, self._converted = None, [], 0, 0
        return rest

    def _take(self, n: int | None) -> list[tuple]:
        """Up to ``n`` rows (all with None). A request of fewer than ``_ROW_CHUNK`` rows
        converts that many (``fetchone`` on a fresh batch does not convert all of it); a
        larger one the rest of the batch, each conversion having a cost of its own."""
        self._check_open()
        duck_rows = self._result.duck_rows if self._result is not None else None
        if duck_rows is not None:
            return duck_rows.fetch(n)
        out: list[tuple] = []
        while n is None or len(out) < n:
            if self._pos < len(self._rows):
                stop = (
                    len(self._rows) if n is None else min(len(self._rows), self._pos + n - len(out))
                )
                if self._pos == 0 and stop == len(self._rows) and not out:
                    out = self._rows  # the whole slice: no copy
                else:
                    out.extend(self._rows[self._pos : stop])
                self._pos = stop
                continue
            want = n - len(out) if n is not None else None
            if not self._fill(None if want is None or want >= _ROW_CHUNK else _ROW_CHUNK):
                break
        return out

    def _fill(self, want: int | None) -> bool:
        """Convert the next ``want`` rows (the rest of the batch with None) into ``_rows``;
        False when the rows have run out."""
        if self._batch is None or self._converted >= self._batch.num_rows:
            reader = self._reader()
            with duckdb_errors(self._scans()):
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    return False
            self._batch, self._converted = batch, 0
        part = self._batch.slice(self._converted, want)
        if self._converter is None:
            self._converter = self.connection.engine.duck.cursor()
        self._rows, self._pos = to_rows(part, self._converter), 0
        self._converted += part.num_rows
        return True


_ROW_CHUNK = 1024


def _rebatch(batches: Iterator[pa.RecordBatch], rows: int) -> Iterator[pa.RecordBatch]:
    """``batches`` cut and joined into batches of ``rows`` rows (the last may be shorter),
    holding at most one batch's worth beyond ``rows`` at a time."""
    held: list[pa.RecordBatch] = []
    count = 0
    for batch in batches:
        held.append(batch)
        count += batch.num_rows
        while count >= rows:
            table = pa.Table.from_batches(held).combine_chunks()
            yield table.slice(0, rows).to_batches()[0]
            rest = table.slice(rows)
            held, count = rest.to_batches(), rest.num_rows
    if count:
        yield pa.Table.from_batches(held).combine_chunks().to_batches()[0]


def _precision_scale(t: pa.DataType) -> tuple[int | None, int | None]:
    if pa.types.is_decimal(t):
        return t.precision, t.scale
    return None, None


def _check_params(parameters: Sequence[Any] | None) -> Sequence[Any]:
    if parameters is None:
        return ()
    if isinstance(parameters, dict):
        raise ProgrammingError("icesql uses qmark parameters (?); pass a sequence, not a dict")
    if isinstance(parameters, (str, bytes)):
        raise ProgrammingError("parameters must be a sequence of values, not a string")
    return list(parameters)


def connect(
    warehouse: str | None = None,
    *,
    catalog: str | None = None,
    uri: str | None = None,
    name: str = "local",
    properties: Mapping[str, str] | None = None,
    storage_options: dict | None = None,
    catalogs: Mapping[str, Mapping[str, str]] | None = None,
    default: str | None = None,
    spark_conf: Mapping[str, str] | str | os.PathLike[str] | None = None,
    pyiceberg_config: str | os.PathLike[str] | None = None,
    engine: str = "local",
    spark: Any = None,
    preload: bool = True,
    create: bool = False,
) -> Connection:
    """Open a DB-API connection to one or more Iceberg catalogs.

    ``connect("warehouse/")`` opens the file-system (Spark ``hadoop``) catalog on a folder or
    fsspec URL; ``connect(catalog="sql", uri="sqlite:///catalog.db", warehouse=...)`` a SQL
    catalog. With no catalog of its own and none of ``catalogs``, ``spark_conf`` or
    ``pyiceberg_config``, it reads the ``.pyiceberg.yaml`` and ``PYICEBERG_*`` variables
    PyIceberg would read, so a machine set up for PyIceberg needs no arguments.

    Args:
        warehouse: the warehouse folder or fsspec URL (the catalog's ``warehouse`` property).
        catalog: the catalog type (``hadoop``, ``sql``/``jdbc``, ``rest``, ``glue``...);
            inferred from ``uri`` when left out.
        uri: the catalog's URI (``sqlite:///catalog.db``, ``http://host:8181``).
        name: the catalog's name, as in ``spark.sql.catalog.<name>`` and the
            ``catalog_name`` of a SQL catalog's rows (Spark and PyIceberg then see the same
            tables).
        properties: Iceberg catalog properties, taken verbatim (Java's spelling, so a
            Spark or PyIceberg configuration can be pasted in).
        storage_options: fsspec options for the file system of every catalog (credentials,
            endpoints).
        catalogs: more catalogs, name -> properties; ``prod.db.t`` names table ``db.t`` of
            catalog ``prod``.
        default: the catalog unqualified names use; otherwise the catalog of the arguments
            above, else the source's own default (``spark.sql.defaultCatalog``, PyIceberg's
            ``default-catalog``), else the first configured.
        spark_conf: a ``spark-defaults.conf`` path or a dict of Spark properties: every
            ``spark.sql.catalog.<name>`` that is Iceberg's becomes a catalog, and the
            settings icesql knows (``SET -v``) become the connection's defaults, checked as
            ``SET`` checks them.
        pyiceberg_config: a ``.pyiceberg.yaml`` path whose catalogs are added.
        engine: where statements run (``SET icesql.engine`` changes it, ``RESET`` returns
            to it): ``local`` (DuckDB, here), ``spark`` (the statement's text, unchanged, on
            Spark: ``icesql.engine.spark``) or ``auto`` (Spark when a query's planned scan
            is above ``SET icesql.engine.autoThresholdBytes``).
        spark: the Spark of ``engine="spark"``/``"auto"``: a SparkSession, a master URL
            (``local[4]``, ``spark://host:7077``, ``yarn``: a session is built with
            ``spark_conf``'s properties) or a Spark Connect URL (``sc://host:15002``); by
            default ``SparkSession.builder.getOrCreate()``. Spark is given every catalog
            under its name.
        preload: import pyarrow (and numpy), the Iceberg predicates and the scan planner
            now, because reading a table needs them, so the first query does not wait for
            the imports; ``import icesql`` does not load them, and with ``preload=False``
            (the shell's ``-c``) a connection whose statements read no table (``SELECT 1``)
            never does.
        create: make the warehouse folder of a file-system catalog when it is missing
            (a new warehouse); without it a missing folder is an error, so a mistyped path
            is named rather than opened as an empty catalog.

    Returns:
        A :class:`Connection`; close it (or use it as a context manager) to release its
        DuckDB database and catalog connections.

    Raises:
        ProgrammingError: no catalog is configured, one is configured twice, ``default`` or
            ``engine`` names none there is, or ``spark_conf`` / ``pyiceberg_config`` holds
            no Iceberg catalog.
        NotSupportedError: ``spark_conf`` sets a setting that changes Spark's answers
            (``spark.sql.ansi.enabled``, a time zone other than UTC, ...) to a value icesql
            cannot answer for.
        OperationalError: a file-system catalog's warehouse folder (or bucket) is missing
            and ``create`` was not given.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as warehouse, connect(warehouse) as con:
    ...     _ = con.execute("CREATE TABLE db.t (id bigint) USING iceberg")
    ...     con.execute("INSERT INTO db.t VALUES (1), (2)").rowcount
    ...     con.execute("SELECT sum(id) FROM db.t").fetchone()
    2
    (3,)
    """
    raw_conf = spark_conf
    if raw_conf is not None and not isinstance(raw_conf, Mapping):
        raw_conf = read_spark_defaults(raw_conf)
    session_defaults = spark_conf_defaults(raw_conf or {})  # refused here, before any catalog
    sources = _CatalogSources()
    props = dict(properties or {})
    for key, value in (("type", catalog), ("uri", uri), ("warehouse", warehouse)):
        if value is not None:
            props[key] = str(value)
    if props:
        sources.add("connect()", CatalogConfig({name: props}, name))
    if catalogs:
        sources.add("catalogs=", CatalogConfig({n: dict(p) for n, p in catalogs.items()}))
    if raw_conf is not None:
        sources.add("spark_conf", spark_catalogs(raw_conf), required=True)
    if pyiceberg_config is not None:
        sources.add("pyiceberg_config", pyiceberg_catalogs(pyiceberg_config), required=True)
    if not sources.configs and not (catalogs or spark_conf is not None):
        sources.add(".pyiceberg.yaml", pyiceberg_catalogs())
    if not sources.configs:
        raise ProgrammingError(
            "connect() needs a warehouse path, a catalog uri, catalogs=, spark_conf= or a"
            " .pyiceberg.yaml"
        )
    choice = str(engine).strip().lower()
    if choice not in ENGINES:
        raise ProgrammingError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if choice == "spark" or (spark is not None and not isinstance(spark, str)):
        require_pyspark()  # fail here, naming what to install, not at the first statement
    chosen = sources.default_name(default)
    built = load_catalogs(
        {chosen: sources.configs[chosen]}
        | {n: p for n, p in sources.configs.items() if n != chosen},
        storage_options,
        create,
    )
    try:
        connection = Connection(built[0], built[1:])
    except BaseException:  # no connection to close them later
        for made in built:
            made.close()
        raise
    try:
        connection.engine.spark = SparkBackend(spark, sources.configs, raw_conf)
        for key, value in session_defaults.items():
            connection.engine.settings.set_default(key, value)
        connection.engine.settings.set_default(ENGINE, choice)
        if in_kernel():  # a notebook: long statements show their progress under the cell
            connection.add_progress_listener(NotebookProgress())
    except BaseException:  # its catalogs' connections (a REST catalog's) are closed
        connection.close()
        raise
    if preload:  # see above: what ``import icesql`` loaded before it loaded lazily
        import pyarrow  # noqa: F401

        import icesql.scan.table_scan
        import icesql.spec.arrow
        import icesql.sql.predicates  # noqa: F401 - the filters pushed to a scan
    return connection


class _CatalogSources:
    """The catalogs ``connect`` was given, from each source, and the defaults they name."""

    def __init__(self) -> None:
        self.configs: dict[str, dict[str, str]] = {}
        self._source: dict[str, str] = {}
        self._defaults: list[str] = []

    def add(self, source: str, config: CatalogConfig, required: bool = False) -> None:
        if required and not config.catalogs:
            raise ProgrammingError(f"{source}: no Iceberg catalog is configured there")
        for name, props in config.catalogs.items():
            if name in self.configs:
                raise ProgrammingError(
                    f"catalog {name!r} is configured twice ({self._source[name]} and {source})"
                )
            self.configs[name] = props
            self._source[name] = source
        if config.default:
            self._defaults.append(config.default)

    def default_name(self, default: str | None) -> str:
        """The default catalog: ``default``, else the first a source names, else the first."""
        wanted = default or (self._defaults[0] if self._defaults else next(iter(self.configs)))
        found = catalog_named(wanted, {n: n for n in self.configs})
        if found is None:
            known = ", ".join(self.configs)
            raise ProgrammingError(
                f"default catalog {wanted!r} is not configured (catalogs: {known})"
            )
        return found
