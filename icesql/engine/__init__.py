"""The query engine of a connection: the statement path from SQL text to a result.

``Engine`` (``dispatch``) is the one object a connection holds; the rest of the package is
what it runs a statement with: where the statement runs (``placement``: here or on Spark,
``spark``), the planned queries it keeps by their text (``plan_cache``), rows DuckDB fetches
as tuples (``tuple_rows``) and the database the command opens while the engine loads
(``startup``).

``Engine`` is loaded on first use, not with the package: the command imports ``startup``
before the engine's libraries, to open DuckDB's database on a thread while they load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from icesql.engine.dispatch import Engine

__all__ = ["Engine"]


def __getattr__(name: str) -> Any:
    if name == "Engine":
        from icesql.engine.dispatch import Engine

        return Engine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
