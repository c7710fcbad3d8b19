"""A loaded table: one metadata version, where it came from, and how to read its files."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from icesql.io import FileIO

if TYPE_CHECKING:
    from icesql.metadata.table_metadata import TableMetadata
    from icesql.metadata.view_metadata import ViewMetadata


@dataclass(frozen=True)
class Table:
    """An immutable view of a table at one metadata version.

    Reloading gives a new ``Table``; holding one keeps a query on a consistent version even
    while others commit.
    """

    identifier: tuple[str, ...]
    metadata: TableMetadata
    metadata_location: str
    io: FileIO

    @property
    def name(self) -> str:
        return ".".join(self.identifier)


@dataclass(frozen=True)
class View:
    """An immutable view of an Iceberg view at one metadata version."""

    identifier: tuple[str, ...]
    metadata: ViewMetadata
    metadata_location: str

    @property
    def name(self) -> str:
        return ".".join(self.identifier)
