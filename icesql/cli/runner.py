"""Running statements and meta-commands against one connection and printing their results.

Every statement runs on a worker thread while the main thread waits, so Ctrl-C (a
``KeyboardInterrupt`` in the main thread) can call the engine's ``interrupt()``: DuckDB stops,
the statement fails, a write stops before its commit, and the shell carries on. The worker is
always waited for, so no statement is left running behind the prompt.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from icesql.cli.diagnostics import describe, describe_internal
from icesql.cli.formatting import HUMAN_MODES, TABULAR_MODES, render
from icesql.cli.output import Output, isatty
from icesql.cli.progress_bar import ProgressBar
from icesql.cli.script import Unit, units
from icesql.cli.settings import Settings
from icesql.errors import Error

if TYPE_CHECKING:
    from icesql.dbapi import Connection, Cursor

STREAM_ROWS = 1000  # rows per chunk when csv/tsv/jsonl results are streamed
_QUERY_START = re.compile(r"^\s*(\(\s*)*(SELECT|WITH|FROM|VALUES|TABLE)\b", re.IGNORECASE)


class Shell:
    """One connection, its settings and its output; runs scripts, statements and meta-commands."""

    def __init__(
        self,
        con: Connection,
        output: Output,
        settings: Settings | None = None,
        interactive: bool = False,
        connect: Callable[[str, bool], Connection] | None = None,
    ):
        self.con = con
        self.original = con  # closed by its owner; a connection .open made is closed here
        self.output = output
        self.settings = settings or Settings()
        self.interactive = interactive
        self.connect = connect  # for .open [--create] WAREHOUSE
        self.quitting = False
        self.depth = 0  # .read nesting
        self.interrupted = False  # Ctrl-C during the running statement (``_wait``)

    # -- scripts and units ------------------------------------------------------------------
    def run_text(self, text: str) -> int:
        """Run each statement and meta-command of ``text``; 1 at the first failure (a script
        stops there; at the prompt the next input runs anyway), else 0."""
        status = 0
        try:
            for unit in units(text):
                if not self.run_unit(unit):
                    status = 1
                    if not self.interactive:
                        return status
                if self.quitting:
                    break
        except Error as e:
            self.error(describe(e))
            return 1
        return status

    def run_unit(self, unit: Unit) -> bool:
        if unit.kind == "meta":
            from icesql.cli.meta import run_meta

            return run_meta(self, unit.text)
        return self.run_sql(unit.text)

    def run_sql(self, sql: str, shown_as: str | None = None) -> bool:
        """Run one statement and print its result; ``shown_as`` is the text errors point into
        (a meta-command's own SQL is not the user's)."""
        statement = sql
        if self.settings.explain and _QUERY_START.match(sql):
            statement = f"EXPLAIN {sql}"
        started = time.perf_counter()
        ok = self.interruptible(lambda: self._execute(statement), shown_as or sql, progress=True)
        if self.settings.timer:
            self.error(f"Run Time: {time.perf_counter() - started:.3f} s")
        return ok

    # -- running ----------------------------------------------------------------------------
    def interruptible(
        self, work: Callable[[], None], sql: str | None = None, progress: bool = False
    ) -> bool:
        """Run ``work`` on a worker thread; Ctrl-C interrupts the engine and waits for it.
        With ``progress``, at a terminal, a bar on stderr shows how far it has got."""
        bar = self._progress_bar() if progress else None
        remove = self.con.add_progress_listener(bar.update) if bar is not None else None
        self.output.before_write = bar.stop if bar is not None else None
        try:
            return self._wait(work, sql, bar)
        finally:
            if remove is not None:
                remove()
            self.output.before_write = None

    def _progress_bar(self) -> ProgressBar | None:
        if not self.interactive or not isatty(self.output.err):
            return None
        return ProgressBar(self.output.err)

    def _wait(self, work: Callable[[], None], sql: str | None, bar: ProgressBar | None) -> bool:
        failure: list[BaseException] = []
        finished = threading.Event()

        def target() -> None:
            try:
                work()
            except BaseException as e:
                failure.append(e)
            finally:
                finished.set()

        # waited for on an Event: an interrupted Thread.join marks a running thread stopped
        threading.Thread(target=target, name="icesql-statement", daemon=True).start()
        interrupted = self.interrupted = False
        while not finished.is_set():
            try:
                finished.wait(0.05)
                if interrupted:
                    # again until it ends: a Ctrl-C before the statement reached DuckDB (or
                    # between two of its queries) interrupted nothing, and it ran on for good
                    self.con.engine.interrupt()
                elif bar is not None:
                    bar.draw()
            except KeyboardInterrupt:
                interrupted = self.interrupted = True
                self.con.engine.interrupt()
        if bar is not None:
            bar.stop()
        if not failure:
            return True
        error = failure[0]
        if interrupted:
            self.error("interrupted: the statement was stopped and nothing was committed")
        elif isinstance(error, Error):
            self.error(describe(error, sql))
            if self.settings.debug:
                self.error(describe_internal(error, debug=True))
        else:
            self.error(describe_internal(error, self.settings.debug))
        return False

    def _execute(self, sql: str) -> None:
        cursor = self.con.cursor()
        try:
            cursor.execute(sql)
            if cursor.description is None:
                if self.settings.format.mode in HUMAN_MODES:
                    done = f"{cursor.rowcount} row(s) affected" if cursor.rowcount >= 0 else "OK"
                    self.output.write(done)
                return
            self.print_result(cursor)
        finally:
            cursor.close()

    def print_result(self, cursor: Cursor) -> None:
        """The cursor's rows in the current mode: human modes show up to ``maxrows`` rows and a
        count (of all the rows, the ones not shown counted as the DuckDB CLI does); csv, tsv
        and jsonl stream every row; json writes one array. At a terminal, table and box cut
        their widest cells to its width."""
        fmt = self.settings.format
        columns = [d[0] for d in cursor.description or ()]
        if fmt.mode in HUMAN_MODES:
            limit = self.settings.maxrows
            rows = cursor.fetchmany(limit + 1) if limit > 0 else cursor.fetchall()
            shown = rows[:limit] if limit > 0 else rows
            footer = ""
            if fmt.mode in ("table", "box"):
                fmt = replace(fmt, max_width=self.output.fit_width())
                footer = "\n" + self._row_count(cursor, len(shown), len(rows))
            fold = None
            if fmt.mode in TABULAR_MODES:
                line_fmt = replace(fmt, mode="line")
                fold = lambda: render(columns, shown, line_fmt) + footer  # noqa: E731
            self.output.write(render(columns, shown, fmt) + footer, fold=fold)
        elif fmt.mode == "json":
            self.output.write(render(columns, cursor.fetchall(), fmt))
        else:
            first = True
            while True:
                rows = cursor.fetchmany(STREAM_ROWS)
                if not rows and not first:
                    self.output.write("")  # ends a .once
                    break
                chunk_fmt = fmt if first else replace(fmt, headers=False)
                text = render(columns, rows, chunk_fmt)
                last = len(rows) < STREAM_ROWS
                self.output.write(text, last=last)
                first = False
                if last:
                    break

    def _row_count(self, cursor: Cursor, shown: int, fetched: int) -> str:
        """The footer: the rows shown and, when some are not, how many there are in all,
        counted by reading the rest of the result as Arrow batches (never as Python rows).
        A Ctrl-C while counting still prints the rows shown."""
        if fetched <= shown:
            return f"{shown} row(s)"
        try:
            total = fetched + sum(batch.num_rows for batch in cursor.fetch_record_batch())
        except Error:
            if not self.interrupted:
                raise
            return f"{shown} row(s) shown; counting the rest was interrupted"
        return f"{shown} of {total:,} rows shown (.maxrows N shows more)"

    def close(self) -> None:
        """Close what the shell opened: ``.output`` files and a connection from ``.open``."""
        self.output.close()
        if self.con is not self.original:
            self.con.close()

    # -- messages ---------------------------------------------------------------------------
    def error(self, text: str) -> None:
        print(text, file=self.output.err, flush=True)

    def say(self, text: str) -> None:
        """A message of a meta-command: with the results in human modes, on stderr otherwise."""
        if self.settings.format.mode in HUMAN_MODES:
            self.output.write(text)
        else:
            self.error(text)
