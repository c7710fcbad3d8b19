"""Data checks in Python: assertions over Iceberg tables whose failures show the rows.

A check is a query for the rows that break a rule (the dbt convention): it passes when there
are none, and its failure names how many there are, shows the first as an aligned table and
then the SQL, so the message reads the same in pytest's output and in JUnit XML. Every helper
is a function taking the connection first and a method of :class:`DataChecks` (the ``icesql``
fixture of the pytest plugin), whose ``ref`` / ``as_of`` make every table reference read a
branch, tag, snapshot or point in time (``pytest --icesql-ref audit``) without editing checks.

>>> import icesql, tempfile
>>> warehouse = tempfile.TemporaryDirectory()
>>> con = icesql.connect(warehouse.name)
>>> _ = con.execute("CREATE NAMESPACE db")
>>> _ = con.execute("CREATE TABLE db.t (id bigint) USING iceberg")
>>> _ = con.execute("INSERT INTO db.t VALUES (1), (1)")
>>> assert_unique(con, "db.t", "id")
Traceback (most recent call last):
...
icesql.testing.RowsFailure: unique(id) on db.t: 1 value occurs more than once
...
>>> con.close()
>>> warehouse.cleanup()

A check that cannot run (a missing table, bad SQL) raises the engine's error, never a
failure, so it can never pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from icesql.text_table import RULE, text_table

if TYPE_CHECKING:  # the engine loads when a check first runs, not when this module is imported
    import pyarrow as pa

    from icesql.dbapi import Connection

__all__ = [
    "Changes",
    "CheckFailure",
    "CountFailure",
    "DataChecks",
    "DiffFailure",
    "FreshnessFailure",
    "RowsFailure",
    "Sample",
    "SchemaFailure",
    "assert_accepted_values",
    "assert_fresh",
    "assert_grew",
    "assert_no_rows",
    "assert_no_rows_removed",
    "assert_not_null",
    "assert_relationship",
    "assert_row_count",
    "assert_same_rows",
    "assert_schema",
    "assert_unique",
    "changes",
    "parse_age",
]

SHOWN_ROWS = 10  # rows a failure message shows; the count is always complete
_CELL = 40  # characters of one value in a failure table


# -- what a check saw ----------------------------------------------------------------------
@dataclass
class Sample:
    """The rows a query returned: all counted, the first ``SHOWN_ROWS`` kept."""

    sql: str
    columns: list[str]
    rows: list[tuple]
    count: int

    def table(self) -> str:
        """The kept rows as an aligned text table (and how many were left out)."""
        return format_table(self.columns, self.rows, self.count)


def format_table(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], count: int | None = None
) -> str:
    """``columns`` over ``rows``, each column as wide as its widest value (cut at 40)."""
    cells = [[_cell(v) for v in row] for row in rows]
    table = text_table([columns, RULE, *cells], framed=False)
    hidden = (count if count is not None else len(rows)) - len(rows)
    if hidden > 0:
        table += f"\n... and {hidden} more row{'s' if hidden != 1 else ''}"
    return table


def _cell(value: Any) -> str:
    text = "NULL" if value is None else str(value)
    text = text.replace("\n", "\\n")
    return text if len(text) <= _CELL else text[: _CELL - 3] + "..."


# -- failures --------------------------------------------------------------------------------
class CheckFailure(AssertionError):
    """A data check ran and found data that breaks it; the message carries the evidence."""

    def __init__(self, check: str, summary: str, body: str = "", sql: str | None = None):
        self.check = check
        self.summary = summary
        self.sql = sql
        parts = [f"{check}: {summary}"]
        if body:
            parts.append(body)
        if sql:
            parts.append("SQL:\n" + _indent(sql))
        super().__init__("\n\n".join(parts))


class RowsFailure(CheckFailure):
    """Rows that should not exist: ``sample`` holds their count and the first of them."""

    def __init__(self, check: str, sample: Sample, summary: str | None = None):
        self.sample = sample
        n = sample.count
        summary = (
            summary or f"{n} row{'s' if n != 1 else ''} {'breaks' if n == 1 else 'break'} the check"
        )
        super().__init__(check, summary, sample.table(), sample.sql)


class CountFailure(CheckFailure):
    """A row count outside its expected range."""

    def __init__(
        self, check: str, count: int, expected: str, sql: str, sample: Sample | None = None
    ):
        self.count = count
        body = sample.table() if sample is not None and sample.rows else ""
        super().__init__(check, f"expected {expected}, got {count}", body, sql)


class FreshnessFailure(CheckFailure):
    """The newest data is older than allowed."""

    def __init__(
        self,
        check: str,
        newest: datetime | None,
        age: timedelta | None,
        max_age: timedelta,
        sql: str | None,
    ):
        self.newest, self.age, self.max_age = newest, age, max_age
        if newest is None:
            summary = f"no data at all (allowed age {max_age})"
        else:
            summary = f"newest data is {age} old ({newest.isoformat()}), allowed {max_age}"
        super().__init__(check, summary, "", sql)


class SchemaFailure(CheckFailure):
    """Columns missing, of another type, or unexpected."""

    def __init__(self, check: str, problems: list[tuple[str, str, str]], sql: str):
        self.problems = problems
        body = format_table(["column", "expected", "actual"], problems)
        n = len(problems)
        super().__init__(check, f"{n} column{'s' if n != 1 else ''} differ", body, sql)


class DiffFailure(CheckFailure):
    """Two queries (or two versions of a table) whose rows differ."""

    def __init__(self, check: str, only_a: Sample, only_b: Sample, labels: tuple[str, str]):
        self.only_a, self.only_b = only_a, only_b
        body = []
        for label, sample in ((labels[0], only_a), (labels[1], only_b)):
            if sample.count:
                body.append(f"{sample.count} row(s) only in {label}:\n{sample.table()}")
        summary = f"{only_a.count} row(s) only in {labels[0]}, {only_b.count} only in {labels[1]}"
        sql = f"{only_a.sql};\n{only_b.sql}"
        super().__init__(check, summary, "\n\n".join(body), sql)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.strip().splitlines())


# -- changes between snapshots ---------------------------------------------------------------
@dataclass
class Changes:
    """Rows added and removed between two versions of a table (net, as Spark's changelog view
    with ``net_changes``: a row updated in place is one removal and one addition)."""

    added: pa.Table
    removed: pa.Table
    sql: tuple[str, str] = field(default=("", ""), repr=False)

    def __bool__(self) -> bool:
        return bool(self.added.num_rows or self.removed.num_rows)


# -- the checks ------------------------------------------------------------------------------
class DataChecks:
    """Assertion helpers bound to one connection; ``ref`` (a branch, tag or snapshot id) or
    ``as_of`` (a timestamp) pins every table reference that names no version of its own."""

    def __init__(
        self,
        connection: Connection,
        *,
        ref: int | str | None = None,
        as_of: str | datetime | None = None,
    ):
        self.connection = connection
        self.ref = ref
        self.as_of = as_of
        self.ref_found = False  # whether some table read so far had the branch or tag ``ref``

    # -- running queries ---------------------------------------------------------------
    def sample(self, sql: str, keep: int = SHOWN_ROWS, *, pinned: bool = True) -> Sample:
        """Run a query (pinned as configured): every row counted, the first ``keep`` kept."""
        schema, batches = self._stream(sql, pinned)
        kept: list[tuple] = []
        count = 0
        for batch in batches:
            count += batch.num_rows
            if len(kept) < keep:
                part = batch.slice(0, keep - len(kept)).to_pylist()
                kept.extend(tuple(r.values()) for r in part)
        return Sample(sql.strip(), list(schema.names), kept, count)

    def rows(self, sql: str, *, pinned: bool = True) -> pa.Table:
        """All rows of a query (pinned as configured) as a ``pyarrow.Table``."""
        import pyarrow as pa

        schema, batches = self._stream(sql, pinned)
        return pa.Table.from_batches(list(batches), schema=schema)

    def _table_has_ref(self, table: str, ref: str) -> bool:
        from sqlglot import exp

        from icesql.sql.dialect import parse_one

        node = parse_one(f"SELECT 1 FROM {table}").find(exp.Table)
        return node is not None and self._has_ref(node, ref)

    def _has_ref(self, node: Any, ref: str) -> bool:
        """Whether the table ``node`` names has branch or tag ``ref`` (a table that cannot be
        loaded says yes, so that reading it raises the error that names it)."""
        from icesql.sql.identifiers import name_parts
        from icesql.statements.names import table_name

        engine = self.connection.engine
        try:
            catalog, identifier = table_name(engine, name_parts(node))
            found = ref in catalog.load_table(identifier).metadata.refs
        except Exception:
            return True
        self.ref_found = self.ref_found or found
        return found

    def _stream(self, sql: str, pinned: bool) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
        from icesql.sql.dialect import parse_one
        from icesql.sql.pinning import pin_tables
        from icesql.sql.translate import duckdb_errors

        statement = parse_one(sql)
        if pinned:
            statement = pin_tables(
                statement, version=self.ref, timestamp=self.as_of, has_ref=self._has_ref
            )
        # the connection's engine choice holds (a pinned statement reaches Spark written out)
        result = self.connection.engine.execute_chosen(statement, None if pinned else sql)
        if result.reader is None:
            result.close()
            raise _programming_error(f"a check must be a query that returns rows: {sql.strip()}")
        reader = result.reader

        def batches() -> Iterator[pa.RecordBatch]:
            try:
                while True:
                    with duckdb_errors(result.scans):
                        try:
                            batch = reader.read_next_batch()
                        except StopIteration:
                            return
                    yield batch
            finally:
                result.close()

        return reader.schema, batches()

    # -- failures found, not raised: the pytest items tell a failure from an error ------
    def failure(self, check: str, **arguments: Any) -> CheckFailure | None:
        """What ``assert_<check>(**arguments)`` would raise, returned (None when it holds)."""
        find = getattr(self, f"_{check}", None)
        if find is None or check.startswith("_"):
            raise _programming_error(f"unknown data check {check!r}")
        return find(**arguments)

    def _no_rows(self, sql: str, name: str = "no_rows") -> CheckFailure | None:
        sample = self.sample(sql)
        return RowsFailure(name, sample) if sample.count else None

    def _unique(self, table: str, columns: str | Sequence[str]) -> CheckFailure | None:
        cols = _columns(columns)
        keys = ", ".join(_quote(c) for c in cols)
        present = " AND ".join(f"{_quote(c)} IS NOT NULL" for c in cols)
        sql = (
            f"SELECT {keys}, count(*) AS n FROM {table} WHERE {present}"
            f" GROUP BY {keys} HAVING count(*) > 1"
        )
        sample = self.sample(sql)
        if not sample.count:
            return None
        n = sample.count
        return RowsFailure(
            f"unique({', '.join(cols)}) on {table}",
            sample,
            f"{n} value{'s occur' if n != 1 else ' occurs'} more than once",
        )

    def _not_null(self, table: str, columns: str | Sequence[str]) -> CheckFailure | None:
        cols = _columns(columns)
        cond = " OR ".join(f"{_quote(c)} IS NULL" for c in cols)
        sample = self.sample(f"SELECT * FROM {table} WHERE {cond}")
        return (
            RowsFailure(f"not_null({', '.join(cols)}) on {table}", sample) if sample.count else None
        )

    def _accepted_values(
        self, table: str, column: str, values: Sequence[Any]
    ) -> CheckFailure | None:
        listed = ", ".join(_literal(v) for v in values)
        sample = self.sample(f"SELECT * FROM {table} WHERE {_quote(column)} NOT IN ({listed})")
        if not sample.count:
            return None
        return RowsFailure(f"accepted_values({column}) on {table}", sample)

    def _relationship(
        self, table: str, column: str, to_table: str, to_column: str
    ) -> CheckFailure | None:
        sql = (
            f"SELECT * FROM {table} child WHERE child.{_quote(column)} IS NOT NULL"
            f" AND NOT EXISTS (SELECT 1 FROM {to_table} parent"
            f" WHERE parent.{_quote(to_column)} = child.{_quote(column)})"
        )
        sample = self.sample(sql)
        if not sample.count:
            return None
        return RowsFailure(f"relationship({column} -> {to_table}.{to_column}) on {table}", sample)

    def _row_count(
        self, table: str, min: int | None = None, max: int | None = None, where: str | None = None
    ) -> CheckFailure | None:
        sql = f"SELECT count(*) AS n FROM {table}" + (f" WHERE {where}" if where else "")
        count = self.sample(sql).rows[0][0]
        if (min is None or count >= min) and (max is None or count <= max):
            return None
        expected = (
            f"exactly {min}"
            if min == max
            else f"at least {min}"
            if max is None
            else f"at most {max}"
            if min is None
            else f"between {min} and {max}"
        )
        return CountFailure(f"row_count on {table}", count, f"{expected} rows", sql)

    def _fresh(
        self, table: str, max_age: timedelta | str | float, column: str | None = None
    ) -> CheckFailure | None:
        limit = parse_age(max_age)
        if column is not None:
            sql = f"SELECT max({_quote(column)}) AS newest FROM {table}"
            newest = _instant(self.sample(sql).rows[0][0])
        else:
            newest, sql = self._snapshot_time(table)
        age = None if newest is None else datetime.now(UTC) - newest
        if age is not None and age <= limit:
            return None
        what = f"freshness({column})" if column else "freshness"
        return FreshnessFailure(f"{what} on {table}", newest, age, limit, sql)

    def _snapshot_time(self, table: str) -> tuple[datetime | None, str]:
        """When the snapshot a pinned read of ``table`` sees was committed."""
        if self.as_of is not None:
            sql = (
                f"SELECT max(committed_at) FROM {table}.snapshots"
                f" WHERE committed_at <= CAST({_literal(str(self.as_of))} AS TIMESTAMP)"
            )
        elif self.ref is not None and str(self.ref).isdigit():
            sql = f"SELECT committed_at FROM {table}.snapshots WHERE snapshot_id = {int(self.ref)}"
        else:
            name = str(self.ref) if self.ref is not None else "main"
            if name != "main" and not self._table_has_ref(table, name):
                name = "main"  # a table without the branch or tag is read at its current state
            sql = (
                f"SELECT s.committed_at FROM {table}.snapshots s JOIN {table}.refs r"
                f" ON s.snapshot_id = r.snapshot_id WHERE r.name = {_literal(name)}"
            )
        rows = self.sample(sql, pinned=False).rows
        return (_instant(rows[0][0]) if rows else None), sql

    def _schema(
        self, table: str, columns: Mapping[str, str], exact: bool = False
    ) -> CheckFailure | None:
        from icesql.dbapi_types import type_code

        sql = f"SELECT * FROM {table} LIMIT 0"
        schema, batches = self._stream(sql, True)
        for _ in batches:
            pass
        actual = {f.name.lower(): type_code(f.type) for f in schema}
        problems = []
        for name, expected in columns.items():
            got = actual.get(name.lower())
            if got is None:
                problems.append((name, expected, "(missing)"))
            elif _type_key(got) != _type_key(expected):
                problems.append((name, expected, got.lower()))
        if exact:
            wanted = {n.lower() for n in columns}
            problems += [(n, "(none)", t.lower()) for n, t in actual.items() if n not in wanted]
        return SchemaFailure(f"schema of {table}", problems, sql) if problems else None

    def _same_rows(self, query_a: str, query_b: str) -> CheckFailure | None:
        only_a = self.sample(_except_all(query_a, query_b))
        only_b = self.sample(_except_all(query_b, query_a))
        if not (only_a.count or only_b.count):
            return None
        return DiffFailure("same_rows", only_a, only_b, ("A", "B"))

    def _no_rows_removed(
        self, table: str, since: int | str, until: int | str | None = None
    ) -> CheckFailure | None:
        old, new = _version_query(table, since), _version_query(table, until)
        removed = self.sample(_except_all(old, new))
        if not removed.count:
            return None
        later = "the current version" if until is None else repr(until)
        return RowsFailure(
            f"no_rows_removed on {table} since {since!r}",
            removed,
            f"{removed.count} row(s) of {since!r} are gone from {later}",
        )

    def _grew(self, table: str, since: int | str) -> CheckFailure | None:
        before_sql = f"SELECT count(*) AS n FROM {table} VERSION AS OF {_literal(since)}"
        now_sql = f"SELECT count(*) AS n FROM {table}"
        before = self.sample(before_sql).rows[0][0]
        now = self.sample(now_sql).rows[0][0]
        if now > before:
            return None
        return CountFailure(
            f"grew on {table} since {since!r}",
            now,
            f"more than {before} rows",
            f"{before_sql};\n{now_sql}",
        )

    # -- the public assertions ---------------------------------------------------------
    def assert_no_rows(self, sql: str) -> None:
        """The query returns no rows (each row it returns breaks the rule)."""
        __tracebackhide__ = True
        _raise(self._no_rows(sql))

    def assert_unique(self, table: str, columns: str | Sequence[str]) -> None:
        """No two rows share the value of ``columns``; rows with a NULL key are not compared
        (as SQL's UNIQUE; ``assert_not_null`` covers them)."""
        __tracebackhide__ = True
        _raise(self._unique(table, columns))

    def assert_not_null(self, table: str, columns: str | Sequence[str]) -> None:
        """No row has NULL in any of ``columns``."""
        __tracebackhide__ = True
        _raise(self._not_null(table, columns))

    def assert_accepted_values(self, table: str, column: str, values: Sequence[Any]) -> None:
        """Every non-NULL value of ``column`` is one of ``values``."""
        __tracebackhide__ = True
        _raise(self._accepted_values(table, column, values))

    def assert_relationship(self, table: str, column: str, to_table: str, to_column: str) -> None:
        """Every non-NULL ``column`` value exists as ``to_column`` of ``to_table`` (a foreign key)."""
        __tracebackhide__ = True
        _raise(self._relationship(table, column, to_table, to_column))

    def assert_row_count(
        self, table: str, min: int | None = None, max: int | None = None, where: str | None = None
    ) -> None:
        """``min <= count <= max`` (either bound optional), of the rows matching ``where``."""
        __tracebackhide__ = True
        _raise(self._row_count(table, min, max, where))

    def assert_fresh(
        self, table: str, max_age: timedelta | str | float, column: str | None = None
    ) -> None:
        """The newest data is at most ``max_age`` old (``"24h"``, ``"2d"``, seconds or a
        timedelta): ``max(column)`` when given, else the commit time of the snapshot read."""
        __tracebackhide__ = True
        _raise(self._fresh(table, max_age, column))

    def assert_schema(self, table: str, columns: Mapping[str, str], exact: bool = False) -> None:
        """Each named column exists with its Spark type (``bigint``, ``decimal(12,2)``);
        ``exact`` refuses other columns too."""
        __tracebackhide__ = True
        _raise(self._schema(table, columns, exact))

    def assert_same_rows(self, query_a: str, query_b: str) -> None:
        """Both queries return the same rows, duplicates counted, order ignored."""
        __tracebackhide__ = True
        _raise(self._same_rows(query_a, query_b))

    def changes(self, table: str, from_ref: int | str, to_ref: int | str | None = None) -> Changes:
        """Rows added and removed from version ``from_ref`` to ``to_ref`` (default: the version
        read, pinned as configured): a snapshot id, a branch or a tag."""
        old, new = _version_query(table, from_ref), _version_query(table, to_ref)
        added_sql, removed_sql = _except_all(new, old), _except_all(old, new)
        return Changes(self.rows(added_sql), self.rows(removed_sql), (added_sql, removed_sql))

    def assert_no_rows_removed(
        self, table: str, since: int | str, until: int | str | None = None
    ) -> None:
        """Every row of version ``since`` is still in ``until`` (default: the version read)."""
        __tracebackhide__ = True
        _raise(self._no_rows_removed(table, since, until))

    def assert_grew(self, table: str, since: int | str) -> None:
        """The version read has more rows than version ``since``."""
        __tracebackhide__ = True
        _raise(self._grew(table, since))


# -- module-level forms: the same checks, the connection first ----------------------------
def assert_no_rows(connection: Connection, sql: str) -> None:
    """See :meth:`DataChecks.assert_no_rows`."""
    __tracebackhide__ = True
    DataChecks(connection).assert_no_rows(sql)


def assert_unique(connection: Connection, table: str, columns: str | Sequence[str]) -> None:
    """See :meth:`DataChecks.assert_unique`."""
    __tracebackhide__ = True
    DataChecks(connection).assert_unique(table, columns)


def assert_not_null(connection: Connection, table: str, columns: str | Sequence[str]) -> None:
    """See :meth:`DataChecks.assert_not_null`."""
    __tracebackhide__ = True
    DataChecks(connection).assert_not_null(table, columns)


def assert_accepted_values(
    connection: Connection, table: str, column: str, values: Sequence[Any]
) -> None:
    """See :meth:`DataChecks.assert_accepted_values`."""
    __tracebackhide__ = True
    DataChecks(connection).assert_accepted_values(table, column, values)


def assert_relationship(
    connection: Connection, table: str, column: str, to_table: str, to_column: str
) -> None:
    """See :meth:`DataChecks.assert_relationship`."""
    __tracebackhide__ = True
    DataChecks(connection).assert_relationship(table, column, to_table, to_column)


def assert_row_count(
    connection: Connection,
    table: str,
    min: int | None = None,
    max: int | None = None,
    where: str | None = None,
) -> None:
    """See :meth:`DataChecks.assert_row_count`."""
    __tracebackhide__ = True
    DataChecks(connection).assert_row_count(table, min, max, where)


def assert_fresh(
    connection: Connection, table: str, max_age: timedelta | str | float, column: str | None = None
) -> None:
    """See :meth:`DataChecks.assert_fresh`."""
    __tracebackhide__ = True
    DataChecks(connection).assert_fresh(table, max_age, column)


def assert_schema(
    connection: Connection, table: str, columns: Mapping[str, str], exact: bool = False
) -> None:
    """See :meth:`DataChecks.assert_schema`."""
    __tracebackhide__ = True
    DataChecks(connection).assert_schema(table, columns, exact)


def assert_same_rows(connection: Connection, query_a: str, query_b: str) -> None:
    """See :meth:`DataChecks.assert_same_rows`."""
    __tracebackhide__ = True
    DataChecks(connection).assert_same_rows(query_a, query_b)


def changes(
    connection: Connection, table: str, from_ref: int | str, to_ref: int | str | None = None
) -> Changes:
    """See :meth:`DataChecks.changes`."""
    return DataChecks(connection).changes(table, from_ref, to_ref)


def assert_no_rows_removed(
    connection: Connection, table: str, since: int | str, until: int | str | None = None
) -> None:
    """See :meth:`DataChecks.assert_no_rows_removed`."""
    __tracebackhide__ = True
    DataChecks(connection).assert_no_rows_removed(table, since, until)


def assert_grew(connection: Connection, table: str, since: int | str) -> None:
    """See :meth:`DataChecks.assert_grew`."""
    __tracebackhide__ = True
    DataChecks(connection).assert_grew(table, since)


# -- small parts -----------------------------------------------------------------------------
_AGE_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(w|d|h|m|s)", re.IGNORECASE)
_AGE_UNITS = {"w": "weeks", "d": "days", "h": "hours", "m": "minutes", "s": "seconds"}


def parse_age(value: timedelta | str | float) -> timedelta:
    """``"24h"``, ``"1d12h"``, ``"90m"``, ``"30s"``, ``"2w"``, seconds, or a timedelta.

    >>> parse_age("1d12h")
    datetime.timedelta(days=1, seconds=43200)
    """
    if isinstance(value, timedelta):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return timedelta(seconds=value)
    text = str(value).strip()
    parts = _AGE_PART.findall(text)
    if not parts or _AGE_PART.sub("", text).strip():
        raise ValueError(f"not an age: {value!r} (write e.g. '24h', '2d', '1d12h', '90m')")
    return sum((timedelta(**{_AGE_UNITS[u.lower()]: float(n)}) for n, u in parts), timedelta())


def _instant(value: Any) -> datetime | None:
    """A value of max(column) as an aware instant; dates and naive timestamps read as UTC."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    raise TypeError(f"freshness needs a date or timestamp column, got {value!r}")


def _columns(columns: str | Sequence[str]) -> list[str]:
    cols = [columns] if isinstance(columns, str) else list(columns)
    if not cols:
        raise ValueError("name at least one column")
    return cols


def _quote(name: str) -> str:
    """A column name as Spark SQL reads it (backticks, doubled inside, when needed)."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return name
    return "`" + name.replace("`", "``") + "`"


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _version_query(table: str, version: int | str | None) -> str:
    if version is None:
        return f"SELECT * FROM {table}"
    return f"SELECT * FROM {table} VERSION AS OF {_literal(version)}"


def _except_all(query_a: str, query_b: str) -> str:
    return f"SELECT * FROM ({query_a.strip().rstrip(';')}) EXCEPT ALL SELECT * FROM ({query_b.strip().rstrip(';')})"


def _type_key(name: str) -> str:
    return re.sub(r"\s+", "", name).lower()


def _raise(failure: CheckFailure | None) -> None:
    """Raise ``failure``. Here and in every ``assert_*``, ``__tracebackhide__`` keeps
    icesql's frames out of pytest's traceback: a failing check shows the test's line."""
    __tracebackhide__ = True
    if failure is not None:
        raise failure


def _programming_error(message: str) -> Exception:
    from icesql.errors import ProgrammingError

    return ProgrammingError(message)
