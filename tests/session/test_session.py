"""The session interface: the engine implements it, and a handler needs nothing more."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from sqlglot import exp

from icesql.catalog.filesystem import FileSystemCatalog
from icesql.engine import Engine
from icesql.progress import ProgressTracker
from icesql.scan.planner import ManifestCache
from icesql.session import Result, Session, Settings, StatementTables, TempViews
from icesql.sql.dialect import parse
from icesql.statements import statement_handler


class _CatalogOnly:
    """A session that runs no queries: enough for DDL and SHOW."""

    def __init__(self, catalog: FileSystemCatalog):
        self.catalog = catalog
        self.catalogs = {catalog.name: catalog}
        self.default_namespace = ("default",)
        self.manifest_cache = ManifestCache()
        self.settings = Settings()
        self.progress = ProgressTracker()
        self.tables = StatementTables()
        self.temp_views = TempViews({})

    def query(self, statement: exp.Expr, params: Sequence[object]) -> Result:
        raise AssertionError("this session runs no queries")

    def python_rows(self, statement: exp.Expr) -> None:
        return None

    def query_columns(self, statement: exp.Expr, params: Sequence[object]) -> list[str]:
        raise AssertionError("this session runs no queries")


def _run(session: Session, sql: str) -> Result:
    (statement,) = parse(sql)
    handler = statement_handler(statement)
    assert handler is not None
    return handler(session, statement, ())


def test_the_engine_is_a_session(tmp_path):
    engine = Engine(FileSystemCatalog(str(tmp_path)))
    try:
        assert isinstance(engine, Session)
    finally:
        engine.close()


def test_handlers_need_only_the_session(tmp_path):
    session = _CatalogOnly(FileSystemCatalog(str(tmp_path)))
    assert isinstance(session, Session)
    _run(session, "CREATE NAMESPACE db")
    _run(session, "CREATE TABLE db.t (id BIGINT) USING iceberg")
    assert _run(session, "SHOW TABLES IN db").reader.read_all().column("tableName").to_pylist() == [
        "t"
    ]
    assert _run(session, "SET spark.sql.sources.partitionOverwriteMode = dynamic").reader
    assert session.settings.partition_overwrite_mode == "dynamic"
    with pytest.raises(AssertionError, match="runs no queries"):
        _run(session, "INSERT INTO db.t VALUES (1)")
