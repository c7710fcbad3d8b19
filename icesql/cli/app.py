"""The command line after the catalog options: output and script options, and what runs
(``-c``, ``-f``, piped input, or the interactive prompt, imported only at a terminal).

At the prompt the connection (and the engine it imports: DuckDB, sqlglot, pyarrow) is opened on
a background thread while prompt_toolkit starts, so the prompt appears at once; the first
statement waits for it.
"""

from __future__ import annotations

import argparse
import functools
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from icesql._version import __version__
from icesql.cli.formatting import MODES, Format
from icesql.cli.output import Output
from icesql.cli.runner import Shell
from icesql.cli.settings import Settings
from icesql.errors import Error

if TYPE_CHECKING:
    from icesql.dbapi import Connection


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The shell's own options, beside ``-c`` and the catalog options of ``icesql.shell``."""
    parser.add_argument(
        "-f",
        "--file",
        action="append",
        default=[],
        metavar="FILE",
        help="run the statements and dot-commands of FILE, after any -c (repeatable)",
    )
    group = parser.add_argument_group("output")
    group.add_argument("--mode", choices=MODES, help="output mode (default: table)")
    for mode in ("csv", "json", "markdown"):
        group.add_argument(
            f"--{mode}",
            dest="mode",
            action="store_const",
            const=mode,
            help=f"same as --mode {mode}",
        )
    group.add_argument("--debug", action="store_true", help="show Python tracebacks of errors")
    parser.add_argument("--version", action="version", version=f"icesql {__version__}")


class Opening:
    """A connection being opened on a background thread; ``result()`` waits for it."""

    def __init__(self, open_connection: Callable[[], Connection]):
        self._done = threading.Event()
        self._con: Connection | None = None
        self._error: BaseException | None = None

        def target() -> None:
            try:
                self._con = open_connection()
            except BaseException as e:
                self._error = e
            finally:
                self._done.set()

        threading.Thread(target=target, name="icesql-connect", daemon=True).start()

    def ready(self) -> Connection | None:
        """The connection if it is open already, else None (never waits)."""
        return self._con if self._done.is_set() else None

    def result(self) -> Connection:
        while not self._done.wait(0.05):
            pass
        if self._error is not None:
            raise self._error
        assert self._con is not None
        return self._con


def run(
    args: argparse.Namespace,
    open_connection: Callable[[], Connection],
    notice: str | None = None,
) -> int:
    """Run what the command line asks; the exit status (1 after an error). ``notice`` is
    shown under the prompt's banner."""
    settings = Settings(format=Format(args.mode or "table"), debug=args.debug)
    output = Output(sys.stdout, sys.stderr)
    scripted = bool(args.command or args.file)

    def reopen(warehouse: str, create: bool) -> Connection:  # .open [--create] WAREHOUSE
        from icesql.dbapi import connect

        return connect(warehouse, name=args.name, create=create)

    if not scripted and sys.stdin.isatty():
        from icesql.cli.prompt import interact, preload

        preload()
        opening = Opening(open_connection)
        status = interact(opening, lambda con: Shell(con, output, settings, True, reopen), notice)
        con = opening.ready()
        if con is not None:
            con.close()
        return status
    try:
        con = open_connection()
    except Error as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    with con:
        shell = Shell(con, output, settings, interactive=False, connect=reopen)
        try:
            return _run_scripts(shell, args)
        finally:
            shell.close()


def _run_scripts(shell: Shell, args: argparse.Namespace) -> int:
    if not (args.command or args.file):
        return shell.run_text(sys.stdin.read())
    texts: list[Callable[[], str | None]] = [_given(c) for c in args.command or ()]
    texts += [functools.partial(_read, p, shell) for p in args.file]
    for text in texts:
        source = text()
        if source is None or shell.run_text(source):
            return 1
        if shell.quitting:
            break
    return 0


def _given(text: str) -> Callable[[], str | None]:
    return lambda: text


def _read(path: str, shell: Shell) -> str | None:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        shell.error(f"error: cannot read {path}: {e.strerror or e}")
        return None
