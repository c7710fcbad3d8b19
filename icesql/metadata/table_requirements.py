"""Metadata requirements: what must still hold of a table for a change to land, one frozen
dataclass per ``type`` of the REST spec's ``TableRequirement``, with JSON both ways.

icesql's commit path checks a change's requirements on the table as loaded for each attempt
(``check_table_requirements(md, requirements, table)``: the message names the table and what
a concurrent commit changed); a REST server checks a client's on its current metadata
(without ``table``: Java's wording, "Requirement failed: ...", which it answers with 409
``CommitFailedException``)::

    >>> r = parse_requirement({"type": "assert-current-schema-id", "current-schema-id": 0})
    >>> r
    AssertCurrentSchemaId(current_schema_id=0)
    >>> r.check(None)
    Traceback (most recent call last):
    ...
    icesql.metadata.table_requirements.RequirementFailedError: Requirement failed: current table metadata is missing

A REST client sends the requirements that the kinds of its updates call for
(``update_requirements``, Java's ``UpdateRequirements``): a change based on one version
commits on a newer one exactly when nothing it depended on moved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from icesql.errors import CommitConflictError
from icesql.metadata.snapshots import MAIN_BRANCH
from icesql.metadata.table_metadata import TableMetadata
from icesql.metadata.table_updates import (
    AddPartitionSpecUpdate,
    AddSchemaUpdate,
    InvalidUpdateError,
    RemovePartitionSpecsUpdate,
    RemoveSchemasUpdate,
    RemoveSnapshotRefUpdate,
    RemoveSnapshotsUpdate,
    SetCurrentSchemaUpdate,
    SetDefaultSortOrderUpdate,
    SetDefaultSpecUpdate,
    SetSnapshotRefUpdate,
    TableUpdate,
    request_field,
    request_int,
)

__all__ = [
    "AssertCreate",
    "AssertCurrentSchemaId",
    "AssertDefaultSortOrderId",
    "AssertDefaultSpecId",
    "AssertLastAssignedFieldId",
    "AssertLastAssignedPartitionId",
    "AssertRefSnapshotId",
    "AssertTableUUID",
    "RequirementFailedError",
    "TableRequirement",
    "check_table_requirements",
    "parse_requirement",
    "update_requirements",
]


class RequirementFailedError(CommitConflictError):
    """A requirement of the commit does not hold for the table's current metadata."""


class TableRequirement:
    """One ``TableRequirement``: ``check`` raises ``RequirementFailedError`` unless it holds
    for ``metadata`` (None when the table does not exist); with ``table`` the message names
    the table and what a concurrent commit changed (icesql's own commits)."""

    type: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **self._body()}

    def _body(self) -> dict[str, Any]:
        raise NotImplementedError

    def check(self, metadata: TableMetadata | None, table: str | None = None) -> None:
        raise NotImplementedError


_Requirement = TypeVar("_Requirement", bound=type[TableRequirement])
_REQUIREMENTS: dict[str, Callable[[Mapping[str, Any], str], TableRequirement]] = {}


def _requirement(kind: str) -> Callable[[_Requirement], _Requirement]:
    def register(cls: _Requirement) -> _Requirement:
        cls.type = kind
        _REQUIREMENTS[kind] = cls._from_json  # type: ignore[attr-defined]
        return cls

    return register


def _failed(message: str) -> RequirementFailedError:
    return RequirementFailedError(f"Requirement failed: {message}")


def _conflict(table: str, what: str) -> RequirementFailedError:
    return RequirementFailedError(
        f"cannot commit to table {table}: a concurrent commit {what}; nothing was committed,"
        " re-run the statement"
    )


def _existing(metadata: TableMetadata | None) -> TableMetadata:
    if metadata is None:
        raise _failed("current table metadata is missing")
    return metadata


@_requirement("assert-create")
@dataclass(frozen=True)
class AssertCreate(TableRequirement):
    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertCreate:
        return AssertCreate()

    def _body(self) -> dict[str, Any]:
        return {}

    def check(self, metadata: TableMetadata | None, table: str | None = None) -> None:
        if metadata is not None:
            raise _failed("table already exists")


@_requirement("assert-table-uuid")
@dataclass(frozen=True)
class AssertTableUUID(TableRequirement):
    """None only in icesql's own commits to a v1 table that never had a uuid."""

    uuid: str | None

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertTableUUID:
        return AssertTableUUID(request_field(obj, "uuid", str, what))

    def _body(self) -> dict[str, Any]:
        return {"uuid": self.uuid}

    def check(self, metadata: TableMetadata | None, table: str | None = None) -> None:
        actual = _existing(metadata).table_uuid
        if actual == self.uuid:
            return
        if table is None:
            raise _failed(f"table UUID does not match: expected {self.uuid} != {actual}")
        raise RequirementFailedError(
            f"table {table} was replaced by another table (uuid {actual},"
            f" expected {self.uuid}); nothing was committed"
        )


