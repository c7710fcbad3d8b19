"""The dot-commands, in the DuckDB CLI's style, and the Iceberg ones built on icesql's own SQL
(metadata tables, ``DESCRIBE``, ``SHOW``), so they show what a query would.

Each command is a function ``(shell, argument text) -> bool`` (False: it failed) in one table;
``.help`` prints the table's summaries.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from icesql.cli import table_commands
from icesql.cli.diagnostics import describe
from icesql.cli.formatting import MODES, render
from icesql.errors import Error

if TYPE_CHECKING:
    from icesql.cli.runner import Shell

Command = Callable[["Shell", str], bool]
MAX_READ_DEPTH = 16


def run_meta(shell: Shell, line: str) -> bool:
    """Run one ``.command args`` line."""
    name, _, rest = line.strip().partition(" ")
    entry = COMMANDS.get(name.lower())
    if entry is None:
        shell.error(f"error: unknown command {name}; .help lists the commands")
        return False
    try:
        return entry[1](shell, rest.strip())
    except (OSError, ValueError) as e:
        shell.error(f"error: {name}: {e}")
        return False
    except Error as e:
        shell.error(describe(e))
        return False


def _words(args: str) -> list[str]:
    return shlex.split(args) if args else []


def _on_off(name: str, args: str) -> bool:
    value = args.strip().lower()
    if value in ("on", "true", "1", "yes"):
        return True
    if value in ("off", "false", "0", "no"):
        return False
    raise ValueError(f"takes on or off, got {args!r}")


# -- output and settings -----------------------------------------------------------------------
def _help(shell: Shell, args: str) -> bool:
    width = max(len(f"{k} {v[0]}".strip()) for k, v in COMMANDS.items())
    lines = [f"{(k + ' ' + v[0]).strip().ljust(width)}  {v[2]}" for k, v in COMMANDS.items()]
    shell.output.write("\n".join(lines))
    return True


def _mode(shell: Shell, args: str) -> bool:
    if not args:
        shell.say(f"current output mode: {shell.settings.format.mode}")
        return True
    mode = args.split()[0].lower()
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; one of {', '.join(MODES)}")
    shell.settings.format = replace(shell.settings.format, mode=mode)
    return True


def _headers(shell: Shell, args: str) -> bool:
    shell.settings.format = replace(shell.settings.format, headers=_on_off(".headers", args))
    return True


def _nullvalue(shell: Shell, args: str) -> bool:
    words = _words(args)
    shell.settings.format = replace(shell.settings.format, nullvalue=words[0] if words else None)
    return True


def _width(shell: Shell, args: str) -> bool:
    """``.width N1 N2 ...``: the columns' minimum widths (negative: right-aligned, 0: as the
    data asks), in table, box and markdown modes; ``.width`` alone resets them all."""
    words = args.split()
    try:
        widths = tuple(int(w) for w in words)
    except ValueError:
        raise ValueError(f"takes column widths (whole numbers), got {args!r}") from None
    shell.settings.format = replace(shell.settings.format, widths=widths)
    return True


def _maxrows(shell: Shell, args: str) -> bool:
    if not args.strip().isdigit():
        raise ValueError(f"takes a number of rows (0: no limit), got {args!r}")
    shell.settings.maxrows = int(args)
    return True


def _timer(shell: Shell, args: str) -> bool:
    shell.settings.timer = _on_off(".timer", args)
    return True


def _explain(shell: Shell, args: str) -> bool:
    shell.settings.explain = _on_off(".explain", args)
    return True


def _output(shell: Shell, args: str) -> bool:
    words = _words(args)
    shell.output.redirect(words[0] if words else None)
    return True


def _once(shell: Shell, args: str) -> bool:
    words = _words(args)
    if not words:
        raise ValueError("takes a file name")
    shell.output.once(words[0])
    return True


def _read(shell: Shell, args: str) -> bool:
    words = _words(args)
    if not words:
        raise ValueError("takes a file name")
    if shell.depth >= MAX_READ_DEPTH:
        raise ValueError(f"files read each other more than {MAX_READ_DEPTH} deep")
    with open(os.path.expanduser(words[0]), encoding="utf-8") as f:
        text = f.read()
    shell.depth += 1
    try:
        return shell.run_text(text) == 0
    finally:
        shell.depth -= 1


def _open(shell: Shell, args: str) -> bool:
    words = _words(args)
    create = "--create" in words
    words = [w for w in words if w != "--create"]
    if len(words) != 1 or shell.connect is None:
        raise ValueError("takes a warehouse folder (and --create for a new one)")
    con = shell.connect(words[0], create)  # fails before the old connection is closed
    old, shell.con = shell.con, con
    if old is not shell.original:
        old.close()
    return True


def _quit(shell: Shell, args: str) -> bool:
    shell.quitting = True
    return True


# -- catalog and Iceberg -------------------------------------------------------------------------
def _tables(shell: Shell, args: str) -> bool:
    """Every table of every namespace of the current catalog, matching a LIKE or glob pattern."""
    pattern = args.strip().replace("%", "*").replace("_", "?") if args.strip() else "*"
    names: list[tuple[str, str]] = []
    pending = [r[0] for r in shell.con.execute("SHOW NAMESPACES").fetchall()]
    while pending:
        namespace = pending.pop(0)
        quoted = ".".join(f"`{p}`" for p in namespace.split("."))
        for ns, table, _ in shell.con.execute(f"SHOW TABLES IN {quoted}").fetchall():
            if fnmatch.fnmatch(table.lower(), pattern.lower()) or fnmatch.fnmatch(
                f"{ns}.{table}".lower(), pattern.lower()
            ):
                names.append((ns, table))
        children = shell.con.execute(f"SHOW NAMESPACES IN {quoted}").fetchall()
        pending += [r[0] for r in children if r[0] != namespace]
    shell.output.write(render(["namespace", "table"], sorted(names), shell.settings.format))
    return True


def _schema(shell: Shell, args: str) -> bool:
    name = table_commands.table_name(args)
    (text,) = shell.con.execute(f"SHOW CREATE TABLE {name}").fetchone() or ("",)
    shell.output.write(text.rstrip("\n") + ";")
    return True


def _refs(shell: Shell, args: str) -> bool:
    name = table_commands.table_name(args)
    return shell.run_sql(f"SELECT * FROM {name}.refs ORDER BY type, name", shown_as=args)


# name -> (arguments, function, summary)
COMMANDS: dict[str, tuple[str, Command, str]] = {
    ".help": ("", _help, "show this list"),
    ".tables": ("[PATTERN]", _tables, "list tables (of every namespace) matching a LIKE pattern"),
    ".schema": ("TABLE", _schema, "the table's CREATE TABLE statement"),
    ".describe": (
        "TABLE",
        table_commands.describe,
        "columns, partitioning, properties, snapshot and refs",
    ),
    ".snapshots": (
        "TABLE",
        table_commands.snapshots,
        "the table's snapshots, one a line, with their refs",
    ),
    ".refs": ("TABLE", _refs, "the table's branches and tags"),
    ".files": (
        "TABLE [WHERE]",
        table_commands.files,
        "the table's live files, e.g. .files t partition.d = 1",
    ),
    ".health": (
        "TABLE [orphans]",
        table_commands.health,
        "file sizes, deletes, manifests, snapshots and the CALLs that fix them",
    ),
    ".explain": ("on|off", _explain, "show the plan of each query instead of running it"),
    ".mode": ("[MODE]", _mode, "output mode: " + "|".join(MODES)),
    ".headers": ("on|off", _headers, "show column names"),
    ".nullvalue": ("[TEXT]", _nullvalue, "text shown for NULL (no argument: the mode's own)"),
    ".maxrows": ("N", _maxrows, "rows shown in table modes (0: all)"),
    ".width": (
        "[N1 N2 ...]",
        _width,
        "minimum column widths (negative: right-aligned; none: reset)",
    ),
    ".timer": ("on|off", _timer, "print the run time of each statement"),
    ".output": ("[FILE]", _output, "send results to FILE (no argument: back to stdout)"),
    ".once": ("FILE", _once, "send the next result to FILE"),
    ".read": ("FILE", _read, "run the statements and commands of FILE"),
    ".open": (
        "[--create] WAREHOUSE",
        _open,
        "connect to the file-system warehouse WAREHOUSE instead (--create: a new one)",
    ),
    ".quit": ("", _quit, "leave the shell (also .exit, Ctrl-D)"),
    ".exit": ("", _quit, "leave the shell"),
}
