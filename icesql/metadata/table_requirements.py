"""The REST catalog protocol's table requirements: what must hold of a table's current
metadata for a commit to land, as frozen dataclasses with JSON both ways.

One class per ``type`` of the spec's ``TableRequirement``; ``check`` raises
``RequirementFailedError`` with Java's wording ("Requirement failed: ...") naming what no
longer holds, and a REST server answers it with 409 ``CommitFailedException``::

    >>> r = parse_requirement({"type": "assert-current-schema-id", "current-schema-id": 0})
    >>> r
    AssertCurrentSchemaId(current_schema_id=0)
    >>> r.check(None)
    Traceback (most recent call last):
    ...
    icesql.metadata.table_requirements.RequirementFailedError: Requirement failed: current table metadata is missing

The errors and JSON field readers here are shared with ``table_updates`` (the updates).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from icesql.errors import CommitConflictError, ProgrammingError
from icesql.metadata.table_metadata import TableMetadata

__all__ = [
    "AssertCreate",
    "AssertCurrentSchemaId",
    "AssertDefaultSortOrderId",
    "AssertDefaultSpecId",
    "AssertLastAssignedFieldId",
    "AssertLastAssignedPartitionId",
    "AssertRefSnapshotId",
    "AssertTableUUID",
    "InvalidUpdateError",
    "RequirementFailedError",
    "TableRequirement",
    "check_table_requirements",
    "parse_requirement",
    "request_field",
    "request_int",
    "request_int_list",
    "request_parsed",
    "request_str_map",
]


class InvalidUpdateError(ProgrammingError):
    """An update or requirement that is malformed, unknown, or cannot apply to the table."""


class RequirementFailedError(CommitConflictError):
    """A requirement of the commit does not hold for the table's current metadata."""


# --------------------------------------------------------------------------------------------
# JSON field readers that name the update and the key
# --------------------------------------------------------------------------------------------


def request_field(
    obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str
) -> Any:
    if key not in obj:
        raise InvalidUpdateError(f"{what}: missing required field {key!r}")
    value = obj[key]
    if not isinstance(value, kind):
        raise InvalidUpdateError(f"{what}: field {key!r} has the wrong type: {value!r}")
    return value


def request_int(obj: Mapping[str, Any], key: str, what: str) -> int:
    value = request_field(obj, key, int, what)
    if isinstance(value, bool):
        raise InvalidUpdateError(f"{what}: field {key!r} must be an integer, got {value!r}")
    return value


def request_int_list(obj: Mapping[str, Any], key: str, what: str) -> tuple[int, ...]:
    values = request_field(obj, key, list, what)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise InvalidUpdateError(f"{what}: field {key!r} must be a list of integers")
    return tuple(values)


def request_str_map(obj: Mapping[str, Any], key: str, what: str) -> dict[str, str]:
    values = request_field(obj, key, dict, what)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in values.items()):
        raise InvalidUpdateError(f"{what}: field {key!r} must map strings to strings")
    return dict(values)


def request_parsed(parse: Callable[[Any], Any], obj: Any, what: str) -> Any:
    """A nested spec object (schema, snapshot, ...) parsed by its own model."""
    try:
        return parse(obj)
    except InvalidUpdateError:
        raise
    except (ValueError, TypeError, KeyError, AttributeError, ProgrammingError) as e:
        raise InvalidUpdateError(f"{what}: {e}") from None


# --------------------------------------------------------------------------------------------
# Requirements
# --------------------------------------------------------------------------------------------


class TableRequirement:
    """One ``TableRequirement``: ``check`` raises ``RequirementFailedError`` unless it holds
    for ``metadata`` (None when the table does not exist)."""

    type: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **self._body()}

    def _body(self) -> dict[str, Any]:
        raise NotImplementedError

    def check(self, metadata: TableMetadata | None) -> None:
        raise NotImplementedError


_REQUIREMENTS: dict[str, Callable[[Mapping[str, Any], str], TableRequirement]] = {}


def _requirement(kind: str):
    def register(cls):
        cls.type = kind
        _REQUIREMENTS[kind] = cls._from_json
        return cls

    return register


def _failed(message: str) -> RequirementFailedError:
    return RequirementFailedError(f"Requirement failed: {message}")


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

    def check(self, metadata: TableMetadata | None) -> None:
        if metadata is not None:
            raise _failed("table already exists")


