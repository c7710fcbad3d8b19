"""add_files from a folder of Parquet files: hive-style partition folders become partitions,
metrics come from the footers under the name mapping add_files sets, duplicates are refused
unless allowed, and sources icesql cannot read are refused by name, changing nothing."""

from __future__ import annotations

import datetime as dt
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from icesql.errors import NotSupportedError, ProgrammingError


def _source(root, parts=(0, 1)):
    for p in parts:
        folder = root / f"p={p}"
        folder.mkdir(parents=True)
        pq.write_table(
            pa.table({
                "s": ["a" * 20, "b"], "id": pa.array([p * 10 + 1, p * 10 + 2], pa.int64()),
                "dt": [dt.date(2024, 1, p + 1)] * 2, "x": [1.5, None],
            }),
            folder / "f.parquet",
        )  # fmt: skip
        (folder / "_SUCCESS").write_text("")
        (folder / ".f.parquet.crc").write_text("")
    return str(root)


@pytest.fixture
def table(con):
    con.execute(
        "CREATE TABLE db.a (id BIGINT, s STRING, x DOUBLE, dt DATE, p INT) USING iceberg"
        " PARTITIONED BY (p)"
    )
    return con


def _call(con, folder, extra=""):
    return con.execute(
        f"CALL system.add_files(table => 'db.a', source_table => '`parquet`.`{folder}`'{extra})"
    )


def test_adds_partition_folders_with_footer_metrics(table, tmp_path):
    con = table
    folder = _source(tmp_path / "src")
    cur = _call(con, folder)
    assert [d[0] for d in cur.description] == ["added_files_count", "changed_partition_count"]
    assert cur.fetchall() == [(2, None)]  # Spark: no partition metrics for appended manifests
    assert con.execute("SELECT id, s, x, dt, p FROM db.a ORDER BY id").fetchall() == [
        (1, "a" * 20, 1.5, dt.date(2024, 1, 1), 0), (2, "b", None, dt.date(2024, 1, 1), 0),
        (11, "a" * 20, 1.5, dt.date(2024, 1, 2), 1), (12, "b", None, dt.date(2024, 1, 2), 1),
    ]  # fmt: skip
    md = con.catalog.load_table(("db", "a")).metadata
    mapping = json.loads(md.properties["schema.name-mapping.default"])
    assert [(m["field-id"], m["names"]) for m in mapping] == [
        (1, ["id"]),
        (2, ["s"]),
        (3, ["x"]),
        (4, ["dt"]),
        (5, ["p"]),
    ]
    assert md.current_snapshot().summary["operation"] == "append"
    rows = con.execute(
        "SELECT file_path, partition.p, record_count, value_counts, null_value_counts,"
        " nan_value_counts, readable_metrics.id.lower_bound, readable_metrics.id.upper_bound,"
        " readable_metrics.s.lower_bound, readable_metrics.s.upper_bound,"
        " readable_metrics.dt.lower_bound FROM db.a.files ORDER BY file_path"
    ).fetchall()
    assert rows == [
        (f"file:{folder}/p=0/f.parquet", 0, 2, {1: 2, 2: 2, 3: 2, 4: 2}, {1: 0, 2: 0, 3: 1, 4: 0},
         {}, 1, 2, "a" * 16, "b", dt.date(2024, 1, 1)),
        (f"file:{folder}/p=1/f.parquet", 1, 2, {1: 2, 2: 2, 3: 2, 4: 2}, {1: 0, 2: 0, 3: 1, 4: 0},
         {}, 11, 12, "a" * 16, "b", dt.date(2024, 1, 2)),
    ]  # fmt: skip
    # a filter on the id bound prunes a file (metrics are keyed by the mapping's ids)
    assert con.execute("SELECT count(*) FROM db.a WHERE id > 10").fetchone() == (2,)


def test_duplicates_refused_unless_allowed(table, tmp_path):
    con = table
    folder = _source(tmp_path / "src")
    _call(con, folder)
    before = con.catalog.load_table(("db", "a")).metadata.current_snapshot().snapshot_id
    with pytest.raises(
        ProgrammingError, match=r"already exist within the target table: .*p=0/f\.parquet"
    ):
        _call(con, folder)
    assert con.catalog.load_table(("db", "a")).metadata.current_snapshot().snapshot_id == before
    out = _call(con, folder, ", partition_filter => map('p', '1'), check_duplicate_files => false")
    assert out.fetchall() == [(1, None)]
    assert con.execute("SELECT count(*) FROM db.a WHERE p = 1").fetchone() == (4,)


def test_unpartitioned_table_takes_the_folder_files(con, tmp_path):
    con.execute("CREATE TABLE db.u (id BIGINT, s STRING) USING iceberg")
    folder = tmp_path / "flat"
    folder.mkdir()
    pq.write_table(
        pa.table({"id": pa.array([1, 2], pa.int64()), "s": ["x", "y"]}), folder / "a.parquet"
    )
    pq.write_table(pa.table({"id": pa.array([3], pa.int64()), "s": ["z"]}), folder / "b.parquet")
    out = con.execute(f"CALL system.add_files('db.u', '`parquet`.`{folder}`')").fetchall()
    assert out == [(2, None)]
    assert con.execute("SELECT sum(id) FROM db.u").fetchone() == (6,)


@pytest.mark.parametrize(
    "source, extra, error, match",
    [
        ("db.t", "", NotSupportedError, "Hive/Spark catalog table"),
        ("`orc`.`/x`", "", NotSupportedError, "orc source files are not supported"),
        ("`parquet`.`{missing}`", "", ProgrammingError, "does not exist"),
        ("`parquet`.`{src}`", ", partition_filter => map('q', '1')", ProgrammingError,
         "not partitioned: \\['q'\\]"),
        ("`parquet`.`{src}`", ", partition_filter => map('p', '7')", ProgrammingError,
         "Cannot find any matching partitions"),
        ("`parquet`.`{src}`", ", parallelism => 0", ProgrammingError, "larger than 0"),
    ],
)  # fmt: skip
def test_bad_sources_change_nothing(table, tmp_path, source, extra, error, match):
    con = table
    src = _source(tmp_path / "src")
    source = source.format(src=src, missing=tmp_path / "missing")
    with pytest.raises(error, match=match):
        con.execute(f"CALL system.add_files(table => 'db.a', source_table => '{source}'{extra})")
    assert con.catalog.load_table(("db", "a")).metadata.current_snapshot() is None


def test_wrong_partition_folders_and_transforms_are_refused(con, tmp_path):
    con.execute("CREATE TABLE db.b (id BIGINT, p INT) USING iceberg PARTITIONED BY (bucket(2, id))")
    with pytest.raises(ProgrammingError, match="non-identity partition transforms"):
        con.execute(f"CALL system.add_files('db.b', '`parquet`.`{tmp_path}`')")
    con.execute("CREATE TABLE db.u (id BIGINT, p INT) USING iceberg")
    src = _source(tmp_path / "src")
    with pytest.raises(ProgrammingError, match="partition folder of 'p'.*none \\(unpartitioned\\)"):
        con.execute(f"CALL system.add_files('db.u', '`parquet`.`{src}`')")


@pytest.mark.parametrize("name", ["snapshot", "migrate"])
def test_snapshot_and_migrate_need_a_session_catalog(con, name):
    with pytest.raises(
        NotSupportedError, match=f"system.{name} cannot run here: .*session catalog"
    ):
        con.execute(
            f"CALL system.{name}('db.src', 'db.t')"
            if name == "snapshot"
            else f"CALL system.{name}('db.src')"
        )
