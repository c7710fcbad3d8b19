"""One engine's answer to one statement, and the file of Spark's answers (the cache).

Spark's answers are kept in a JSON file so that an icesql run needs no JVM: ``--spark``
(re)makes them. Each file's entry carries a digest of its queries and settings and the run's
time zone, so an answer is never used for a query that has changed since.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from benchmarks.spark_sql_tests.splitting import InputFile

__all__ = ["Answer", "AnswerFile", "digest"]

FORMAT = 1


@dataclass
class Answer:
    """What one engine answered to one statement.

    ``rows`` are Spark's strings (``HiveResult.hiveResultString``; icesql's rows formatted the
    same way by ``hive_format``), ``types`` the result columns' Spark types
    (``catalogString``), ``sorted`` whether Spark's suite would keep the rows' order (its
    ``isSorted``: a global sort reached through projections and filters only; otherwise both
    sides' rows are sorted before comparing). An error keeps its class (Spark's error class,
    else the exception's class) and first line. ``setup`` is set on Spark's answer to a
    temporary view it wrote to an Iceberg table: the statement icesql runs instead.
    """

    sql: str
    ok: bool
    rows: list[str] = field(default_factory=list)
    sorted: bool = False
    types: list[str] = field(default_factory=list)
    error_class: str | None = None
    error: str | None = None
    refused: bool = False  # icesql's NotSupportedError
    setup: str | None = None
    note: str | None = None  # why a view was not written to a table, or a setting refused

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        return {k: v for k, v in data.items() if k in ("sql", "ok") or v not in (None, False, [])}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Answer:
        return cls(**data)


def digest(test_file: InputFile, time_zone: str) -> str:
    """What an answer was made for: the file's queries and settings and the time zone."""
    text = json.dumps([test_file.queries, test_file.settings, time_zone])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class AnswerFile:
    """Spark's answers per input file, read from and written to one JSON file."""

    def __init__(self, path: str):
        self.path = path
        self.meta: dict[str, Any] = {}
        self.files: dict[str, dict[str, Any]] = {}
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            if data.get("format") == FORMAT:
                self.meta = data.get("meta", {})
                self.files = data.get("files", {})

    def get(self, test_file: InputFile, time_zone: str) -> list[Answer] | None:
        """Spark's answers to ``test_file``, or None when there are none for its content."""
        entry = self.files.get(test_file.name)
        if entry is None or entry.get("digest") != digest(test_file, time_zone):
            return None
        return [Answer.from_json(a) for a in entry["answers"]]

    def put(self, test_file: InputFile, time_zone: str, answers: list[Answer]) -> None:
        self.files[test_file.name] = {
            "digest": digest(test_file, time_zone),
            "answers": [a.to_json() for a in answers],
        }

    def save(self) -> None:
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        temp = self.path + ".tmp"
        with open(temp, "w", encoding="utf-8") as f:
            json.dump({"format": FORMAT, "meta": self.meta, "files": self.files}, f, indent=1)
        os.replace(temp, self.path)
