"""Sort orders: how data is (declared to be) sorted within files.

Order id 0 is reserved for the unsorted order. Directions and null orders are the spec's
strings (``asc``/``desc``, ``nulls-first``/``nulls-last``)::

    >>> order = SortOrder.from_json({"order-id": 1, "fields": [{"transform": "bucket[4]",
    ...     "source-id": 3, "direction": "desc", "null-order": "nulls-last"}]})
    >>> str(order)
    '[bucket[4](3) DESC NULLS LAST]'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from icesql.errors import ProgrammingError
from icesql.spec.schema import Schema
from icesql.spec.transforms import Identity, Transform, parse_transform
from icesql.spec.types import is_primitive, json_int

__all__ = [
    "ASC",
    "DESC",
    "NULLS_FIRST",
    "NULLS_LAST",
    "SortField",
    "SortOrder",
    "UNSORTED_ORDER",
]

ASC = "asc"
DESC = "desc"
NULLS_FIRST = "nulls-first"
NULLS_LAST = "nulls-last"


@dataclass(frozen=True)
class SortField:
    """One sort key. Null order defaults as Spark and Java do: first for asc, last for desc."""

    source_id: int
    transform: Transform = field(default_factory=Identity)
    direction: str = ASC
    null_order: str | None = None
    source_ids: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.direction not in (ASC, DESC):
            raise ValueError(f"sort direction must be 'asc' or 'desc', got {self.direction!r}")
        if self.null_order is None:
            object.__setattr__(
                self, "null_order", NULLS_FIRST if self.direction == ASC else NULLS_LAST
            )
        if self.null_order not in (NULLS_FIRST, NULLS_LAST):
            raise ValueError(
                f"null order must be 'nulls-first' or 'nulls-last', got {self.null_order!r}"
            )
        if not isinstance(self.source_ids, tuple):
            object.__setattr__(self, "source_ids", tuple(self.source_ids))

    @property
    def all_source_ids(self) -> tuple[int, ...]:
        return self.source_ids or (self.source_id,)

    def satisfies(self, other: SortField) -> bool:
        """Data sorted by this key is also sorted by ``other``."""
        return (
            self.all_source_ids == other.all_source_ids
            and self.direction == other.direction
            and self.null_order == other.null_order
            and self.transform.satisfies_order_of(other.transform)
        )

    @staticmethod
    def from_json(obj: dict[str, Any]) -> SortField:
        source_ids: tuple[int, ...] = ()
        if "source-id" in obj:
            source_id = json_int(obj["source-id"], "source-id")
        elif obj.get("source-ids"):
            source_ids = tuple(json_int(i, "source-ids") for i in obj["source-ids"])
            source_id = source_ids[0]
            source_ids = source_ids if len(source_ids) > 1 else ()
        else:
            raise ValueError(f"sort field has no source-id: {obj!r}")
        return SortField(
            source_id,
            parse_transform(obj["transform"]),
            str(obj["direction"]).lower(),
            str(obj["null-order"]).lower(),
            source_ids,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"transform": str(self.transform)}
        if len(self.source_ids) > 1:
            out["source-ids"] = list(self.source_ids)
        else:
            out["source-id"] = self.source_id
        out["direction"] = self.direction
        out["null-order"] = self.null_order
        return out

    def __str__(self) -> str:
        nulls = (self.null_order or "").replace("-", " ").upper()
        return f"{self.transform}({self.source_id}) {self.direction.upper()} {nulls}"


@dataclass(frozen=True)
class SortOrder:
    """An ordered list of sort fields identified by ``order_id``; id 0 means unsorted."""

    order_id: int = 0
    fields: tuple[SortField, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.fields, tuple):
            object.__setattr__(self, "fields", tuple(self.fields))
        if self.order_id == 0 and self.fields:
            raise ValueError("sort order id 0 is reserved for the unsorted order")

    def is_unsorted(self) -> bool:
        return not self.fields

    def satisfies(self, other: SortOrder) -> bool:
        """Data sorted by this order is also sorted by ``other`` (a prefix-wise check)."""
        if other.is_unsorted():
            return True
        if len(other.fields) > len(self.fields):
            return False
        return all(mine.satisfies(theirs) for mine, theirs in zip(self.fields, other.fields))

    def validate(self, schema: Schema) -> None:
        """Java's ``SortOrder.checkCompatibility``: each source exists, is primitive and is a
        type its transform accepts. Raises ProgrammingError naming the transform and column."""
        for f in self.fields:
            for sid in f.all_source_ids:
                if not schema.has_field_id(sid):
                    raise ProgrammingError(
                        f"sort field {f.transform}({sid}) refers to missing column id {sid}"
                    )
                source = schema.find_type(sid)
                column = schema.find_column_name(sid)
                if not is_primitive(source):
                    raise ProgrammingError(
                        f"cannot sort by {f.transform}({column}): {source} is not a primitive type"
                    )
                if not f.transform.can_transform(source):
                    raise ProgrammingError(
                        f"cannot sort by {f.transform}({column}): it does not apply to {source}"
                    )

    @staticmethod
    def from_json(obj: dict[str, Any]) -> SortOrder:
        return SortOrder(
            json_int(obj["order-id"], "order-id"),
            tuple(SortField.from_json(f) for f in obj.get("fields", [])),
        )

    def to_json(self) -> dict[str, Any]:
        return {"order-id": self.order_id, "fields": [f.to_json() for f in self.fields]}

    def __str__(self) -> str:
        return "[" + ", ".join(str(f) for f in self.fields) + "]"


UNSORTED_ORDER = SortOrder(0, ())
