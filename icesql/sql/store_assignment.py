"""Spark's store assignment: how an INSERT's rows become values of the table's columns.

Spark 3.5 (``spark.sql.storeAssignmentPolicy=ANSI``) matches columns by position (or by the
statement's column list, which must then name every column but those with a v3
``write-default``, which they get), and allows only "reasonable"
conversions, decided before any row is read:

* numbers to any number; anything atomic to string; date <-> timestamp; timestamp with
  and without time zone either way; structs, arrays and maps element by element;
* never string to a number or date, never boolean to a number.

At run time numbers that do not fit are errors, not NULLs (``CAST_OVERFLOW_IN_TABLE_INSERT``),
fractions are truncated toward zero when stored in integer columns, decimals are rounded
half-up to the column's scale, and a NULL in a NOT NULL column fails the statement
(``NOT_NULL_ASSERT_VIOLATION``). Every error names the table and the column.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from icesql.errors import DataError, IntegrityError, ProgrammingError
from icesql.spec.arrow import to_arrow_scalar, type_to_arrow
from icesql.spec.file_schema import arrow_write_schema
from icesql.spec.geo import InvalidWKBError, parse_wkb
from icesql.spec.schema import Schema
from icesql.spec.types import (
    INT32_MIN,
    INT64_MIN,
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    GeographyType,
    GeometryType,
    IcebergType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    TimeType,
    UnknownType,
    UUIDType,
    VariantType,
    effective_default,
)
from icesql.spec.values import java_double_string, java_float_string
from icesql.sql.spark_type_names import spark_type

__all__ = ["Assignment", "arity_error"]

_NUMERIC = (IntegerType, LongType, FloatType, DoubleType, DecimalType)
_TIMESTAMPS = (TimestampType, TimestamptzType, TimestampNanoType, TimestamptzNanoType)
MICROS_PER_DAY = 86_400_000_000


def _is_numeric(t: pa.DataType) -> bool:
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)


def _is_string(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def _is_binary(t: pa.DataType) -> bool:
    return (
        pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
        or pa.types.is_binary_view(t)
        or pa.types.is_fixed_size_binary(t)
    )


def _is_list(t: pa.DataType) -> bool:
    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)


def _sql_name(t: pa.DataType) -> str:
    """Spark's name of a source (Arrow) type, for messages."""
    try:
        from icesql.spec.arrow import arrow_to_iceberg_type

        return spark_type(arrow_to_iceberg_type(t, [1])).upper()
    except Exception:
        return str(t).upper()


def is_variant_storage(t: pa.DataType) -> bool:
    """Whether ``t`` is how DuckDB hands over a VARIANT (Spark stores only a variant in a
    variant column)."""
    return (
        pa.types.is_struct(t)
        and [f.name for f in t] == ["metadata", "value"]
        and all(pa.types.is_binary(f.type) for f in t)
    )


def can_assign(source: pa.DataType, target: IcebergType) -> bool:
    """Spark's ``Cast.canANSIStoreAssign`` over an Arrow source and an Iceberg target."""
    if pa.types.is_dictionary(source):
        source = source.value_type
    if pa.types.is_null(source):
        return True
    if isinstance(target, UnknownType):
        return False  # a v3 unknown column takes NULL only (Spark's void), never a typed value
    if isinstance(target, _NUMERIC):
        return _is_numeric(source)
    if isinstance(target, StringType):
        return not (pa.types.is_struct(source) or _is_list(source) or pa.types.is_map(source))
    if isinstance(target, UUIDType):
        return _is_string(source) or pa.types.is_fixed_size_binary(source) or source == pa.uuid()
    if isinstance(target, BooleanType):
        return pa.types.is_boolean(source)
    if isinstance(target, BinaryType | FixedType):
        return _is_binary(source)
    if isinstance(target, GeometryType | GeographyType):
        return _is_binary(source)  # WKB, or DuckDB's GEOMETRY (WKB marked geoarrow.wkb)
    if isinstance(target, DateType):
        return pa.types.is_date(source) or pa.types.is_timestamp(source)
    if isinstance(target, _TIMESTAMPS):
        return pa.types.is_date(source) or pa.types.is_timestamp(source)
    if isinstance(target, TimeType):
        return pa.types.is_time(source)
    if isinstance(target, VariantType):
        return is_variant_storage(source)
    if isinstance(target, StructType):
        return (
            pa.types.is_struct(source)
            and source.num_fields == len(target.fields)
            and all(can_assign(source.field(i).type, f.type) for i, f in enumerate(target.fields))
        )
    if isinstance(target, ListType):
        return _is_list(source) and can_assign(source.value_type, target.element_type)
    if isinstance(target, MapType):
        return (
            pa.types.is_map(source)
            and can_assign(source.key_type, target.key_type)
            and can_assign(source.item_type, target.value_type)
        )
    return source == type_to_arrow(target)


