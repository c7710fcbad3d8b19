"""The command line after the catalog options: output and script options, and what runs
(``-c``, ``-f``, piped input, or the interactive prompt, imported only at a terminal)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from icesql._version import __version__
from icesql.cli.formatting import MODES, Format
from icesql.cli.output import Output
from icesql.cli.runner import Shell
from icesql.cli.settings import Settings
from icesql.dbapi import Connection


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The shell's own options, beside ``-c`` and the catalog options of ``icesql.shell``."""
    parser.add_argument(
        "-f", "--file", action="append", default=[], metavar="FILE",
        help="run the statements and dot-commands of FILE, after any -c (repeatable)",
    )
    group = parser.add_argument_group("output")
    group.add_argument("--mode", choices=MODES, help="output mode (default: table)")
    for mode in ("csv", "json", "markdown"):
        group.add_argument(f"--{mode}", dest="mode", action="store_const", const=mode,
                           help=f"same as --mode {mode}")
    group.add_argument("--debug", action="store_true", help="show Python tracebacks of errors")
    parser.add_argument("--version", action="version", version=f"icesql {__version__}")


def run(con: Connection, args: argparse.Namespace, connect: Callable[[str], Connection]) -> int:
    """Run what the command line asks on ``con``; the exit status (1 after an error)."""
    settings = Settings(format=Format(args.mode or "table"), debug=args.debug)
    output = Output(sys.stdout, sys.stderr)
    scripted = bool(args.command or args.file)
    interactive = not scripted and sys.stdin.isatty()
    shell = Shell(con, output, settings, interactive=interactive, connect=connect)
    try:
        if interactive:
            from icesql.cli.prompt import interact

            return interact(shell)
        if not scripted:
            return shell.run_text(sys.stdin.read())
        for text in args.command or ():
            if shell.run_text(text) or shell.quitting:
                return 1 if not shell.quitting else 0
        for path in args.file:
            source = sys.stdin.read() if path == "-" else _read(path, shell)
            if source is None or shell.run_text(source) or shell.quitting:
                return 1 if not shell.quitting else 0
        return 0
    finally:
        shell.close()


def _read(path: str, shell: Shell) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        shell.error(f"error: cannot read {path}: {e.strerror or e}")
        return None
