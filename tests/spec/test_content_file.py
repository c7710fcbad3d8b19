"""The content-file model: what identifies a file in sets and dicts."""

from __future__ import annotations

from icesql.spec.content_file import DATA, POSITION_DELETES, DataFile


def _file(path: str, **kw) -> DataFile:
    fields = {"file_format": "PARQUET", "partition": (), "record_count": 1, "file_size_in_bytes": 1}
    return DataFile(file_path=path, **{**fields, **kw})


def test_defaults_describe_an_unpartitioned_data_file() -> None:
    f = _file("a.parquet")
    assert (f.content, f.spec_id, f.lower_bounds, f.content_offset) == (DATA, 0, None, None)


def test_hash_follows_path_and_blob_offset() -> None:
    # deletion vectors share one Puffin file: the blob offset tells them apart
    a = _file("d.puffin", content=POSITION_DELETES, content_offset=4)
    b = _file("d.puffin", content=POSITION_DELETES, content_offset=40)
    assert hash(a) != hash(b) and a != b
    assert hash(_file("x")) == hash(_file("x", record_count=7))
    assert len({a, b, _file("d.puffin", content=POSITION_DELETES, content_offset=4)}) == 2
