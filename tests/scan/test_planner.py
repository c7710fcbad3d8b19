"""Planner pruning measured through EXPLAIN counters, on tables built in ``tmp_path``.

Every query is also answered without pushdown (the same SQL through DuckDB over all files):
pruning must never change a result.
"""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal
from unittest import mock

import pytest
from expressions_support import RANDOM_DOMAINS, RANDOM_SCHEMA, random_predicate

import icesql
import icesql.engine.plan as plan_stage
import icesql.scan.planner as planner_module
from icesql.expressions.file_filter import FileFilter
from icesql.expressions.tree import ALWAYS_TRUE, equal, greater_than
from icesql.scan.planner import ManifestCache, plan_scan
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.schema import Schema
from icesql.spec.transforms import Bucket, Day, Identity, Month, Truncate
from icesql.spec.types import (
    DateType,
    DecimalType,
    DoubleType,
    LongType,
    NestedField,
    StringType,
    TimestamptzType,
)
from icesql.spec.values import date_to_days

SCHEMA = Schema(
    (
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "ts", TimestamptzType()),
        NestedField(3, "d", DateType()),
        NestedField(4, "s", StringType()),
        NestedField(5, "x", DoubleType()),
        NestedField(6, "amount", DecimalType(9, 2)),
    )
)
DAY_2024 = date_to_days(dt.date(2024, 1, 1))
MICROS_PER_DAY = 86_400_000_000


def _unpushed(con: icesql.Connection, sql: str, params: tuple = ()) -> list:
    with mock.patch.object(plan_stage, "pushed_filters", lambda *a, **k: {}):
        return con.execute(sql, params).fetchall()


def _check(con: icesql.Connection, sql: str, params: tuple = ()) -> list:
    got = con.execute(sql, params).fetchall()
    assert got == _unpushed(con, sql, params), sql
    return got


@pytest.fixture
def days_table(make_table):
    """365 daily partitions of 2024 (days(ts)), one file each, 3 rows per file."""
    spec = PartitionSpec(0, (PartitionField(2, 1000, Day(), "ts_day"),))
    t = make_table("db.events", SCHEMA, spec)
    rows = []
    for day in range(365):
        for hour in (1, 12, 23):
            micros = (DAY_2024 + day) * MICROS_PER_DAY + hour * 3_600_000_000
            rows.append(
                {
                    "id": day * 3 + hour % 3,
                    "ts": micros,
                    "d": DAY_2024 + day,
                    "s": f"s{day:03d}",
                    "x": float(day),
                    "amount": Decimal(day) / 4,
                }
            )
    t.append(rows)
    return t


def test_one_day_filter_reads_one_of_365_files(days_table, warehouse, explain) -> None:
    con = icesql.connect(str(warehouse))
    sql = (
        "SELECT count(*) FROM db.events WHERE ts >= TIMESTAMP '2024-03-01 00:00:00'"
        " AND ts < TIMESTAMP '2024-03-02 00:00:00'"
    )
    assert _check(con, sql) == [(3,)]
    c = explain(con, sql)
    assert c["data_files_total"] == 365
    assert c["data_files_read"] == 1
    assert c["data_files_skipped_by_partition"] == 364
    assert c["manifests_total"] == c["manifests_read"] == 1


def test_explain_shows_snapshot_filter_residual_and_duckdb_plan(days_table, warehouse) -> None:
    con = icesql.connect(str(warehouse))
    text = con.execute(
        "EXPLAIN SELECT id FROM db.events e WHERE e.ts >= TIMESTAMP '2024-12-30 12:00:00'"
        " AND e.s <> 'zzz'"
    ).fetchone()[0]
    assert "== Iceberg scan: db.events AS e ==" in text
    assert f"snapshot: {days_table.metadata.current_snapshot_id} (schema 0)" in text
    assert "pushed filter: (ts >= '2024-12-30T12:00Z' AND s != 'zzz')" in text
    # the day partition decides nothing for 12:00, so both predicates stay
    assert "residual: (ts >= '2024-12-30T12:00Z' AND s != 'zzz') (1 file)" in text
    assert "== DuckDB plan ==" in text


