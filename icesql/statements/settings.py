"""Session settings: Spark's ``SET`` and ``RESET``, one set of settings per connection.

As in Spark, ``SET key = value`` stores the value's text (trimmed, quotes kept) and shows
it back; ``SET key`` shows a value (a known setting's default when unset, ``<undefined>``
otherwise); ``SET`` lists what this session set; ``SET -v`` lists the settings icesql knows
with their meaning; ``RESET`` forgets every setting, ``RESET key`` one.

Settings icesql knows are checked when set:

* ``spark.sql.sources.partitionOverwriteMode`` (``static`` | ``dynamic``, any case) chooses
  how ``INSERT OVERWRITE`` replaces data (``icesql.statements.overwrite``);
* ``icesql.scan.nativeParquet`` (``true`` | ``false``) lets DuckDB's Parquet reader take the
  data files with nothing to apply to them (``icesql.scan.native_read``), or not;
* settings whose other values icesql cannot honour (it always runs in UTC, resolves names
  case-insensitively and stores values by Spark's ANSI rules) accept only that value.

Any other key is stored and shown back without effect, as Spark stores unknown keys.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa
from sqlglot import exp

from icesql.errors import NotSupportedError, ProgrammingError
from icesql.sql.dialect import command_parts

if TYPE_CHECKING:
    from icesql.engine import Result

__all__ = ["NATIVE_PARQUET", "PARTITION_OVERWRITE_MODE", "Settings", "reset", "set_"]

PARTITION_OVERWRITE_MODE = "spark.sql.sources.partitionOverwriteMode"
NATIVE_PARQUET = "icesql.scan.nativeParquet"
UNDEFINED = "<undefined>"


def _one_of(key: str, values: Sequence[str]) -> Callable[[str], None]:
    def check(value: str) -> None:
        if value.strip().upper() not in values:
            raise ProgrammingError(
                f"the value of {key} should be one of {', '.join(values)}, but was {value.strip().upper()}"
            )

    return check


def _only(key: str, allowed: Sequence[str], valid: Sequence[str] | None, why: str) -> Callable[[str], None]:
    """A setting icesql cannot change: any value but ``allowed`` is refused."""

    def check(value: str) -> None:
        text = value.strip()
        if valid is not None and text.lower() not in valid:
            raise ProgrammingError(f"{key} should be one of {', '.join(valid)}, but was {text}")
        if text.lower() not in allowed:
            raise NotSupportedError(f"SET {key} = {text} is not supported: {why}")

    return check


@dataclass(frozen=True)
class Setting:
    key: str
    default: str
    meaning: str
    since: str
    check: Callable[[str], None]


_KNOWN = (
    Setting(
        PARTITION_OVERWRITE_MODE,
        "STATIC",
        "When INSERT OVERWRITE a partitioned table: STATIC removes every partition matching the"
        " statement's PARTITION clause (the whole table without one) before writing; DYNAMIC"
        " replaces only the partitions the query writes rows into.",
        "2.3.0",
        _one_of(PARTITION_OVERWRITE_MODE, ("DYNAMIC", "STATIC")),
    ),
    Setting(
        NATIVE_PARQUET,
        "true",
        "Whether data files with nothing to apply to them (no deletes, no metadata columns)"
        " are read by DuckDB's own Parquet reader with a field-id mapping (true), or, like"
        " files with deletes, through icesql's Arrow stream (false).",
        "icesql",
        _one_of(NATIVE_PARQUET, ("TRUE", "FALSE")),
    ),
    Setting(
        "spark.sql.session.timeZone",
        "UTC",
        "The session time zone; icesql always runs in UTC.",
        "2.2.0",
        _only("spark.sql.session.timeZone", ("utc", "z", "gmt", "+00:00", "etc/utc"), None,
              "icesql sessions always use the UTC time zone"),
    ),
    Setting(
        "spark.sql.caseSensitive",
        "false",
        "Whether names are resolved case-sensitively; icesql resolves them case-insensitively.",
        "1.4.0",
        _only("spark.sql.caseSensitive", ("false",), ("true", "false"),
              "icesql resolves names case-insensitively"),
    ),
    Setting(
        "spark.sql.storeAssignmentPolicy",
        "ANSI",
        "How values are converted when stored in a column; icesql follows the ANSI policy.",
        "3.0.0",
        _only("spark.sql.storeAssignmentPolicy", ("ansi",), ("ansi", "legacy", "strict"),
              "icesql stores values by the ANSI store assignment rules"),
    ),
)
KNOWN = {s.key: s for s in _KNOWN}


class Settings:
    """The settings of one session (connection); keys are case-sensitive, as in Spark."""

    def __init__(self) -> None:
        self._values: dict[str, str] = {}

    def set(self, key: str, value: str) -> None:
        known = KNOWN.get(key)
        if known is not None:
            known.check(value)
        self._values[key] = value

    def get(self, key: str) -> str | None:
        """The value set in this session, else a known setting's default, else None."""
        known = KNOWN.get(key)
        return self._values.get(key, known.default if known is not None else None)

    def reset(self, key: str | None = None) -> None:
        if key is None:
            self._values.clear()
            return
        self._values.pop(key, None)

    def items(self) -> list[tuple[str, str]]:
        return sorted(self._values.items())

    @property
    def native_parquet(self) -> bool:
        """Whether DuckDB's Parquet reader takes the files without deletes."""
        return (self.get(NATIVE_PARQUET) or "true").strip().lower() == "true"

    @property
    def partition_overwrite_mode(self) -> str:
        """``static`` or ``dynamic``: how INSERT OVERWRITE replaces data."""
        return (self.get(PARTITION_OVERWRITE_MODE) or "static").strip().lower()


_PAIR = (("key", pa.string()), ("value", pa.string()))


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "`":
        return text[1:-1].replace("``", "`")
    return text


def set_(settings: Settings, statement: exp.Command) -> Result:
    """``SET``, ``SET -v``, ``SET key``, ``SET key = value``."""
    from icesql.statements.results import rows  # results imports the engine, which imports us
    _, text = command_parts(statement)
    text = text.strip()
    if not text:
        return rows(_PAIR, settings.items())
    if text == "-v":
        return rows(
            (*_PAIR, ("meaning", pa.string()), ("Since version", pa.string())),
            [(s.key, settings.get(s.key), s.meaning, s.since) for s in _KNOWN],
        )
    key, eq, value = text.partition("=")
    key = _unquote(key)
    if not key:
        raise ProgrammingError(f"SET needs a key before '=': SET {text}")
    if not eq:
        return rows(_PAIR, [(key, settings.get(key) or UNDEFINED)])
    value = _unquote(value)
    settings.set(key, value)
    return rows(_PAIR, [(key, value)])


def reset(settings: Settings, statement: exp.Command) -> Result:
    """``RESET`` (every setting) or ``RESET key``."""
    from icesql.statements.results import done
    _, text = command_parts(statement)
    key = _unquote(text)
    settings.reset(key or None)
    return done()
