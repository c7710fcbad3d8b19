"""Spark SQL types to Iceberg types, and Java's fresh field-id assignment (the names back,
``spark_type``/``spark_ddl_type``, are ``icesql.sql.spark_type_names``'s).

``TIMESTAMP`` is Spark's local-time-zone timestamp, so it becomes ``timestamptz``;
``TIMESTAMP_NTZ`` becomes ``timestamp``; ``TINYINT``/``SMALLINT`` widen to ``int`` and
``CHAR``/``VARCHAR`` to ``string``, as Iceberg's Spark catalog does. Beyond Spark, icesql
accepts ``UUID``, ``FIXED(L)``, ``TIME``, ``TIMESTAMP_NS``, ``TIMESTAMPTZ_NS``, ``VARIANT`` and the geospatial types
``GEOMETRY[('<crs>')]`` / ``GEOGRAPHY[('<crs>'[, <algorithm>])]`` (a CRS is the spec's
``type:identifier`` string, quoted in SQL because ``:`` is no SQL token; an integer ``N``, as
Spark 4.1 writes it, is ``srid:N``)::

    >>> str(iceberg_type(exp.DataType.build("GEOGRAPHY('srid:4269', karney)", dialect="spark")))
    'geography(srid:4269, karney)'

Field ids are assigned by ``icesql.spec.fresh_ids.fresh_schema_fields`` (Java's order), so
Spark and icesql give the same table the same ids::

    >>> st = exp.DataType.build("STRUCT<a: INT, b: STRUCT<c: INT>, d: INT>", dialect="spark")
    >>> [str(f) for f in fresh_schema_fields(struct_fields(st), 1)]
    ['1: a: optional int', '2: b: optional struct<4: c: optional int>', '3: d: optional int']
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from icesql.errors import NotSupportedError, ProgrammingError
from icesql.spec.fresh_ids import fresh_schema_fields
from icesql.spec.types import (
    DEFAULT_ALGORITHM,
    DEFAULT_CRS,
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
)

__all__ = [
    "EDGE_ALGORITHMS",
    "column_field",
    "fresh_schema_fields",
    "iceberg_type",
    "struct_fields",
]

T = exp.DType  # the enum behind exp.DataType.Type (a class variable, so no type to mypy)
_SIMPLE: dict[T, Callable[[], IcebergType]] = {
    T.BOOLEAN: BooleanType,
    T.TINYINT: IntegerType,
    T.SMALLINT: IntegerType,
    T.INT: IntegerType,
    T.BIGINT: LongType,
    T.FLOAT: FloatType,
    T.DOUBLE: DoubleType,
    T.TEXT: StringType,
    T.VARCHAR: StringType,
    T.CHAR: StringType,
    T.NVARCHAR: StringType,
    T.BINARY: BinaryType,
    T.VARBINARY: BinaryType,
    T.DATE: DateType,
    T.TIMESTAMP: TimestamptzType,
    T.TIMESTAMPTZ: TimestamptzType,
    T.TIMESTAMPLTZ: TimestamptzType,
    T.TIMESTAMPNTZ: TimestampType,
    T.TIMESTAMP_NS: TimestampNanoType,
    T.TIME: TimeType,
    T.UUID: UUIDType,
    T.VARIANT: VariantType,
}
# the Iceberg type names the dialect parses as user-defined types (icesql.sql.dialect.NAMED_TYPES)
_NAMED: dict[str, Callable[[], IcebergType]] = {"TIMESTAMPTZ_NS": TimestamptzNanoType}
PLACEHOLDER_ID = 0


def _params(dt: exp.DataType) -> list[int]:
    out = []
    for p in dt.expressions:
        node = p.this if isinstance(p, exp.DataTypeParam) else p
        try:
            out.append(int(node.name))
        except (ValueError, AttributeError):
            raise ProgrammingError(f"invalid type parameter in {dt.sql(dialect='spark')}") from None
    return out


def iceberg_type(dt: exp.DataType) -> IcebergType:
    """The Iceberg type of a parsed Spark SQL type; nested ids are placeholders (0)."""
    kind = dt.this
    if kind in _SIMPLE:
        return _SIMPLE[kind]()
    if kind == T.DECIMAL:
        params = _params(dt)
        precision = params[0] if params else 10
        scale = params[1] if len(params) > 1 else 0
        if not 1 <= precision <= 38 or not 0 <= scale <= precision:
            raise ProgrammingError(f"invalid decimal type DECIMAL({precision},{scale})")
        return DecimalType(precision, scale)
    if kind == T.FIXEDSTRING:
        (length,) = _params(dt) or [0]
        if length <= 0:
            raise ProgrammingError("FIXED needs a positive length, e.g. FIXED(16)")
        return FixedType(length)
    if kind == T.ARRAY:
        (element,) = dt.expressions
        return ListType(PLACEHOLDER_ID, iceberg_type(element), False)
    if kind == T.MAP:
        key, value = dt.expressions
        return MapType(
            PLACEHOLDER_ID, iceberg_type(key), PLACEHOLDER_ID, iceberg_type(value), False
        )
    if kind == T.STRUCT:
        return StructType(tuple(struct_fields(dt)))
    if kind == T.NULL:
        return UnknownType()
    if kind in (T.GEOMETRY, T.GEOGRAPHY):
        return _geospatial(dt)
    if kind == T.USERDEFINED and str(dt.args.get("kind", "")).upper() in _NAMED:
        return _NAMED[str(dt.args["kind"]).upper()]()
    raise NotSupportedError(f"type {dt.sql(dialect='spark')} cannot be stored in an Iceberg table")


EDGE_ALGORITHMS = ("spherical", "vincenty", "thomas", "andoyer", "karney")


def _geo_param(dt: exp.DataType, p: exp.Expression, what: str) -> str:
    node: exp.Expr | None = p.this if isinstance(p, exp.DataTypeParam) else p
    if isinstance(p, exp.DataTypeParam) and p.args.get("expression") is not None:
        node = None  # `OGC:CRS84` unquoted: the tokens after the colon are lost
    if isinstance(node, exp.Literal) and node.is_string and node.name.strip():
        return node.name.strip()
    if what == "CRS" and isinstance(node, exp.Literal) and node.is_int:
        return f"srid:{int(node.name)}"
    if what == "algorithm" and isinstance(node, exp.Var | exp.Column | exp.Identifier):
        return node.name
    raise ProgrammingError(
        f"invalid {what} in {dt.sql(dialect='spark')}: write the CRS as a string or an SRID,"
        " e.g. GEOMETRY('OGC:CRS84'), GEOMETRY(4326), GEOGRAPHY('srid:4326', 'karney')"
    )


def _geospatial(dt: exp.DataType) -> IcebergType:
    """``geometry(C)`` / ``geography(C, A)`` with the spec's defaults (``OGC:CRS84``,
    ``spherical``); an algorithm the spec does not name is refused."""
    params = list(dt.expressions)
    geography = dt.this == T.GEOGRAPHY
    if len(params) > (2 if geography else 1):
        raise ProgrammingError(
            f"{dt.sql(dialect='spark')}: {'GEOGRAPHY takes a CRS and an edge algorithm' if geography else 'GEOMETRY takes one CRS'}"
        )
    crs = _geo_param(dt, params[0], "CRS") if params else DEFAULT_CRS
    if any(c.isspace() or c in "(),\"'" for c in crs):
        raise ProgrammingError(f"invalid CRS {crs!r} in {dt.sql(dialect='spark')}")
    if not geography:
        return GeometryType(crs)
    algorithm = (
        _geo_param(dt, params[1], "algorithm").lower() if len(params) > 1 else DEFAULT_ALGORITHM
    )
    if algorithm not in EDGE_ALGORITHMS:
        raise NotSupportedError(
            f"edge-interpolation algorithm {algorithm!r} in {dt.sql(dialect='spark')}: the spec"
            f" defines {', '.join(EDGE_ALGORITHMS)}"
        )
    return GeographyType(crs, algorithm)


def column_field(node: exp.ColumnDef) -> NestedField:
    """A column definition (name, type, NOT NULL, COMMENT) with a placeholder id."""
    kind = node.args.get("kind")
    if not isinstance(kind, exp.DataType):
        raise ProgrammingError(f"column {node.name} needs a type")
    required, doc = False, None
    for constraint in node.args.get("constraints") or []:
        c = constraint.args.get("kind")
        if isinstance(c, exp.NotNullColumnConstraint):
            required = not c.args.get("allow_null")
        elif isinstance(c, exp.CommentColumnConstraint):
            doc = c.this.name
        else:
            raise NotSupportedError(
                f"column constraint {constraint.sql(dialect='spark')} is not supported"
            )
    return NestedField(PLACEHOLDER_ID, node.name, iceberg_type(kind), required, doc)


def struct_fields(dt: exp.DataType) -> list[NestedField]:
    out = []
    for child in dt.expressions:
        if isinstance(child, exp.ColumnDef):
            out.append(column_field(child))
        elif isinstance(child, exp.DataType):  # unnamed (not Spark syntax)
            raise ProgrammingError(f"struct fields need names: {dt.sql(dialect='spark')}")
    return out
