"""What DuckDB reads of a scan itself, as values: the ``read_parquet`` calls, the columns
each row carries besides the file's, the keep-masks lined up with them and the anti-joins
of equality deletes. ``icesql.scan.native_read`` decides them; ``icesql.sql.native_sql``
writes them as one sqlglot tree, so the scan holds no SQL. Two reads of the same files
are equal values, which is what lets a kept query reuse its translation.

>>> call = ParquetCall(("/d/a.parquet",), (ReadColumn(1, "id", "BIGINT", None),))
>>> part = FileRead(call, (FileValues("_spec_id", "INTEGER", (0,)),))
>>> part == FileRead(call, (FileValues("_spec_id", "INTEGER", (0,)),))
True
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "FILE_INDEX",
    "KEEP_COLUMN",
    "PART_COLUMN",
    "ROW_NUMBER",
    "AntiJoin",
    "DeleteRows",
    "EqualityJoin",
    "FileRead",
    "FileValues",
    "ParquetCall",
    "ReadColumn",
    "RowPosition",
]

FILE_INDEX = "file_index"  # DuckDB's virtual column: the index of a row's file in its call
ROW_NUMBER = "file_row_number"  # DuckDB's column of a row's position in its file
PART_COLUMN = "__icesql_part"  # the tag of a row's set of equality delete files
KEEP_COLUMN = "keep"  # a keep-mask's one column


@dataclass(frozen=True)
class ReadColumn:
    """One column of a ``read_parquet`` call's field-id schema map: the name and DuckDB type
    it is read as, and the text DuckDB casts to that type for a file without it (the
    field's initial default or an identity partition value; None: NULL)."""

    field_id: int
    name: str
    type: str
    default: str | None


@dataclass(frozen=True)
class ParquetCall:
    """``read_parquet`` over ``paths`` (local, in this order: a row's ``file_index``),
    columns matched by field id; ``row_numbers`` adds ``file_row_number``."""

    paths: tuple[str, ...]
    columns: tuple[ReadColumn, ...]
    row_numbers: bool = False


@dataclass(frozen=True)
class FileValues:
    """A column a row takes from its file, by the file's index in the call (the Iceberg
    path ``_file``, ``_spec_id``, the equality-delete tag): one value per path of the call,
    or one for all."""

    name: str
    type: str  # VARCHAR or INTEGER
    values: tuple[str, ...] | tuple[int, ...]


@dataclass(frozen=True)
class RowPosition:
    """``_pos``: the row's position in its file (``file_row_number``, as BIGINT)."""

    name: str = "_pos"


@dataclass(frozen=True)
class FileRead:
    """The rows of one ``read_parquet`` call with ``extra`` columns after the file's; with
    ``mask``, only those its keep-mask relation of that name keeps (position deletes and
    deletion vectors), lined up by a positional join."""

    call: ParquetCall
    extra: tuple[FileValues | RowPosition, ...] = ()
    mask: str | None = None


@dataclass(frozen=True)
class DeleteRows:
    """The rows of some equality delete files (columns "0", "1", ... by field id); with
    ``tags``, each row once per tag of the data files its file applies to (``tags[i]``: the
    tags of the call's ``i``-th file)."""

    call: ParquetCall
    tags: tuple[tuple[int, ...], ...] | None = None


@dataclass(frozen=True)
class EqualityJoin:
    """One anti-join of equality deletes: the delete rows, the data columns their columns
    "0", "1", ... match in that order, whether the rows' tags must be equal too, and per
    key whether it is only checked on the rows the other keys' hash found."""

    rows: DeleteRows
    keys: tuple[str, ...]
    tagged: bool
    checked: tuple[bool, ...]


@dataclass(frozen=True)
class AntiJoin:
    """The ``columns`` of the rows of ``inner`` (unioned) that no delete row of ``joins``
    matches."""

    inner: tuple[FileRead, ...]
    columns: tuple[str, ...]
    joins: tuple[EqualityJoin, ...]
