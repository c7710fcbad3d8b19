"""Statements sqlglot keeps as a ``Command`` (``icesql.statements.commands``): SET and RESET
go to the session's settings, the others are refused by name."""

from __future__ import annotations

import pytest

from icesql.catalog.filesystem import FileSystemCatalog
from icesql.engine import Engine
from icesql.errors import NotSupportedError
from icesql.io import FileIO
from icesql.sql.dialect import parse_one
from icesql.statements.commands import command


@pytest.fixture
def session(tmp_path):
    engine = Engine(FileSystemCatalog(str(tmp_path), FileIO()))
    yield engine
    engine.close()


def _run(session, sql):
    return command(session, parse_one(sql), [])


def test_set_stores_in_the_session_settings_and_shows_the_pair(session):
    result = _run(session, "SET my.key = some value ")
    assert result.reader.read_all().to_pylist() == [{"key": "my.key", "value": "some value"}]
    assert session.settings.get("my.key") == "some value"
    shown = _run(session, "set my.key").reader.read_all().to_pylist()
    assert shown == [{"key": "my.key", "value": "some value"}]


def test_reset_forgets_a_setting(session):
    _run(session, "SET a.b = 1")
    _run(session, "SET c.d = 2")
    assert _run(session, "RESET a.b").rowcount == -1
    assert (session.settings.get("a.b"), session.settings.get("c.d")) == (None, "2")
    _run(session, "reset")
    assert session.settings.get("c.d") is None


@pytest.mark.parametrize(
    ("sql", "keyword"), [("MSCK REPAIR TABLE t", "MSCK REPAIR"), ("add jar x.jar", "ADD JAR")]
)
def test_other_commands_are_refused_by_name(session, sql, keyword):
    with pytest.raises(NotSupportedError) as e:
        _run(session, sql)
    assert str(e.value) == f"{keyword} statements are not supported yet"
