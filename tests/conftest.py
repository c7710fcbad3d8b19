"""Shared fixtures: one real Spark + Iceberg session for the whole test run.

* ``spark_warehouse`` — the session's warehouse folder (``str``); ``icesql.connect(it)`` and
  Spark's catalog ``local`` (``type=hadoop``, also Spark's default catalog) see the same tables.
* ``spark`` — the SparkSession (``local[2]``, time zone UTC), started once, on first use. Its
  catalog ``rest`` is Iceberg's ``RESTCatalog`` at ``spark_rest``, a session-wide
  ``icesql serve`` (usable when ``spark_support.spark_rest_catalog_available()``).
* ``rest`` / ``rest_with_token`` — a real ``icesql serve`` REST catalog on 127.0.0.1 (without
  and with auth), over a SQLite catalog in the test's tmp_path (``tests/rest_support.py``).
* ``s3_server`` — a local S3-compatible server (moto's, on 127.0.0.1), started once; its
  ``properties`` are the Iceberg storage properties that reach it, ``requests`` what it served;
  ``s3_bucket`` — a new empty bucket on it.

A test that uses ``spark`` or ``spark_warehouse`` gets the ``spark`` marker automatically, and
one that uses ``rest``, ``rest_with_token``, ``s3_server`` or ``s3_bucket`` the ``server``
marker: the fast tier (``-m "not spark and not server and not slow"``) leaves both out. Under
xdist every ``spark`` test joins one ``xdist_group``, so with ``--dist loadgroup`` (addopts) one
worker holds the single Spark session while the others run the rest. Spark tests are skipped
only when no Java is installed; any other failure to start Spark fails them. Helpers:
``tests/spark_support.py``.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
from typing import Any

import pytest
import spark_support

# Spark's collect() turns timestamps into naive datetimes in the process time zone; make it UTC
# so they mean the same instants as icesql's values.
os.environ["TZ"] = "UTC"
time.tzset()

SPARK_FIXTURES = {"spark", "spark_warehouse"}
# fixtures that start a server of their own (icesql serve on waitress, moto's S3)
SERVER_FIXTURES = {"rest", "rest_with_token", "s3_server", "s3_bucket"}
# pyspark 3.5's DataFrame.collect() / toPandas() (rdd._load_from_socket) never close the local
# socket they read the rows from, which is then warned of as unclosed when freed. Harmless (it
# is closed when freed) and not ours to close: accepted in the Spark tests only, so any socket
# icesql or another test leaves open still fails. What Spark tests left is collected before the
# next test that is not one (pytest_runtest_teardown), still under this filter.
SPARK_SOCKETS = pytest.mark.filterwarnings(r"ignore:unclosed <socket\.socket:ResourceWarning")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--soak",
        action="store_true",
        default=False,
        help="run tests/reliability at full size (minutes, not seconds)",
    )


# tryfirst: xdist's own hook reads the xdist_group marks this one adds
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    java = spark_support.java_executable()
    skip = pytest.mark.skip(
        reason="Spark interop tests need Java (no JAVA_HOME/bin/java or java on PATH)"
    )
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if SPARK_FIXTURES & fixtures:
            item.add_marker(pytest.mark.spark)
        if SERVER_FIXTURES & fixtures:
            item.add_marker(pytest.mark.server)
        if item.get_closest_marker("spark"):
            item.add_marker(SPARK_SOCKETS)
            # one Spark session per worker that runs a Spark test: keep them on one worker
            item.add_marker(pytest.mark.xdist_group("spark"))
            if java is None:
                item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    """After the last of a run of Spark tests, free the sockets pyspark left while
    ``SPARK_SOCKETS`` still holds (the warnings filter spans the whole test, teardown
    included). Only then: a socket freed during the next Spark test is under the same
    filter, and a full collection after each of some 700 Spark tests cost minutes."""
    yield
    if item.get_closest_marker("spark") and (
        nextitem is None or not nextitem.get_closest_marker("spark")
    ):
        gc.collect()


@pytest.fixture(scope="session")
def spark_warehouse(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("warehouse"))


@pytest.fixture(scope="session")
def spark_rest(tmp_path_factory: pytest.TempPathFactory):
    """The ``icesql serve`` behind the shared session's catalog ``rest`` (started before Spark,
    stopped after it), over a SQLite catalog in its own temp folder."""
    from rest_support import start_rest_server, stop_rest_server

    server = start_rest_server(tmp_path_factory.mktemp("spark-rest"))
    yield server
    stop_rest_server(server)


@pytest.fixture(scope="session")
def spark(spark_warehouse: str, spark_rest, tmp_path_factory: pytest.TempPathFactory):
    rest = spark_support.rest_catalog_conf(spark_rest.uri, spark_rest.warehouse)
    session = spark_support.start_spark(
        spark_warehouse, tmp_path_factory.mktemp("spark-scratch"), extra=rest
    )
    yield session
    session.stop()


def _one_request_at_a_time(app: Any) -> Any:
    """moto's WSGI app serving one request at a time. Its conditional PUT checks that the key
    is absent, then reads the body and stores the object: two racing ``If-None-Match: *``
    PUTs on its threaded server could both pass the check, where S3 lets exactly one win
    (a racing-writers test once lost a commit to it)."""
    lock = threading.Lock()

    def serve(environ: dict, start_response: Any) -> list[bytes]:
        with lock:
            body = app(environ, start_response)
            try:
                return list(body)
            finally:  # what the WSGI server would have done once it had sent the body
                if hasattr(body, "close"):
                    body.close()

    return serve


class S3Server:
    """A local S3-compatible server (moto's) on 127.0.0.1, and the requests it served."""

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self._server.start()
        wsgi = self._server._server
        wsgi.app = _one_request_at_a_time(wsgi.app)
        self.endpoint = f"http://127.0.0.1:{wsgi.server_port}"
        self.requests: list[tuple[str, str]] = []  # (method, path), as the access log has them
        log = logging.getLogger("werkzeug")
        log.setLevel(logging.INFO)
        log.propagate = False
        from benchmarks.s3 import AccessLog  # one reader of the server's access log

        log.addHandler(AccessLog(self.requests))

    @property
    def properties(self) -> dict[str, str]:
        """Iceberg's storage properties for this server, as a catalog would carry them."""
        return {
            "s3.endpoint": self.endpoint,
            "s3.access-key-id": "testing",
            "s3.secret-access-key": "testing",
            "s3.region": "us-east-1",
        }

    def create_bucket(self) -> str:
        import uuid

        import boto3

        name = f"bucket-{uuid.uuid4().hex[:12]}"
        boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            region_name="us-east-1",
        ).create_bucket(Bucket=name)
        return name

    def stop(self) -> None:
        self._server.stop()


