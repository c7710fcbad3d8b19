"""The notebook's progress display: shown after a delay, updated at most every refresh, removed
at the end; added by connect() in a Jupyter kernel only, and rendered by IPython's own display
machinery (an IPython shell with a capturing display publisher stands in for the kernel's)."""

from __future__ import annotations

import pytest

import icesql
from icesql import notebook_progress
from icesql.notebook_progress import NotebookProgress, ProgressDisplay, in_kernel
from icesql.progress import Progress

IPython = pytest.importorskip("IPython")
from IPython.core.displaypub import CapturingDisplayPublisher  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402


def reading(done: int, elapsed: float, finished: bool = False) -> Progress:
    return Progress(
        files_planned=4,
        files_done=done,
        bytes_planned=4 << 20,
        bytes_done=done << 20,
        elapsed=elapsed,
        finished=finished,
    )


def test_shown_after_the_delay_throttled_and_removed_at_the_end() -> None:
    shown: list[ProgressDisplay | None] = []
    bar = NotebookProgress(show=shown.append, delay=1.0, refresh=3600)
    bar(reading(1, elapsed=0.5))
    assert shown == []  # a statement shorter than the delay shows nothing
    bar(reading(2, elapsed=1.5))
    bar(reading(3, elapsed=1.6))  # within the refresh interval: not redrawn
    assert [s.text for s in shown if s] == [" 50%  2/4 files  2.0/4.0 MiB"]
    bar(reading(4, elapsed=2.0, finished=True))
    assert shown[-1] is None and len(shown) == 2


def test_a_statement_that_ends_before_the_delay_never_shows() -> None:
    shown: list[ProgressDisplay | None] = []
    bar = NotebookProgress(show=shown.append, delay=1.0)
    bar(reading(1, elapsed=0.1))
    bar(reading(4, elapsed=0.2, finished=True))
    assert shown == []


def test_display_html_and_text() -> None:
    state = ProgressDisplay(Progress(rows_written=1500, files_written=2, elapsed=3))
    assert state.fraction is None  # a write of rows: no bar, only the counts
    assert "<progress" not in state._repr_html_()
    assert "1,500 rows, 2 files written" in state._repr_html_()
    html = ProgressDisplay(reading(1, elapsed=2))._repr_html_()
    assert '<progress value="0.250" max="1"' in html and "1/4 files" in html
    assert ProgressDisplay(Progress(elapsed=5)).text == ""  # nothing to show


@pytest.fixture
def kernel_shell():
    """An IPython shell that says it has a kernel, its displays captured."""
    shell = InteractiveShell.instance()
    shell.display_pub = CapturingDisplayPublisher()
    shell.kernel = object()  # what ipykernel's shell carries; in_kernel() looks for it
    try:
        yield shell
    finally:
        InteractiveShell.clear_instance()


def test_an_ipython_shell_without_a_kernel_is_not_a_notebook() -> None:
    InteractiveShell.clear_instance()
    assert not in_kernel()
    InteractiveShell.instance()  # IPython in a terminal: displays do not render
    try:
        assert not in_kernel()
    finally:
        InteractiveShell.clear_instance()


def test_connect_in_a_kernel_shows_a_scan_in_ipython(kernel_shell, tmp_path, monkeypatch) -> None:
    assert in_kernel()
    monkeypatch.setattr(notebook_progress, "DELAY", 0.0)
    monkeypatch.setattr(notebook_progress, "REFRESH", 0.0)
    con = icesql.connect(str(tmp_path / "wh"), create=True)
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    for start in range(0, 4000, 1000):  # four data files
        con.execute(f"INSERT INTO db.t SELECT id FROM range({start}, {start + 1000}) r(id)")
    kernel_shell.display_pub.outputs.clear()

    assert con.execute("SELECT count(*), sum(id) FROM db.t").fetchall() == [(4000, 7998000)]
    outputs = kernel_shell.display_pub.outputs
    first, last = outputs[0], outputs[-1]
    display_id = first["transient"]["display_id"]
    assert not first["update"] and "<progress" in first["data"]["text/html"]
    assert "/4 files" in first["data"]["text/plain"]
    # later states replace the shown one; the last empties it
    assert all(o["update"] and o["transient"]["display_id"] == display_id for o in outputs[1:])
    assert last["data"]["text/html"] == ""
    con.close()


def test_connect_outside_a_kernel_adds_no_listener(tmp_path) -> None:
    InteractiveShell.clear_instance()
    con = icesql.connect(str(tmp_path / "wh"), create=True)
    assert not con.engine.progress._listeners
    con.close()