class Assignment:
    """How the columns of a source stream become the table's columns, checked once."""

    def __init__(
        self,
        table: str,
        schema: Schema,
        source: pa.Schema,
        columns: Sequence[str] | None = None,
    ):
        self.table = table
        self.schema = schema
        self.arrow_schema = arrow_write_schema(schema)
        table_columns = [f.name for f in schema.fields]
        data_columns = [f.name for f in source]
        if columns is None:
            order = list(range(len(schema.fields)))
            if len(source) != len(schema.fields):
                raise arity_error(table, table_columns, data_columns)
            self._sources: list[int | None] = list(order)  # source position of each column
        else:
            lowered = [c.lower() for c in columns]
            if len(set(lowered)) != len(lowered):
                raise ProgrammingError(
                    f"cannot write to {table}: a column is named twice in {list(columns)}"
                )
            for c in lowered:
                if c not in [n.lower() for n in table_columns]:
                    raise ProgrammingError(
                        f"cannot write to {table}: no column {c!r} (columns: {', '.join(table_columns)})"
                    )
            if len(columns) != len(source):
                raise arity_error(table, list(columns), data_columns)
            self._sources = []
            for f in schema.fields:
                name = f.name
                if name.lower() not in lowered and f.write_default is not None:
                    self._sources.append(None)  # an omitted column gets its write-default
                    continue
                if name.lower() not in lowered:
                    raise ProgrammingError(
                        f"[INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_FIND_DATA] cannot write to {table}:"
                        f" cannot find data for the output column `{name}`"
                    )
                self._sources.append(lowered.index(name.lower()))
        for f, i in zip(schema.fields, self._sources):
            if i is None:
                continue
            if not can_assign(source.field(i).type, f.type):
                raise ProgrammingError(
                    f"[INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST] cannot write to {table}:"
                    f" cannot safely cast `{f.name}` {_sql_name(source.field(i).type)} to"
                    f" {spark_type(f.type).upper()}"
                )

    def convert(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        """The batch as the table's columns and types; raises DataError / IntegrityError."""
        arrays, fields = [], []
        for f, i in zip(self.schema.fields, self._sources):
            if isinstance(f.type, UnknownType):
                continue
            if i is None:
                value = effective_default(f, initial=False)
                array = pa.repeat(to_arrow_scalar(f.type, value), batch.num_rows)
                array = array.cast(self.arrow_schema.field(f.name).type)
            else:
                array = _convert(batch.column(i), f, f.name, self.table)
            _check_required(array, f, f.name, self.table)
            arrays.append(array)
            fields.append(self.arrow_schema.field(f.name))
        return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields))


def arity_error(
    table: str, table_columns: Sequence[str], data_columns: Sequence[str]
) -> ProgrammingError:
    """Spark's error for a query with fewer or more columns than the columns it fills."""
    too_few = len(data_columns) < len(table_columns)
    reason = "not enough data columns" if too_few else "too many data columns"
    kind = "NOT_ENOUGH_DATA_COLUMNS" if too_few else "TOO_MANY_DATA_COLUMNS"
    return ProgrammingError(
        f"[INSERT_COLUMN_ARITY_MISMATCH.{kind}] cannot write to {table}: {reason};"
        f" table columns: {', '.join(table_columns)}; data columns: {', '.join(data_columns)}"
    )


# ---------------------------------------------------------------------------------------------
# Conversions


