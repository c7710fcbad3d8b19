"""The prompt's pieces that need no terminal: where history lives, that Enter runs only a
complete statement. The prompt itself is driven in a real terminal in test_terminal.py."""

from __future__ import annotations

import pytest

from icesql.cli.completion import Names
from icesql.cli.prompt import history_path, session


def test_history_file_follows_the_environment(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("ICESQL_HISTORY", str(tmp_path / "h"))
    assert history_path() == str(tmp_path / "h")
    monkeypatch.delenv("ICESQL_HISTORY")
    assert history_path().endswith(".icesql_history")


def test_session_builds_without_a_terminal(monkeypatch, tmp_path) -> None:
    pytest.importorskip("prompt_toolkit")
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    monkeypatch.setenv("ICESQL_HISTORY", str(tmp_path / "h"))
    with create_pipe_input() as pipe:
        from prompt_toolkit.application import create_app_session

        with create_app_session(input=pipe, output=DummyOutput()):
            prompt = session(Names(lambda: None))
            pipe.send_text("SELECT 1\n;\n")
            assert prompt.prompt() == "SELECT 1\n;"
