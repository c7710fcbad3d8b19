"""ALTER TABLE (placeholder until the schema and partition evolution land)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from icesql.errors import NotSupportedError

if TYPE_CHECKING:
    from icesql.engine import Engine, Result


def alter(engine: Engine, parsed: object) -> Result:
    raise NotSupportedError(f"{type(parsed).__name__} is not supported yet")
