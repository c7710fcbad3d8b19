"""Check files the pytest plugin collects: ``test_*.sql`` (one check per statement) and
``*.checks.toml`` (declarative checks per table), read into plain records with their line
numbers. Pure text handling: nothing here imports the engine, so collecting costs little;
``icesql.testing`` runs the checks."""

from __future__ import annotations


class CheckFileError(ValueError):
    """A check file that cannot be read as checks; ``line`` is 1-based (0: unknown)."""

    def __init__(self, message: str, line: int = 0):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.reason = message
