"""Each output mode: numbers right-aligned, NULL distinct, values a program reads back in the
data modes."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
import json

import pytest

from icesql.cli.formatting import MODES, Format, numeric_columns, render

COLUMNS = ["id", "name"]
ROWS = [(1, "a"), (100, None)]


def test_table_aligns_numbers_right_and_text_left() -> None:
    assert render(COLUMNS, ROWS, Format("table")).splitlines() == [
        "+-----+------+",
        "|  id | name |",
        "+-----+------+",
        "|   1 | a    |",
        "| 100 | NULL |",
        "+-----+------+",
    ]


def test_box_draws_lines() -> None:
    assert render(COLUMNS, ROWS, Format("box")).splitlines() == [
        "┌─────┬──────┐",
        "│  id │ name │",
        "├─────┼──────┤",
        "│   1 │ a    │",
        "│ 100 │ NULL │",
        "└─────┴──────┘",
    ]


def test_markdown_marks_numeric_columns_right_aligned() -> None:
    assert render(COLUMNS, ROWS, Format("markdown")).splitlines()[:2] == [
        "|  id | name |",
        "|----:|------|",
    ]


def test_nullvalue_and_headers_apply() -> None:
    text = render(COLUMNS, ROWS, Format("table", headers=False, nullvalue="∅"))
    assert text.splitlines() == ["+-----+---+", "|   1 | a |", "| 100 | ∅ |", "+-----+---+"]


def test_csv_round_trips_quotes_commas_and_nulls() -> None:
    rows = [(1, 'c,"q"'), (2, None), (3, "two\nlines")]
    text = render(COLUMNS, rows, Format("csv"))
    assert list(csv.reader(io.StringIO(text))) == [
        ["id", "name"],
        ["1", 'c,"q"'],
        ["2", ""],
        ["3", "two\nlines"],
    ]
    assert render(COLUMNS, rows[:1], Format("tsv")).splitlines()[0] == "id\tname"


def test_json_and_jsonl_keep_types() -> None:
    rows = [(1, decimal.Decimal("2.50"), dt.date(2024, 1, 2), [1, 2], {"k": None}, float("nan"))]
    cols = ["i", "d", "day", "arr", "m", "f"]
    (obj,) = json.loads(render(cols, rows, Format("json")))
    assert obj == {
        "i": 1,
        "d": 2.5,
        "day": "2024-01-02",
        "arr": [1, 2],
        "m": {"k": None},
        "f": "NaN",
    }
    assert json.loads(render(cols, rows, Format("jsonl"))) == obj
    assert render(cols, [], Format("json")) == "[]"


def test_line_mode_one_value_per_line() -> None:
    assert render(COLUMNS, ROWS, Format("line")) == "  id = 1\nname = a\n\n  id = 100\nname = NULL"


def test_html_escapes_and_right_aligns_numbers() -> None:
    text = render(["x", "n"], [("<b>", 2)], Format("html"))
    assert "<td>&lt;b&gt;</td>" in text and '<td align="right">2</td>' in text


def test_multi_line_cells_span_rows_in_tables() -> None:
    assert render(["plan"], [("a\nbb",)], Format("table")).splitlines() == [
        "+------+",
        "| plan |",
        "+------+",
        "| a    |",
        "| bb   |",
        "+------+",
    ]


def test_booleans_are_not_numbers() -> None:
    assert numeric_columns(2, [(True, 1.5), (None, None)]) == [False, True]


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_renders_an_empty_result(mode: str) -> None:
    assert isinstance(render(COLUMNS, [], Format(mode)), str)


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown output mode 'xml'"):
        render(COLUMNS, ROWS, Format("xml"))


def test_widths_apply_to_box_and_markdown_not_data_modes() -> None:
    fmt = Format("box", widths=(-5,))
    assert render(["a"], [("x",)], fmt).splitlines()[1] == "│     a │"
    md = render(["a"], [("x",)], Format("markdown", widths=(4,)))
    assert md.splitlines()[:2] == ["| a    |", "|------|"]
    assert render(["a"], [("x",)], Format("csv", widths=(9,))) == "a\nx"


def test_max_width_cuts_the_widest_cells_of_table_and_box() -> None:
    rows = [(1, "a" * 50, "short"), (2, "b", None)]
    columns = ["id", "text", "tag"]
    for mode in ("table", "box"):
        lines = render(columns, rows, Format(mode, max_width=40)).splitlines()
        assert {len(line) for line in lines} == {40}, mode
        assert "aaaa…" in lines[3] and "short" in lines[3]
    wide = render(columns, rows, Format("markdown", max_width=40))
    assert "a" * 50 in wide  # markdown is for copying: never cut


def test_max_width_keeps_asked_widths_and_gives_up_on_too_many_columns() -> None:
    row = [tuple("x" * 20 for _ in range(30))]
    columns = [f"c{i}" for i in range(30)]
    assert "x" * 20 in render(columns, row, Format("table", max_width=80))
    lines = render(["a", "b"], [("a" * 30, "b" * 30)], Format("table", widths=(25,), max_width=50))
    assert lines.splitlines()[3] == "| " + "a" * 24 + "… | " + "b" * 17 + "… |"
