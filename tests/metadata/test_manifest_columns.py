"""Manifest entries as columns: the same entries, counts and bounds as ``read_manifest``,
whichever path decodes them (spans and regular expressions, a full decode of one record,
or the whole manifest through ``read_manifest``)."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
from expressions_support import RANDOM_DOMAINS, RANDOM_SCHEMA, random_data_file

import icesql.metadata.manifest_columns as manifest_columns
from icesql.errors import CorruptFileError
from icesql.io import FileIO
from icesql.metadata.manifest import ManifestEntry, read_manifest, write_manifest
from icesql.metadata.manifest_columns import MISSING, read_manifest_columns
from icesql.metadata.manifest_list import read_manifest_list, write_manifest_list
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.transforms import Identity

SPEC = PartitionSpec(
    0, (PartitionField(1, 1000, Identity(), "i"), PartitionField(3, 1001, Identity(), "s"))
)
JAVA = Path(__file__).parent / "fixtures" / "java"
KINDS = ("column_sizes", "value_counts", "null_value_counts", "nan_value_counts")
BOUNDS = ("lower_bounds", "upper_bounds")


def _random_manifest(tmp_path: Path, seed: int, version: int, n: int = 80):
    rng = random.Random(seed)
    entries = []
    for k in range(n):
        partition = (
            rng.choice(RANDOM_DOMAINS["i"] + [None]),
            rng.choice(RANDOM_DOMAINS["s"] + [None]),
        )
        f = random_data_file(rng, k, partition)
        if version >= 3 and rng.random() < 0.3:
            f = replace(f, first_row_id=rng.randrange(10_000))
        status = rng.choice([0, 1, 1, 2]) if version >= 2 else rng.choice([0, 1, 2])
        seq = None if status == 1 and rng.random() < 0.7 else rng.randrange(1, 6)
        entries.append(ManifestEntry(status, 11 if status == 0 else None, seq, seq, f))
    io = FileIO()
    m = write_manifest(
        io, str(tmp_path / f"m{seed}.avro"), SPEC, RANDOM_SCHEMA, version, 42, entries
    )
    write_manifest_list(
        io,
        str(tmp_path / f"l{seed}.avro"),
        [m],
        version,
        42,
        None,
        7,
        first_row_id=1000 if version >= 3 else None,
    )
    [listed] = read_manifest_list(io, str(tmp_path / f"l{seed}.avro"))
    return io, listed


def _assert_same(io: FileIO, manifest, columns) -> None:
    live = [e for e in read_manifest(io, manifest) if e.status != 2]
    assert columns.n == len(live)
    assert [columns.entry(i) for i in range(columns.n)] == live
    assert columns.partitions == [e.data_file.partition for e in live]
    assert columns.record_counts.tolist() == [e.data_file.record_count for e in live]
    for fid in range(1, 12):
        for kind in KINDS:
            expected = [(getattr(e.data_file, kind) or {}).get(fid, MISSING) for e in live]
            assert columns.counts(kind, fid).tolist() == expected, (kind, fid)
        for kind in BOUNDS:
            expected = [(getattr(e.data_file, kind) or {}).get(fid) for e in live]
            assert columns.bounds(kind, fid) == expected, (kind, fid)


@pytest.mark.parametrize("version", [1, 2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_columns_equal_read_manifest(tmp_path: Path, seed: int, version: int) -> None:
    io, manifest = _random_manifest(tmp_path, seed, version)
    columns = read_manifest_columns(io, manifest)
    assert columns._entries is None  # the span decoder, not the fallback
    _assert_same(io, manifest, columns)


def test_fallback_to_read_manifest_gives_the_same_columns(tmp_path: Path, monkeypatch) -> None:
    io, manifest = _random_manifest(tmp_path, 7, 2)
    monkeypatch.setattr(manifest_columns, "read_avro_blocks", lambda *a: None)
    columns = read_manifest_columns(io, manifest)
    assert columns._entries is not None
    _assert_same(io, manifest, columns)


def test_long_bounds_and_partition_strings_take_the_full_decode(tmp_path: Path) -> None:
    io, manifest = _random_manifest(tmp_path, 3, 2, n=200)
    columns = read_manifest_columns(io, manifest)
    spans = columns._spans["lower_bounds"]
    assert any(s is not None and s[1] < 0 for s in spans)  # 70-byte bounds: no regex path
    assert any(s is not None and s[1] >= 0 for s in spans)
    _assert_same(io, manifest, columns)


def test_java_written_manifests(tmp_path: Path) -> None:
    io = FileIO()
    local = {0: JAVA / "dv3-data.avro", 1: JAVA / "dv3-deletes.avro"}
    for m in read_manifest_list(io, str(JAVA / "dv3-snap.avro")):
        m = replace(m, manifest_path=str(local[m.content]))
        _assert_same(io, m, read_manifest_columns(io, m))


def test_damaged_manifest_names_the_file(tmp_path: Path) -> None:
    io, manifest = _random_manifest(tmp_path, 1, 2)
    path = Path(manifest.manifest_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(CorruptFileError, match=path.name):
        read_manifest_columns(io, manifest)
