"""What the meta-commands change: the output format, row limit, timer, EXPLAIN and debug
switches. One mutable record shared by the runner and the meta-commands."""

from __future__ import annotations

from dataclasses import dataclass, field

from icesql.cli.formatting import Format

DEFAULT_MAXROWS = 1000


@dataclass
class Settings:
    """The shell's switches; ``maxrows`` limits the rows human modes show (0: no limit)."""

    format: Format = field(default_factory=Format)
    maxrows: int = DEFAULT_MAXROWS
    timer: bool = False
    explain: bool = False
    debug: bool = False