def _overflow(source: pa.DataType, target: IcebergType, column: str, table: str) -> DataError:
    return DataError(
        f"[CAST_OVERFLOW_IN_TABLE_INSERT] cannot write to {table}: a value of type"
        f" {_sql_name(source)} does not fit the {spark_type(target).upper()} column `{column}`"
        " (overflow); use try_cast to store NULL instead"
    )


_TICKS_PER_DAY = {"s": 86_400, "ms": 86_400_000, "us": MICROS_PER_DAY, "ns": MICROS_PER_DAY * 1000}


def _timestamp_to_date(array: pa.Array) -> pa.Array:
    """The UTC day of each timestamp, by integer floor division of its ticks (a float would
    lose nanosecond counts past 2**53, about 104 days after 1970)."""
    ticks = pc.cast(array, pa.int64())
    nulls = pc.is_null(ticks).to_numpy(zero_copy_only=False)
    values = pc.fill_null(ticks, 0).to_numpy(zero_copy_only=False)
    days = np.floor_divide(values, _TICKS_PER_DAY[array.type.unit]).astype(np.int32)
    return pa.array(days, type=pa.int32(), mask=nulls if nulls.any() else None).cast(pa.date32())


def _convert(array: pa.Array, f: NestedField, column: str, table: str) -> pa.Array:
    target = f.type
    want = type_to_arrow(target)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if isinstance(array.type, pa.ExtensionType):
        array = array.storage  # e.g. geoarrow.wkb, where a library registered it
    source = array.type
    if pa.types.is_null(source):
        return pa.nulls(len(array), want)
    if isinstance(target, VariantType):
        return array.cast(want)
    if isinstance(target, StructType):
        return _struct(array, target, column, table)
    if isinstance(target, ListType):
        return _list(array, target, column, table)
    if isinstance(target, MapType):
        return _map(array, target, column, table)
    try:
        if isinstance(target, IntegerType | LongType):
            return _to_integer(array, want)
        if isinstance(target, DecimalType):
            return _to_decimal(array, target, want)
        if isinstance(target, FloatType | DoubleType):
            return pc.cast(array, want, safe=False)
        if isinstance(target, StringType):
            return _to_string(array)
        if isinstance(target, UUIDType):
            return _to_uuid(array, column, table)
        if isinstance(target, FixedType):
            return _to_fixed(array, target, column, table)
        if isinstance(target, BinaryType):
            return pc.cast(array, want)
        if isinstance(target, GeometryType | GeographyType):
            return _to_wkb(pc.cast(array, want), target, column, table)
        if isinstance(target, DateType):
            if pa.types.is_timestamp(source):
                return _timestamp_to_date(array)
            return pc.cast(array, want)
        if isinstance(target, _TIMESTAMPS):
            if pa.types.is_timestamp(source) and source.tz is not None and want.tz is None:
                array = pc.cast(array, pa.timestamp(source.unit))  # session time zone is UTC
            elif pa.types.is_timestamp(source) and source.tz is None and want.tz is not None:
                array = pc.assume_timezone(array, "UTC")
            return pc.cast(array, want)
        return pc.cast(array, want)
    except pa.ArrowInvalid as e:
        text = str(e).lower()
        if any(
            w in text for w in ("overflow", "out of bounds", "not fit", "not in range", "precision")
        ):
            raise _overflow(source, target, column, table) from None
        raise DataError(f"cannot write to {table}: column `{column}`: {e}") from None


def _to_wkb(array: pa.Array, target: IcebergType, column: str, table: str) -> pa.Array:
    """Binary values stored as they are, once each is checked to be one WKB geometry."""
    for i, value in enumerate(array.to_pylist()):
        if value is None:
            continue
        try:
            parse_wkb(value, iso=True)
        except InvalidWKBError as e:
            raise DataError(
                f"cannot write to {table}: column `{column}` ({target}): value {i + 1} of the"
                f" batch is not WKB ({e}); build geometries with ST_GeomFromWKB,"
                " ST_GeomFromText or CAST('POINT (1 2)' AS GEOMETRY)"
            ) from None
    return array


