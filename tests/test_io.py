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


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# one attempt, so a refused connection fails at once (botocore retries it for seconds)
FAIL_FAST = {
    "config_kwargs": {"retries": {"max_attempts": 1, "mode": "standard"}, "connect_timeout": 2}
}


def test_an_unreachable_s3_endpoint_is_an_operational_error_naming_it():
    pytest.importorskip("s3fs")
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    props = {
        "s3.endpoint": endpoint,
        "s3.access-key-id": "k",
        "s3.secret-access-key": "s",
        "s3.region": "us-east-1",
    }
    io = FileIO(storage_options=FAIL_FAST, properties=props)
    for action in (
        lambda p: io.read_bytes(p),
        lambda p: io.listdir(p),
        lambda p: io.exists(p),
        lambda p: io.write_bytes(p, b"x"),
    ):
        with pytest.raises(OperationalError) as e:
            action("s3://lake/wh/db/t/metadata/v1.metadata.json")
        message = str(e.value)
        assert f"S3 endpoint {endpoint} (bucket 'lake')" in message, message
        assert "s3://lake/wh/db/t/metadata" in message


def test_an_unreachable_table_store_names_the_table():
    pytest.importorskip("s3fs")
    import icesql

    endpoint = f"http://127.0.0.1:{_closed_port()}"
    props = {
        "s3.endpoint": endpoint,
        "s3.access-key-id": "k",
        "s3.secret-access-key": "s",
        "s3.region": "us-east-1",
    }
    con = icesql.connect("s3://lake/wh", properties=props, storage_options=FAIL_FAST)
    with pytest.raises(
        OperationalError,
        match=rf"table db\.t: cannot list s3://lake/wh/db/t/\S+:"
        rf" cannot reach S3 endpoint {endpoint} \(bucket 'lake'\)",
    ):
        con.execute("SELECT * FROM db.t")


def test_replacing_or_deleting_a_local_file_drops_its_hadoop_checksum(tmp_path):
    # Hadoop's local file system checks .<name>.crc on every read and deletes it with the file
    io = FileIO()
    path = tmp_path / "f.bin"
    path.write_bytes(b"old")
    sidecar = tmp_path / ".f.bin.crc"
    sidecar.write_bytes(b"crc\x00")
    with io.create(str(path)) as f:
        f.write(b"new")
    assert path.read_bytes() == b"new" and not sidecar.exists()
    sidecar.write_bytes(b"crc\x00")
    io.delete(str(path))
    assert not path.exists() and not sidecar.exists()
    (tmp_path / "g.bin").write_bytes(b"x")  # a file without one is deleted as before
    io.delete(str(tmp_path / "g.bin"))
    assert not (tmp_path / "g.bin").exists()
