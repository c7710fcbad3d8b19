"""remove_orphan_files: what is listed (age, hidden paths, location), what is kept (everything
any snapshot or the metadata log reaches), prefix equivalence, dry runs, the 24-hour guard,
and commits that land while it runs."""

from __future__ import annotations

import os
import time

import pyarrow as pa
import pytest
from maintenance_support import assert_every_reached_file_exists, reached_files

import icesql
from icesql.errors import ProgrammingError
from icesql.io import FileIO
from icesql.statements.procedures import orphans
from icesql.statements.procedures.orphans import OrphanSearch, PrefixMismatchError, find_orphans
from icesql.write.commit import commit
from icesql.write.data_writer import DataWriter, WriteTarget
from icesql.write.snapshot import Change

DAY = 24 * 3600


def _table_dir(con) -> str:
    return con.catalog.load_table(("db", "t")).metadata.location.removeprefix("file:")


def _age(folder: str, seconds: float = 10 * DAY) -> None:
    """Make every file under ``folder`` look ``seconds`` old."""
    then = time.time() - seconds
    for root, _, files in os.walk(folder):
        for name in files:
            os.utime(os.path.join(root, name), (then, then))


def _write(path: str, age: float = 10 * DAY) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"junk")
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def _orphans(con, args: str = "") -> list[str]:
    cur = con.execute(f"CALL system.remove_orphan_files(table => 'db.t'{args})")
    assert [d[0] for d in cur.description] == ["orphan_file_location"]
    return sorted(p.removeprefix("file:") for (p,) in cur.fetchall())


def _files(folder: str) -> set[str]:
    return {os.path.join(r, f) for r, _, fs in os.walk(folder) for f in fs}


def test_old_unreachable_files_go_and_everything_the_table_reaches_stays(con, history):
    con.execute("INSERT OVERWRITE db.t VALUES (7)")  # earlier data files stay reachable
    folder = _table_dir(con)
    junk = [
        _write(f"{folder}/data/junk.parquet"),
        _write(f"{folder}/metadata/stray.avro"),
        _write(f"{folder}/elsewhere/x/y.txt"),
    ]
    _age(folder)
    before = _files(folder)
    assert _orphans(con, ", dry_run => true") == sorted(junk)
    assert _files(folder) == before  # a dry run deletes nothing
    assert _orphans(con) == sorted(junk)
    assert _files(folder) == before - set(junk)
    assert sorted(con.execute("SELECT * FROM db.t").fetchall()) == [(7,)]
    assert sorted(con.execute(f"SELECT * FROM db.t VERSION AS OF {history[2]}").fetchall()) == [
        (0,),
        (1,),
        (2,),
    ]
    assert_every_reached_file_exists(con)
    md = con.catalog.load_table(("db", "t")).metadata
    assert all(os.path.exists(e.metadata_file.removeprefix("file:")) for e in md.metadata_log)
    assert os.path.exists(f"{folder}/metadata/version-hint.text")
    assert _orphans(con) == []


def test_young_and_hidden_files_are_never_listed(con, history):
    folder = _table_dir(con)
    _age(folder)
    young = _write(f"{folder}/data/young.parquet", age=DAY / 2)
    hidden = [
        _write(f"{folder}/data/.x.parquet.crc"),
        _write(f"{folder}/data/_SUCCESS"),
        _write(f"{folder}/_tmp/a.parquet"),
        _write(f"{folder}/data/.hidden/b.parquet"),
    ]
    old = _write(f"{folder}/data/old.parquet", age=3 * DAY + 60)
    assert _orphans(con) == [old]  # default older_than: 3 days ago
    assert os.path.exists(young) and all(os.path.exists(p) for p in hidden)
    con.execute("SET spark.testing = true")
    assert _orphans(con, ", older_than => current_timestamp() - INTERVAL 1 HOUR") == [young]


def test_a_partition_folder_whose_field_starts_with_an_underscore_is_listed(con):
    con.execute("CREATE TABLE db.p (id BIGINT, _k STRING) USING iceberg PARTITIONED BY (_k)")
    con.execute("INSERT INTO db.p VALUES (1, 'a')")
    folder = con.catalog.load_table(("db", "p")).metadata.location.removeprefix("file:")
    junk = _write(f"{folder}/data/_k=a/junk.parquet")
    _age(folder)
    rows = con.execute("CALL system.remove_orphan_files(table => 'db.p')").fetchall()
    assert [p.removeprefix("file:") for (p,) in rows] == [junk]
    assert con.execute("SELECT * FROM db.p").fetchall() == [(1, "a")]