def test_explain_extended_and_parameters(days_table, warehouse, explain) -> None:
    con = icesql.connect(str(warehouse))
    c = explain(con, "SELECT * FROM db.events WHERE d = ?", (dt.date(2024, 2, 1),))
    assert c["data_files_read"] == 1
    text = con.execute("EXPLAIN EXTENDED SELECT * FROM db.events WHERE d = DATE '2024-02-01'")
    assert "data files: total 365, read 1" in text.fetchone()[0]


def test_sorted_unpartitioned_column_skips_by_metrics(make_table, warehouse, explain) -> None:
    t = make_table("db.sorted", SCHEMA)
    t.append(({"id": i, "s": f"k{i:05d}", "x": i / 10} for i in range(1000)), rows_per_file=100)
    con = icesql.connect(str(warehouse))
    sql = "SELECT count(*) FROM db.sorted WHERE id BETWEEN 250 AND 340"
    assert _check(con, sql) == [(91,)]
    c = explain(con, sql)
    assert (c["data_files_total"], c["data_files_read"]) == (10, 2)
    assert c["data_files_skipped_by_metrics"] == 8
    assert explain(con, "SELECT * FROM db.sorted WHERE s LIKE 'k009%'")["data_files_read"] == 1
    assert explain(con, "SELECT * FROM db.sorted WHERE x > 95.5")["data_files_read"] == 1
    # NaN sorts above every number in SQL: without NaN counts of 0, x > v could not prune
    assert explain(con, "SELECT * FROM db.sorted WHERE x < 5")["data_files_read"] == 1


def test_partition_evolution_plans_each_manifest_with_its_spec(make_table, warehouse, explain):
    t = make_table(
        "db.evolved", SCHEMA, PartitionSpec(0, (PartitionField(3, 1000, Month(), "d_month"),))
    )
    t.append({"id": i, "d": DAY_2024 + i, "s": f"a{i % 7}"} for i in range(120))  # 4 months
    t.evolve_spec(
        PartitionSpec(
            0,
            (
                PartitionField(3, 1001, Day(), "d_day"),
                PartitionField(4, 1002, Truncate(1), "s_trunc"),
            ),
        )
    )
    t.append(
        {"id": 1000 + i, "d": DAY_2024 + 120 + i % 30, "s": f"{'ab'[i % 2]}{i}"} for i in range(60)
    )
    t.evolve_spec(PartitionSpec(0, (PartitionField(1, 1003, Bucket(4), "id_bucket"),)))
    t.append({"id": 5000 + i, "d": DAY_2024 + 200, "s": "z"} for i in range(40))
    assert len({m.partition_spec_id for m in t.manifests}) == 3
    con = icesql.connect(str(warehouse))

    sql = "SELECT count(*) FROM db.evolved WHERE d = DATE '2024-02-10'"
    assert _check(con, sql) == [(1,)]
    c = explain(con, sql)
    # spec 0: only February's file; spec 1: no d-day in range -> manifest skipped by its
    # summary; spec 2: d is not partitioned, file bounds (day 200) rule it out
    assert c["manifests_total"] == 3 and c["manifests_read"] == 2 and c["manifests_skipped"] == 1
    assert c["data_files_read"] == 1

    sql = "SELECT count(*) FROM db.evolved WHERE s LIKE 'b%'"
    assert _check(con, sql) == [(30,)]
    c = explain(con, sql)
    # spec 1: its 15 'b' files of 30 (s_trunc); specs 0 and 2: bounds ('a..', 'z') exclude 'b'
    assert c["data_files_skipped_by_partition"] == 15
    assert c["data_files_read"] == 15
    sql = "SELECT count(*) FROM db.evolved WHERE id = 5007"
    assert _check(con, sql) == [(1,)]
    assert explain(con, sql)["data_files_read"] == 1


