"""Python objects as tables in SQL, as DuckDB's replacement scans have them.

An unqualified table name that is no Iceberg table may name a Python object holding rows:
a pandas DataFrame, a polars DataFrame or LazyFrame, a pyarrow Table, RecordBatch, Dataset
or RecordBatchReader, or any object with ``__arrow_c_stream__`` (the Arrow PyCapsule stream
protocol). A name is looked up in this order, the first hit wins:

1. an Iceberg table of the current catalog and namespace (tables always win, so a name means
   the same table whether the statement reads it or writes it);
2. a name given to ``Connection.register(name, obj)``;
3. a local variable of the frame that called ``execute``, then a global of that frame.

Each object becomes something DuckDB scans as a stream of Arrow batches (``scannable``):
Arrow tables and datasets as they are (DuckDB pushes projections and filters into a
dataset), pandas through ``pa.Table.from_pandas`` (one type mapping, pyarrow's, for
nullable, categorical and time-zone-aware dtypes), polars DataFrames through ``to_arrow``
(no copy), LazyFrames as a stream of their result's batches, run again for each scan.
A RecordBatchReader is read once, batch by batch as DuckDB pulls them, never held whole:
a second scan of it fails with DuckDB's own message. Which types a table column accepts is
decided later, by Spark's store assignment (``icesql.sql.store_assignment``), as for any
SQL source.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING, Any

from icesql._lazy import lazy_module
from icesql.errors import ProgrammingError
from icesql.spec.schema import Schema
from icesql.spec.types import NestedField, UnknownType
from icesql.sql.bound_query import TableSource, query_type_name

if TYPE_CHECKING:
    import pyarrow as pa

    from icesql.spec import arrow
else:  # pyarrow loads on first use (icesql._lazy)
    pa = lazy_module("pyarrow")
    arrow = lazy_module("icesql.spec.arrow")

__all__ = ["PythonScope", "PythonSource", "is_table_like", "scannable"]

REGISTERED = "registered"
LOCAL = "local variable"
GLOBAL = "global variable"


@dataclass(frozen=True)
class PythonSource:
    """A Python object a table name resolved to, ready for DuckDB to scan."""

    name: str
    origin: str  # REGISTERED, LOCAL or GLOBAL
    obj: Any  # what DuckDB registers (``scannable(obj)``)

    def table_source(self) -> TableSource | None:
        """Its columns for the binder, when the schema is known without reading a row."""
        schema = _arrow_schema(self.obj)
        if schema is None:
            return None
        counter = [len(schema) + 1]
        fields, types = [], {}
        for i, f in enumerate(schema, start=1):
            try:
                t = arrow.arrow_field_type(f, counter)
            except Exception:
                fields.append(NestedField(i, f.name, UnknownType(), False))
                continue
            fields.append(NestedField(i, f.name, t, False))
            types[f.name] = query_type_name(t).upper()
        return TableSource(Schema(tuple(fields)), types)


class PythonScope:
    """Where names that are no Iceberg table are looked up: the registered objects, then the
    caller's locals, then its globals (module docstring)."""

    def __init__(
        self,
        registered: Mapping[str, Any],
        frame_locals: Mapping[str, Any] | None = None,
        frame_globals: Mapping[str, Any] | None = None,
    ):
        self.registered = registered
        self.frame_locals = frame_locals or {}
        self.frame_globals = frame_globals or {}
        self._converted: dict[int, Any] = {}  # id(obj): (obj, scannable(obj)), this statement's

    def new_statement(self) -> None:
        """Forget conversions: an object may have changed in place since the last statement."""
        self._converted.clear()

    def lookup(self, name: str) -> PythonSource | None:
        """The table-like object ``name`` names, converted for DuckDB; None when none does.
        Registered names match case-insensitively, as SQL names do; variables exactly. An
        object is converted once per statement (``new_statement``): an INSERT that looks its
        source up twice (``Engine.python_rows``, then the query) converts a DataFrame once."""
        found = _registered(self.registered, name)
        if found is not None:
            return PythonSource(name, REGISTERED, self._scannable(found, name))
        for origin, namespace in ((LOCAL, self.frame_locals), (GLOBAL, self.frame_globals)):
            obj = namespace.get(name)
            if obj is not None and is_table_like(obj):
                return PythonSource(name, origin, self._scannable(obj, name))
        return None

    def _scannable(self, obj: Any, name: str) -> Any:
        kept = self._converted.get(id(obj))
        if kept is None or kept[0] is not obj:
            kept = self._converted[id(obj)] = (obj, scannable(obj, name))
        return kept[1]


