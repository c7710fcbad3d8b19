"""The Avro schemas of ``manifest_entry`` per format version, built the way Java's
``V1Metadata`` / ``V2Metadata`` / ``V3Metadata`` and ``AvroSchemaUtil`` build them.

The partition tuple is a record named ``r102`` whose fields carry the partition field ids
and the Avro types of Appendix A (``date`` as ``int``/``date``, decimals as the smallest
``fixed``, ...). Partition fields are optional, so each is a union with null.
"""

from __future__ import annotations

from typing import Any

from icesql.errors import NotSupportedError
from icesql.metadata.avro.schema import avro_field, avro_int_map, avro_list, compatible_name
from icesql.spec.dispatch import PerPrimitiveType
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.types import (
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
    LongType,
    StringType,
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
    "DEFAULT_BLOCK_SIZE",
    "PartitionField",
    "decimal_required_bytes",
    "manifest_entry_schema",
    "partition_fields",
]

DEFAULT_BLOCK_SIZE = 64 * 1024 * 1024  # v1 block_size_in_bytes, always written by Java

# (field id, name in the partition record, Iceberg result type)
PartitionField = tuple[int, str, IcebergType]


def _simple(avro: Any) -> Any:
    return lambda t, named: dict(avro) if isinstance(avro, dict) else avro


def _fixed(name: str, named: set[str], **props: Any) -> Any:
    """A named Avro ``fixed``; one seen before is referenced by name, since Avro forbids
    defining a name twice in one schema."""
    if name in named:
        return name
    named.add(name)
    return {"type": "fixed", "name": name, **props}


def _not_in_manifest(t: IcebergType, named: set[str]) -> Any:
    raise NotSupportedError(f"partition values of type {t} cannot be written to a manifest")