def test_manifest_summaries_skip_whole_manifests(make_table, warehouse, explain) -> None:
    spec = PartitionSpec(0, (PartitionField(4, 1000, Identity(), "s"),))
    t = make_table("db.batches", SCHEMA, spec)
    for batch in range(5):
        t.append({"id": batch * 10 + i, "s": f"batch{batch}"} for i in range(10))
    con = icesql.connect(str(warehouse))
    sql = "SELECT count(*) FROM db.batches WHERE s = 'batch3'"
    assert _check(con, sql) == [(10,)]
    c = explain(con, sql)
    assert (c["manifests_total"], c["manifests_read"], c["manifests_skipped"]) == (5, 1, 4)
    assert (c["data_files_total"], c["data_files_read"]) == (5, 1)


def test_manifests_are_read_once_per_connection(days_table, warehouse) -> None:
    con = icesql.connect(str(warehouse))
    con.execute("SELECT count(*) FROM db.events WHERE d = DATE '2024-05-05'").fetchall()
    cache = con._engine.manifest_cache if hasattr(con, "_engine") else None
    if cache is None:
        pytest.skip("connection does not expose its engine")
    reads = cache.reads
    con.execute("SELECT count(*) FROM db.events WHERE d = DATE '2024-06-06'").fetchall()
    assert cache.reads == reads


def test_plan_scan_directly_parallel_reads(days_table) -> None:
    io = days_table.io
    md = days_table.metadata
    cache = ManifestCache()
    plan = plan_scan(md, md.current_snapshot(), io, cache, row_filter=equal("s", "s100"))
    assert [t.data_file.record_count for t in plan.tasks] == [3]
    assert plan.metrics.data_files_skipped_by_metrics == 364
    plan = plan_scan(md, md.current_snapshot(), io, cache, row_filter=ALWAYS_TRUE)
    assert len(plan.tasks) == 365 and cache.reads == 2  # the list and the manifest, once
    plan = plan_scan(md, md.current_snapshot(), io, cache, row_filter=greater_than("x", 1e9))
    assert plan.tasks == []


def test_metrics_are_decoded_only_when_needed(days_table, warehouse) -> None:
    """Planning without a filter skips the column metrics; a later filtered plan, and the
    metadata tables, read the manifest again with them."""
    io, md = days_table.io, days_table.metadata
    cache = ManifestCache()
    plan = plan_scan(md, md.current_snapshot(), io, cache)
    assert len(plan.tasks) == 365 and plan.tasks[0].data_file.value_counts is None
    assert cache.reads == 2
    plan = plan_scan(md, md.current_snapshot(), io, cache, row_filter=equal("s", "s100"))
    assert [t.data_file.record_count for t in plan.tasks] == [3] and cache.reads == 3
    assert plan.tasks[0].data_file.value_counts is not None
    plan_scan(md, md.current_snapshot(), io, cache)  # the entries with metrics serve it too
    assert cache.reads == 3
    con = icesql.connect(str(warehouse))
    con.execute("SELECT count(*) FROM db.events").fetchall()
    counts = con.execute("SELECT value_counts FROM db.events.files LIMIT 1").fetchone()[0]
    assert counts and all(v > 0 for v in dict(counts).values())


