"""Oracles from the reference implementation: files Spark 3.5 + Iceberg 1.10.2 wrote.

``fixtures/java`` holds the Avro schemas (and ``iceberg.schema`` keys) of Java-written
manifests and manifest lists for v1-v3 (compared in test_manifest_list.py and
test_manifest_schema.py), and one v3 table's metadata, manifest list, manifests and
deletion-vector Puffin file (``DELETE ... WHERE id % 3 = 0`` over ids 0..999), used here.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from icesql.io import FileIO
from icesql.metadata.manifest import read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.puffin import (
    read_deletion_vector,
    read_puffin_footer,
    write_deletion_vector_puffin,
)
from icesql.metadata.table_metadata import parse_table_metadata

JAVA = Path(__file__).parent / "fixtures" / "java"


def test_java_v3_table_reads_with_inheritance() -> None:
    text = (JAVA / "dv3.metadata.json").read_text()
    md = parse_table_metadata(text, "dv3.metadata.json")
    assert json.loads(md.to_json()) == json.loads(text)
    assert md.next_row_id == 1000
    first_delete = md.snapshots[1]
    io = FileIO()
    manifests = read_manifest_list(io, str(JAVA / "dv3-snap.avro"), first_delete)
    local = {0: JAVA / "dv3-data.avro", 1: JAVA / "dv3-deletes.avro"}
    by_content = {m.content: replace(m, manifest_path=str(local[m.content])) for m in manifests}
    data, deletes = by_content[0], by_content[1]
    assert (data.sequence_number, data.first_row_id, data.added_rows_count) == (1, 0, 1000)
    assert (deletes.sequence_number, deletes.first_row_id) == (2, None)
    [data_entry] = read_manifest(io, data)
    assert (data_entry.sequence_number, data_entry.data_file.first_row_id) == (1, 0)
    [dv_entry] = read_manifest(io, deletes)
    dv = dv_entry.data_file
    assert (dv_entry.status, dv_entry.sequence_number, dv_entry.file_sequence_number) == (1, 2, 2)
    assert (dv.content, dv.file_format, dv.record_count) == (1, "PUFFIN", 334)
    assert dv.referenced_data_file == data_entry.data_file.file_path
    assert (dv.content_offset, dv.first_row_id) == (4, None)
    positions = read_deletion_vector(
        io, str(JAVA / "dv3-deletes.puffin"), dv.content_offset, dv.content_size_in_bytes
    )
    assert list(positions) == list(range(0, 1000, 3))


def test_dv_puffin_is_byte_identical_to_javas(tmp_path: Path) -> None:
    io = FileIO()
    java_path = str(JAVA / "dv3-deletes.puffin")
    footer = read_puffin_footer(io, java_path)
    [blob] = footer.blobs
    positions = read_deletion_vector(io, java_path, blob.offset, blob.length)
    ours = tmp_path / "ours.puffin"
    [(offset, length, cardinality)] = write_deletion_vector_puffin(
        io,
        str(ours),
        [(blob.properties["referenced-data-file"], positions)],
        created_by=footer.properties["created-by"],
    )
    assert (offset, length, cardinality) == (blob.offset, blob.length, 334)
    assert ours.read_bytes() == (JAVA / "dv3-deletes.puffin").read_bytes()