def test_location_limits_the_listing(con, history):
    folder = _table_dir(con)
    in_data = _write(f"{folder}/data/junk.parquet")
    _write(f"{folder}/metadata/junk.avro")
    _age(folder)
    assert _orphans(con, f", location => '{folder}/data', dry_run => true") == [in_data]


def test_the_24_hour_guard_and_other_refusals(con, history):
    for args, error, message in [
        (", older_than => current_timestamp()", ProgrammingError, "interval less than 24 hours"),
        (
            ", max_concurrent_deletes => 0",
            ProgrammingError,
            "max_concurrent_deletes should have value > 0",
        ),
        (", prefix_mismatch_mode => 'maybe'", ProgrammingError, "Invalid mode: maybe"),
        (", file_list_view => 'db.nope'", ProgrammingError, "`db`.`nope`"),
        (", dry_run => 'yes'", ProgrammingError, "cannot cast StringType to BooleanType"),
        (", equal_schemes => 's3a'", ProgrammingError, r"cannot cast StringType to MapType"),
    ]:
        with pytest.raises(error, match=message):
            _orphans(con, args)
    con.execute("ALTER TABLE db.t SET TBLPROPERTIES ('gc.enabled' = 'false')")
    with pytest.raises(ProgrammingError, match="Cannot delete orphan files: GC is disabled"):
        _orphans(con)


def test_options_that_only_steer_deleting_change_nothing_else(con, history):
    folder = _table_dir(con)
    junk = sorted(_write(f"{folder}/data/junk{i}.parquet") for i in range(5))
    _age(folder)
    args = (
        ", max_concurrent_deletes => 3, prefix_listing => true,"
        " equal_schemes => map('gs', 'gcs'), equal_authorities => map('a', 'b'),"
        " prefix_mismatch_mode => 'error'"
    )
    assert _orphans(con, args) == junk
    assert not any(os.path.exists(p) for p in junk)


def _staged_file(con, ids):
    """A data file written for db.t but not committed yet (a slow writer's), made old."""
    table = con.catalog.load_table(("db", "t"))
    writer = DataWriter(WriteTarget.for_table(table))
    writer.write(pa.record_batch([pa.array(ids, pa.int64())], names=["id"]))
    files = tuple(writer.close())
    _age(_table_dir(con))
    return files


def _commit_files(con, files):
    table = con.catalog.load_table(("db", "t"))
    commit(con.catalog, table, Change(operation="append", added_files=files))


@pytest.mark.parametrize("moment", ["after listing", "after the first comparison"])
def test_a_commit_landing_while_it_runs_loses_nothing(con, history, monkeypatch, moment):
    files = _staged_file(con, [42])
    junk = _write(f"{_table_dir(con)}/data/junk.parquet")
    target = "list_files" if moment == "after listing" else "valid_files"
    original = getattr(orphans, target)
    landed = []

    def then_commit(*args, **kwargs):
        result = original(*args, **kwargs)
        if target == "valid_files":
            result = list(result)  # the table as loaded before the commit
        if not landed:
            _commit_files(con, files)
            landed.append(True)
        return result

    monkeypatch.setattr(orphans, target, then_commit)
    assert _orphans(con) == [junk]
    assert landed
    assert all(os.path.exists(f.file_path.removeprefix("file:")) for f in files)
    assert sorted(con.execute("SELECT * FROM db.t").fetchall()) == [(0,), (1,), (2,), (42,)]
    assert_every_reached_file_exists(con)


def _search(mode: str = "ERROR", authorities=None) -> OrphanSearch:
    return OrphanSearch(
        0,
        "s3://bucket/t",
        orphans.flatten({**orphans.DEFAULT_EQUAL_SCHEMES}),
        orphans.flatten(authorities),
        mode,
    )


def test_schemes_and_authorities_compare_as_java_compares_them():
    valid = ["s3://bucket/t/data/a.parquet", "/t/data/b.parquet"]
    listed = [
        "s3a://bucket/t/data/a.parquet",
        "s3://other/t/data/b.parquet",
        "s3://bucket/t/data/c.parquet",
    ]
    # s3a = s3; a valid path without scheme or authority matches any
    assert find_orphans(listed, valid, _search()) == ["s3://bucket/t/data/c.parquet"]
    moved = ["s3://bucket/t/data/a.parquet"]
    listed = ["s3://other/t/data/a.parquet"]
    with pytest.raises(
        PrefixMismatchError, match=r"Conflicting authorities/schemes: \[\(bucket, other\)\]"
    ):
        find_orphans(listed, moved, _search())
    assert find_orphans(listed, moved, _search("IGNORE")) == []
    assert find_orphans(listed, moved, _search("DELETE")) == listed
    assert find_orphans(listed, moved, _search(authorities={"other,third": "bucket"})) == []
    assert find_orphans(["gs://bucket/t/data/a.parquet"], moved, _search("DELETE")) == [
        "gs://bucket/t/data/a.parquet"
    ]


