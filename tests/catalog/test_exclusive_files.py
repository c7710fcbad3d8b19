"""The atomic file steps of the file-system catalog's commit."""

from __future__ import annotations

import threading
import uuid
import zlib

import pytest

from icesql.catalog.exclusive_files import VERSION_HINT, publish_exclusive, write_version_hint
from icesql.errors import AlreadyExistsError
from icesql.io import FileIO


def test_publish_creates_once_and_leaves_no_temp_file(tmp_path):
    path = tmp_path / "metadata" / "v1.metadata.json"
    publish_exclusive(FileIO(), str(path), b"first")
    with pytest.raises(AlreadyExistsError, match="v1.metadata.json"):
        publish_exclusive(FileIO(), str(path), b"second")
    assert path.read_bytes() == b"first"
    assert sorted(p.name for p in path.parent.iterdir()) == ["v1.metadata.json"]


def test_of_racing_publishers_exactly_one_wins(tmp_path):
    path = str(tmp_path / "v2.metadata.json")
    outcomes: list[str] = []

    def publish(i: int) -> None:
        try:
            publish_exclusive(FileIO(), path, f"writer {i}".encode())
            outcomes.append(f"won {i}")
        except AlreadyExistsError:
            outcomes.append("lost")

    threads = [threading.Thread(target=publish, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [o for o in outcomes if o.startswith("won")]
    assert len(winners) == 1 and outcomes.count("lost") == 15
    assert (tmp_path / "v2.metadata.json").read_bytes() == f"writer {winners[0][4:]}".encode()
    assert [p.name for p in tmp_path.iterdir()] == ["v2.metadata.json"]


def test_memory_files_use_the_check_then_write_of_one_process():
    path = f"memory://x-{uuid.uuid4().hex}/v1.metadata.json"
    publish_exclusive(FileIO(), path, b"a")
    with pytest.raises(AlreadyExistsError):
        publish_exclusive(FileIO(), path, b"b")


def test_the_version_hint_is_replaced_whole(tmp_path):
    write_version_hint(FileIO(), str(tmp_path), 7)
    write_version_hint(FileIO(), str(tmp_path), 8)
    assert (tmp_path / VERSION_HINT).read_text() == "8"
    assert [p.name for p in tmp_path.iterdir()] == [VERSION_HINT]


def test_a_hint_that_cannot_be_written_is_not_an_error(tmp_path):
    (tmp_path / "file").write_text("x")
    write_version_hint(FileIO(), str(tmp_path / "file"), 3)  # its folder is a file: ignored
    assert (tmp_path / "file").read_text() == "x"


def test_the_version_hint_leaves_no_stale_hadoop_checksum(tmp_path):
    # Spark's hadoop catalog on a local disk writes .version-hint.text.crc beside the hint and
    # checks it on every read: replacing the hint must not leave the old checksum behind
    (tmp_path / VERSION_HINT).write_text("1")
    sidecar = tmp_path / f".{VERSION_HINT}.crc"
    sidecar.write_bytes(b"crc\x00\x00\x00\x02\x00" + zlib.crc32(b"1").to_bytes(4, "big"))
    write_version_hint(FileIO(), str(tmp_path), 2)
    assert (tmp_path / VERSION_HINT).read_text() == "2"
    assert not sidecar.exists()
