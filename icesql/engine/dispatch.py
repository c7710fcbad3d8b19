"""Statement dispatch: one parsed statement in, one result (an Arrow stream) out.

A query runs through the stages of ``icesql.engine.pipeline``, shared by EXPLAIN and
(through ``Session.query``) by the row-level statements: bind (each Iceberg table
reference resolved -- catalog prefix, branch/tag suffix, time travel -- to a snapshot and
replaced by a view), push filters (per scan, the Iceberg filter that prunes its files), plan
(each scan narrowed to the columns the query uses, and planned), to_duckdb (the files DuckDB
reads itself go into the query tree in place of the view, the rest reach DuckDB as a
registered Arrow stream) and run (DuckDB executes the query). The plan cache
(``plan_cache``) stands in for the first three when the same text runs again; the overflow
rerun (``overflow``) and progress (``watch``) wrap the run, and the tuple fast path
(``tuple_rows``) is what the run takes of a query of no table. Any other statement goes to
its handler in ``icesql.statements``, which sees the engine only as an
``icesql.session.Session``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import duckdb
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from icesql._lazy import lazy_module
from icesql.engine import overflow, pipeline, plan_cache, run, startup, to_duckdb, tuple_rows
from icesql.engine.bind import Parsed, bind
from icesql.engine.placement import EngineChoice
from icesql.engine.plan import Planned, replan
from icesql.engine.run import BATCH_ROWS, Ran
from icesql.engine.spark import SparkBackend
from icesql.engine.watch import watched
from icesql.errors import (
    Error,
    NoSuchTableError,
    NotSupportedError,
    ProgrammingError,
)
from icesql.progress import ProgressTracker
from icesql.session import Result, Settings, StatementTables, TempViews, read_branch, sandbox
from icesql.session.answer_settings import ALLOW_PRECISION_LOSS
from icesql.session.memory import MemoryFit
from icesql.sql.dialect import (
    DIALECT,
    QUERY_TYPES,
    check_parameters,
    explained_query,
    parse,
)
from icesql.sql.hidden_columns import hide_metadata_columns
from icesql.sql.python_sources import PythonScope, PythonSource, is_table_like, scannable
from icesql.sql.spark.decimal_types import precision_loss
from icesql.sql.spark.functions import PYTHON_FUNCTIONS, register_functions
from icesql.sql.tables import TableReference, resolve_reference
from icesql.sql.translate import (
    duckdb_errors,
    to_duckdb_sql,
)
from icesql.statements import statement_handler

if TYPE_CHECKING:
    import pyarrow as pa

    from icesql.catalog.base import Catalog
    from icesql.catalog.table import Table
    from icesql.scan import explain, planner, table_scan, time_travel
    from icesql.scan.planner import ManifestCache
    from icesql.scan.time_travel import ReadVersion
else:  # the read path loads with the first table a statement names (icesql._lazy)
    pa = lazy_module("pyarrow")  # and Arrow with the first result read as a stream
    explain = lazy_module("icesql.scan.explain")
    planner = lazy_module("icesql.scan.planner")
    table_scan = lazy_module("icesql.scan.table_scan")
    time_travel = lazy_module("icesql.scan.time_travel")

_T = TypeVar("_T")
# how a query is tried on its cursor: progress reported around the overflow rerun
_ATTEMPT: run.Attempt[Any] = watched(overflow.rerun(run.attempt))


class Engine(EngineChoice):
    """One per connection: the catalogs, a DuckDB database, caches of immutable files and the
    session's settings (``SET``). It is the ``icesql.session.Session`` the statement handlers
    work in, and dispatches each statement to its handler.

    ``catalog`` is the current catalog (the one unqualified names use; ``USE`` changes it);
    ``others`` are further catalogs a name reaches with their name as prefix (``prod.db.t``).
    """

    def __init__(
        self,
        catalog: Catalog,
        default_namespace: Sequence[str] = ("default",),
        others: Sequence[Catalog] = (),
    ):
        self.catalog = catalog
        # Spark, for statements SET icesql.engine sends there (connect(spark=...) sets it)
        self.spark: SparkBackend | None = None
        self.catalogs: dict[str, Catalog] = {catalog.name: catalog}
        for other in others:
            if other.name in self.catalogs:
                raise ProgrammingError(f"two catalogs are named {other.name!r}")
            self.catalogs[other.name] = other
        self.default_namespace = tuple(default_namespace)
        self.settings = Settings()
        self.progress = ProgressTracker()  # Connection.add_progress_listener
        self._tables: StatementTables | None = None  # the running statement's (execute)
        # the database the icesql command opened while the engine loaded, or a new one
        self.duck = startup.take() or duckdb.connect(":memory:")
        # every statement is run as DuckDB SQL: sqlglot's DuckDB dialect (slow to build:
        # it makes its parser) loads with the connection, as DuckDB does, not with the first
        # statement
        Dialect.get_or_raise("duckdb")
        self._functions = False  # icesql's Python functions registered (_with_functions)
        self.duck.execute("SET GLOBAL TimeZone = 'UTC'")
        self._memory = MemoryFit()  # DuckDB spills before RLIMIT_AS is reached
        self._memory.apply(self.duck)
        # DuckDB opens no file outside the catalogs' warehouses (icesql.session.sandbox)
        self.duck_roots = sandbox.local_roots(self.catalogs.values())
        sandbox.lock(self.duck, self.duck_roots)
        self.registered: dict[str, Any] = {}  # Connection.register(name, obj)
        self._python = PythonScope(self.registered)  # the running statement's scope
        # CREATE TEMPORARY VIEW's, in one namespace with the registered objects
        self.temp_views = TempViews(self.registered)
        # the cursors statements run on, for interrupt(): DuckDB interrupts one connection only
        self._cursors: weakref.WeakSet[duckdb.DuckDBPyConnection] = weakref.WeakSet()
        self._kept = plan_cache.KeptQueries()  # planned queries by text (icesql.engine.plan_cache)

    @property
    def tables(self) -> StatementTables:
        """The tables the running statement has loaded, each loaded once; outside a
        statement (a handler or query called directly) a new record each time, so nothing
        loaded is kept from one call to the next."""
        return self._tables if self._tables is not None else StatementTables()

    def with_functions(self, sql: str) -> None:
        """Register icesql's Python functions (``icesql.sql.spark.functions``) before the first
        SQL that calls one: DuckDB's Arrow functions load pyarrow and numpy, which a
        connection whose statements call none never needs."""
        if not self._functions and any(name in sql.lower() for name in PYTHON_FUNCTIONS):
            register_functions(self.duck)
            self._functions = True

    @functools.cached_property
    def manifest_cache(self) -> ManifestCache:
        """Manifests already read, shared by the connection's queries (made with the first
        table read, so a connection that reads none never loads the scan planner)."""
        return planner.ManifestCache()

    # -- Python objects as tables ----------------------------------------------------------
    def register(self, name: str, obj: Any) -> None:
        """Let SQL name ``obj`` (a DataFrame, Arrow table or stream) as table ``name``; an
        Iceberg table of the same name still wins (``icesql.sql.python_sources``)."""
        if not name or "." in name:
            raise ProgrammingError(f"cannot register {name!r}: give a plain name, no dots")
        if not is_table_like(obj):
            scannable(obj, name)  # raises, naming what it is
        self.temp_views.forget_registered(name)  # one object per name, whatever its case
        self.temp_views.replaced_by_object(name)  # as createOrReplaceTempView replaces a view
        self.registered[name] = obj

    def unregister(self, name: str) -> None:
        """Forget a registered name; one never registered is ignored, as DuckDB does."""
        self.registered.pop(name, None)

    def close(self) -> None:
        self.duck.close()
        if self.spark is not None:
            self.spark.close()

    def interrupt(self) -> None:
        """Stop the statement another thread is running (the shell's Ctrl-C): its DuckDB work
        fails with an error, so a write stops before its commit and commits nothing. DuckDB's
        ``interrupt()`` reaches only the connection it is called on, hence every open cursor."""
        while True:
            try:
                cursors = [self.duck, *self._cursors]
                break
            except RuntimeError:  # the statement opened a cursor while this one copied the set
                continue
        for cursor in cursors:
            try:
                cursor.interrupt()
            except duckdb.Error:
                pass  # closed meanwhile

    # -- entry point ---------------------------------------------------------------------
    @property
    def search_path(self) -> tuple[str, ...]:
        """The current catalog and namespace, as Spark names them in errors."""
        return (self.catalog.name, *self.default_namespace)

    def execute(
        self, sql: str, params: Sequence[object] = (), python: PythonScope | None = None
    ) -> Result:
        """Run one statement; ``python`` is where names that are no Iceberg table are looked
        up (the caller's variables), else only the registered objects are. A statement run
        while another is (a relation read as a table runs its query when the outer statement
        scans it) gives the outer one its scope back, for the binding passes still to come."""
        outer, outer_tables = self._python, self._tables
        if python is not None:
            self._python = python
        self._python.new_statement()
        self._tables = StatementTables()
        progress = self.progress
        statement = progress.begin()
        lossy = (self.settings.get(ALLOW_PRECISION_LOSS) or "true").strip().lower() == "true"
        try:
            with precision_loss(lossy):  # decimal types as the session's Spark would type them
                result = self._execute(sql, params)
        except BaseException:
            progress.finish()
            raise
        finally:
            self._python, self._tables = outer, outer_tables
        if not progress.active:
            return result
        if not result.has_rows:
            progress.finish()
        else:  # a query's work goes on while its rows are read
            result.reader = progress.watch(result.reader, statement)
            result.on_close.append(lambda: progress.finish(statement=statement))
        return result

    def _execute(self, sql: str, params: Sequence[object]) -> Result:
        key = None
        if self.settings.engine == "local":
            key = plan_cache.query_key(
                sql,
                params,
                self.catalog.name,
                self.default_namespace,
                (*self.settings.items(), ("temp views", str(self.temp_views.generation))),
            )
        if key is not None:
            plan = self._kept_plan(key)
            if plan is not None:
                return self._run_query(plan, params, tuples=True)
        try:
            statements = parse(sql)
        except ProgrammingError:
            if self.settings.engine != "spark":
                raise
            # Spark judges its own SQL: text icesql cannot parse is still Spark's to run
            return self._spark().execute(sql, params, *self._spark_scope())
        if not statements:
            raise ProgrammingError("no statement to execute")
        if len(statements) > 1:
            raise ProgrammingError(
                f"expected one statement, got {len(statements)}; execute them one at a time"
            )
        statement = statements[0]
        if key is not None and isinstance(statement, QUERY_TYPES):
            check_parameters(statement, params)
            return self._run_query(self._plan_query(statement, params, key), params, tuples=True)
        return self.execute_chosen(statement, sql, params)

    def _kept_plan(self, key: plan_cache.Key) -> Planned | None:
        """The plan of the query kept under ``key``, its scans made afresh, if everything it
        was planned from still holds (else it is dropped)."""
        kept = self._kept.get(key)
        if kept is None:
            return None
        if not kept.still_holds(self.catalogs):
            self._kept.drop(key)
            return None
        return replan(self, kept)

    def execute_chosen(
        self, statement: exp.Expr, sql: str | None = None, params: Sequence[object] = ()
    ) -> Result:
        """Run a parsed statement on the engine ``icesql.engine`` chooses; ``sql`` is its text
        as written (Spark gets it unchanged), else the statement is written out as Spark SQL."""
        choice = self.settings.engine
        if choice == "local" or _session_statement(statement):
            return self.execute_statement(statement, params)
        text = sql if sql is not None else statement.sql(dialect=DIALECT)
        return self._run_chosen(choice, text, statement, params)

    def execute_statement(self, statement: exp.Expr, params: Sequence[object] = ()) -> Result:
        explained = explained_query(statement)
        check_parameters(explained if explained is not None else statement, params)
        if explained is not None:
            return self.explain(explained, params)
        if isinstance(statement, QUERY_TYPES):
            return self.query(statement, params)
        handler = statement_handler(statement)  # DDL, INSERT, SHOW, DESCRIBE, ALTER, SET
        if handler is not None:
            return handler(self, statement, params)
        raise NotSupportedError(f"{_statement_kind(statement)} statements are not supported yet")

    # -- queries: bind -> push filters -> plan -> to_duckdb -> run --------------------------
    def query(self, statement: exp.Expr, params: Sequence[object]) -> Result:
        """Run a query: its rows as an Arrow stream, and ``target`` the scan of the table
        node marked ``DML_TARGET`` (the table a row-level statement changes), if any."""
        return self._run_query(self._plan_query(statement, params), params)

    def query_columns(self, statement: exp.Expr, params: Sequence[object]) -> list[str]:
        """The names of the columns ``statement`` returns, from DuckDB's binder: each scan
        stands in as an empty table of its schema, so no file is planned or read and no
        table is loaded twice (the statement's tables are already bound)."""
        binding = bind(self, Parsed(statement, tuple(params)))
        cursor = self.duck.cursor()
        self._cursors.add(cursor)
        try:
            hidden = {}
            for bound in binding.scans:
                scan = table_scan.TableScan(
                    bound.table,
                    bound.version,
                    cache=self.manifest_cache,
                    metadata_columns=binding.hidden,
                )
                if scan.metadata_columns is not None:
                    hidden[bound.view] = scan.metadata_columns.names
                # a reader of no batches: building an empty table would load pandas
                cursor.register(
                    bound.view, pa.RecordBatchReader.from_batches(scan.arrow_schema, [])
                )
            columns = hide_metadata_columns(binding.statement, hidden)  # bind's own copy
            for view, obj in {**binding.metadata_views, **binding.python_views}.items():
                cursor.register(view, obj)
            sql, values = to_duckdb_sql(columns, params)
            self.with_functions(sql)
            terms = functools.partial(
                run.spark_terms,
                binding.statement,
                binding.sources,
                binding.metadata_views,
                {},
                self.search_path,
            )
            with duckdb_errors([], terms):
                relation = cursor.sql(sql, params=values) if values else cursor.sql(sql)
                return list(relation.columns)
        finally:
            cursor.close()

    def python_rows(self, statement: exp.Expr) -> pa.Table | None:
        """The Arrow table ``SELECT * FROM name`` reads when ``name`` is a Python object (no
        Iceberg table) holding only columns DuckDB returns unchanged (``_PLAIN_ARROW``): an
        INSERT then writes its batches as they are: DuckDB's pass over them would cost CPU
        per row and change no value."""
        if not isinstance(statement, exp.Select) or any(
            v for k, v in statement.args.items() if k not in ("expressions", "from_")
        ):
            return None
        star = statement.expressions
        source = statement.args.get("from_")
        if (
            len(star) != 1
            or not isinstance(star[0], exp.Star)
            or any(star[0].args.values())
            or source is None
            or not isinstance(source.this, exp.Table)
        ):
            return None
        node = source.this
        exists = {name: self.tables.exists_in(catalog) for name, catalog in self.catalogs.items()}
        try:
            resolve_reference(node, exists, self.catalog.name, self.default_namespace, ())
            return None  # an Iceberg table: tables win
        except NoSuchTableError:
            found = self.python_source(node)
        rows = found.obj if found is not None else None
        if not isinstance(rows, pa.Table) or len(set(rows.column_names)) != rows.num_columns:
            return None
        return rows if all(_plain_arrow(f.type) for f in rows.schema) else None

    def _run_query(self, plan: Planned, params: Sequence[object], tuples: bool = False) -> Result:
        """Run a planned query (see ``query``); with ``tuples`` (a statement run for its
        caller, not for a handler), one that reads no table or Python object and has plain
        column types is fetched by DuckDB itself (``icesql.engine.tuple_rows``: no Arrow)."""
        tuples = tuples and not (
            plan.scans or plan.metadata_views or plan.python_views or self.progress.active
        )

        def take(ran: Ran) -> tuple_rows.DuckRows | pa.RecordBatchReader:
            rows = tuple_rows.take_rows(self, ran) if tuples else None
            if rows is not None:
                return rows
            return overflow.stream(self, ran, ran.relation.to_arrow_reader(BATCH_ROWS))

        cursor, taken = self._run(plan, params, take, _ATTEMPT)
        if isinstance(taken, tuple_rows.DuckRows):
            return Result(duck_rows=taken, duck_cursor=cursor)
        scans = list(plan.scans.values())
        result = Result(reader=taken, scans=scans, duck_cursor=cursor, target=plan.target)
        if self.progress.active:  # before the cursor closes, progress stops asking it
            result.on_close.append(lambda: self.progress.forget(cursor))
        return result

    def explain(self, statement: exp.Expr, params: Sequence[object]) -> Result:
        """Plan a query without running it: the Iceberg scan plans and DuckDB's plan as one
        ``plan`` text."""
        plan = self._plan_query(statement, params)
        cursor, duck_plan = self._run(
            plan, params, lambda ran: _plan_text(ran.relation), run.attempt, explain=True
        )
        plan.release()
        cursor.close()
        text = explain.explain_scans([(plan.labels[v], scan) for v, scan in plan.scans.items()])
        text = f"{text}\n\n== DuckDB plan ==\n{duck_plan}".lstrip()
        reader = pa.table({"plan": [text]}).to_reader()
        return Result(reader=reader, scans=list(plan.scans.values()))

    def _run(
        self,
        plan: Planned,
        params: Sequence[object],
        take: run.Take[_T],
        tried: run.Attempt[_T],
        explain: bool = False,
    ) -> tuple[duckdb.DuckDBPyConnection, _T]:
        """The last stages: ``plan`` translated (``icesql.engine.to_duckdb``) and run
        (``icesql.engine.run``); on failure the plan's scans are released."""
        try:
            translated = to_duckdb.to_duckdb(self, plan, tuple(params), explain=explain)
            return run.run(self, translated, take, tried)
        except Error:
            plan.release()
            raise

    def duck_cursor(self) -> duckdb.DuckDBPyConnection:
        """A new cursor of the database, which ``interrupt`` reaches, under the memory limit
        that fits now."""
        self._memory.apply(self.duck)
        cursor = self.duck.cursor()
        self._cursors.add(cursor)
        return cursor

    def _plan_query(
        self, statement: exp.Expr, params: Sequence[object], key: plan_cache.Key | None = None
    ) -> Planned:
        """Bind and plan ``statement`` (``icesql.engine.pipeline``); with ``key`` (the text
        it was parsed from, see ``icesql.engine.plan_cache``), keep the plan for the next
        time the same text runs."""
        plan = pipeline.plan_query(self, statement, params)
        origin = plan.origin
        assert origin is not None
        if key is not None and origin.bound.keepable and plan.target_view is None:
            kept = plan_cache.kept_query(plan, origin)
            self._kept.keep(key, kept)
            plan = dataclasses.replace(plan, kept=kept)
        return plan

    def python_source(self, node: exp.Table) -> PythonSource | None:
        """The Python object an unqualified name without time travel stands for, if any."""
        if len(node.parts) != 1 or node.args.get("version") is not None:
            return None
        return self._python.lookup(node.parts[0].name)

    def read_version(
        self, ref: TableReference, table: Table, params: Sequence[object]
    ) -> ReadVersion:
        """The snapshot and schema ``ref`` reads: its time travel, else the current state (the
        write-audit-publish branch, when the session names one: ``icesql.session.wap``)."""
        if ref.travel.is_current and ref.metadata_table is None:
            branch = read_branch(self.settings, table.metadata)
            if branch is not None:
                return time_travel.select_version(
                    table.metadata, table.name, ref=branch, ref_kind="branch"
                )
        return time_travel.select_version(
            table.metadata,
            table.name,
            version=ref.travel.version,
            timestamp_ms=self._timestamp_ms(ref.travel.timestamp, params),
            ref=ref.travel.ref,
            ref_kind=ref.travel.ref_kind,
        )

    def _timestamp_ms(self, node: exp.Expr | None, params: Sequence[object]) -> int | None:
        """Evaluate a ``TIMESTAMP AS OF`` expression in the session time zone (UTC)."""
        if node is None:
            return None
        if isinstance(node, exp.Literal) and not node.is_string:
            return int(float(node.this) * 1000)  # Spark casts a number to seconds
        sql, values = to_duckdb_sql(
            exp.select(exp.func("epoch_ms", exp.cast(node.copy(), "TIMESTAMPTZ"))), params
        )
        self.with_functions(sql)
        cursor = self.duck.cursor()
        self._cursors.add(cursor)
        try:
            with duckdb_errors([]):
                row = cursor.execute(sql, values).fetchone()
        finally:
            cursor.close()
        if row is None or row[0] is None:
            raise ProgrammingError(f"TIMESTAMP AS OF value is NULL: {node.sql(dialect=DIALECT)}")
        return int(row[0])


_SESSION_COMMANDS = ("SET", "RESET")


def _session_statement(statement: exp.Expr) -> bool:
    """Statements that change this session (SET, RESET, USE): they run here whatever the
    engine (the Spark side is kept in step before each statement it runs)."""
    if isinstance(statement, exp.Use):
        return True
    return isinstance(statement, exp.Command) and str(statement.this).upper() in _SESSION_COMMANDS


def _plain_arrow(t: pa.DataType) -> bool:
    """A column type whose values DuckDB hands back as it scanned them (strings, binaries,
    dates, microsecond timestamps naive or UTC, numbers, decimals up to 38 digits); large
    strings and binaries (pandas 3's ``str``) come back as plain ones, which store assignment
    treats alike."""
    if t in (pa.string(), pa.binary(), pa.large_string(), pa.large_binary()):
        return True
    if pa.types.is_timestamp(t):
        return t.unit == "us" and t.tz in (None, "UTC")
    types = pa.types
    plain = (
        types.is_boolean,
        types.is_integer,
        types.is_floating,
        types.is_date32,
        types.is_decimal128,
    )
    return not types.is_float16(t) and any(check(t) for check in plain)


def _plan_text(relation: duckdb.DuckDBPyRelation) -> str:
    """DuckDB's plan, from the rows of an ``EXPLAIN``."""
    return "\n".join(str(row[-1]) for row in relation.fetchall())


def _statement_kind(statement: exp.Expr) -> str:
    """How a refusal names the statement: its leading words as written (``TRUNCATE TABLE``,
    ``LOAD DATA``), from the node's class name where sqlglot parsed it."""
    if isinstance(statement, exp.Command):
        return str(statement.this).upper()
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type(statement).__name__).upper()
