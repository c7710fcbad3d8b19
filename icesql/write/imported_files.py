"""Data files written elsewhere, described for a manifest without rewriting them: what
``add_files`` imports from a folder of Parquet files (Java's ``TableMigrationUtil``).

A source folder is read as Spark's file index reads it: files whose names start with ``_``
or ``.`` are hidden; a partitioned table's files sit in hive-style folders
``<field>=<value>/...``, one level per partition field of the table's (identity) spec,
the value unescaped (``%XX``) and ``__HIVE_DEFAULT_PARTITION__`` meaning null; an
unpartitioned table takes the files directly in the folder. Each file's ``DataFile``
comes from its footer alone: row count and the metrics
``column_metrics.footer_metrics`` derives, columns matched to the table by the file's
field ids or else by the table's name mapping.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.parquet as pq

from icesql.errors import NotSupportedError, OperationalError, ProgrammingError
from icesql.io import FileIO
from icesql.spec.arrow import FIELD_ID_KEY
from icesql.spec.content_file import DATA, DataFile
from icesql.spec.name_mapping import NameMapping
from icesql.spec.partitioning import PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IcebergType,
    IntegerType,
    LongType,
    StringType,
)
from icesql.write.column_metrics import MetricsConfig, footer_metrics

__all__ = ["SourcePartition", "imported_data_file", "source_partitions"]

HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


@dataclass(frozen=True)
class SourcePartition:
    """One folder of source files and the partition tuple (table spec order) they get."""

    folder: str
    values: tuple[Any, ...]
    raw: Mapping[str, str]  # field name -> folder value text, for partition_filter


def _hidden(name: str) -> bool:
    return name.startswith(("_", "."))


def _join(folder: str, name: str) -> str:
    return f"{folder.rstrip('/')}/{name}"


def source_partitions(
    io: FileIO, root: str, spec: PartitionSpec, schema: Schema, partition_filter: Mapping[str, str]
) -> list[SourcePartition]:
    """The partition folders below ``root`` whose values match ``partition_filter`` (each
    key's folder text equal to its value); for an unpartitioned spec, ``root`` itself."""
    if not io.isdir(root):
        raise ProgrammingError(f"source folder {root} does not exist or is not a folder")
    names = [f.name for f in spec.fields]
    found: list[SourcePartition] = []

    def walk(folder: str, raw: dict[str, str]) -> None:
        depth = len(raw)
        for name in io.listdir(folder):
            path = _join(folder, name)
            if _hidden(name) or "=" not in name or not io.isdir(path):
                continue
            key, _, text = name.partition("=")
            key = unquote(key)
            if depth >= len(names) or key != names[depth]:
                expected = "/".join(f"{n}=..." for n in names) or "none (unpartitioned)"
                raise ProgrammingError(
                    f"source folder {path} is a partition folder of {key!r}, but the table's"
                    f" partition folders are {expected}"
                )
            walk(path, {**raw, key: unquote(text)})
        if depth == len(names) and depth > 0:
            found.append(SourcePartition(folder, _values(spec, schema, raw), dict(raw)))

    walk(root, {})
    if not names:
        return [SourcePartition(root, (), {})]
    return [p for p in found if all(p.raw.get(k) == v for k, v in partition_filter.items())]


def _values(spec: PartitionSpec, schema: Schema, raw: Mapping[str, str]) -> tuple[Any, ...]:
    return tuple(
        _partition_value(schema.find_type(f.source_id), raw[f.name], f.name) for f in spec.fields
    )


def _partition_value(t: IcebergType, text: str, name: str) -> Any:
    """A folder's value text as the partition value of type ``t`` (Java's
    ``Conversions.fromPartitionString``)."""
    if text == HIVE_NULL:
        return None
    try:
        if isinstance(t, StringType):
            return text
        if isinstance(t, IntegerType | LongType):
            return int(text)
        if isinstance(t, DateType):
            return (dt.date.fromisoformat(text) - dt.date(1970, 1, 1)).days
        if isinstance(t, BooleanType):
            if text.lower() not in ("true", "false"):
                raise ValueError(text)
            return text.lower() == "true"
        if isinstance(t, FloatType | DoubleType):
            return float(text)
        if isinstance(t, DecimalType):
            return Decimal(text).quantize(Decimal(1).scaleb(-t.scale))
    except (ValueError, InvalidOperation):
        raise ProgrammingError(
            f"partition folder value {text!r} of {name!r} is not a valid {t}"
        ) from None
    raise NotSupportedError(
        f"add_files: partition folders of {t} column {name!r} are not supported"
    )


def source_files(io: FileIO, folder: str) -> Iterator[str]:
    """The visible files directly in ``folder`` (Spark's file index hides ``_*`` and ``.*``)."""
    for name in io.listdir(folder):
        path = _join(folder, name)
        if not _hidden(name) and not io.isdir(path):
            yield path


def _leaf_ids(schema: pa.Schema, mapping: NameMapping | None) -> list[int | None]:
    """The field id of each Parquet leaf column, in column-chunk order: the file's own
    ids when it has any, else the name mapping's by name path (Java's rule)."""

    def has_ids(f: pa.Field) -> bool:
        return bool(f.metadata and FIELD_ID_KEY in f.metadata)

    use_file = any(has_ids(f) for f in schema)
    out: list[int | None] = []

    def walk(f: pa.Field, names: tuple[str, ...]) -> None:
        t = f.type
        if pa.types.is_struct(t):
            for child in t:
                walk(child, (*names, child.name))
        elif pa.types.is_list(t) or pa.types.is_large_list(t):
            walk(t.value_field, (*names, "element"))
        elif pa.types.is_map(t):
            walk(t.key_field, (*names, "key"))
            walk(t.item_field, (*names, "value"))
        elif use_file:
            out.append(int(f.metadata[FIELD_ID_KEY]) if has_ids(f) else None)
        else:
            out.append(mapping.find(list(names)) if mapping is not None else None)

    for f in schema:
        walk(f, (f.name,))
    return out


def imported_data_file(
    io: FileIO,
    path: str,
    schema: Schema,
    spec_id: int,
    partition: Sequence[Any],
    config: MetricsConfig,
    mapping: NameMapping | None,
) -> DataFile:
    """The ``DataFile`` of the existing Parquet file ``path`` (module docstring)."""
    try:
        size = io.size(path)
        with io.open(path) as f:
            pf = pq.ParquetFile(f)
            footer, arrow_schema = pf.metadata, pf.schema_arrow
    except (OSError, pa.ArrowException) as e:
        raise OperationalError(f"add_files: cannot read the Parquet footer of {path}: {e}") from e
    ids = _leaf_ids(arrow_schema, mapping)
    if len(ids) != footer.num_columns:
        raise NotSupportedError(f"add_files: cannot match the columns of {path} to its footer")
    ids = [i if i is not None and schema.has_field_id(i) else None for i in ids]
    metrics = footer_metrics(footer, schema, config, ids)
    return DataFile(
        content=DATA,
        file_path=path,
        file_format="PARQUET",
        partition=tuple(partition),
        record_count=footer.num_rows,
        file_size_in_bytes=size,
        split_offsets=None,  # Java's TableMigrationUtil records none
        sort_order_id=0,  # unsorted: nothing says an imported file follows the table's order
        spec_id=spec_id,
        **metrics,
    )