@_requirement("assert-ref-snapshot-id")
@dataclass(frozen=True)
class AssertRefSnapshotId(TableRequirement):
    """The ref still points where it did; ``snapshot_id`` None: it still does not exist."""

    ref: str
    snapshot_id: int | None

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertRefSnapshotId:
        ref = request_field(obj, "ref", str, what)
        if "snapshot-id" not in obj:
            raise InvalidUpdateError(f"{what}: missing required field 'snapshot-id'")
        snapshot_id = None if obj["snapshot-id"] is None else request_int(obj, "snapshot-id", what)
        return AssertRefSnapshotId(ref, snapshot_id)

    def _body(self) -> dict[str, Any]:
        return {"ref": self.ref, "snapshot-id": self.snapshot_id}

    def check(self, metadata: TableMetadata | None, table: str | None = None) -> None:
        current = _existing(metadata).refs.get(self.ref)
        actual = current.snapshot_id if current is not None else None
        if actual == self.snapshot_id:
            return
        if table is not None:
            if self.snapshot_id is None:
                what = f"created ref {self.ref!r} (at snapshot {actual})"
            elif current is None:
                what = f"removed ref {self.ref!r}"
            else:
                what = f"moved ref {self.ref!r} ({self.snapshot_id} -> {actual})"
            raise _conflict(table, what)
        if current is None:
            raise _failed(f"branch or tag {self.ref} is missing, expected {self.snapshot_id}")
        kind = "branch" if current.is_branch else "tag"
        if self.snapshot_id is None:
            raise _failed(f"{kind} {self.ref} was created concurrently")
        raise _failed(f"{kind} {self.ref} has changed: expected id {self.snapshot_id} != {actual}")


class _IdRequirement(TableRequirement):
    """A counter or default id of the table that must be what the change was based on."""

    rest_what: ClassVar[str]  # Java's name in "Requirement failed: ... changed"
    local_what: ClassVar[str]  # icesql's name in "a concurrent commit changed its ..."

    @property
    def expected(self) -> int:
        raise NotImplementedError

    def actual(self, metadata: TableMetadata) -> int:
        raise NotImplementedError

    def check(self, metadata: TableMetadata | None, table: str | None = None) -> None:
        actual = self.actual(_existing(metadata))
        if actual == self.expected:
            return
        if table is not None:
            raise _conflict(table, f"changed its {self.local_what} ({self.expected} -> {actual})")
        raise _failed(f"{self.rest_what} changed: expected id {self.expected} != {actual}")


@_requirement("assert-last-assigned-field-id")
@dataclass(frozen=True)
class AssertLastAssignedFieldId(_IdRequirement):
    last_assigned_field_id: int
    rest_what = "last assigned field id"
    local_what = "last column id"

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertLastAssignedFieldId:
        return AssertLastAssignedFieldId(request_int(obj, "last-assigned-field-id", what))

    def _body(self) -> dict[str, Any]:
        return {"last-assigned-field-id": self.last_assigned_field_id}

    @property
    def expected(self) -> int:
        return self.last_assigned_field_id

    def actual(self, metadata: TableMetadata) -> int:
        return metadata.last_column_id


@_requirement("assert-current-schema-id")
@dataclass(frozen=True)
class AssertCurrentSchemaId(_IdRequirement):
    current_schema_id: int
    rest_what = local_what = "current schema"

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertCurrentSchemaId:
        return AssertCurrentSchemaId(request_int(obj, "current-schema-id", what))

    def _body(self) -> dict[str, Any]:
        return {"current-schema-id": self.current_schema_id}

    @property
    def expected(self) -> int:
        return self.current_schema_id

    def actual(self, metadata: TableMetadata) -> int:
        return metadata.current_schema_id


@_requirement("assert-last-assigned-partition-id")
@dataclass(frozen=True)
class AssertLastAssignedPartitionId(_IdRequirement):
    last_assigned_partition_id: int
    rest_what = "last assigned partition id"
    local_what = "last partition id"

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertLastAssignedPartitionId:
        return AssertLastAssignedPartitionId(request_int(obj, "last-assigned-partition-id", what))

    def _body(self) -> dict[str, Any]:
        return {"last-assigned-partition-id": self.last_assigned_partition_id}

    @property
    def expected(self) -> int:
        return self.last_assigned_partition_id

    def actual(self, metadata: TableMetadata) -> int:
        return metadata.last_partition_id


@_requirement("assert-default-spec-id")
@dataclass(frozen=True)
class AssertDefaultSpecId(_IdRequirement):
    default_spec_id: int
    rest_what = local_what = "default partition spec"

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertDefaultSpecId:
        return AssertDefaultSpecId(request_int(obj, "default-spec-id", what))

    def _body(self) -> dict[str, Any]:
        return {"default-spec-id": self.default_spec_id}

    @property
    def expected(self) -> int:
        return self.default_spec_id

    def actual(self, metadata: TableMetadata) -> int:
        return metadata.default_spec_id


