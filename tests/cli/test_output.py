"""Results go to stdout, an .output file or a .once file; only a terminal is fitted."""

from __future__ import annotations

import io

from icesql.cli.output import Output


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_output_and_once_files(tmp_path) -> None:
    out = Output(io.StringIO(), io.StringIO())
    out.redirect(str(tmp_path / "all.txt"))
    out.write("one")
    out.once(str(tmp_path / "once.txt"))
    out.write("two", last=False)
    out.write("three")
    out.write("four")
    out.redirect(None)
    out.write("five")
    assert (tmp_path / "all.txt").read_text() == "one\nfour\n"
    assert (tmp_path / "once.txt").read_text() == "two\nthree\n"
    assert out.stdout.getvalue() == "five\n"


def test_wide_text_is_folded_at_a_terminal_without_pager(monkeypatch) -> None:
    monkeypatch.delenv("PAGER", raising=False)
    monkeypatch.setenv("COLUMNS", "20")
    out = Output(_Tty(), io.StringIO())
    out.write("x" * 30, fold=lambda: "folded")
    out.write("y" * 10, fold=lambda: "folded")
    assert out.stdout.getvalue() == "folded\n" + "y" * 10 + "\n"


def test_wide_text_goes_through_the_pager(monkeypatch, tmp_path) -> None:
    paged = tmp_path / "paged.txt"
    monkeypatch.setenv("PAGER", f"cat > {paged}")
    monkeypatch.setenv("COLUMNS", "20")
    out = Output(_Tty(), io.StringIO())
    out.write("x" * 30, fold=lambda: "folded")
    assert paged.read_text() == "x" * 30 + "\n" and out.stdout.getvalue() == ""


def test_nothing_is_fitted_off_a_terminal(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "20")
    out = Output(io.StringIO(), io.StringIO())
    out.write("x" * 30, fold=lambda: "folded")
    assert out.stdout.getvalue() == "x" * 30 + "\n"
