"""Partition spec evolution of ``write/spec_update.py`` (Java's ``BaseUpdatePartitionSpec``):
field ids after ``last-partition-id`` or recycled from an earlier spec (v2), refusals of
duplicate fields (a second time field is Java's to allow), v1's void replacement, and the partition-name rules."""

from __future__ import annotations

import pytest

import icesql
from icesql.errors import ProgrammingError
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.transforms import Bucket, Day, Identity, Truncate, Void
from icesql.write.spec_update import (
    add_partition_field,
    check_partition_names,
    remove_partition_field,
)

TABLE = "db.t"


def _metadata(tmp_path, version: int, partitioning: str = "bucket(16, id), days(ts)", after=()):
    con = icesql.connect(str(tmp_path))
    con.execute(
        f"CREATE TABLE db.t (id BIGINT, s STRING, ts TIMESTAMP) USING iceberg PARTITIONED BY ({partitioning})"
        f" TBLPROPERTIES ('format-version'='{version}')"
    )
    for sql in after:
        con.execute(sql)
    md = con.catalog.load_table(("db", "t")).metadata
    con.close()
    return md


def _ids(md) -> dict[str, int]:
    return {f.name: f.field_id for f in md.schema().fields}


def test_a_new_field_takes_the_id_after_last_partition_id(tmp_path):
    md = _metadata(tmp_path, 2)
    assert md.last_partition_id == 1001  # bucket 1000, day 1001
    spec, last = add_partition_field(
        md, md.spec(), _ids(md)["s"], "truncate[4]", "s_trunc_4", False, TABLE, md.last_partition_id
    )
    assert last == 1002
    new = spec.fields[-1]
    assert (new.source_id, new.field_id, new.transform, new.name) == (
        _ids(md)["s"],
        1002,
        Truncate(4),
        "s_trunc_4",
    )
    assert spec.fields[:-1] == md.spec().fields and spec.spec_id == md.spec().spec_id


def test_adding_a_field_the_spec_has_is_refused(tmp_path):
    md = _metadata(tmp_path, 2)
    with pytest.raises(ProgrammingError, match=r"db\.t.*already partitioned by bucket\[16\]\(id\)"):
        add_partition_field(md, md.spec(), _ids(md)["id"], "bucket[16]", "x", True, TABLE, 1001)


@pytest.mark.parametrize("transform", ["hour", "month", "year"])
def test_a_second_time_field_on_the_same_column_is_added_as_java_does(tmp_path, transform):
    """Java's BaseUpdatePartitionSpec checks redundant time fields only among the fields one
    change adds (Spark 3.5 + Iceberg 1.10 accepts ``ADD PARTITION FIELD hours(ts)`` next to
    ``days(ts)``: tests/interop/test_spec_validation_spark.py); a new table's spec refuses it."""
    md = _metadata(tmp_path, 2)
    spec, last = add_partition_field(
        md, md.spec(), _ids(md)["ts"], transform, f"ts_{transform}", False, TABLE, 1001
    )
    assert [(f.name, str(f.transform), f.field_id) for f in spec.fields[1:]] == [
        ("ts_day", "day", 1001),
        (f"ts_{transform}", transform, 1002),
    ] and last == 1002


def test_a_different_bucket_count_on_the_same_column_is_allowed(tmp_path):
    md = _metadata(tmp_path, 2)
    spec, last = add_partition_field(
        md, md.spec(), _ids(md)["id"], "bucket[8]", "id_bucket_8", False, TABLE, 1001
    )
    assert [f.transform for f in spec.fields] == [Bucket(16), Day(), Bucket(8)] and last == 1002