@_requirement("assert-default-sort-order-id")
@dataclass(frozen=True)
class AssertDefaultSortOrderId(_IdRequirement):
    default_sort_order_id: int
    rest_what = local_what = "default sort order"

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertDefaultSortOrderId:
        return AssertDefaultSortOrderId(request_int(obj, "default-sort-order-id", what))

    def _body(self) -> dict[str, Any]:
        return {"default-sort-order-id": self.default_sort_order_id}

    @property
    def expected(self) -> int:
        return self.default_sort_order_id

    def actual(self, metadata: TableMetadata) -> int:
        return metadata.default_sort_order_id


def parse_requirement(obj: Any) -> TableRequirement:
    """The ``TableRequirement`` a JSON object describes (``InvalidUpdateError`` if none)."""
    if not isinstance(obj, Mapping):
        raise InvalidUpdateError(f"a table requirement must be a JSON object, got {obj!r}")
    kind = obj.get("type")
    parse = _REQUIREMENTS.get(kind) if isinstance(kind, str) else None
    if parse is None:
        raise InvalidUpdateError(f"unknown table requirement type {kind!r}")
    return parse(obj, f"table requirement {kind!r}")


def check_table_requirements(
    metadata: TableMetadata | None,
    requirements: Sequence[TableRequirement],
    table: str | None = None,
) -> None:
    """Raise ``RequirementFailedError`` naming the first requirement ``metadata`` fails."""
    for requirement in requirements:
        requirement.check(metadata, table)


def update_requirements(
    base: TableMetadata | None, updates: Sequence[TableUpdate]
) -> list[TableRequirement]:
    """What must hold of the current metadata for ``updates``, made on ``base`` (None: a new
    table), to mean what they meant there: Java's ``UpdateRequirements``, each at most once.

    Always the table's uuid; a schema added: the last assigned field id, so ids are not
    handed out twice; the current schema set or schemas removed: the current schema; a spec
    added: the last assigned partition id; the default spec set or specs removed: the
    default spec; the default sort order set: that; a ref set or removed: where it pointed.
    Beyond Java, snapshots removed assert every ref: the expiry was planned from each ref's
    head, and a ref moved since (onto a removed snapshot, say) must fail it, not be lost.
    They come in one order, the table's identity, schema, specs, order, then refs, so the
    first one a server finds broken names the most basic thing that moved.
    """
    if base is None:
        return [AssertCreate()]
    found: dict[TableRequirement, None] = {}

    def require(requirement: TableRequirement) -> None:
        found.setdefault(requirement)

    def ref_unchanged(name: str) -> None:
        ref = base.refs.get(name)
        require(AssertRefSnapshotId(name, ref.snapshot_id if ref is not None else None))

    def branches_unchanged() -> None:  # so that no writer still uses what is removed
        for name, ref in sorted(base.refs.items()):
            if ref.is_branch and name != MAIN_BRANCH:
                ref_unchanged(name)

    if base.table_uuid is not None:
        require(AssertTableUUID(base.table_uuid))
    for update in updates:
        if isinstance(update, SetSnapshotRefUpdate | RemoveSnapshotRefUpdate):
            ref_unchanged(update.ref_name)
        elif isinstance(update, RemoveSnapshotsUpdate):
            for name in sorted(base.refs):
                ref_unchanged(name)
        elif type(update) in _BASED_ON:
            require(_BASED_ON[type(update)](base))
        if isinstance(update, RemoveSchemasUpdate | RemovePartitionSpecsUpdate):
            branches_unchanged()
    return sorted(found, key=lambda r: _ORDER.index(type(r)))


# what of the base an update of each kind depends on
_BASED_ON: dict[type[TableUpdate], Callable[[TableMetadata], TableRequirement]] = {
    AddSchemaUpdate: lambda md: AssertLastAssignedFieldId(md.last_column_id),
    SetCurrentSchemaUpdate: lambda md: AssertCurrentSchemaId(md.current_schema_id),
    RemoveSchemasUpdate: lambda md: AssertCurrentSchemaId(md.current_schema_id),
    AddPartitionSpecUpdate: lambda md: AssertLastAssignedPartitionId(md.last_partition_id),
    SetDefaultSpecUpdate: lambda md: AssertDefaultSpecId(md.default_spec_id),
    RemovePartitionSpecsUpdate: lambda md: AssertDefaultSpecId(md.default_spec_id),
    SetDefaultSortOrderUpdate: lambda md: AssertDefaultSortOrderId(md.default_sort_order_id),
}
_ORDER: tuple[type[TableRequirement], ...] = (
    AssertTableUUID,
    AssertCurrentSchemaId,
    AssertLastAssignedFieldId,
    AssertDefaultSpecId,
    AssertLastAssignedPartitionId,
    AssertDefaultSortOrderId,
    AssertRefSnapshotId,
)
