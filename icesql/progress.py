"""How far the running statement has got: files and bytes planned and read, rows and files
written, told to whoever listens (the shell's progress bar, a notebook's display).

Each connection has one ``ProgressTracker``. The scan and write code report per file or per
batch, never per row, and only while somebody listens (``tracker.active`` is checked first), so
a connection nobody watches pays one attribute test per file. Listeners get a frozen
``Progress`` after each event and, while DuckDB runs a query, every ``TICK`` seconds from a
monitor thread: DuckDB's own query progress (``query_fraction``) moves the share done through a
long join or the query of an INSERT ... SELECT, the files DuckDB reads itself count as done in
proportion to it, and all of them once the result has been read to its end. A query DuckDB
cannot measure (it says -1: a positional join with a keep-mask of position deletes, an Arrow
stream) has no share at all rather than a made-up 0%.

It sits below every layer that reports (``scan``, ``write``, the engine) and every front that
listens, and imports nothing of icesql, so a scan can report without knowing of sessions.

>>> seen = []
>>> tracker = ProgressTracker()
>>> remove = tracker.add_listener(seen.append)
>>> _ = tracker.begin(); tracker.planned(2, 300); tracker.file_read(100); tracker.finish()
>>> seen[-1].files_done, seen[-1].bytes_done, seen[-1].finished
(1, 100, True)
>>> remove()
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["TICK", "Progress", "ProgressCallback", "ProgressTracker", "progress_text"]

TICK = 0.2  # seconds between reports while DuckDB reads files itself


@dataclass(frozen=True)
class Progress:
    """The running statement's work so far. ``files_done``/``bytes_done`` count data files
    read of the ``files_planned``/``bytes_planned`` its scans planned; ``*_written`` count what
    a write produced. ``finished`` is set on the last report of the statement."""

    files_planned: int = 0
    files_done: int = 0
    bytes_planned: int = 0
    bytes_done: int = 0
    rows_written: int = 0
    files_written: int = 0
    bytes_written: int = 0
    elapsed: float = 0.0  # seconds since the statement began
    finished: bool = False
    query_fraction: float | None = None  # DuckDB's share of its running query, if it says
    querying: bool = False  # DuckDB is running a query (its share may be unknown)

    @property
    def fraction(self) -> float | None:
        """Share of the work done: DuckDB's share of its query or of the planned bytes read
        (files when sizes are unknown), whichever is further. None if nothing says: nothing
        was planned (a write of literal rows, DDL), or DuckDB runs a query it cannot measure
        and no file has been read yet."""
        files = None
        if self.bytes_planned > 0:
            files = min(self.bytes_done / self.bytes_planned, 1.0)
        elif self.files_planned > 0:
            files = min(self.files_done / self.files_planned, 1.0)
        if self.query_fraction is not None:
            return max(files or 0.0, self.query_fraction)
        if self.querying and not files:
            return None
        return files


ProgressCallback = Callable[[Progress], None]


def progress_text(progress: Progress) -> str:
    """Files and bytes read of those planned, rows and files written, without the bar itself
    (the notebook display draws its own); empty when there is nothing to show."""
    parts = []
    if progress.fraction is not None and progress.files_planned:
        parts.append(f"{progress.files_done}/{progress.files_planned} files")
        if progress.bytes_planned:
            parts.append(f"{_size(progress.bytes_done, progress.bytes_planned)}")
    elif progress.files_planned:  # DuckDB cannot tell how far it has read them
        parts.append(f"{progress.files_planned} files")
    if progress.rows_written or progress.files_written:
        parts.append(f"{progress.rows_written:,} rows, {progress.files_written} files written")
    return "  ".join(parts)


def _size(done: int, planned: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if planned >= scale:
            return f"{done / scale:.1f}/{planned / scale:.1f} {unit}"
    return f"{done}/{planned} B"


@dataclass
class _DuckRead:
    cursor: Any  # a DuckDB connection (None once closed): asked for its query_progress()
    files: int
    bytes: int


class ProgressTracker:
    """The progress of one connection's running statement, and the callbacks that follow it.

    Callbacks run on the thread doing the work or on the monitor thread: keep them short and
    do not run statements from them. An exception in a callback is swallowed (progress must
    never fail a statement).
    """

    def __init__(self) -> None:
        self._listeners: list[ProgressCallback] = []
        self._lock = threading.Lock()
        self._polling = threading.Lock()  # held while DuckDB is asked: see ``forget``
        self._statement = 0  # which statement the counters are of
        self._reset()

    def _reset(self) -> None:
        self._started = time.monotonic()
        self._files_planned = self._bytes_planned = 0
        self._files_done = self._bytes_done = 0
        self._rows_written = self._files_written = self._bytes_written = 0
        self._duck: list[_DuckRead] = []
        self._duck_share = 0.0  # of the files DuckDB reads: the share done
        self._duck_known = False  # DuckDB has told a share (it says -1 when it cannot)
        self._duck_done = False  # the query's result was read to its end
        self._running = False
        self._ticker: threading.Thread | None = None

    # -- listeners --------------------------------------------------------------------------
    def add_listener(self, callback: ProgressCallback) -> Callable[[], None]:
        """Call ``callback(Progress)`` as statements progress; returns a function removing it."""
        with self._lock:
            self._listeners = [*self._listeners, callback]

        def remove() -> None:
            with self._lock:
                self._listeners = [c for c in self._listeners if c is not callback]

        return remove

    @property
    def active(self) -> bool:
        """A statement is being followed: reporting is worth its (small) cost."""
        return self._running and bool(self._listeners)

    def snapshot(self, finished: bool = False) -> Progress:
        share = self._duck_share
        duck_files = sum(d.files for d in self._duck)
        duck_bytes = sum(d.bytes for d in self._duck)
        return Progress(
            files_planned=self._files_planned,
            files_done=self._files_done + int(duck_files * share),
            bytes_planned=self._bytes_planned,
            bytes_done=self._bytes_done + int(duck_bytes * share),
            rows_written=self._rows_written,
            files_written=self._files_written,
            bytes_written=self._bytes_written,
            elapsed=time.monotonic() - self._started,
            finished=finished,
            query_fraction=share if self._duck_known else None,
            querying=bool(self._duck) and not (finished or self._duck_done),
        )

    # -- the statement's life ---------------------------------------------------------------
    def begin(self) -> int:
        """A statement starts: counters restart (only if somebody listens). Returns the
        statement's number, for ``finish`` and ``watch``."""
        self.finish(report=False)
        with self._lock:
            self._reset()
            self._statement += 1
            self._running = bool(self._listeners)
            return self._statement

    def finish(self, report: bool = True, statement: int | None = None) -> None:
        """The statement is over (its result closed or read to the end): a last report.
        ``statement`` (from ``begin``) ignores the end of one that is no longer followed."""
        if not self._running or (statement is not None and statement != self._statement):
            return
        self._running = False
        if report:
            self._notify(self.snapshot(finished=True))

    # -- events (callers check ``active`` first) --------------------------------------------
    def planned(self, files: int, size: int) -> None:
        """A scan planned ``files`` data files of ``size`` bytes."""
        self._files_planned += files
        self._bytes_planned += size
        self._notify(self.snapshot())

    def file_read(self, size: int) -> None:
        """A data file of ``size`` bytes was read through icesql's own (Arrow) reader."""
        self._files_done += 1
        self._bytes_done += size
        self._notify(self.snapshot())

    def duck_query(self, cursor: Any) -> None:
        """DuckDB runs a query on ``cursor``: its own progress is the share done (a monitor
        thread asks it every ``TICK``), even when it reads no table (a join of ``range``s)."""
        self.duck_read(cursor, 0, 0)

    def duck_read(self, cursor: Any, files: int, size: int) -> None:
        """DuckDB reads ``files`` planned files of ``size`` bytes itself on ``cursor``: they
        count as done as its query progresses (a monitor thread asks it every ``TICK``)."""
        if files < 0:
            return
        self._duck.append(_DuckRead(cursor, files, size))
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="icesql-progress", daemon=True)
            self._ticker.start()

    def forget(self, cursor: Any) -> None:
        """``cursor`` is about to close: stop asking it (waits for a question under way, as
        DuckDB must not be asked about a connection while it closes)."""
        with self._polling:
            for read in self._duck:
                if read.cursor is cursor:
                    read.cursor = None  # its files still count

    def read_to_end(self) -> None:
        """A query was read to its end: DuckDB has read every file it was given."""
        self._duck_share = 1.0
        self._duck_known = self._duck_done = True
        self._notify(self.snapshot())

    def rows_written(self, rows: int) -> None:
        self._rows_written += rows
        self._notify(self.snapshot())

    def file_written(self, size: int) -> None:
        self._files_written += 1
        self._bytes_written += size
        self._notify(self.snapshot())

    def watch(self, reader: pa.RecordBatchReader, statement: int) -> pa.RecordBatchReader:
        """``reader``, reporting the end of ``statement`` when it is read to the end."""
        import pyarrow as pa

        def batches() -> Iterator[pa.RecordBatch]:
            yield from reader
            if self._running and statement == self._statement:
                self.read_to_end()
                self.finish(statement=statement)

        return pa.RecordBatchReader.from_batches(reader.schema, batches())

    # -- internals --------------------------------------------------------------------------
    def _tick(self) -> None:
        me = threading.current_thread()
        while self._running and self._ticker is me:
            time.sleep(TICK)
            if not (self._running and self._ticker is me):
                return
            share = self._poll_duck()
            if share is not None and not self._duck_done:
                self._duck_share = max(share, self._duck_share)  # never backwards
                self._duck_known = True
            self._notify(self.snapshot())

    def _poll_duck(self) -> float | None:
        shares = []
        with self._polling:
            for read in self._duck:
                if read.cursor is None:
                    continue
                try:
                    percent = read.cursor.query_progress()
                except Exception:
                    continue
                if percent is not None and percent >= 0:
                    shares.append(min(percent / 100.0, 1.0))
        return min(shares) if shares else None

    def _notify(self, progress: Progress) -> None:
        for callback in self._listeners:
            try:
                callback(progress)
            except Exception:
                continue
