"""icesql.catalog.base: what every catalog offers. The write operations of a catalog that
cannot write refuse with NotSupportedError naming the catalog and the operation (and change
nothing); ``namespace_properties`` defaults to none for a namespace that exists; the two
commit failures are told apart by their error classes."""

from __future__ import annotations

import pytest

import icesql
from icesql.catalog.base import Catalog, CommitFailedError, CommitStateUnknownError
from icesql.catalog.filesystem import FileSystemCatalog
from icesql.errors import CommitConflictError, NoSuchNamespaceError, NoSuchTableError


class ReadOnlyFolders(Catalog):
    """A read-only catalog: namespaces are the first-level folders of a directory; it keeps
    every write default of ``Catalog``."""

    def __init__(self, root, name="archive"):
        self.root = root
        self.name = name

    def list_namespaces(self, parent=()):
        return [] if parent else sorted((p.name,) for p in self.root.iterdir() if p.is_dir())

    def namespace_exists(self, namespace):
        return len(namespace) == 1 and (self.root / namespace[0]).is_dir()

    def list_tables(self, namespace):
        return []

    def table_exists(self, identifier):
        return False

    def load_table(self, identifier):
        raise NoSuchTableError(f"table not found: {'.'.join(identifier)}")


@pytest.fixture
def archive(tmp_path):
    (tmp_path / "db").mkdir()
    return ReadOnlyFolders(tmp_path)


WRITES = [
    ("create namespaces", lambda c: c.create_namespace(("new",))),
    ("create namespaces", lambda c: c.create_namespace(("new",), {"k": "v"})),
    ("drop namespaces", lambda c: c.drop_namespace(("db",))),
    (
        "store namespace properties",
        lambda c: c.update_namespace_properties(("db",), {"k"}, {"a": "b"}),
    ),
    ("register tables", lambda c: c.register_table(("db", "t"), "/x/v1.metadata.json")),
    ("create tables", lambda c: c.default_table_location(("db", "t"))),
    ("create tables", lambda c: c.create_table(("db", "t"), None)),
    ("commit", lambda c: c.commit_table(None, None)),
    ("drop tables", lambda c: c.drop_table(("db", "t"))),
    ("drop tables", lambda c: c.drop_table(("db", "t"), purge=True)),
    ("rename tables", lambda c: c.rename_table(("db", "t"), ("db", "u"))),
]


@pytest.mark.parametrize(
    ("what", "write"), WRITES, ids=[f"{w[0]}-{i}" for i, w in enumerate(WRITES)]
)
def test_a_read_only_catalog_refuses_every_write_naming_itself_and_the_operation(
    archive, tmp_path, what, write
):
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with pytest.raises(icesql.NotSupportedError) as info:
        write(archive)
    assert str(info.value) == f"catalog 'archive' (ReadOnlyFolders) cannot {what}"
    assert isinstance(info.value, icesql.DatabaseError)  # PEP 249's class for "not supported"
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_namespace_properties_default_to_none_for_an_existing_namespace(archive):
    assert archive.namespace_properties(("db",)) == {}
    with pytest.raises(NoSuchNamespaceError, match="namespace not found: nope.deeper"):
        archive.namespace_properties(("nope", "deeper"))


def test_close_releases_nothing_by_default_and_can_be_called_twice(archive):
    archive.close()
    archive.close()
    assert archive.list_namespaces() == [("db",)]


def test_the_hadoop_catalog_keeps_the_defaults_it_does_not_implement(tmp_path):
    """The file-system (hadoop) catalog writes tables but stores no namespace properties
    (its folder is the one it tells) and cannot register tables, as Java's HadoopCatalog."""
    catalog = FileSystemCatalog(str(tmp_path), name="lake")
    catalog.create_namespace(("db",))
    assert catalog.namespace_properties(("db",)) == {"location": str(tmp_path / "db")}
    with pytest.raises(NoSuchNamespaceError, match="namespace not found: other"):
        catalog.namespace_properties(("other",))
    with pytest.raises(
        icesql.NotSupportedError,
        match=r"^catalog 'lake' \(FileSystemCatalog\) cannot store namespace properties$",
    ):
        catalog.update_namespace_properties(("db",), updates={"owner": "me"})
    with pytest.raises(icesql.NotSupportedError, match="catalog 'lake' .* cannot register tables"):
        catalog.register_table(("db", "t"), str(tmp_path / "v1.metadata.json"))


def test_a_catalog_must_implement_the_reads():
    with pytest.raises(TypeError, match="abstract"):
        Catalog()  # type: ignore[abstract]


def test_a_lost_race_is_retryable_an_unknown_outcome_is_not():
    """``commit()`` retries a CommitConflictError; an unknown commit state is an
    OperationalError, so it is never retried or cleaned up after."""
    assert issubclass(CommitFailedError, CommitConflictError)
    assert not issubclass(CommitStateUnknownError, CommitConflictError)
    assert issubclass(CommitStateUnknownError, icesql.OperationalError)