def _to_integer(array: pa.Array, want: pa.DataType) -> pa.Array:
    source = array.type
    if pa.types.is_floating(source):
        values = array.to_numpy(zero_copy_only=False)
        if not all(
            math.isfinite(v) for v in values[~pc.is_null(array).to_numpy(zero_copy_only=False)]
        ):
            raise pa.ArrowInvalid("overflow: NaN or infinity")
        array = pc.trunc(array)
        lo = float(INT32_MIN if want == pa.int32() else INT64_MIN)  # exact; -lo is max + 1
        if pc.any(pc.greater_equal(array, -lo)).as_py() or pc.any(pc.less(array, lo)).as_py():
            raise pa.ArrowInvalid("integer overflow")
        return pc.cast(array, want, safe=False)
    if pa.types.is_decimal(source):
        array = pc.round(array, 0, round_mode="towards_zero")
        return pc.cast(
            pc.cast(array, pa.decimal128(38, 0) if source.precision <= 38 else source), want
        )
    return pc.cast(array, want)


def _to_decimal(array: pa.Array, target: DecimalType, want: pa.DataType) -> pa.Array:
    source = array.type
    if pa.types.is_floating(source):
        quantum = Decimal(1).scaleb(-target.scale)
        out: list[Decimal | None] = []
        for v in array.to_pylist():
            if v is None:
                out.append(None)
                continue
            if not math.isfinite(v):
                raise pa.ArrowInvalid("overflow: NaN or infinity")
            try:
                d = Decimal(repr(v)).quantize(quantum, rounding=ROUND_HALF_UP)
            except InvalidOperation:
                raise pa.ArrowInvalid("overflow") from None
            if len(d.as_tuple().digits) > target.precision and d != 0:
                raise pa.ArrowInvalid("overflow")
            out.append(d)
        return pa.array(out, want)
    if pa.types.is_integer(source):
        array = pc.cast(
            array, pa.decimal128(38, 0) if source.bit_width > 32 else pa.decimal128(19, 0)
        )
    elif pa.types.is_decimal(source) and source.scale > target.scale:
        array = pc.round(array, target.scale, round_mode="half_towards_infinity")
    return pc.cast(array, want)


def _to_string(array: pa.Array) -> pa.Array:
    source = array.type
    if _is_string(source):
        return pc.cast(array, pa.string())
    if pa.types.is_floating(source):
        text = java_float_string if source == pa.float32() else java_double_string
        return pa.array([None if v is None else text(v) for v in array.to_pylist()], pa.string())
    if pa.types.is_boolean(source):
        return pa.array(
            [None if v is None else ("true" if v else "false") for v in array.to_pylist()],
            pa.string(),
        )
    if _is_binary(source):
        return pa.array(
            [None if v is None else v.decode("utf-8", "replace") for v in array.to_pylist()],
            pa.string(),
        )
    if pa.types.is_timestamp(source):
        out: list[str | None] = []
        for v in pc.cast(array, pa.timestamp("us", source.tz)).to_pylist():
            if v is None:
                out.append(None)
                continue
            text = v.strftime("%Y-%m-%d %H:%M:%S")
            if v.microsecond:
                text += f".{v.microsecond:06d}".rstrip("0")
            out.append(text)
        return pa.array(out, pa.string())
    return pc.cast(array, pa.string())


def _to_uuid(array: pa.Array, column: str, table: str) -> pa.Array:
    if pa.types.is_fixed_size_binary(array.type) and array.type.byte_width == 16:
        return pc.cast(array, pa.binary(16))
    if isinstance(array.type, pa.ExtensionType):
        return pc.cast(array.storage, pa.binary(16))
    out: list[bytes | None] = []
    for v in array.to_pylist():
        if v is None:
            out.append(None)
            continue
        try:
            out.append(uuid.UUID(str(v).strip()).bytes)
        except ValueError:
            raise DataError(
                f"cannot write to {table}: {v!r} is not a UUID (column `{column}`)"
            ) from None
    return pa.array(out, pa.binary(16))


def _to_fixed(array: pa.Array, target: FixedType, column: str, table: str) -> pa.Array:
    values = array.to_pylist()
    for v in values:
        if v is not None and len(v) != target.length:
            raise DataError(
                f"cannot write to {table}: a value of {len(v)} bytes does not fit"
                f" fixed({target.length}) column `{column}`"
            )
    return pa.array(values, pa.binary(target.length))


