"""What every pointer-swapping catalog does around its pointer store: the metadata file a
commit writes stays only when the pointer moved to it (or may have)."""

from __future__ import annotations

from pathlib import Path

import pytest

from icesql.catalog.base import CommitFailedError, CommitStateUnknownError
from icesql.catalog.metastore import MetastoreCatalog
from icesql.errors import AlreadyExistsError, NoSuchTableError, OperationalError, ProgrammingError
from icesql.metadata.builder import new_table_metadata
from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField


class DictCatalog(MetastoreCatalog):
    """Pointers in a dict; ``fail`` makes the next swap raise it (the store's answer)."""

    def __init__(self, warehouse: str) -> None:
        super().__init__("dict", warehouse)
        self.pointers: dict[tuple[str, ...], str] = {}
        self.fail: BaseException | None = None

    def _pointer(self, identifier):
        return self.pointers.get(identifier)

    def _insert_pointer(self, identifier, location):
        if identifier in self.pointers:
            raise AlreadyExistsError(f"table already exists: {self.describe(identifier)}")
        self.pointers[identifier] = location

    def _swap_pointer(self, identifier, expected, location):
        if self.fail is not None:
            error, self.fail = self.fail, None
            raise error
        if self.pointers.get(identifier) != expected:
            return False
        self.pointers[identifier] = location
        return True

    def _delete_pointer(self, identifier):
        return self.pointers.pop(identifier, None) is not None

    def namespace_exists(self, namespace):
        return True

    def list_namespaces(self, parent=()):
        return []

    def list_tables(self, namespace):
        return sorted(i for i in self.pointers if i[:-1] == namespace)


@pytest.fixture
def catalog(tmp_path) -> DictCatalog:
    return DictCatalog(str(tmp_path / "wh"))


def _create(catalog: DictCatalog, name: str = "t"):
    identifier = ("db", name)
    schema = Schema((NestedField(1, "id", LongType(), False),))
    return catalog.create_table(
        identifier, new_table_metadata(catalog.default_table_location(identifier), schema)
    )


def _files(catalog: DictCatalog) -> list[str]:
    return sorted(p.name[:5] for p in Path(catalog.warehouse, "db", "t", "metadata").iterdir())


def test_versions_count_up_and_the_pointer_follows(catalog):
    table = _create(catalog)
    second = catalog.commit_table(table, table.metadata)
    third = catalog.commit_table(second, second.metadata)
    assert _files(catalog) == ["00000", "00001", "00002"]
    assert catalog.pointers[("db", "t")] == third.metadata_location
    assert catalog.load_table(("db", "t")).metadata_location == third.metadata_location


def test_a_lost_race_deletes_the_file_it_wrote(catalog):
    table = _create(catalog)
    catalog.commit_table(table, table.metadata)
    with pytest.raises(CommitFailedError, match=r"db\.t \(catalog 'dict'\)"):
        catalog.commit_table(table, table.metadata)
    assert _files(catalog) == ["00000", "00001"]


def test_an_unknown_outcome_keeps_the_file(catalog):
    table = _create(catalog)
    catalog.fail = CommitStateUnknownError("the store did not answer")
    with pytest.raises(CommitStateUnknownError):
        catalog.commit_table(table, table.metadata)
    assert _files(catalog) == ["00000", "00001"]  # it may be the current version: keep it


def test_a_failed_store_call_deletes_the_file(catalog):
    table = _create(catalog)
    catalog.fail = OperationalError("refused")
    with pytest.raises(OperationalError, match="refused"):
        catalog.commit_table(table, table.metadata)
    assert _files(catalog) == ["00000"]


def test_a_table_dropped_while_committing_is_named(catalog):
    table = _create(catalog)
    catalog.drop_table(("db", "t"))
    with pytest.raises(NoSuchTableError, match="dropped while committing"):
        catalog.commit_table(table, table.metadata)


def test_a_taken_name_leaves_no_metadata_file(catalog):
    _create(catalog)
    catalog.pointers[("db", "u")] = "elsewhere"
    with pytest.raises(AlreadyExistsError, match=r"db\.u"):
        _create(catalog, "u")
    assert not Path(catalog.warehouse, "db", "u").exists()


def test_drop_with_purge_deletes_the_tables_files(catalog):
    table = _create(catalog)
    # the next version as the commit path makes it: the previous file in its metadata log
    catalog.commit_table(
        table, table.metadata.builder().build(previous_metadata_file=table.metadata_location)
    )
    catalog.drop_table(("db", "t"), purge=True)
    assert _files(catalog) == []
    with pytest.raises(NoSuchTableError):
        catalog.drop_table(("db", "t"))


@pytest.mark.parametrize(
    ("identifier", "what"),
    [
        (("db", ".."), "table"),
        (("a/b", "t"), "table"),
        (("a.b", "t"), "table"),
        (("db", "x%2Fy"), "table"),
        (("t",), "table"),
        (("..",), "namespace"),
    ],
)
def test_names_that_would_be_paths_are_refused(catalog, identifier, what):
    with pytest.raises(ProgrammingError, match="invalid"):
        catalog.check_identifier(identifier, what)


def test_a_catalog_without_a_warehouse_asks_for_a_location():
    bare = DictCatalog("")
    assert bare.warehouse is None
    with pytest.raises(ProgrammingError, match="no warehouse"):
        bare.default_table_location(("db", "t"))