def test_v2_readding_a_dropped_field_recycles_its_id_and_name(tmp_path):
    md = _metadata(tmp_path, 2, after=["ALTER TABLE db.t DROP PARTITION FIELD ts_day"])
    assert [f.transform for f in md.spec().fields] == [Bucket(16)]
    assert len(md.specs) == 2
    ts = _ids(md)["ts"]
    spec, last = add_partition_field(
        md, md.spec(), ts, "day", "ts_day_default", False, TABLE, md.last_partition_id
    )
    assert (spec.fields[-1].field_id, spec.fields[-1].name) == (1001, "ts_day")
    assert last == md.last_partition_id  # nothing new allocated
    # an explicit name that differs from the old field's: a new field
    spec, last = add_partition_field(
        md, md.spec(), ts, "day", "when", True, TABLE, md.last_partition_id
    )
    assert (spec.fields[-1].field_id, spec.fields[-1].name) == (md.last_partition_id + 1, "when")
    assert last == md.last_partition_id + 1
    # the same explicit name: recycled
    spec, _ = add_partition_field(
        md, md.spec(), ts, "day", "ts_day", True, TABLE, md.last_partition_id
    )
    assert spec.fields[-1].field_id == 1001


def test_v1_never_recycles(tmp_path):
    md = _metadata(
        tmp_path,
        1,
        partitioning="bucket(16, id)",
        after=["ALTER TABLE db.t DROP PARTITION FIELD bucket(16, id)"],
    )
    assert [str(f.transform) for f in md.spec().fields] == ["void"]  # v1 keeps the slot
    assert md.last_partition_id == 1000
    spec, last = add_partition_field(
        md, md.spec(), _ids(md)["id"], "bucket[16]", "id_bucket", False, TABLE, md.last_partition_id
    )
    assert spec.fields[-1].field_id == 1001 and last == 1001


def test_remove_in_v2_drops_the_field(tmp_path):
    md = _metadata(tmp_path, 2)
    bucket, day = md.spec().fields
    spec = remove_partition_field(md, md.spec(), bucket, TABLE)
    assert spec.fields == (day,)


def test_remove_in_v1_leaves_a_renamed_void_field(tmp_path):
    md = _metadata(tmp_path, 1)
    bucket, day = md.spec().fields
    spec = remove_partition_field(md, md.spec(), bucket, TABLE)
    assert len(spec.fields) == 2 and spec.fields[1] == day
    void = spec.fields[0]
    assert (void.field_id, void.source_id, void.transform) == (
        bucket.field_id,
        bucket.source_id,
        Void(),
    )
    assert void.name == f"{bucket.name}_{bucket.field_id}"


def test_adding_a_field_named_like_a_column_is_refused(tmp_path):
    md = _metadata(tmp_path, 2)
    with pytest.raises(ProgrammingError, match=r"partitioning of db\.t.*'s'"):
        add_partition_field(md, md.spec(), _ids(md)["id"], "bucket[4]", "s", True, TABLE, 1001)


def test_partition_names(tmp_path):
    md = _metadata(tmp_path, 2)
    schema, ids = md.schema(), _ids(md)
    # identity of the column itself may take its name; a void field may keep any name
    check_partition_names(
        schema, PartitionSpec(0, (PartitionField(ids["s"], 1000, Identity(), "s"),))
    )
    check_partition_names(schema, PartitionSpec(0, (PartitionField(ids["id"], 1000, Void(), "s"),)))
    with pytest.raises(ProgrammingError, match=r"'s'.*a column of that name"):
        check_partition_names(
            schema, PartitionSpec(0, (PartitionField(ids["id"], 1000, Identity(), "s"),))
        )
    with pytest.raises(ProgrammingError, match=r"'id'.*bucket\[2\]"):
        check_partition_names(
            schema, PartitionSpec(0, (PartitionField(ids["id"], 1000, Bucket(2), "id"),))
        )
    twice = (
        PartitionField(ids["id"], 1000, Bucket(2), "x"),
        PartitionField(ids["s"], 1001, Identity(), "x"),
    )
    with pytest.raises(ProgrammingError, match=r"'x' twice"):
        check_partition_names(schema, PartitionSpec(0, twice))