def test_outer_join_pushes_on_only_to_the_non_preserved_side(days_table, warehouse) -> None:
    con = icesql.connect(str(warehouse))
    queries = [
        "SELECT a.id, b.id FROM db.events a LEFT JOIN db.events b ON a.id = b.id AND b.d = DATE '2024-01-05'",
        "SELECT a.id, b.id FROM db.events a LEFT JOIN db.events b ON a.id = b.id AND a.d = DATE '2024-01-05'",
        "SELECT a.id, b.id FROM db.events a RIGHT JOIN db.events b ON a.id = b.id AND b.d = DATE '2024-01-05'",
        "SELECT a.id, b.id FROM db.events a FULL JOIN db.events b ON a.id = b.id AND b.d = DATE '2024-01-05'",
        "SELECT a.id, b.id FROM db.events a LEFT JOIN db.events b ON a.id = b.id WHERE b.d IS NULL",
        "SELECT a.id, b.id FROM db.events a LEFT JOIN db.events b ON a.id = b.id WHERE b.d = DATE '2024-01-05'",
        "SELECT a.id FROM db.events a WHERE a.id IN (SELECT id FROM db.events WHERE d = DATE '2024-01-05')",
        "SELECT a.id FROM db.events a WHERE EXISTS (SELECT 1 FROM db.events b WHERE b.id = a.id AND b.d > DATE '2024-12-30')",
        "SELECT a.id FROM db.events a LEFT ANTI JOIN db.events b ON a.id = b.id AND b.d < DATE '2024-12-01'",
    ]
    for sql in queries:
        _check(con, sql + " ORDER BY 1, 2" if "b.id FROM" in sql else sql + " ORDER BY 1")
    text = con.execute("EXPLAIN " + queries[0]).fetchone()[0]
    sections = text.split("== DuckDB plan ==")[0].split("\n\n")
    assert "pushed filter: true" in sections[0]  # a: preserved side
    assert "pushed filter: d = '2024-01-05'" in sections[1] and "read 1," in sections[1]
    text = con.execute("EXPLAIN " + queries[4]).fetchone()[0]
    assert "pushed filter: d IS NULL" not in text


def test_delete_files_are_pruned_like_data_files(make_table, warehouse, explain) -> None:
    spec = PartitionSpec(0, (PartitionField(4, 1000, Identity(), "s"),))
    t = make_table("db.deleted", SCHEMA, spec)
    t.append({"id": i, "s": "ab"[i % 2]} for i in range(10))  # 'a': even ids, 'b': odd
    a_file, b_file = sorted(t.files, key=lambda f: f.partition)
    t.commit_files([t.position_deletes(a_file, [0]), t.position_deletes(b_file, [1, 2])], content=1)
    con = icesql.connect(str(warehouse))
    assert con.execute("SELECT id FROM db.deleted ORDER BY id").fetchall() == [
        (i,) for i in (1, 2, 4, 6, 7, 8, 9)
    ]
    sql = "SELECT id FROM db.deleted WHERE s = 'a' ORDER BY id"
    assert _check(con, sql) == [(2,), (4,), (6,), (8,)]
    c = explain(con, sql)
    assert c["data_files_read"] == 1
    # the other partition's delete file is never read
    assert (c["delete_files_total"], c["delete_files_applied"], c["delete_files_skipped"]) == (
        2,
        1,
        1,
    )
    sql = "SELECT id FROM db.deleted WHERE s = 'c'"
    c = explain(con, sql)
    assert c["manifests_read"] == 0 and c["delete_files_skipped"] == 2


def _encrypted_table_errors(con, table: str) -> None:
    for sql in [
        f"SELECT * FROM {table}",
        f"DELETE FROM {table} WHERE id = 1",
        f"INSERT INTO {table} VALUES (9)",
    ]:
        with pytest.raises(icesql.NotSupportedError, match=rf"table {table} is encrypted"):
            con.execute(sql)