def _struct(array: pa.Array, target: StructType, column: str, table: str) -> pa.Array:
    valid = pc.is_valid(array)
    children = []
    for i, f in enumerate(target.fields):
        child = _convert(pc.struct_field(array, [i]), f, f"{column}.{f.name}", table)
        if f.required and child.null_count:
            if pc.any(pc.and_(valid, pc.is_null(child))).as_py():
                raise _null_error(f"{column}.{f.name}", table)
            child = _filled(child)  # under NULL structs only: any value will do
        children.append(child)
    want = type_to_arrow(target)
    mask = pc.invert(valid) if array.null_count else None
    return pa.StructArray.from_arrays(children, fields=list(want), mask=mask)


def _filled(array: pa.Array) -> pa.Array:
    """``array`` without NULLs (zero values instead): Arrow wants a value in every slot of a
    non-nullable child, even below a NULL parent, where it is never read."""
    t = array.type
    if pa.types.is_struct(t):
        children = [_filled(pc.struct_field(array, [i])) for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(children, fields=list(t))
    if pa.types.is_list(t) or pa.types.is_map(t):
        return pc.fill_null(array, pa.scalar([], type=t))
    if pa.types.is_fixed_size_binary(t):
        zero = pa.scalar(b"\x00" * t.byte_width, type=t)
    elif pa.types.is_string(t):
        zero = pa.scalar("", type=t)
    elif pa.types.is_binary(t):
        zero = pa.scalar(b"", type=t)
    elif pa.types.is_boolean(t):
        zero = pa.scalar(False, type=t)
    elif pa.types.is_decimal(t):
        zero = pa.scalar(Decimal(0), type=t)
    elif pa.types.is_date(t) or pa.types.is_time(t) or pa.types.is_timestamp(t):
        zero = (
            pa.scalar(0, type=pa.int64()).cast(t)
            if not pa.types.is_date32(t)
            else pa.scalar(0, pa.int32()).cast(t)
        )
    else:
        zero = pa.scalar(0, type=t)
    return pc.fill_null(array, zero)


def _list_parts(array: pa.Array) -> tuple[pa.Array, pa.Array]:
    if pa.types.is_fixed_size_list(array.type):
        array = pc.cast(array, pa.list_(array.type.value_field))
    offsets = array.offsets
    start = offsets[0].as_py()
    end = offsets[-1].as_py()
    values = array.values.slice(start, end - start)
    offsets = pc.subtract(offsets, pa.scalar(start, offsets.type))
    return pc.cast(offsets, pa.int32()), values


def _list(array: pa.Array, target: ListType, column: str, table: str) -> pa.Array:
    offsets, values = _list_parts(array)
    values = _convert(values, target.element_field, f"{column}.element", table)
    if target.element_required and values.null_count:
        raise _null_error(f"{column}.element", table)
    mask = pc.is_null(array) if array.null_count else None
    return pa.ListArray.from_arrays(offsets, values, type=type_to_arrow(target), mask=mask)


def _map(array: pa.Array, target: MapType, column: str, table: str) -> pa.Array:
    offsets, _ = _list_parts(array)
    start = array.offsets[0].as_py()
    end = array.offsets[-1].as_py()
    keys = _convert(array.keys.slice(start, end - start), target.key_field, f"{column}.key", table)
    items = _convert(
        array.items.slice(start, end - start), target.value_field, f"{column}.value", table
    )
    if keys.null_count:
        raise _null_error(f"{column}.key", table)
    if target.value_required and items.null_count:
        raise _null_error(f"{column}.value", table)
    mask = pc.is_null(array) if array.null_count else None
    return pa.MapArray.from_arrays(offsets, keys, items, type=type_to_arrow(target), mask=mask)


def _null_error(column: str, table: str) -> IntegrityError:
    return IntegrityError(
        f"[NOT_NULL_ASSERT_VIOLATION] cannot write to {table}: NULL value in NOT NULL column `{column}`"
    )


def _check_required(array: pa.Array, f: NestedField, column: str, table: str) -> None:
    """NULLs in a required top-level column (nested ones are checked while converting)."""
    if f.required and array.null_count:
        raise _null_error(column, table)
