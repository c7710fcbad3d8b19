"""Spark's aggregate and window functions where DuckDB's answers differ."""

from __future__ import annotations

RULES: dict = {}
FUNCTIONS: dict = {}
TYPED: set[type] = set()
TYPED_FUNCTIONS: set[str] = set()