_AVRO_TYPES: PerPrimitiveType[Any] = PerPrimitiveType(
    "Avro partition type",
    {
        BooleanType: _simple("boolean"),
        IntegerType: _simple("int"),
        LongType: _simple("long"),
        FloatType: _simple("float"),
        DoubleType: _simple("double"),
        StringType: _simple("string"),
        BinaryType: _simple("bytes"),
        DateType: _simple({"type": "int", "logicalType": "date"}),
        TimeType: _simple({"type": "long", "logicalType": "time-micros"}),
        TimestampType: _simple(
            {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": False}
        ),
        TimestamptzType: _simple(
            {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": True}
        ),
        TimestampNanoType: _simple(
            {"type": "long", "logicalType": "timestamp-nanos", "adjust-to-utc": False}
        ),
        TimestamptzNanoType: _simple(
            {"type": "long", "logicalType": "timestamp-nanos", "adjust-to-utc": True}
        ),
        DecimalType: lambda t, named: _fixed(
            f"decimal_{t.precision}_{t.scale}",
            named,
            size=decimal_required_bytes(t.precision),
            logicalType="decimal",
            precision=t.precision,
            scale=t.scale,
        ),
        UUIDType: lambda t, named: _fixed("uuid_fixed", named, size=16, logicalType="uuid"),
        FixedType: lambda t, named: _fixed(f"fixed_{t.length}", named, size=t.length),
        (UnknownType, VariantType, GeometryType, GeographyType): _not_in_manifest,
    },
)


def decimal_required_bytes(precision: int) -> int:
    """Bytes of the smallest two's-complement ``fixed`` holding ``precision`` digits."""
    return ((10**precision - 1).bit_length() + 1 + 7) // 8


def avro_type(t: IcebergType, named: set[str]) -> Any:
    """The Avro type of a primitive partition type (Appendix A); ``named`` collects the
    names of the ``fixed`` types defined so far in the schema."""
    return _AVRO_TYPES(t, named)


def partition_fields(spec: PartitionSpec | dict[str, Any], schema: Schema) -> list[PartitionField]:
    """The partition tuple's fields for a ``PartitionSpec`` (or its JSON) and table schema."""
    if isinstance(spec, dict):
        spec = PartitionSpec.from_json(spec)
    return [(f.field_id, f.name, f.type) for f in spec.partition_type(schema).fields]


def partition_record(fields: list[PartitionField]) -> dict[str, Any]:
    named: set[str] = set()
    avro_fields = []
    for field_id, name, t in fields:
        f = avro_field(compatible_name(name), avro_type(t, named), field_id, optional=True)
        if f["name"] != name:  # Java keeps the original name, before the field id
            f = {k: v for k, v in f.items() if k != "field-id"}
            f["iceberg-field-name"] = name
            f["field-id"] = field_id
        avro_fields.append(f)
    return {"type": "record", "name": "r102", "fields": avro_fields}


def manifest_entry_schema(format_version: int, fields: list[PartitionField]) -> dict[str, Any]:
    """The ``manifest_entry`` schema of a format version for a partition tuple."""
    f = avro_field
    v1 = format_version == 1
    data_file: list[dict[str, Any]] = []
    if not v1:
        data_file.append(
            f(
                "content",
                "int",
                134,
                doc="Contents of the file: 0=data, 1=position deletes, 2=equality deletes",
            )
        )
    partition = f("partition", partition_record(fields), 102)
    if not v1:
        partition["doc"] = "Partition data tuple, schema based on the partition spec"
        partition = {k: partition[k] for k in ("name", "type", "doc", "field-id")}
    data_file += [
        f("file_path", "string", 100, doc="Location URI with FS scheme"),
        f("file_format", "string", 101, doc="File format name: avro, orc, or parquet"),
        partition,
        f("record_count", "long", 103, doc="Number of records in the file"),
        f("file_size_in_bytes", "long", 104, doc="Total file size in bytes"),
    ]
    if v1:
        data_file.append(f("block_size_in_bytes", "long", 105))
    data_file += [
        f(
            "column_sizes",
            avro_int_map(117, 118, "long"),
            108,
            True,
            "Map of column id to total size on disk",
        ),
        f(
            "value_counts",
            avro_int_map(119, 120, "long"),
            109,
            True,
            "Map of column id to total count, including null and NaN",
        ),
        f(
            "null_value_counts",
            avro_int_map(121, 122, "long"),
            110,
            True,
            "Map of column id to null value count",
        ),
        f(
            "nan_value_counts",
            avro_int_map(138, 139, "long"),
            137,
            True,
            "Map of column id to number of NaN values in the column",
        ),
        f(
            "lower_bounds",
            avro_int_map(126, 127, "bytes"),
            125,
            True,
            "Map of column id to lower bound",
        ),
        f(
            "upper_bounds",
            avro_int_map(129, 130, "bytes"),
            128,
            True,
            "Map of column id to upper bound",
        ),
        f("key_metadata", "bytes", 131, True, "Encryption key metadata blob"),
        f("split_offsets", avro_list(133, "long"), 132, True, "Splittable offsets"),
    ]
    if not v1:
        data_file.append(
            f("equality_ids", avro_list(136, "int"), 135, True, "Equality comparison field IDs")
        )
    data_file.append(f("sort_order_id", "int", 140, True, "Sort order ID"))
    if format_version >= 3:
        data_file.append(
            f(
                "first_row_id",
                "long",
                142,
                True,
                "The first row ID assigned to the first row in the data file",
            )
        )
    if not v1:
        data_file.append(
            f(
                "referenced_data_file",
                "string",
                143,
                True,
                "Fully qualified location (URI with FS scheme) of a data file that all deletes reference",
            )
        )
    if format_version >= 3:
        data_file += [
            f(
                "content_offset",
                "long",
                144,
                True,
                "The offset in the file where the content starts",
            ),
            f(
                "content_size_in_bytes",
                "long",
                145,
                True,
                "The length of referenced content stored in the file",
            ),
        ]
    # snapshot_id is optional in every version as Java writes it (v1 values are always set)
    entry = [f("status", "int", 0), f("snapshot_id", "long", 1, optional=True)]
    if not v1:
        entry += [f("sequence_number", "long", 3, True), f("file_sequence_number", "long", 4, True)]
    entry.append(f("data_file", {"type": "record", "name": "r2", "fields": data_file}, 2))
    return {"type": "record", "name": "manifest_entry", "fields": entry}