@pytest.fixture(scope="session")
def s3_server():
    pytest.importorskip("moto.server")
    pytest.importorskip("s3fs")
    server = S3Server()
    yield server
    server.stop()


@pytest.fixture
def s3_bucket(s3_server: S3Server) -> str:
    """A new, empty bucket on the session's local S3 server."""
    return s3_server.create_bucket()


@pytest.fixture
def con(tmp_path):
    """A connection to a fresh file-system warehouse in tmp_path (modules with a table to set up
    override it)."""
    import icesql

    with icesql.connect(str(tmp_path)) as connection:
        yield connection


REST_TOKEN = "s3cr3t-token"


@pytest.fixture
def rest(tmp_path):
    """A real ``icesql serve`` on 127.0.0.1 (a free port) over a SQLite catalog in tmp_path."""
    from rest_support import start_rest_server, stop_rest_server

    server = start_rest_server(tmp_path)
    yield server
    stop_rest_server(server)


@pytest.fixture
def rest_with_token(tmp_path):
    """The same, requiring ``REST_TOKEN`` or the client credentials ``client:client-secret``."""
    from rest_support import start_rest_server, stop_rest_server

    server = start_rest_server(tmp_path, token=REST_TOKEN, credentials={"client": "client-secret"})
    yield server
    stop_rest_server(server)
