"""Fitting a table to the terminal: the widest columns give way first, down to a floor."""

from __future__ import annotations

from icesql.cli.fit import LAST_RESORT, MIN_WIDTH, clip, fit_widths


def test_widths_that_fit_are_kept() -> None:
    assert fit_widths([10, 20], 30) == [10, 20]


def test_the_widest_column_narrows_first_then_all_the_widest_together() -> None:
    assert fit_widths([40, 10, 3], 33) == [20, 10, 3]
    assert sum(fit_widths([100, 90, 3], 60) or []) == 60
    assert fit_widths([30, 30], 30) == [15, 15]


def test_no_column_goes_below_its_floor() -> None:
    assert fit_widths([30, 30], 40, floors=[25]) == [25, 15]
    assert fit_widths([4, 50], 4 + MIN_WIDTH) == [4, MIN_WIDTH]


def test_too_many_columns_are_cut_harder_then_do_not_fit_at_all() -> None:
    cut = fit_widths([20] * 10, 10 * MIN_WIDTH - 1) or []
    assert sum(cut) == 10 * MIN_WIDTH - 1 and max(cut) - min(cut) <= 1
    assert fit_widths([20, 20, 20], 19 + 2 * LAST_RESORT, floors=[19]) == [19, 4, 4]
    assert fit_widths([20] * 10, 10 * LAST_RESORT - 1) is None


def test_clip_marks_the_cut() -> None:
    assert clip("abcdef", 6) == "abcdef"
    assert clip("abcdef", 4) == "abc…"
    assert clip("abcdef", 1) == "…"
