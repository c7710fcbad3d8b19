"""A commit in the REST spec's terms (``CommitTableRequest``), and the metadata it makes.

A commit is a list of *requirements* (``table_requirements``: what must still hold of the
table's current metadata) and a list of *updates* (``table_updates``: the changes, in
order), applied through ``MetadataBuilder``, which keeps the invariants Java's
``TableMetadata.Builder`` keeps. A commit that creates a table (requirement
``assert-create``, Spark's CTAS after a staged create) starts from the table its first
``add-schema`` / ``add-spec`` / ``add-sort-order`` describe, so those get ids 0 (order 1),
as Java's ``buildFromEmpty`` gives them.

Errors: a malformed commit, or updates that cannot apply (a snapshot that does not exist, a
downgrade), raise ``InvalidUpdateError`` (HTTP 400).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from icesql.errors import InternalError
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.table_metadata import TableMetadata
from icesql.metadata.table_requirements import AssertCreate, TableRequirement, parse_requirement
from icesql.metadata.table_updates import (
    AddPartitionSpecUpdate,
    AddSchemaUpdate,
    AddSortOrderUpdate,
    AssignUUIDUpdate,
    InvalidUpdateError,
    SetLocationUpdate,
    TableUpdate,
    UpgradeFormatVersionUpdate,
    parse_update,
)
from icesql.spec.partitioning import UNPARTITIONED_SPEC, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.sorting import UNSORTED_ORDER, SortOrder

__all__ = ["DEFAULT_FORMAT_VERSION", "TableCommit", "apply_table_updates"]

DEFAULT_FORMAT_VERSION = 2  # what Java creates when the request names none


@dataclass(frozen=True)
class TableCommit:
    """A ``CommitTableRequest``: the table (optional on the per-table route), what must hold,
    and what changes."""

    identifier: tuple[str, ...] | None
    requirements: tuple[TableRequirement, ...] = ()
    updates: tuple[TableUpdate, ...] = ()

    @property
    def creates(self) -> bool:
        """Whether this commit creates its table (``assert-create``)."""
        return any(isinstance(r, AssertCreate) for r in self.requirements)

    @staticmethod
    def from_json(obj: Any) -> TableCommit:
        if not isinstance(obj, Mapping):
            raise InvalidUpdateError(f"a table commit must be a JSON object, got {obj!r}")
        for key in ("requirements", "updates"):
            if not isinstance(obj.get(key), list):
                raise InvalidUpdateError(f"a table commit needs a list of {key}")
        ident = obj.get("identifier")
        identifier = None
        if ident is not None:
            namespace = ident.get("namespace") if isinstance(ident, Mapping) else None
            name = ident.get("name") if isinstance(ident, Mapping) else None
            if not (
                isinstance(namespace, list)
                and all(isinstance(p, str) for p in namespace)
                and isinstance(name, str)
            ):
                raise InvalidUpdateError(f"invalid table identifier {ident!r}")
            identifier = (*namespace, name)
        return TableCommit(
            identifier,
            tuple(parse_requirement(r) for r in obj["requirements"]),
            tuple(parse_update(u) for u in obj["updates"]),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.identifier is not None:
            out["identifier"] = {
                "namespace": list(self.identifier[:-1]),
                "name": self.identifier[-1],
            }
        out["requirements"] = [r.to_json() for r in self.requirements]
        out["updates"] = [u.to_json() for u in self.updates]
        return out


def apply_table_updates(
    base: TableMetadata | None,
    updates: Sequence[TableUpdate],
    previous_metadata_file: str | None = None,
    location: str | None = None,
) -> TableMetadata:
    """The metadata after ``updates``, in order, on ``base``; with ``base`` None, a new table
    built from the updates (``location`` when they set none)."""
    try:
        start = _empty_table(updates, location) if base is None else base
        builder = start.builder().apply(updates)
        return builder.build(previous_metadata_file=previous_metadata_file)
    except (InternalError, ValueError, TypeError, KeyError) as e:
        raise InvalidUpdateError(f"cannot apply the table updates: {e}") from None


_Kind = TypeVar("_Kind", bound=TableUpdate)


def _first(updates: Sequence[TableUpdate], kind: type[_Kind]) -> _Kind | None:
    return next((u for u in updates if isinstance(u, kind)), None)


def _empty_table(updates: Sequence[TableUpdate], location: str | None) -> TableMetadata:
    """The table the first schema, spec and order of a creating commit describe (ids 0, and
    1 for a sort order), so that applying the updates to it finds them and changes nothing."""
    schema = _first(updates, AddSchemaUpdate)
    if schema is None:
        raise InvalidUpdateError("a commit that creates a table needs an add-schema update")
    spec, order = _first(updates, AddPartitionSpecUpdate), _first(updates, AddSortOrderUpdate)
    version, uuid = _first(updates, UpgradeFormatVersionUpdate), _first(updates, AssignUUIDUpdate)
    set_location = [u for u in updates if isinstance(u, SetLocationUpdate)]
    where = set_location[-1].location if set_location else location
    if where is None:
        raise InvalidUpdateError("a commit that creates a table needs a set-location update")
    return new_table_metadata(
        where,
        Schema(schema.schema.fields, 0, schema.schema.identifier_field_ids),
        PartitionSpec(0, spec.spec.fields) if spec else UNPARTITIONED_SPEC,
        SortOrder(0, order.sort_order.fields) if order else UNSORTED_ORDER,
        format_version=version.format_version if version else DEFAULT_FORMAT_VERSION,
        table_uuid=uuid.uuid if uuid else None,
    )