def test_on_an_object_store(s3_server, s3_bucket):
    """Both maintenance procedures on S3 (a local S3-compatible server): listing, object
    times and deletes go through fsspec's s3 file system."""
    con = icesql.connect(f"s3://{s3_bucket}/wh", properties=s3_server.properties, create=True)
    con.execute("CREATE NAMESPACE db")
    con.execute(
        "CREATE TABLE db.t (id BIGINT, s STRING) USING iceberg PARTITIONED BY (s)"
        " TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')"
    )
    con.execute("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'a')")
    con.execute("DELETE FROM db.t WHERE id = 2")
    con.execute("INSERT OVERWRITE db.t SELECT id + 10, s FROM db.t")
    io = FileIO(properties=s3_server.properties)
    location = con.catalog.load_table(("db", "t")).metadata.location
    junk = [f"{location}/data/s=a/junk.parquet", f"{location}/metadata/junk.avro"]
    for path in junk:
        io.write_bytes(path, b"junk")
    con.execute("SET spark.testing = true")
    rows = con.execute(
        "CALL system.remove_orphan_files(table => 'db.t',"
        " older_than => current_timestamp() + INTERVAL 1 MINUTE)"
    ).fetchall()
    assert sorted(p for (p,) in rows) == sorted(junk)
    assert not any(io.exists(p) for p in junk)
    assert all(io.exists(p) for p in reached_files(con, ("db", "t")))
    (counts,) = con.execute(
        "CALL system.expire_snapshots(table => 'db.t',"
        " older_than => TIMESTAMP '2100-01-01 00:00:00')"
    ).fetchall()
    assert counts == (2, 1, 0, 2, 2, 0)
    assert all(io.exists(p) for p in reached_files(con, ("db", "t")))
    assert sorted(con.execute("SELECT * FROM db.t").fetchall()) == [(11, "a"), (13, "a")]
    con.close()


def test_a_file_list_replaces_the_listing(con, history):
    folder = _table_dir(con)
    location = con.catalog.load_table(("db", "t")).metadata.location
    junk = _write(f"{folder}/data/junk.parquet")
    young = _write(f"{folder}/data/young.parquet", age=0)
    con.execute("CREATE TABLE db.listing (file_path STRING, last_modified TIMESTAMP) USING iceberg")
    on_disk = [p for p in _files(folder) if "/." not in p]
    rows = [
        (f"{location.rstrip('/')}{p[len(folder.rstrip('/')) :]}", "2000-01-01 00:00:00")
        for p in on_disk
    ]
    rows = [(p, "2100-01-01 00:00:00" if p.endswith("young.parquet") else t) for p, t in rows]
    rows.append(("/elsewhere/not-under-the-location.parquet", "2000-01-01 00:00:00"))
    con.execute(
        "INSERT INTO db.listing VALUES " + ", ".join(f"('{p}', TIMESTAMP '{t}')" for p, t in rows)
    )
    # the files the table reaches are in the list, old: only the junk is an orphan
    assert _orphans(con, ", file_list_view => 'db.listing'") == [junk]
    assert os.path.exists(young) and not os.path.exists(junk)
    assert sorted(con.execute("SELECT * FROM db.t").fetchall()) == [(0,), (1,), (2,)]
    con.execute("CREATE TABLE db.bad (file_path STRING, last_modified DATE) USING iceberg")
    with pytest.raises(
        ProgrammingError, match="Invalid last_modified column: date32.* is not a timestamp"
    ):
        _orphans(con, ", file_list_view => 'db.bad'")
    con.execute("CREATE TABLE db.worse (path STRING) USING iceberg")
    with pytest.raises(ProgrammingError, match="file_path does not exist. Available: path"):
        _orphans(con, ", file_list_view => 'db.worse'")


def test_a_warehouse_named_by_a_relative_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    con = icesql.connect("wh/", create=True)
    con.execute("CREATE NAMESPACE db")
    con.execute("CREATE TABLE db.t (id BIGINT) USING iceberg")
    con.execute("INSERT INTO db.t VALUES (1)")
    assert con.catalog.load_table(("db", "t")).metadata.location == str(tmp_path / "wh/db/t")
    _write("wh/db/t/data/junk.parquet")
    _age("wh")
    assert _orphans(con) == [str(tmp_path / "wh/db/t/data/junk.parquet")]
    assert con.execute("SELECT * FROM db.t").fetchall() == [(1,)]
    con.close()
