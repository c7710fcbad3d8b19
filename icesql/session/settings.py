"""The settings store of a session: what ``SET`` changed, and the settings icesql knows.

Keys are case-sensitive and values kept as text, as in Spark (``SET`` and ``RESET``
themselves are statements: ``icesql.statements.settings``). Settings icesql knows
(``KNOWN``) are checked when set:

* ``spark.sql.sources.partitionOverwriteMode`` (``static`` | ``dynamic``, any case) chooses
  how ``INSERT OVERWRITE`` replaces data (``icesql.statements.overwrite``);
* ``icesql.scan.nativeParquet`` (``true`` | ``false``) lets DuckDB's Parquet reader take the
  data files with nothing to apply to them (``icesql.scan.native_read``), or not;
* ``icesql.engine`` (``local`` | ``spark`` | ``auto``) chooses where statements run
  (``icesql.engine.spark``); ``auto`` hands a query to Spark when its planned scan, after
  pruning, is above ``icesql.engine.autoThresholdBytes`` bytes. ``connect(engine=...)`` sets
  the connection's default, which ``RESET`` returns to;
* the settings that change Spark's answers (the time zone, ANSI mode, ``legacy`` behaviours:
  ``icesql.session.answer_settings``) accept only the values icesql answers for; any other
  is refused, never ignored.

Any other key is stored and shown back without effect, as Spark stores unknown keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from icesql.errors import ProgrammingError
from icesql.session.answer_settings import ANSWER_SETTINGS

__all__ = [
    "AUTO_THRESHOLD",
    "ENGINE",
    "ENGINES",
    "KNOWN",
    "NATIVE_PARQUET",
    "PARTITION_OVERWRITE_MODE",
    "UNDEFINED",
    "Setting",
    "Settings",
    "spark_conf_defaults",
]

PARTITION_OVERWRITE_MODE = "spark.sql.sources.partitionOverwriteMode"
NATIVE_PARQUET = "icesql.scan.nativeParquet"
UNDEFINED = "<undefined>"
ENGINE = "icesql.engine"
ENGINES = ("local", "spark", "auto")
AUTO_THRESHOLD = "icesql.engine.autoThresholdBytes"
DEFAULT_AUTO_THRESHOLD = 8 * 1024**3  # 8 GiB of files: more than a laptop reads in seconds


def _byte_count(key: str) -> Callable[[str], None]:
    def check(value: str) -> None:
        text = value.strip()
        if not text.isdigit():
            raise ProgrammingError(
                f"the value of {key} should be a number of bytes, but was {text}"
            )

    return check


def _one_of(key: str, values: Sequence[str]) -> Callable[[str], None]:
    def check(value: str) -> None:
        if value.strip().upper() not in values:
            raise ProgrammingError(
                f"the value of {key} should be one of {', '.join(values)}, but was {value.strip().upper()}"
            )

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
        ENGINE,
        "local",
        "Where statements run: local (DuckDB, in this process), spark (the connection's"
        " SparkSession, on the same catalogs) or auto (Spark when a query's planned scan is"
        " above icesql.engine.autoThresholdBytes, else local).",
        "icesql",
        _one_of(ENGINE, tuple(e.upper() for e in ENGINES)),
    ),
    Setting(
        AUTO_THRESHOLD,
        str(DEFAULT_AUTO_THRESHOLD),
        "With icesql.engine = auto: the bytes of data and delete files a query may plan to"
        " read (after pruning) and still run locally; above it, it runs on Spark.",
        "icesql",
        _byte_count(AUTO_THRESHOLD),
    ),
)
_ANSWERS = tuple(Setting(a.key, a.default, a.meaning, a.since, a.check) for a in ANSWER_SETTINGS)
KNOWN = {s.key: s for s in (*_KNOWN, *_ANSWERS)}


def spark_conf_defaults(conf: Mapping[str, str]) -> dict[str, str]:
    """The settings a Spark configuration (``spark-defaults.conf``, ``connect(spark_conf=)``,
    the shell's ``--conf``) gives a session as its defaults: its ``spark.*`` keys icesql
    knows, each checked, so that a value icesql cannot answer for (ANSI mode, another time
    zone) is refused when the connection opens rather than ignored."""
    found = {}
    for key, value in conf.items():
        known = KNOWN.get(key)
        if known is not None and key.startswith("spark."):
            known.check(value)
            found[key] = value
    return found


class Settings:
    """The settings of one session (connection); keys are case-sensitive, as in Spark."""

    def __init__(self, defaults: dict[str, str] | None = None) -> None:
        """``defaults``: the connection's own defaults of known settings (``RESET`` returns
        to them), e.g. ``connect(engine="spark")``."""
        self._values: dict[str, str] = {}
        self._defaults: dict[str, str] = {}
        for key, value in (defaults or {}).items():
            KNOWN[key].check(value)
            self._defaults[key] = value

    def set(self, key: str, value: str) -> None:
        known = KNOWN.get(key)
        if known is not None:
            known.check(value)
        self._values[key] = value

    def get(self, key: str) -> str | None:
        """The value set in this session, else a known setting's default, else None."""
        if key in self._values:
            return self._values[key]
        if key in self._defaults:
            return self._defaults[key]
        known = KNOWN.get(key)
        return known.default if known is not None else None

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

    def set_default(self, key: str, value: str) -> None:
        """Make ``value`` the connection's default of known setting ``key``."""
        KNOWN[key].check(value)
        self._defaults[key] = value

    @property
    def engine(self) -> str:
        """``local``, ``spark`` or ``auto``: where statements run."""
        return (self.get(ENGINE) or "local").strip().lower()

    @property
    def auto_threshold_bytes(self) -> int:
        """Above how many planned bytes ``auto`` runs a query on Spark."""
        return int((self.get(AUTO_THRESHOLD) or str(DEFAULT_AUTO_THRESHOLD)).strip())

    @property
    def partition_overwrite_mode(self) -> str:
        """``static`` or ``dynamic``: how INSERT OVERWRITE replaces data."""
        return (self.get(PARTITION_OVERWRITE_MODE) or "static").strip().lower()
