"""The dot-commands: settings, output files, scripts, and the Iceberg ones over icesql's SQL."""

from __future__ import annotations

import io
from dataclasses import replace

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
    lines = out.splitlines()
    assert lines[0].startswith("Table db.events (Iceberg format v2)  ")
    assert lines[1].split("|")[0].strip() == "Column" and "Nullable" in lines[1]
    assert "Partitioning:\n    kind as kind\n" in out and "Sort order:\n    (unsorted)" in out
    assert "2 live rows" in out and "no delete files" in out
    assert "Refs:\n    main  branch  " in out


def test_describe_says_what_deletes_subtract(shell: Shell) -> None:
    """Merge-on-read deletes: the rows a query sees, beside those the files hold, and the
    deletes subtracted, in words; a long property is cut at the terminal, not folded."""
    shell.con.execute(
        "ALTER TABLE db.events SET TBLPROPERTIES ('format-version'='2',"
        f" 'write.delete.mode'='merge-on-read', 'note'='{'n' * 300}')"
    )
    shell.con.execute("INSERT INTO db.events VALUES (5, 'c'), (6, 'c')")  # one file
    shell.con.execute("DELETE FROM db.events WHERE id = 5")  # a position delete in it
    shell.con.execute("ALTER TABLE db.events CREATE TAG v1")
    shell.output.stdout = _Tty()
    assert run_meta(shell, ".describe db.events")
    out, _ = _take(shell)
    assert "3 live rows (what a query reads now)" in out
    assert "4 rows in 3 data files" in out
    assert "deletes subtracted from the rows in files: 1 position deletes" in out
    assert "    note = nnnn" in out and "…" in out
    assert "    v1    tag     " in out
    assert max(len(line) for line in out.splitlines()) <= 100  # COLUMNS of _Tty


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _columns(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.delenv("PAGER", raising=False)


def test_snapshots_one_line_each_with_refs(shell: Shell) -> None:
    shell.con.execute("ALTER TABLE db.events CREATE BRANCH dev")
    shell.con.execute("DELETE FROM db.events WHERE id = 1")
    assert run_meta(shell, ".snapshots db.events")
    out, _ = _take(shell)
    lines = out.splitlines()
    assert lines[1].split("|")[1].strip() == "committed (UTC)"
    append, delete = ([c.strip() for c in line.strip("|").split("|")] for line in lines[3:5])
    assert append[2:] == ["append", "+2/-0", "+2/-0", "+0/-0", "branch dev"]
    assert delete[2:] == ["delete", "+0/-1", "+0/-1", "+0/-0", "main"]
    assert lines[5].startswith("+--") and lines[-1] == "2 snapshot(s)"
    assert "{" not in out  # no summary maps


def test_refs_and_files_one_line_each(shell: Shell) -> None:
    assert run_meta(shell, ".refs db.events")
    out, _ = _take(shell)
    assert "| main | BRANCH |" in out
    assert run_meta(shell, ".files db.events partition.kind = 'b'")
    out, _ = _take(shell)
    row = next(line for line in out.splitlines() if line.startswith("| data "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1].startswith("data/kind=b/") and cells[1].endswith(".parquet")
    assert cells[2:5] == ["parquet", "kind=b", "1"] and cells[5].endswith(" B")
    assert "kind=a" not in out and out.splitlines()[-1] == "1 file(s)"


def test_files_of_an_unpartitioned_table_in_csv(shell: Shell) -> None:
    shell.con.execute("INSERT INTO db.sub.other VALUES (1)")
    shell.settings.format = replace(shell.settings.format, mode="csv")
    assert run_meta(shell, ".files db.sub.other")
    out, _ = _take(shell)
    header, row = out.splitlines()
    assert header == "content,path,format,partition,records,size"
    assert row.startswith("data,data/") and ",parquet,,1," in row


def test_files_are_cut_to_the_terminal_keeping_the_end_of_paths(shell: Shell) -> None:
    shell.output.stdout = _Tty()
    assert run_meta(shell, ".files db.events")
    out, _ = _take(shell)
    assert all(len(line) <= 100 for line in out.splitlines())
    rows = [line for line in out.splitlines() if line.startswith("| data ")]
    assert len(rows) == 2 and all(".parquet |" in r for r in rows)


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


def test_health_prints_the_report_in_80_columns_and_json_in_json_mode(shell: Shell) -> None:
    for i in range(5):
        shell.con.execute(f"INSERT INTO db.events VALUES ({i + 10}, 'a')")
    assert run_meta(shell, ".health db.events")
    out, _ = _take(shell)
    assert out.startswith("Table local.db.events  format v2")
    assert "Partitions: 2" in out and "Advice: 1 problem" in out
    assert "CALL local.system.rewrite_data_files(table => 'db.events')" in out
    assert max(len(line) for line in out.splitlines()) <= 80
    shell.settings.format = replace(shell.settings.format, mode="json")
    assert run_meta(shell, ".health db.events")
    out, _ = _take(shell)
    import json

    report = json.loads(out)
    assert report["summary"]["data_files"] == 7
    assert [a["code"] for a in report["advice"]] == ["small-files"]


def test_health_refuses_extra_words_and_names_a_missing_table(shell: Shell) -> None:
    assert not run_meta(shell, ".health db.events everything")
    _, err = _take(shell)
    assert "takes TABLE [orphans]" in err
    assert not run_meta(shell, ".health db.nope")
    _, err = _take(shell)
    assert "db.nope" in err
