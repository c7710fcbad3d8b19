"""Where a statement runs when ``icesql.engine`` is ``spark`` or ``auto``: on Spark with its
text unchanged (``icesql.engine.spark``), or here.

``auto`` weighs what the statement would read: a query is planned once and run from that plan
when it stays local; other statements are measured by the current size of the tables they name
(DELETE, UPDATE and MERGE read their target whole). EXPLAIN shows which engine and why.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from sqlglot import exp

from icesql._lazy import lazy_module
from icesql.engine.spark import SparkBackend
from icesql.errors import Error, NoSuchNamespaceError, NoSuchTableError, ProgrammingError
from icesql.session import Result, Settings, StatementTables
from icesql.session.settings import AUTO_THRESHOLD
from icesql.sql.dialect import QUERY_TYPES, check_parameters, explained_query
from icesql.sql.tables import resolve_reference, table_nodes

if TYPE_CHECKING:
    import pyarrow as pa

    from icesql.catalog.base import Catalog
    from icesql.catalog.table import Table
    from icesql.engine.plan import Planned
    from icesql.scan.table_scan import TableScan
else:  # pyarrow loads on first use (icesql._lazy)
    pa = lazy_module("pyarrow")

__all__ = ["EngineChoice"]


class EngineChoice:
    """The engine choice of :class:`icesql.engine.Engine` (a base class of it): the methods
    that run a statement elsewhere or decide that it stays."""

    if TYPE_CHECKING:  # what Engine provides
        spark: SparkBackend | None
        settings: Settings
        catalog: Catalog
        catalogs: dict[str, Catalog]
        default_namespace: tuple[str, ...]

        @property
        def tables(self) -> StatementTables: ...

        def _plan_query(self, statement: exp.Expr, params: Sequence[object]) -> Planned: ...
        def _run_query(self, plan: Planned, params: Sequence[object]) -> Result: ...
        def explain(self, statement: exp.Expr, params: Sequence[object]) -> Result: ...
        def execute_statement(
            self, statement: exp.Expr, params: Sequence[object] = ()
        ) -> Result: ...

    def _run_chosen(
        self, choice: str, sql: str, statement: exp.Expr, params: Sequence[object]
    ) -> Result:
        """Run a statement where ``icesql.engine`` says: on Spark with its text unchanged, or
        (``auto`` below the threshold) here. EXPLAIN shows which engine and why."""
        explain = isinstance(statement, exp.Command) and str(statement.this).upper() == "EXPLAIN"
        if choice == "spark":  # Spark explains what it runs: DML too
            on_spark, why = True, "SET icesql.engine = spark"
        elif isinstance(statement, QUERY_TYPES):  # planned once: run from that plan if local
            check_parameters(statement, params)
            plan = self._plan_query(statement, params)
            on_spark, why = self._auto_choice(statement, params, plan)
            if not on_spark:
                return self._run_query(plan, params)
            plan.release()
        else:
            explained = explained_query(statement) if explain else None
            if explained is not None:  # its markers, parsed anew, are numbered here
                check_parameters(explained, params)
            on_spark, why = self._auto_choice(explained or statement, params)
        if explain:
            if on_spark:
                text = self._spark().explain(_explain_body(sql), params, *self._spark_scope())
                engine = f"spark: {why}\n{self._spark().description}"
            else:
                query = explained_query(statement)
                assert query is not None
                check_parameters(query, params)
                result = self.explain(query, params)
                assert result.reader is not None
                text = result.reader.read_all().column(0)[0].as_py()
                engine = f"local: {why}"
            text = f"== Engine ==\n{engine}\n\n{text}"
            return Result(
                reader=pa.table({"plan": [text]}).to_reader(),
                engine="spark" if on_spark else "local",
            )
        if not on_spark:
            return self.execute_statement(statement, params)
        return self._spark().execute(sql, params, *self._spark_scope())

    def _spark(self) -> SparkBackend:
        if self.spark is None:
            raise ProgrammingError("this connection has no Spark configuration")
        return self.spark

    def _spark_scope(self) -> tuple[Settings, str, tuple[str, ...]]:
        return self.settings, self.catalog.name, self.default_namespace

    def _auto_choice(
        self, statement: exp.Expr, params: Sequence[object], planned: Planned | None = None
    ) -> tuple[bool, str]:
        """Whether ``auto`` hands ``statement`` to Spark, and why: the bytes of data and
        delete files its scans plan to read after pruning (a query, INSERT's query), or the
        current size of the tables it names (other statements: DELETE, UPDATE, MERGE read
        their target whole), against ``icesql.engine.autoThresholdBytes``. ``planned``: the
        query's plan, already made (the caller releases it)."""
        threshold = self.settings.auto_threshold_bytes
        query = statement
        if isinstance(statement, exp.Insert) and isinstance(statement.expression, QUERY_TYPES):
            query = statement.expression
        if isinstance(query, QUERY_TYPES):
            plan = planned or self._plan_query(query.copy(), params)
            try:
                if plan.python_views:
                    return False, "the query reads Python objects, which Spark cannot see"
                size = _planned_bytes(plan.scans.values())
            finally:
                if planned is None:
                    plan.release()
            what = f"its scans plan {size:,} bytes after pruning"
        else:
            size = self._tables_bytes(statement, params)
            what = f"the tables it names hold {size:,} bytes"
        if size > threshold:
            return True, f"{what}, above {AUTO_THRESHOLD} = {threshold:,}"
        return False, f"{what}, not above {AUTO_THRESHOLD} = {threshold:,}"

    def _tables_bytes(self, statement: exp.Expr, params: Sequence[object]) -> int:
        """The data and delete file bytes of the current snapshots of the Iceberg tables
        ``statement`` names (from their summaries); names of no table count nothing."""
        loaded: dict[tuple[str, tuple[str, ...]], Table] = {}

        def loader(name: str, catalog: Catalog) -> Callable[[tuple[str, ...]], bool]:
            def exists(identifier: tuple[str, ...]) -> bool:  # loads once: no exists-then-load
                if (name, identifier) not in loaded:
                    try:  # the statement's own load, when it then runs here
                        loaded[name, identifier] = self.tables.load(catalog, identifier)
                    except (NoSuchTableError, NoSuchNamespaceError):
                        return False
                return True

            return exists

        exists = {name: loader(name, catalog) for name, catalog in self.catalogs.items()}
        seen, total = set(), 0
        for node in table_nodes(statement):
            try:
                ref = resolve_reference(
                    node, exists, self.catalog.name, self.default_namespace, params
                )
            except Error:
                continue  # a table to create, or a Python object: nothing to read
            if (ref.catalog, ref.identifier) in seen:
                continue
            seen.add((ref.catalog, ref.identifier))
            snapshot = loaded[ref.catalog, ref.identifier].metadata.current_snapshot()
            if snapshot is not None:
                total += int(snapshot.summary.get("total-files-size", 0) or 0)
        return total


def _explain_body(sql: str) -> str:
    """The text after ``EXPLAIN`` (mode included), as written."""
    return re.sub(r"^\s*explain\b", "", sql, count=1, flags=re.IGNORECASE).strip()


def _planned_bytes(scans: Iterable[TableScan]) -> int:
    """Bytes of the data files the scans planned and of their delete files (each once)."""
    total, deletes = 0, {}
    for scan in scans:
        for task in scan.tasks():
            total += task.data_file.file_size_in_bytes
            for delete in task.delete_files:
                deletes[delete.file_path] = delete.file_size_in_bytes
    return total + sum(deletes.values())
