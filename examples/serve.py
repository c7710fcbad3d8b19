"""icesql as an Iceberg REST catalog: start ``icesql serve``, use it as a client, stop it.

The server runs as its own process (``icesql serve``, here through this interpreter) on a free
port over a temporary warehouse and SQL catalog database; icesql then connects to it with
``icesql.connect(uri="http://...")``, as Spark's or PyIceberg's REST catalog would. Needs the
extra ``icesql[server]`` (waitress). Pass a folder as the first argument to keep the warehouse.
"""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import icesql


@dataclass
class Server:
    """A running ``icesql serve``: its process, URL and log (one line per request), read on a
    thread so that a busy server never blocks writing it."""

    process: subprocess.Popen[str]
    uri: str
    log: list[str] = field(default_factory=list)
    reader: threading.Thread | None = None


def start_server(folder: Path) -> Server:
    """``icesql serve`` on a free port of 127.0.0.1, once it says it is ready."""
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "icesql.shell", "serve"),
            *("--warehouse", str(folder / "warehouse")),
            *("--uri", f"sqlite:///{folder / 'catalog.db'}"),
            *("--port", "0"),  # any free port: the first line says which
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    banner = process.stderr.readline()
    if not banner.startswith("icesql serve: http://"):
        process.kill()
        process.wait()
        sys.exit(f"icesql serve did not start: {banner.strip()}")
    server = Server(process, banner.split()[2])
    server.reader = threading.Thread(target=_read_log, args=(server,), daemon=True)
    server.reader.start()
    return server


def _read_log(server: Server) -> None:
    assert server.process.stderr is not None
    with server.process.stderr:
        server.log.extend(line.rstrip("\n") for line in server.process.stderr)


def stop_server(server: Server) -> None:
    """SIGTERM: the server finishes the requests in flight, then exits."""
    server.process.send_signal(signal.SIGTERM)
    server.process.wait(timeout=30)
    if server.reader is not None:
        server.reader.join(timeout=30)
    requests = [line for line in server.log if " /v1/" in line]
    print(f"server: {len(requests)} requests logged, then {server.log[-1]!r}")


def main(folder: Path) -> None:
    server = start_server(folder)
    print(f"serving: {server.uri}")
    try:
        with icesql.connect(uri=server.uri) as con:  # an http(s) uri is a REST catalog
            con.execute("CREATE NAMESPACE shop")
            con.execute(
                "CREATE TABLE shop.orders (id BIGINT, region STRING, amount DECIMAL(10,2))"
                " USING iceberg PARTITIONED BY (region)"
            )
            con.execute("INSERT INTO shop.orders VALUES (1, 'eu', 10.50), (2, 'us', 99.99)")
            con.execute("INSERT INTO shop.orders VALUES (3, 'eu', 5.00)")
            rows = con.execute(
                "SELECT region, count(*), sum(amount) FROM shop.orders GROUP BY region"
                " ORDER BY region"
            ).fetchall()
            print("through the REST catalog:", rows)
            commits = con.execute("SELECT count(*) FROM shop.orders.snapshots").fetchone()
            print("snapshots:", commits[0])
    finally:
        stop_server(server)
    # the server keeps its tables in a SQL catalog database (Java's JdbcCatalog layout), which
    # icesql (and PyIceberg) can also open directly: the rows are named by the server's --name
    with icesql.connect(
        catalog="sql",
        uri=f"sqlite:///{folder / 'catalog.db'}",
        warehouse=str(folder / "warehouse"),
        name="rest",
    ) as con:
        print("tables in the catalog database:", con.execute("SHOW TABLES IN shop").fetchall())


if __name__ == "__main__":
    if importlib.util.find_spec("waitress") is None:  # a base install: say what to install
        sys.exit("this example needs waitress: pip install 'icesql[server]'")
    if len(sys.argv) > 1:
        Path(sys.argv[1]).mkdir(parents=True, exist_ok=True)
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory(prefix="icesql-serve-") as tmp:
            main(Path(tmp))