@_requirement("assert-table-uuid")
@dataclass(frozen=True)
class AssertTableUUID(TableRequirement):
    uuid: str

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertTableUUID:
        return AssertTableUUID(request_field(obj, "uuid", str, what))

    def _body(self) -> dict[str, Any]:
        return {"uuid": self.uuid}

    def check(self, metadata: TableMetadata | None) -> None:
        actual = _existing(metadata).table_uuid
        if actual != self.uuid:
            raise _failed(f"table UUID does not match: expected {self.uuid} != {actual}")


@_requirement("assert-ref-snapshot-id")
@dataclass(frozen=True)
class AssertRefSnapshotId(TableRequirement):
    """``snapshot_id`` None: the ref must not exist (it is about to be created)."""

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

    def check(self, metadata: TableMetadata | None) -> None:
        current = _existing(metadata).refs.get(self.ref)
        if current is not None:
            kind = "branch" if current.is_branch else "tag"
            if self.snapshot_id is None:
                raise _failed(f"{kind} {self.ref} was created concurrently")
            if current.snapshot_id != self.snapshot_id:
                raise _failed(
                    f"{kind} {self.ref} has changed: expected id {self.snapshot_id}"
                    f" != {current.snapshot_id}"
                )
        elif self.snapshot_id is not None:
            raise _failed(f"branch or tag {self.ref} is missing, expected {self.snapshot_id}")


def _check_id(what: str, expected: int, actual: int) -> None:
    if actual != expected:
        raise _failed(f"{what} changed: expected id {expected} != {actual}")


@_requirement("assert-last-assigned-field-id")
@dataclass(frozen=True)
class AssertLastAssignedFieldId(TableRequirement):
    last_assigned_field_id: int

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertLastAssignedFieldId:
        return AssertLastAssignedFieldId(request_int(obj, "last-assigned-field-id", what))

    def _body(self) -> dict[str, Any]:
        return {"last-assigned-field-id": self.last_assigned_field_id}

    def check(self, metadata: TableMetadata | None) -> None:
        actual = _existing(metadata).last_column_id
        _check_id("last assigned field id", self.last_assigned_field_id, actual)


@_requirement("assert-current-schema-id")
@dataclass(frozen=True)
class AssertCurrentSchemaId(TableRequirement):
    current_schema_id: int

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertCurrentSchemaId:
        return AssertCurrentSchemaId(request_int(obj, "current-schema-id", what))

    def _body(self) -> dict[str, Any]:
        return {"current-schema-id": self.current_schema_id}

    def check(self, metadata: TableMetadata | None) -> None:
        actual = _existing(metadata).current_schema_id
        _check_id("current schema", self.current_schema_id, actual)


@_requirement("assert-last-assigned-partition-id")
@dataclass(frozen=True)
class AssertLastAssignedPartitionId(TableRequirement):
    last_assigned_partition_id: int

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertLastAssignedPartitionId:
        return AssertLastAssignedPartitionId(request_int(obj, "last-assigned-partition-id", what))

    def _body(self) -> dict[str, Any]:
        return {"last-assigned-partition-id": self.last_assigned_partition_id}

    def check(self, metadata: TableMetadata | None) -> None:
        actual = _existing(metadata).last_partition_id
        _check_id("last assigned partition id", self.last_assigned_partition_id, actual)


@_requirement("assert-default-spec-id")
@dataclass(frozen=True)
class AssertDefaultSpecId(TableRequirement):
    default_spec_id: int

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertDefaultSpecId:
        return AssertDefaultSpecId(request_int(obj, "default-spec-id", what))

    def _body(self) -> dict[str, Any]:
        return {"default-spec-id": self.default_spec_id}

    def check(self, metadata: TableMetadata | None) -> None:
        actual = _existing(metadata).default_spec_id
        _check_id("default partition spec", self.default_spec_id, actual)


@_requirement("assert-default-sort-order-id")
@dataclass(frozen=True)
class AssertDefaultSortOrderId(TableRequirement):
    default_sort_order_id: int

    @staticmethod
    def _from_json(obj: Mapping[str, Any], what: str) -> AssertDefaultSortOrderId:
        return AssertDefaultSortOrderId(request_int(obj, "default-sort-order-id", what))

    def _body(self) -> dict[str, Any]:
        return {"default-sort-order-id": self.default_sort_order_id}

    def check(self, metadata: TableMetadata | None) -> None:
        actual = _existing(metadata).default_sort_order_id
        _check_id("default sort order", self.default_sort_order_id, actual)


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
    metadata: TableMetadata | None, requirements: Sequence[TableRequirement]
) -> None:
    """Raise ``RequirementFailedError`` naming the first requirement ``metadata`` fails."""
    for requirement in requirements:
        requirement.check(metadata)
