"""The shell's progress bar: files and bytes read of those planned, rows and files written, on
one line of standard error, for statements that run longer than ``DELAY`` seconds, at a
terminal only, erased when the statement ends or its result starts printing.

It follows the connection's progress callback (``icesql.session.progress``): the callback only
keeps the latest ``Progress``; the shell's main thread, which waits for the statement anyway,
draws it (``draw``) between its waits, so the worker running the statement never writes to
the terminal.

>>> from icesql.session.progress import Progress
>>> bar_text(Progress(files_planned=8, files_done=2, bytes_planned=4 << 20, bytes_done=1 << 20), 60)
'[#####               ]   25%  2/8 files  1.0/4.0 MiB'
"""

from __future__ import annotations

import shutil
import threading
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # icesql.session imports the engine's libraries: not before a statement
    from icesql.session.progress import Progress

DELAY = 1.0  # seconds a statement runs before its bar appears
_ERASE = "\r\x1b[K"  # back to the line's start, clear to its end


def progress_text(progress: Progress) -> str:
    """Files and bytes read of those planned, rows and files written, without the bar itself
    (the notebook display draws its own); empty when there is nothing to show."""
    parts = []
    if progress.fraction is not None:
        parts.append(f"{progress.files_done}/{progress.files_planned} files")
        if progress.bytes_planned:
            parts.append(f"{_size(progress.bytes_done, progress.bytes_planned)}")
    if progress.rows_written or progress.files_written:
        parts.append(f"{progress.rows_written:,} rows, {progress.files_written} files written")
    return "  ".join(parts)


def bar_text(progress: Progress, width: int) -> str:
    """One line of at most ``width`` characters; empty when there is nothing to show."""
    tail = progress_text(progress)
    if not tail:
        return ""
    fraction = progress.fraction
    if fraction is None:
        return tail[:width]
    percent = f"{int(fraction * 100):3d}%"
    room = width - len(tail) - len(percent) - 6
    cells = max(min(room, 20), 0)
    filled = int(cells * fraction)
    bar = f"[{'#' * filled}{' ' * (cells - filled)}]  " if cells >= 5 else ""
    return f"{bar}{percent}  {tail}"[:width]


def _size(done: int, planned: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if planned >= scale:
            return f"{done / scale:.1f}/{planned / scale:.1f} {unit}"
    return f"{done}/{planned} B"


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