def test_tables_with_encryption_keys_are_refused_not_read(tmp_path):
    import json
    from pathlib import Path

    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.enc (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO db.enc VALUES (1)")
    table = con.catalog.load_table(("db", "enc"))
    path = Path(table.metadata.path)
    raw = json.loads(path.read_text())
    raw["encryption-keys"] = [{"key-id": "k1", "encrypted-key-metadata": "aWNlYmVyZwo="}]
    path.write_text(json.dumps(raw))
    con.close()
    con = icesql.connect(str(tmp_path))
    _encrypted_table_errors(con, "db.enc")


def test_data_files_with_key_metadata_are_refused_not_read(tmp_path):
    from dataclasses import replace

    from icesql.write import parquet

    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.enc (id INT) USING iceberg")
    close = parquet.ParquetDataWriter.close
    with mock.patch.object(
        parquet.ParquetDataWriter,
        "close",
        lambda self: replace(close(self), key_metadata=b"\x01key"),
    ):
        con.execute("INSERT INTO db.enc VALUES (1)")
    for sql in ["SELECT * FROM db.enc", "DELETE FROM db.enc WHERE id = 1"]:
        with pytest.raises(
            icesql.NotSupportedError, match=r"table db.enc is encrypted \(file .*key_metadata"
        ):
            con.execute(sql)


# ---------------------------------------------------------------------------------------------
# The columnar (bulk) planning path against the per-file one


def _random_row(rng: random.Random) -> dict:
    row = {name: rng.choice([*domain, None]) for name, domain in RANDOM_DOMAINS.items()}
    if rng.random() < 0.1:
        row[rng.choice(["f", "fl"])] = float("nan")
    return row


def _plans(md, io, row_filter, monkeypatch) -> tuple:
    """The plan by the bulk path (cold, then warm on the same cache) and by the per-file
    path; a plan as comparable values."""

    def key(plan):
        tasks = [
            (t.data_file, t.spec_id, t.data_sequence_number, str(t.residual), t.delete_files)
            for t in plan.tasks
        ]
        return tasks, plan.metrics

    cache = ManifestCache()
    bulk = key(plan_scan(md, md.current_snapshot(), io, cache, row_filter=row_filter))
    warm = key(plan_scan(md, md.current_snapshot(), io, cache, row_filter=row_filter))
    with monkeypatch.context() as m:
        m.setattr(FileFilter, "bulk", property(lambda self: False))
        per_file = key(
            plan_scan(md, md.current_snapshot(), io, ManifestCache(), row_filter=row_filter)
        )
    return bulk, warm, per_file


@pytest.mark.parametrize("seed", range(3))
def test_bulk_planning_plans_exactly_the_per_file_files(make_table, monkeypatch, seed) -> None:
    """Random tables (two partition specs, odd values) and random filters: the same tasks,
    residuals and counters by either path, cold or warm."""
    rng = random.Random(seed)
    spec = PartitionSpec(0, (PartitionField(1, 1000, Identity(), "i"),))
    t = make_table(f"db.bulk{seed}", RANDOM_SCHEMA, spec)
    for _ in range(3):
        t.append([_random_row(rng) for _ in range(40)], rows_per_file=4)
    t.evolve_spec(PartitionSpec(1, (PartitionField(3, 1001, Truncate(1), "s_trunc"),)))
    t.append([_random_row(rng) for _ in range(40)], rows_per_file=4)
    calls = []
    real = FileFilter.may_match_all
    monkeypatch.setattr(
        FileFilter, "may_match_all", lambda self, *a: calls.append(1) or real(self, *a)
    )
    pruned = 0
    for _ in range(40):
        row_filter = random_predicate(rng)
        bulk, warm, per_file = _plans(t.metadata, t.io, row_filter, monkeypatch)
        assert bulk == per_file, str(row_filter)
        assert warm == per_file, str(row_filter)
        pruned += per_file[1].data_files_skipped_by_metrics
    assert calls and pruned > 0  # the bulk path ran, and metrics pruned files


def test_bulk_planning_falls_back_per_query(make_table, monkeypatch) -> None:
    """Equality deletes need every data file's metrics: such a query plans file by file,
    with the same result; a query on a table without them plans in bulk."""
    t = make_table("db.fallback", SCHEMA)
    rows = [{"id": k, "s": f"s{k % 7}", "x": float(k)} for k in range(60)]
    t.append(rows, rows_per_file=6)
    used = []
    real = planner_module._bulk_tasks
    monkeypatch.setattr(planner_module, "_bulk_tasks", lambda *a: used.append(1) or real(*a))
    bulk, _, per_file = _plans(t.metadata, t.io, equal("id", 13), monkeypatch)
    assert bulk == per_file and len(bulk[0]) == 1 and used
    used.clear()
    t.commit_files([t.equality_deletes(["id"], [{"id": 13}])], content=1)
    bulk, _, per_file = _plans(t.metadata, t.io, equal("id", 13), monkeypatch)
    assert bulk == per_file and len(bulk[0]) == 1 and bulk[0][0][4]  # the delete applies
    assert not used


def test_a_repeated_plan_is_kept_copied_and_bounded(days_table, monkeypatch) -> None:
    """The same scan of the same metadata file is planned once per cache; the caller gets a
    copy it may change; a plan of another filter or metadata file is planned afresh; the
    cache keeps at most PLANS_KEPT plans."""
    from icesql.metadata.table_metadata import TableMetadata

    io = days_table.io
    md = TableMetadata(days_table.metadata.raw, "file:///written/v2.metadata.json")
    cache = ManifestCache()
    first = plan_scan(md, md.current_snapshot(), io, cache, row_filter=equal("s", "s100"))
    with mock.patch.object(planner_module, "FileFilter", side_effect=AssertionError("planned")):
        again = plan_scan(md, md.current_snapshot(), io, cache, row_filter=equal("s", "s100"))
    assert again.tasks == first.tasks and again.tasks is not first.tasks
    again.tasks.clear()
    assert (
        len(plan_scan(md, md.current_snapshot(), io, cache, row_filter=equal("s", "s100")).tasks)
        == 1
    )
    other = plan_scan(md, md.current_snapshot(), io, cache, row_filter=equal("s", "s101"))
    assert [t.data_file.record_count for t in other.tasks] == [3]
    monkeypatch.setattr(planner_module, "PLANS_KEPT", 3)
    for i in range(5):
        plan_scan(md, md.current_snapshot(), io, cache, row_filter=equal("s", f"s{i}"))
    assert len(cache.plans) == 3
    unwritten = TableMetadata(md.raw)  # no path: never kept
    plan_scan(unwritten, unwritten.current_snapshot(), io, cache, row_filter=equal("s", "s7"))
    assert all(key[0] == md.path for key in cache.plans)


def test_the_manifest_cache_is_bounded(days_table, monkeypatch) -> None:
    """A connection open for long over many tables holds only the manifests it used last:
    past the bounds the oldest go, and planning again reads them again, with equal tasks."""
    from icesql.metadata.table_metadata import TableMetadata

    io = days_table.io
    md = TableMetadata(days_table.metadata.raw, "file:///written/v2.metadata.json")
    snapshot = md.current_snapshot()
    cache = ManifestCache()
    first = plan_scan(md, snapshot, io, cache, row_filter=equal("s", "s100"))
    assert len(cache.entries) + len(cache.columns) == 1 and len(cache.lists) == 1
    assert cache.reads == 2
    small = ManifestCache()
    for name, bound in (
        ("ENTRIES_KEPT", 364),
        ("COLUMN_ROWS_KEPT", 364),
        ("MANIFEST_LISTS_KEPT", 0),
        ("PLANS_KEPT", 0),
    ):
        monkeypatch.setattr(planner_module, name, bound)  # below the one manifest's 365 rows
    for _ in range(2):
        again = plan_scan(md, snapshot, io, small, row_filter=equal("s", "s100"))
        assert again.tasks == first.tasks
    assert len(small.entries) == len(small.columns) == len(small.lists) == len(small.plans) == 0
    assert small.reads == 4  # the list and the manifest, read for each plan
