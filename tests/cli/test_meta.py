"""The dot-commands: settings, output files, scripts, and the Iceberg ones over icesql's SQL."""

from __future__ import annotations

import io

import pytest

import icesql
from icesql.cli.meta import COMMANDS, run_meta
from icesql.cli.output import Output
from icesql.cli.runner import Shell


@pytest.fixture
def shell(tmp_path):
    con = icesql.connect(str(tmp_path / "wh"), create=True)
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE NAMESPACE db.sub")
    con.execute("CREATE TABLE db.events (id INT, kind STRING) PARTITIONED BY (kind)")
    con.execute("CREATE TABLE db.sub.other (x INT)")
    con.execute("INSERT INTO db.events VALUES (1, 'a'), (2, 'b')")
    out = Shell(
        con, Output(io.StringIO(), io.StringIO()), connect=lambda w, c: icesql.connect(w, create=c)
    )
    yield out
    out.close()
    con.close()


def _take(shell: Shell) -> tuple[str, str]:
    out, err = shell.output.stdout, shell.output.err
    text = out.getvalue(), err.getvalue()  # type: ignore[attr-defined]
    for stream in (out, err):
        stream.seek(0)
        stream.truncate()
    return text


def test_help_lists_every_command(shell: Shell) -> None:
    assert run_meta(shell, ".help")
    out, _ = _take(shell)
    assert all(name in out for name in COMMANDS)


def test_tables_walks_nested_namespaces_and_filters(shell: Shell) -> None:
    assert run_meta(shell, ".tables")
    out, _ = _take(shell)
    assert "| db        | events |" in out and "| db.sub    | other  |" in out
    assert run_meta(shell, ".tables ev%")
    out, _ = _take(shell)
    assert "events" in out and "other" not in out


def test_schema_and_describe(shell: Shell) -> None:
    assert run_meta(shell, ".schema db.events")
    out, _ = _take(shell)
    assert out.startswith("CREATE TABLE local.db.events (") and "PARTITIONED BY (kind)" in out
    assert run_meta(shell, ".describe db.events")
    out, _ = _take(shell)
    assert "# Partitioning" in out and "rows_in_files" in out
    # merge-on-read deletes: the rows a query sees, beside those the files hold
    shell.con.execute(
        "ALTER TABLE db.events SET TBLPROPERTIES ('format-version'='2',"
        " 'write.delete.mode'='merge-on-read')"
    )
    shell.con.execute("INSERT INTO db.events VALUES (5, 'c'), (6, 'c')")  # one file
    shell.con.execute("DELETE FROM db.events WHERE id = 5")  # a position delete in it
    assert run_meta(shell, ".describe db.events")
    out, _ = _take(shell)
    header, values = _snapshot_row(out)
    assert values[header.index("live_rows")] == "3"
    assert values[header.index("rows_in_files")] == "4"
    assert values[header.index("position_deletes")] == "1"


def _snapshot_row(out: str) -> tuple[list[str], list[str]]:
    """The header and the one row of the snapshot table ``.describe`` prints last."""
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in out.splitlines()
        if line.startswith("|")
    ]
    at = max(i for i, r in enumerate(rows) if "live_rows" in r)
    return rows[at], rows[at + 1]


def test_snapshots_refs_files(shell: Shell) -> None:
    assert run_meta(shell, ".snapshots db.events")
    assert "append" in _take(shell)[0]
    assert run_meta(shell, ".refs db.events")
    out, _ = _take(shell)
    assert "| main | BRANCH |" in out
    assert run_meta(shell, ".files db.events partition.kind = 'b'")
    out, _ = _take(shell)
    assert "kind=b" in out and "kind=a" not in out


def test_bad_arguments_are_errors(shell: Shell) -> None:
    assert not run_meta(shell, ".schema db.events; DROP TABLE x")
    assert not run_meta(shell, ".mode xml")
    assert not run_meta(shell, ".timer maybe")
    assert not run_meta(shell, ".nosuch")
    assert not run_meta(shell, ".describe db.missing")
    err = _take(shell)[1]
    assert "takes a table name" in err and "unknown mode 'xml'" in err
    assert "unknown command .nosuch" in err and "table not found: db.missing" in err


def test_settings_commands(shell: Shell) -> None:
    for line in (
        ".mode csv",
        ".headers off",
        ".nullvalue NIL",
        ".maxrows 1",
        ".timer on",
        ".explain on",
    ):
        assert run_meta(shell, line), line
    s = shell.settings
    assert (s.format.mode, s.format.headers, s.format.nullvalue) == ("csv", False, "NIL")
    assert (s.maxrows, s.timer, s.explain) == (1, True, True)
    assert run_meta(shell, ".mode")
    assert "current output mode: csv" in _take(shell)[1]


def test_output_once_and_read(shell: Shell, tmp_path) -> None:
    script = tmp_path / "s.sql"
    script.write_text(".mode csv\nSELECT 7 AS x;\n")
    assert run_meta(shell, f".once {tmp_path / 'once.csv'}")
    assert run_meta(shell, f".read {script}")
    assert (tmp_path / "once.csv").read_text() == "x\n7\n"
    assert run_meta(shell, f".output {tmp_path / 'all.csv'}")
    shell.run_text("SELECT 1 AS y; SELECT 2 AS z")
    assert run_meta(shell, ".output")
    assert (tmp_path / "all.csv").read_text() == "y\n1\nz\n2\n"


def test_open_switches_warehouse_and_quit(shell: Shell, tmp_path) -> None:
    before = shell.con
    assert not run_meta(shell, f".open {tmp_path / 'other'}")  # no such folder: named
    _, err = _take(shell)
    assert f"the warehouse folder {tmp_path / 'other'} does not exist" in err
    assert shell.con is before and not (tmp_path / "other").exists()
    assert run_meta(shell, f".open --create {tmp_path / 'other'}")
    shell.run_text("CREATE NAMESPACE fresh")
    assert (tmp_path / "other" / "fresh").is_dir()
    assert run_meta(shell, ".quit") and shell.quitting


def test_width_sets_column_widths_and_resets(shell: Shell) -> None:
    assert run_meta(shell, ".width 6 -8")
    assert shell.settings.format.widths == (6, -8)
    shell.run_text("SELECT 1 AS id, 'ab' AS kind, 'z' AS rest")
    out, _ = _take(shell)
    lines = out.splitlines()
    assert lines[0] == "+--------+----------+------+"
    assert lines[1] == "| id     |     kind | rest |"  # 6 wide left, 8 wide right, auto
    assert lines[3] == "| 1      |       ab | z    |"
    assert run_meta(shell, ".width 0 1")  # 0: as the data asks; narrower than data: data wins
    shell.run_text("SELECT 10 AS id, 'abc' AS kind")
    assert _take(shell)[0].splitlines()[1] == "| id | kind |"
    assert run_meta(shell, ".width")
    assert shell.settings.format.widths == ()
    shell.run_text("SELECT 1 AS id")
    assert _take(shell)[0].splitlines()[1] == "| id |"


def test_width_refuses_what_is_no_number(shell: Shell) -> None:
    assert not run_meta(shell, ".width 5 wide")
    assert "takes column widths" in _take(shell)[1]
    assert shell.settings.format.widths == ()
