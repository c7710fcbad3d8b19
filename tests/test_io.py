"""FileIO: one facade over local files, memory:// and object stores."""

from __future__ import annotations

import uuid

import pytest

from icesql.errors import AlreadyExistsError, NotSupportedError, OperationalError
from icesql.io import FileIO


def test_local_create_exclusive_never_replaces(tmp_path):
    io = FileIO()
    path = str(tmp_path / "a" / "v1.metadata.json")
    io.create_exclusive(path, b"one")
    with pytest.raises(AlreadyExistsError, match="exists already"):
        io.create_exclusive(path, b"two")
    assert io.read_bytes(f"file://{path}") == b"one"


def test_memory_files_and_listing():
    io = FileIO()
    root = f"memory://io-{uuid.uuid4().hex}"
    io.create_exclusive(f"{root}/d/x", b"1")
    io.write_bytes(f"{root}/d/y", b"22")
    assert io.listdir(f"{root}/d") == ["x", "y"]
    assert io.size(f"{root}/d/y") == 2
    with pytest.raises(AlreadyExistsError):
        io.create_exclusive(f"{root}/d/x", b"1")
    io.delete(f"{root}/d", recursive=True)
    assert io.listdir(f"{root}/d") == []
    with pytest.raises(OperationalError, match="file not found"):
        io.read_bytes(f"{root}/d/x")


def test_s3_properties_reach_the_store(s3_server, s3_bucket):
    io = FileIO(properties=s3_server.properties)
    io.write_bytes(f"s3://{s3_bucket}/k", b"v")
    assert io.read_bytes(f"s3n://{s3_bucket}/k") == b"v"  # Hadoop's scheme names the same key
    elsewhere = FileIO(properties={**s3_server.properties, "s3.endpoint": "http://127.0.0.1:9"})
    with pytest.raises(OperationalError, match=r"cannot read s3://.*127\.0\.0\.1:9"):
        elsewhere.read_bytes(f"s3://{s3_bucket}/k")


def test_a_store_without_create_if_absent_is_refused_by_name(tmp_path):
    pytest.importorskip("fsspec.implementations.dirfs")
    io = FileIO(storage_options={"path": str(tmp_path), "fs": None})
    with pytest.raises(NotSupportedError, match=r"dir:// offers no create-if-absent"):
        io.create_exclusive(f"dir://{tmp_path}/v1.metadata.json", b"x")


def test_a_store_without_its_fsspec_package_is_named():
    io = FileIO()
    with pytest.raises(NotSupportedError, match=r"gs:// needs an fsspec implementation"):
        io.read_bytes("gs://bucket/key")
