"""The text report: every line fits 80 columns, the sections and the advised CALL are there,
and the bars and sparklines scale."""

from __future__ import annotations

from health_support import small_files_table

from icesql.health.text import bar, human_bytes, render_text, sparkline


def test_every_line_fits_80_columns(planted):
    planted.execute(
        "CREATE TABLE db.`a very long table name that goes on and on` (id INT, p STRING)"
        " USING iceberg PARTITIONED BY (p)"
    )
    planted.execute(
        "INSERT INTO db.`a very long table name that goes on and on` VALUES"
        f" (1, '{'x' * 120}'), (2, 'y')"
    )
    for name in ("db.t", "db.`a very long table name that goes on and on`"):
        text = repr(planted.health(name))
        assert max(len(line) for line in text.splitlines()) <= 80, text


def test_the_sections_and_the_call(planted):
    text = repr(planted.health("db.t"))
    for heading in (
        "Data files:",
        "Partitions: 2",
        "Manifests:",
        "Snapshots: 7",
        "Metadata files:",
    ):
        assert heading in text
    assert "Advice: 1 problem" in text
    # the CALL is wrapped at its spaces: joined again it is the advised statement
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("CALL "))
    call = " ".join(line.strip() for line in lines[start : start + 2])
    assert call.startswith(
        "CALL local.system.rewrite_data_files(table => 'db.t', options =>"
        " map('remove-dangling-deletes', 'true'))"
    )


def test_a_healthy_table_says_so(con):
    small_files_table(con, inserts=1)
    text = render_text(con.health("db.t"), width=60)
    assert "Advice: no problems found" in text
    assert max(len(line) for line in text.splitlines()) <= 60


def test_bars_and_sparklines_scale():
    assert bar(8, 8, 10) == "█" * 10
    assert bar(1, 16, 10) == "▋"  # five eighths of a cell
    assert bar(0, 8, 10) == ""
    assert sparkline([0, 0]) == "▁▁"
    assert sparkline([3, 3], floor=0) == "██"
    assert human_bytes(0) == "0 B" and human_bytes(1536) == "1.5 KiB"
