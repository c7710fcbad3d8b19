"""The shell's progress bar: files and bytes read of those planned, rows and files written, on
one line of standard error, for statements that run longer than ``DELAY`` seconds, at a
terminal only, erased when the statement ends or its result starts printing.

It follows the connection's progress callback (``icesql.progress``): the callback only
keeps the latest ``Progress``; the shell's main thread, which waits for the statement anyway,
draws it (``draw``) between its waits, so the worker running the statement never writes to
the terminal.

>>> from icesql.progress import Progress
>>> bar_text(Progress(files_planned=8, files_done=2, bytes_planned=4 << 20, bytes_done=1 << 20), 60)
'[#####               ]   25%  2/8 files  1.0/4.0 MiB'
>>> bar_text(Progress(query_fraction=0.4, querying=True), 60)
'[########            ]   40%'
"""

from __future__ import annotations

import shutil
import threading
import time
from typing import TextIO

from icesql.progress import Progress, progress_text

DELAY = 1.0  # seconds a statement runs before its bar appears
TICK_SECONDS = 0.2  # a step of the moving block of a query of unknown share
_ERASE = "\r\x1b[K"  # back to the line's start, clear to its end


def bar_text(progress: Progress, width: int) -> str:
    """One line of at most ``width`` characters; empty when there is nothing to show. The
    share is DuckDB's own while it runs a query (``Progress.fraction``); a query it cannot
    measure shows a block moving to and fro and the time it has run, never a stuck 0%."""
    tail = progress_text(progress)
    fraction = progress.fraction
    if fraction is None:
        if progress.querying:
            return _running(progress, tail, width)
        return tail[:width]
    percent = f"{int(fraction * 100):3d}%"
    room = width - len(tail) - len(percent) - 6
    cells = max(min(room, 20), 0)
    filled = int(cells * fraction)
    bar = f"[{'#' * filled}{' ' * (cells - filled)}]  " if cells >= 5 else ""
    return f"{bar}{percent}  {tail}".rstrip()[:width]


def _running(progress: Progress, tail: str, width: int) -> str:
    """The bar of a query of unknown share: a block that bounces once a second or so."""
    seconds = f"{progress.elapsed:5.1f} s"
    cells = 20 if width - len(tail) - len(seconds) - 6 >= 20 else 0
    bar = ""
    if cells:
        step = int(progress.elapsed / TICK_SECONDS) % (2 * (cells - 3))
        at = step if step < cells - 3 else 2 * (cells - 3) - step
        bar = f"[{' ' * at}###{' ' * (cells - 3 - at)}]  "
    return f"{bar}{seconds}  {tail}".rstrip()[:width]


class ProgressBar:
    """The bar of one statement: ``update`` is the progress callback (any thread), ``draw``
    is called by the waiting main thread, ``stop`` erases it for good (results follow)."""

    def __init__(self, stream: TextIO, delay: float = DELAY):
        self.stream = stream
        self.delay = delay
        self._started = time.monotonic()
        self._latest: Progress | None = None
        self._shown = ""
        self._stopped = False
        self._lock = threading.Lock()

    def update(self, progress: Progress) -> None:
        self._latest = progress

    def draw(self) -> None:
        with self._lock:
            progress = self._latest
            if self._stopped or progress is None or progress.finished:
                return
            if time.monotonic() - self._started < self.delay:
                return
            width = shutil.get_terminal_size().columns - 1
            text = bar_text(progress, width)
            if text and text != self._shown:
                self.stream.write(_ERASE + text)
                self.stream.flush()
                self._shown = text

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._shown:
                self.stream.write(_ERASE)
                self.stream.flush()
                self._shown = ""
