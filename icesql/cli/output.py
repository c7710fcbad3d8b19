"""Where the shell's results go: standard output, a file named by ``.output`` (until changed)
or ``.once`` (for the next result only), and, at a terminal, the pager for tables wider than
the screen.

A table that does not fit the terminal is paged through ``$PAGER`` when one is set (``less``
gets ``-S`` so wide rows scroll sideways instead of wrapping); otherwise its widest cells are
cut to the terminal's width (``fit_width``, as the DuckDB CLI does), and only a table of more
columns than even that fits is folded into one ``column = value`` line per cell (the ``line``
mode), as pgcli's auto-expand does. Nothing is fitted when the output is not a terminal, so
scripts and files get exactly what they asked.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from typing import TextIO


class Output:
    """The current destination of results; messages and errors go to ``err`` regardless."""

    def __init__(self, stdout: TextIO, err: TextIO):
        self.stdout = stdout
        self.err = err
        self._file: TextIO | None = None
        self._once: TextIO | None = None
        self.before_write: Callable[[], None] | None = None  # e.g. erase a progress bar

    @property
    def stream(self) -> TextIO:
        return self._once or self._file or self.stdout

    def redirect(self, path: str | None) -> None:
        """``.output FILE`` (``None`` or ``stdout``: back to standard output)."""
        self._close(self._file)
        self._file = None if path in (None, "", "stdout") else _open(path)

    def once(self, path: str) -> None:
        """``.once FILE``: the next result only."""
        self._close(self._once)
        self._once = _open(path)

    def at_terminal(self) -> bool:
        stream = self.stream
        return stream is self.stdout and isatty(stream)

    def fit_width(self) -> int | None:
        """The width results should be cut to: the terminal's, unless they go elsewhere or
        through a pager (which scrolls sideways and shows every character)."""
        if not self.at_terminal() or os.environ.get("PAGER", "").strip():
            return None
        return shutil.get_terminal_size().columns

    def write(self, text: str, fold: Callable[[], str] | None = None, last: bool = True) -> None:
        """Write one result (or a part of it, ``last=False``: ``.once`` stays open); ``fold``
        renders it narrower when it is wider than the terminal."""
        if self.before_write is not None:
            self.before_write()
        if text and self.at_terminal() and fold is not None:
            columns = shutil.get_terminal_size().columns
            if max(len(line) for line in text.splitlines()) > columns:
                pager = os.environ.get("PAGER", "").strip()
                if pager and page(text, pager):
                    return
                text = fold()
        stream = self.stream
        stream.write(text + "\n" if text else "")
        stream.flush()
        if last and self._once is not None:
            self._close(self._once)
            self._once = None

    def close(self) -> None:
        self._close(self._once)
        self._close(self._file)
        self._once = self._file = None

    def _close(self, stream: TextIO | None) -> None:
        if stream is not None and stream is not self.stdout:
            stream.close()


def page(text: str, pager: str) -> bool:
    """Show ``text`` through the pager command; False when it cannot be started."""
    import subprocess  # here: a ``-c`` run that pages nothing never loads it

    env = dict(os.environ)
    env.setdefault("LESS", "-SRXF")  # wide rows scroll sideways; short output just prints
    try:
        subprocess.run(pager, shell=True, input=text + "\n", text=True, env=env, check=False)
    except OSError:
        return False
    return True


def _open(path: str) -> TextIO:
    return open(os.path.expanduser(path), "w", encoding="utf-8")


def isatty(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal (False for closed or file-like streams)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