def caller_scope(registered: Mapping[str, Any], package: str = "icesql") -> PythonScope:
    """The scope of the first frame on the stack outside ``package`` (the frame that called
    ``execute``, past the DB-API and the shell); its namespaces are read during the
    statement, not kept."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and _in_package(frame.f_globals.get("__name__", ""), package):
        frame = frame.f_back
    if frame is None:
        return PythonScope(registered)
    try:
        return PythonScope(registered, frame.f_locals, frame.f_globals)
    finally:
        del frame


def _in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def is_table_like(obj: Any) -> bool:
    """Whether ``obj`` is an object a table name may stand for (module docstring)."""
    if isinstance(obj, type):
        return False  # a class (pd.DataFrame itself) has the protocol methods too
    if isinstance(obj, pa.Table | pa.RecordBatch | pa.RecordBatchReader):
        return True
    if _kind(obj) is not None:
        return True
    return hasattr(obj, "__arrow_c_stream__")


def scannable(obj: Any, name: str) -> Any:
    """What DuckDB registers for ``obj``: an Arrow table, dataset or reader, or an object
    with ``__arrow_c_stream__``. Raises ProgrammingError naming the column pyarrow cannot
    convert, or the object's type when it holds no rows."""
    if isinstance(obj, pa.Table | pa.RecordBatchReader):
        return obj
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj])
    kind = _kind(obj)
    if kind == "dataset":
        return obj
    if kind == "pandas":
        return _from_pandas(obj, name)
    if kind == "polars":
        return _polars_arrow(obj, name)
    if kind == "lazyframe":
        return _LazyFrameStream(obj, name)
    if hasattr(obj, "__arrow_c_stream__") and not isinstance(obj, type):
        return obj
    raise ProgrammingError(
        f"cannot use {name!r} as a table: an object of type {type(obj).__name__} holds no rows"
        " (expected a"
        " pandas or polars DataFrame, a polars LazyFrame, a pyarrow Table, Dataset or"
        " RecordBatchReader, or an object with __arrow_c_stream__)"
    )


# ---------------------------------------------------------------------------------------------


def _registered(registered: Mapping[str, Any], name: str) -> Any:
    if name in registered:
        return registered[name]
    lowered = [k for k in registered if k.lower() == name.lower()]
    return registered[lowered[0]] if len(lowered) == 1 else None


def _kind(obj: Any) -> str | None:
    """Which optional library's table-like class ``obj`` is, without importing any: a library
    the caller has not imported cannot have made the object."""
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(obj, pd.DataFrame):
        return "pandas"
    pl = sys.modules.get("polars")
    if pl is not None and isinstance(obj, pl.DataFrame):
        return "polars"
    if pl is not None and isinstance(obj, pl.LazyFrame):
        return "lazyframe"
    ds = sys.modules.get("pyarrow.dataset")
    if ds is not None and isinstance(obj, ds.Dataset):
        return "dataset"
    return None


def _from_pandas(df: Any, name: str) -> pa.Table:
    """A pandas DataFrame as an Arrow table (its index left out, as DuckDB leaves it out)."""
    try:
        return pa.Table.from_pandas(df, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as e:
        for column in df.columns:
            try:
                pa.array(df[column], from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as inner:
                raise ProgrammingError(
                    f"cannot read DataFrame {name!r}: column `{column}` (dtype"
                    f" {df[column].dtype}) has no Arrow type: {inner}"
                ) from None
        raise ProgrammingError(f"cannot read DataFrame {name!r}: {e}") from None


def _polars_arrow(df: Any, name: str) -> pa.Table:
    try:
        return df.to_arrow()
    except Exception as e:
        raise ProgrammingError(f"cannot read polars DataFrame {name!r}: {e}") from None


class _LazyFrameStream:
    """A polars LazyFrame as an Arrow stream: each scan runs the plan again, and its result
    arrives in batches (``collect_batches``) rather than collected whole, where polars has it."""

    def __init__(self, frame: Any, name: str):
        self.frame = frame
        self.name = name
        self._schema: pa.Schema | None = None

    @property
    def schema(self) -> pa.Schema:
        if self._schema is None:
            self._schema = _polars_arrow(self.frame.clear().collect(), self.name).schema
        return self._schema

    def batches(self) -> Iterator[pa.RecordBatch]:
        schema = self.schema
        frames = (
            self.frame.collect_batches()
            if hasattr(self.frame, "collect_batches")
            else [self.frame.collect()]
        )
        for frame in frames:
            table = _polars_arrow(frame, self.name)
            if table.schema != schema:
                table = table.cast(schema)
            yield from table.to_batches()

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        reader = pa.RecordBatchReader.from_batches(self.schema, self.batches())
        return reader.__arrow_c_stream__(requested_schema)


def _arrow_schema(obj: Any) -> pa.Schema | None:
    """The schema of a scannable without reading rows, where it says so."""
    schema = getattr(obj, "schema", None)
    if isinstance(schema, pa.Schema):
        return schema
    if hasattr(obj, "__arrow_c_schema__"):
        try:
            return pa.schema(obj)
        except Exception:
            return None
    return None
