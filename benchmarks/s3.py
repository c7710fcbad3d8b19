"""The benchmark table on ``s3://``: a local S3-compatible server (moto's) and a copy of the
base table in a bucket, made once per run.

The copy is made by icesql itself (``CREATE TABLE s3.bench.lineitem AS SELECT * FROM
local.bench.lineitem`` across two catalogs of one connection), so every side then reads the
same objects: icesql through its file-system catalog on the bucket, DuckDB's
``read_parquet`` over the same object keys, PyIceberg from the same metadata file. The
server's access log counts the GETs each data file gets, so a run can show that no file is
fetched twice in one query.

Figures measure a local server written in Python: they compare the readers under the same
(slow) store, not what S3 itself would give.
"""

from __future__ import annotations

import logging
import re
import threading
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from benchmarks.config import BASE, NAMESPACE
from benchmarks.datagen import Dataset

_ACCESS_LINE = re.compile(r"(GET|PUT|HEAD|POST|DELETE) (/\S*) HTTP")  # werkzeug may colour it


@dataclass
class S3Copy:
    """Where the copy lives and how to reach it."""

    warehouse: str
    properties: dict[str, str]
    metadata: str
    files: list[str]
    requests: list[tuple[str, str]] = field(default_factory=list)
    sizes: dict[str, int] = field(default_factory=dict)  # bytes by file path

    def data_gets(self) -> Counter[str]:
        """GETs per data file since the log was last cleared."""
        return Counter(p for m, p in self.requests if m == "GET" and p.endswith(".parquet"))

    def over_fetched(self) -> list[str]:
        """Data files fetched in more requests than the reader's plan allows since the log was
        cleared: one GET for a file up to ``WHOLE_FILE_BYTES``; for a larger one its footer,
        then the projected column chunks, which Arrow coalesces into ranges of at most 32 MiB."""
        from icesql.scan.reader import WHOLE_FILE_BYTES

        gets = self.data_gets()
        out = []
        for path, size in self.sizes.items():
            key = "/" + path.split("://", 1)[1]
            allowed = 1 if size <= WHOLE_FILE_BYTES else 1 + -(-size // (32 << 20))
            if gets.get(key, 0) > allowed:
                out.append(f"{path} ({size} bytes): {gets[key]} GETs")
        return out


class AccessLog(logging.Handler):
    """Reads a local S3 server's access log (werkzeug's, colour codes and all) into
    (method, path) pairs; the test suite's ``s3_server`` fixture counts requests with it too."""

    def __init__(self, requests: list[tuple[str, str]]) -> None:
        super().__init__()
        self.requests = requests
        self._lock = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        m = _ACCESS_LINE.search(record.getMessage())
        if m:
            with self._lock:
                self.requests.append((m.group(1), m.group(2).split("?", 1)[0]))


_server: Any = None
_requests: list[tuple[str, str]] = []


def s3_copy(ds: Dataset, log: Any = print) -> S3Copy:
    """Start the server (once per process) and copy the base table into a new bucket."""
    global _server
    import boto3
    from moto.server import ThreadedMotoServer

    import icesql

    if _server is None:
        access = logging.getLogger("werkzeug")  # the server's access log: counted, not printed
        access.setLevel(logging.INFO)
        access.propagate = False
        access.handlers = [AccessLog(_requests)]
        _server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        _server.start()
    endpoint = f"http://127.0.0.1:{_server._server.server_port}"
    properties = {
        "s3.endpoint": endpoint,
        "s3.access-key-id": "bench",
        "s3.secret-access-key": "bench",
        "s3.region": "us-east-1",
    }
    bucket = f"bench-{uuid.uuid4().hex[:8]}"
    boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id="bench",
        aws_secret_access_key="bench",
        region_name="us-east-1",
    ).create_bucket(Bucket=bucket)
    warehouse = f"s3://{bucket}/warehouse"
    log(f"copying {NAMESPACE}.{BASE} to {warehouse} (local S3 server {endpoint})")
    con = icesql.connect(
        catalogs={
            "local": {"warehouse": ds.warehouse},
            "s3": {"warehouse": warehouse, **properties},
        },
        default="local",
        create=True,  # the bucket is new
    )
    con.execute(f"CREATE NAMESPACE s3.{NAMESPACE}")
    con.execute(f"CREATE TABLE s3.{NAMESPACE}.{BASE} AS SELECT * FROM local.{NAMESPACE}.{BASE}")
    sizes = dict(
        con.execute(
            f"SELECT file_path, file_size_in_bytes FROM s3.{NAMESPACE}.{BASE}.files ORDER BY file_path"
        ).fetchall()
    )
    table = con.catalogs["s3"].load_table((NAMESPACE, BASE))
    con.close()
    copy = S3Copy(warehouse, properties, table.metadata_location, list(sizes), _requests, sizes)
    _requests.clear()
    return copy
