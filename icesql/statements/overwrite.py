"""INSERT's PARTITION clause and INSERT OVERWRITE, with Spark 3.5's and Iceberg's semantics.

``PARTITION (p = v, q)`` may name only columns the table partitions by identity (Spark's
``NON_PARTITION_COLUMN`` otherwise). A column given a value is *static*: the value (cast as
``icesql.sql.partition_values`` says) fills that column of every row, and the query
supplies the other columns, in table order or by the statement's column list, which must not
name a static column. A column named without a value is left to the query.

What an INSERT OVERWRITE replaces depends on ``spark.sql.sources.partitionOverwriteMode``
(``SET``):

* ``static`` (the default): the rows matching the static values (``p <=> v AND ...``; every
  row without a PARTITION clause) are replaced. As Java's ``overwriteByRowFilter``, every
  data or delete file all of whose rows match is removed — a data file holding matching and
  other rows fails the statement — and the commit is an ``overwrite`` (``delete`` when the
  query produced no row);
* ``dynamic``: the partitions the query writes rows into are replaced, as Java's
  ``ReplacePartitions`` (summary ``replace-partitions=true``): every file of those
  partitions of the current spec goes (all files of an unpartitioned table); a query without
  rows changes nothing and commits nothing.

Spark's SQL INSERT OVERWRITE asks for no conflict validation (``SparkWrite`` validates only
when the DataFrame option ``isolation-level`` is set), so neither does this: the files to
remove are found again on the table each commit attempt lands on, so a concurrent append to
a replaced partition is replaced too, as in Spark.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from sqlglot import exp

from icesql.catalog.table import Table
from icesql.errors import ProgrammingError
from icesql.expressions.tree import ALWAYS_TRUE, BooleanExpression, and_, equal, is_nan, is_null
from icesql.spec.arrow import to_arrow_scalar
from icesql.spec.content_file import DataFile
from icesql.spec.schema import NestedField
from icesql.spec.transforms import Identity
from icesql.sql.partition_values import cast_partition_value, partition_text
from icesql.write.snapshot import Change, SnapshotOperation

__all__ = ["PartitionClause", "overwrite_change", "partition_clause"]

REPLACE_PARTITIONS = "replace-partitions"


@dataclass(frozen=True)
class PartitionClause:
    """A PARTITION clause resolved against the table: static values by column, and the
    columns named without a value."""

    static: Mapping[str, tuple[NestedField, Any]] = field(default_factory=dict)
    dynamic: tuple[str, ...] = ()

    def scalars(self) -> dict[str, pa.Scalar]:
        """The static values as Arrow scalars of their columns' types, by column name."""
        return {name: to_arrow_scalar(f.type, v) for name, (f, v) in self.static.items()}

    def row_filter(self) -> BooleanExpression:
        """Spark's delete condition: ``col <=> value`` for every static column."""
        terms: list[BooleanExpression] = []
        for name, (_, value) in self.static.items():
            if value is None:
                terms.append(is_null(name))
            elif isinstance(value, float) and math.isnan(value):
                terms.append(is_nan(name))
            else:
                terms.append(equal(name, value))
        return and_(*terms) if terms else ALWAYS_TRUE


def partition_clause(
    table: Table, node: exp.Expr | None, params: Sequence[object]
) -> PartitionClause:
    """Resolve ``node`` (sqlglot's ``Partition``, or None) against ``table``'s current spec."""
    if node is None:
        return PartitionClause()
    md = table.metadata
    schema = md.schema()
    identity = {}
    for pf in md.spec().fields:
        if isinstance(pf.transform, Identity) and pf.source_id in {
            f.field_id for f in schema.fields
        }:
            source = schema.find_field(pf.source_id)
            identity[source.name.lower()] = source
    static: dict[str, tuple[NestedField, Any]] = {}
    dynamic: list[str] = []
    seen: set[str] = set()
    for item in node.expressions:
        column = item.this if isinstance(item, exp.EQ) else item
        if not isinstance(column, exp.Column) or column.table:
            raise ProgrammingError(
                f"cannot read the PARTITION clause item {item.sql(dialect='spark')}"
            )
        name = column.name
        if name.lower() in seen:
            raise ProgrammingError(f"found duplicate keys '{name}' in the PARTITION clause")
        seen.add(name.lower())
        f = identity.get(name.lower())
        if f is None:
            raise ProgrammingError(
                f"[NON_PARTITION_COLUMN] PARTITION clause cannot contain the non-partition column"
                f" `{name}`: {table.name} is partitioned by identity on"
                f" {', '.join(sorted(x.name for x in identity.values())) or 'no column'}"
            )
        if not isinstance(item, exp.EQ):
            dynamic.append(f.name)
            continue
        text = partition_text(item.expression, params, f"the PARTITION clause of {table.name}")
        static[f.name] = (f, cast_partition_value(text, f.type, table.name, f.name))
    return PartitionClause(static, tuple(dynamic))


def overwrite_change(
    table: Table, files: Sequence[DataFile], clause: PartitionClause, mode: str
) -> Change | None:
    """The commit of an INSERT OVERWRITE that wrote ``files`` (module docstring); None when
    there is nothing to commit (a dynamic overwrite without rows)."""
    added = tuple(files)
    if mode == "dynamic":
        if not added:
            return None
        summary = {REPLACE_PARTITIONS: "true"}
        if table.metadata.spec().is_unpartitioned():
            return Change(
                operation=SnapshotOperation.OVERWRITE,
                added_files=added,
                delete_filter=ALWAYS_TRUE,
                summary=summary,
            )
        dropped = frozenset((f.spec_id, f.partition) for f in added)
        return Change(
            operation=SnapshotOperation.OVERWRITE,
            added_files=added,
            dropped_partitions=dropped,
            summary=summary,
        )
    operation = SnapshotOperation.OVERWRITE if added else SnapshotOperation.DELETE
    return Change(operation=operation, added_files=added, delete_filter=clause.row_filter())
