"""The settings store of a session: what ``SET`` changed, and the settings icesql knows.

Keys are case-sensitive and values kept as text, as in Spark (``SET`` and ``RESET``
themselves are statements: ``icesql.statements.settings``). Settings icesql knows
(``KNOWN``) are checked when set:

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

from icesql.errors import NotSupportedError, ProgrammingError

__all__ = [
    "KNOWN",
    "NATIVE_PARQUET",
    "PARTITION_OVERWRITE_MODE",
    "UNDEFINED",
    "Setting",
    "Settings",
]

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
