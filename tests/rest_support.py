"""A real ``icesql serve`` for tests: the server on 127.0.0.1 with a free port, over a SQLite
catalog in a temporary folder, and a tiny HTTP client for the requests no library sends."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from icesql.server import RestCatalogServer, open_server


@dataclass
class RestServer:
    server: RestCatalogServer
    warehouse: str
    db_uri: str
    name: str
    token: str | None = None

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        raw: bytes | None = None,
        token: str | None = "default",
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """``(status, JSON body or None)`` of one request to ``/v1/<path>``."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(f"{self.uri}/v1/{path}", data=data, method=method)
        req.add_header("Content-Type", "application/json")
        bearer = self.token if token == "default" else token
        if bearer:
            req.add_header("Authorization", f"Bearer {bearer}")
        for key, value in (headers or {}).items():
            req.add_header(key, value)
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read()
        return status, json.loads(text) if text else None


def start_rest_server(
    folder: Path,
    token: str | None = None,
    credentials: dict[str, str] | None = None,
    name: str = "rest",
) -> RestServer:
    warehouse = str(folder / "warehouse")
    db_uri = f"sqlite:///{folder / 'catalog.db'}"
    server = open_server(warehouse, db_uri, port=0, token=token, credentials=credentials, name=name)
    server.serve_in_background()
    return RestServer(server, warehouse, db_uri, name, token)


def stop_rest_server(rest: RestServer) -> None:
    rest.server.stop()
    rest.server.router.service.catalog.close()


def drain(pipe: IO[str]) -> None:
    """Read a server process's log ``pipe`` to its end (the server's exit) and close it: a
    pipe left to the garbage collector is warned of as unclosed, and warnings fail tests."""
    with pipe:
        pipe.read()
