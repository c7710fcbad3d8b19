"""Write-audit-publish routing: which branch a read and a write of a table take from the
session's ``spark.wap.branch`` / ``spark.wap.id`` and the table's ``write.wap.enabled``."""

from __future__ import annotations

import pytest

from icesql.errors import ProgrammingError
from icesql.metadata.builder import new_table_metadata
from icesql.metadata.snapshots import Snapshot, SnapshotRef
from icesql.session import Settings, WriteRef, read_branch, write_ref
from icesql.spec.schema import Schema
from icesql.spec.types import LongType, NestedField
from icesql.write.snapshot import Change, SnapshotOperation


def _md(enabled: str | None = "true", refs: tuple[str, ...] = ()):
    props = {"write.wap.enabled": enabled} if enabled is not None else {}
    md = new_table_metadata("file:/w/t", Schema((NestedField(1, "id", LongType()),)),
                            properties=props, format_version=2)  # fmt: skip
    snapshot = Snapshot(snapshot_id=1, timestamp_ms=1, manifest_list="file:/w/t/m.avro",
                        sequence_number=1, schema_id=0)  # fmt: skip
    builder = md.builder().add_snapshot(snapshot).set_branch_snapshot("main", 1)
    for name in refs:
        builder.set_ref(name, SnapshotRef(1))
    return builder.build()


def _settings(**values: str) -> Settings:
    settings = Settings()
    for key, value in values.items():
        settings.set(f"spark.wap.{key}", value)
    return settings


def test_without_the_table_property_the_settings_do_nothing():
    settings = _settings(branch="audit")
    for md in (_md(None, ("audit",)), _md("false", ("audit",))):
        assert read_branch(settings, md) is None
        assert write_ref(settings, md) == WriteRef("main")
        assert write_ref(settings, md, "b") == WriteRef("b")
    assert write_ref(_settings(id="x"), _md(None)) == WriteRef("main")


def test_a_wap_branch_takes_writes_and_reads_once_it_exists():
    settings = _settings(branch="audit")
    assert read_branch(settings, _md()) is None  # not created yet: reads stay on main
    assert write_ref(settings, _md()) == WriteRef("audit")
    assert read_branch(settings, _md(refs=("audit",))) == "audit"
    assert read_branch(Settings(), _md(refs=("audit",))) is None


def test_a_wap_id_stages_the_write():
    ref = write_ref(_settings(id="job-1"), _md())
    assert ref == WriteRef("main", "job-1")
    staged = ref.apply(Change(SnapshotOperation.APPEND, summary={"k": "v"}))
    assert (staged.branch, staged.stage_only, dict(staged.summary)) == (
        "main",
        True,
        {"k": "v", "wap.id": "job-1"},
    )
    plain = WriteRef("b").apply(Change(SnapshotOperation.APPEND))
    assert (plain.branch, plain.stage_only, dict(plain.summary)) == ("b", False, {})


@pytest.mark.parametrize(
    ("values", "branch", "message"),
    [
        ({"id": "x", "branch": "audit"}, None,
         r"Cannot set both WAP ID and branch, but got ID \[x\] and branch \[audit\]"),
        ({"branch": "audit"}, "b",
         r"Cannot write to both branch and WAP branch, but got branch \[b\] and WAP branch \[audit\]"),
    ],
)  # fmt: skip
def test_spark_refuses_two_targets(values, branch, message):
    with pytest.raises(ProgrammingError, match=message):
        write_ref(_settings(**values), _md(), branch)
