"""The interactive prompt on prompt_toolkit: persistent history (``~/.icesql_history``, or
``$ICESQL_HISTORY``; Ctrl-R searches it), statements over several lines until ``;``, SQL
highlighted by pygments, completion (``icesql.cli.completion``).

Imported only when standard input is a terminal, so ``import icesql`` and scripts never load
prompt_toolkit or pygments. Ctrl-C at the prompt clears the line; while a statement runs it
interrupts the statement (``icesql.cli.runner``); Ctrl-D or ``.quit`` leaves.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from icesql._version import __version__
from icesql.cli.completion import Completer, Names
from icesql.cli.diagnostics import describe
from icesql.cli.runner import Shell
from icesql.cli.script import is_complete
from icesql.errors import Error

if TYPE_CHECKING:
    from icesql.cli.app import Opening
    from icesql.dbapi import Connection

HISTORY_ENV = "ICESQL_HISTORY"
PROMPT = "icesql> "
CONTINUATION = "   ...> "
# statements after which the names completion offers may have changed
_CHANGES_NAMES = re.compile(
    r"\b(CREATE|DROP|ALTER|USE|RENAME)\b|^\s*\.open", re.IGNORECASE | re.MULTILINE
)


def history_path() -> str:
    return os.path.expanduser(os.environ.get(HISTORY_ENV) or "~/.icesql_history")


def preload() -> None:
    """Import prompt_toolkit and pygments before the engine starts loading beside them (the
    two would share the interpreter's lock and delay the prompt)."""
    import prompt_toolkit.shortcuts  # noqa: F401
    import pygments.lexers.sql  # noqa: F401


def session(names: Names) -> Any:
    """A prompt_toolkit ``PromptSession``: Enter runs the input once it is a complete
    statement (or a dot-command) and adds a line otherwise."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
    from prompt_toolkit.filters import Condition
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.lexers import PygmentsLexer
    from pygments.lexers.sql import SqlLexer

    bindings = KeyBindings()

    @Condition
    def complete() -> bool:
        from prompt_toolkit.application import get_app

        return is_complete(get_app().current_buffer.text)

    @bindings.add("enter", filter=complete)
    def _(event: Any) -> None:
        event.current_buffer.validate_and_handle()

    return PromptSession(
        message=PROMPT,
        prompt_continuation=lambda width, line, wrap: CONTINUATION.rjust(width),
        multiline=True,
        key_bindings=bindings,
        history=FileHistory(history_path()),
        auto_suggest=AutoSuggestFromHistory(),
        lexer=PygmentsLexer(SqlLexer),
        completer=Completer(names),
        complete_while_typing=False,
        enable_history_search=False,
    )


def _connection(opening: Opening) -> Connection | None:
    """For completion: a Tab pressed while the engine still loads waits for it."""
    try:
        return opening.result()
    except Exception:
        return None


def _connection_of(shell: Shell) -> Callable[[], Connection | None]:
    """For completion: the connection ``shell`` runs on now (``.open`` may change it)."""
    return lambda: shell.con


def interact(
    opening: Opening, make_shell: Callable[[Connection], Shell], notice: str | None = None
) -> int:
    """Read, run, print until Ctrl-D or ``.quit``. The status is 0 (errors were shown), or 1
    when the connection could not be opened. ``notice`` follows the banner."""
    shell: Shell | None = None
    names = Names(lambda: _connection(opening))
    prompt = session(names)
    print(
        f"icesql {__version__}: Spark SQL over Iceberg. End statements with ';'."
        " .help lists the commands, Ctrl-D quits."
    )
    if notice:
        print(notice)
    while shell is None or not shell.quitting:
        try:
            text = prompt.prompt()
        except KeyboardInterrupt:
            continue
        except EOFError:
            break
        if not text.strip():
            continue
        if shell is None:
            try:
                shell = make_shell(opening.result())
            except KeyboardInterrupt:
                continue
            except Error as e:
                print(describe(e), file=sys.stderr, flush=True)
                return 1
        shell.run_text(text)
        if shell.con is not shell.original or _CHANGES_NAMES.search(text):
            names.connection = _connection_of(shell)
            names.clear()
    if shell is not None:
        shell.close()
    return 0
