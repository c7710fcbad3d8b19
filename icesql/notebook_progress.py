"""Progress of long statements in a Jupyter notebook: the shell's progress bar, as a display.

``connect()`` run inside a Jupyter kernel adds a ``NotebookProgress`` to the connection's
progress listeners (``Connection.add_progress_listener``), so a statement that runs longer than
``DELAY`` seconds shows files and bytes read of those planned and rows written under its cell,
updated at most every ``REFRESH`` seconds and removed when the statement ends, as the shell's bar
is erased. Outside a kernel (scripts, the shell, IPython in a terminal) nothing is added.

>>> from icesql.progress import Progress
>>> shown = []
>>> bar = NotebookProgress(show=shown.append, delay=0, refresh=0)
>>> bar(Progress(files_planned=4, files_done=1, bytes_planned=400, bytes_done=100))
>>> shown[-1].text
' 25%  1/4 files  100/400 B'
>>> bar(Progress(files_planned=4, files_done=4, finished=True))
>>> shown[-1] is None
True
"""

from __future__ import annotations

import html
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from icesql.progress import Progress, progress_text

__all__ = ["DELAY", "REFRESH", "NotebookProgress", "ProgressDisplay", "in_kernel"]

DELAY = 1.0  # seconds a statement runs before its progress is shown (as in the shell)
REFRESH = 0.25  # seconds between two updates of the display


def in_kernel() -> bool:
    """Running in a Jupyter kernel (IPython with a kernel attached), where displays render.
    Looks only at modules already imported: never imports IPython itself."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class ProgressDisplay:
    """One state of the display: an HTML ``<progress>`` element and its text (Jupyter renders
    the HTML, other front ends the text)."""

    def __init__(self, progress: Progress):
        self.fraction = progress.fraction
        percent = f"{int(self.fraction * 100):3d}%  " if self.fraction is not None else ""
        self.text = percent + progress_text(progress)

    def _repr_html_(self) -> str:
        bar = (
            f'<progress value="{self.fraction:.3f}" max="1" style="width: 12em"></progress> '
            if self.fraction is not None
            else ""
        )
        return f"<div><code>icesql</code> {bar}<code>{html.escape(self.text)}</code></div>"

    def __repr__(self) -> str:
        return f"icesql {self.text}"


class NotebookProgress:
    """A progress listener that shows, updates and finally removes one display per statement.
    ``show`` gets a ``ProgressDisplay`` to show (or replace the shown one with) and ``None`` to
    remove it; by default it is IPython's ``display`` with a display id."""

    def __init__(
        self,
        show: Callable[[ProgressDisplay | None], None] | None = None,
        delay: float | None = None,
        refresh: float | None = None,
    ):
        self._show = show or _IPythonDisplay()
        self.delay = DELAY if delay is None else delay
        self.refresh = REFRESH if refresh is None else refresh
        self._lock = threading.Lock()
        self._shown = False
        self._last = 0.0

    def __call__(self, progress: Progress) -> None:
        with self._lock:
            if progress.finished:
                if self._shown:
                    self._show(None)
                    self._shown = False
                return
            now = time.monotonic()
            if progress.elapsed < self.delay or (self._shown and now - self._last < self.refresh):
                return
            state = ProgressDisplay(progress)
            if not state.text:
                return
            self._show(state)
            self._shown = True
            self._last = now


class _IPythonDisplay:
    """IPython's display, kept under one display id per statement: the first state is shown,
    the next ones update it, ``None`` empties it."""

    def __init__(self) -> None:
        self._handle: Any = None

    def __call__(self, state: ProgressDisplay | None) -> None:
        from IPython.display import HTML, display

        if state is None:
            if self._handle is not None:
                self._handle.update(HTML(""))
                self._handle = None
        elif self._handle is None:
            self._handle = display(state, display_id=True)
        else:
            self._handle.update(state)
