"""The ``VARIANT`` annotation that pyarrow's Parquet writer cannot write.

Iceberg stores a ``variant`` column as the Parquet variant encoding: a group of the
binary fields ``metadata`` and ``value`` annotated with the ``VARIANT`` logical type
(Appendix A; Parquet's VariantEncoding.md). pyarrow 20-26 write the group but not the
annotation (``arrow.parquet.variant`` is not an extension type they know), and readers
(DuckDB, Iceberg Java, Spark 4) read an unannotated group as a plain struct. So the footer
icesql writes for a file (``icesql.write.parquet_stitch``, after the row groups) gets the
``VARIANT`` annotation added to the schema elements of the variant groups
(``annotate_footer``); the column chunk offsets point before the footer, so they stay valid.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from icesql.errors import InternalError
from icesql.metadata.parquet_footer import schema_element_ends
from icesql.spec.schema import Schema
from icesql.spec.types import ListType, MapType, StructType, VariantType

__all__ = ["VARIANT_ANNOTATION", "annotate_footer", "variant_paths"]

# SchemaElement field 10 (logicalType, long-form header: it follows any field id), holding
# LogicalType field 16 (VARIANT) = VariantType {1: specification_version = 1 (i8)}
VARIANT_ANNOTATION = bytes([0x0C, 0x14, 0x0C, 0x20, 0x13, 0x01, 0x00, 0x00])


def variant_paths(schema: Schema) -> list[tuple[str, ...]]:
    """The Parquet paths (names from the root, lists as ``list.element``, maps as
    ``key_value.key/value``) of the variant columns of ``schema``."""
    found: list[tuple[str, ...]] = []

    def visit(t: Any, path: tuple[str, ...]) -> None:
        if isinstance(t, VariantType):
            found.append(path)
        elif isinstance(t, StructType):
            for f in t.fields:
                visit(f.type, (*path, f.name))
        elif isinstance(t, ListType):
            visit(t.element_type, (*path, "list", "element"))
        elif isinstance(t, MapType):
            visit(t.key_type, (*path, "key_value", "key"))
            visit(t.value_type, (*path, "key_value", "value"))

    for f in schema.fields:
        visit(f.type, (f.name,))
    return found


def annotate_footer(footer: bytes, paths: Sequence[tuple[str, ...]]) -> bytes:
    """The Thrift ``FileMetaData`` ``footer`` with the groups at ``paths`` annotated VARIANT."""
    elements, _ = schema_element_ends(footer)
    wanted = set(paths)
    inserts: list[int] = []
    stack: list[list[Any]] = []  # [path, children left] of the open groups
    for index, (name, children, stop) in enumerate(elements):
        path: tuple[str, ...] = () if index == 0 else (*stack[-1][0], name)
        if index:
            stack[-1][1] -= 1
        if path in wanted:
            inserts.append(stop)
        if children:
            stack.append([path, children])
        while stack and stack[-1][1] == 0:
            stack.pop()
    if len(inserts) != len(wanted):
        raise InternalError(f"variant groups {sorted(wanted)} not all found in the footer")
    out, last = [], 0
    for stop in inserts:
        out += [footer[last:stop], VARIANT_ANNOTATION]
        last = stop
    out.append(footer[last:])
    return b"".join(out)
