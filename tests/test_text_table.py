"""The one text table of the fronts, and values as a person reads them. The outputs of its
users are pinned where they print: tests/cli/test_formatting.py (the shell's ``table`` mode),
tests/test_relation.py (a relation's repr) and tests/test_testing.py (a check's failure)."""

from __future__ import annotations

import doctest

from icesql import text_table as module
from icesql.text_table import RULE, cell_text, text_table


def test_cell_text_of_special_values() -> None:
    assert cell_text(b"\x01\xff") == "0x01ff"
    assert cell_text(True) == "true"
    assert cell_text(float("-inf")) == "-Infinity"
    assert cell_text([1, None]) == "[1,null]"


def test_left_lines_ignore_right_alignment_and_widths_are_minimums() -> None:
    lines = [RULE, ["n"], RULE, ["7"], ["..."], RULE]
    assert text_table(lines, [True], left={1, 4}, widths=[4]).splitlines() == [
        "+------+",
        "| n    |",
        "+------+",
        "|    7 |",
        "| ...  |",
        "+------+",
    ]


def test_an_unframed_table_keeps_no_trailing_blanks() -> None:
    assert text_table([["a", "b"], RULE, ["long", ""]], framed=False).splitlines() == [
        "a    | b",
        "-----+--",
        "long |",
    ]


def test_docstring_examples_run() -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
