"""Table properties that steer writing and committing, with the reference defaults.

Names and defaults are Java's ``TableProperties``; a value that does not parse raises a
``ProgrammingError`` naming the table and the property, because a typo in TBLPROPERTIES
should not silently fall back to a default::

    >>> TableProperties({"write.target-file-size-bytes": "1024"}).target_file_size_bytes
    1024
    >>> TableProperties({}).parquet_compression
    'zstd'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from icesql.errors import ProgrammingError

TARGET_FILE_SIZE = "write.target-file-size-bytes"
DEFAULT_TARGET_FILE_SIZE = 512 * 1024 * 1024
DELETE_TARGET_FILE_SIZE = "write.delete.target-file-size-bytes"
DEFAULT_DELETE_TARGET_FILE_SIZE = 64 * 1024 * 1024
PARQUET_COMPRESSION = "write.parquet.compression-codec"
DEFAULT_PARQUET_COMPRESSION = "zstd"  # Java's default for tables created since 1.4 (Spark's)
PARQUET_COMPRESSION_LEVEL = "write.parquet.compression-level"
PARQUET_ROW_GROUP_SIZE = "write.parquet.row-group-size-bytes"
DEFAULT_PARQUET_ROW_GROUP_SIZE = 128 * 1024 * 1024
PARQUET_PAGE_SIZE = "write.parquet.page-size-bytes"
DEFAULT_PARQUET_PAGE_SIZE = 1024 * 1024
DATA_PATH = "write.data.path"
METADATA_PATH = "write.metadata.path"
METADATA_COMPRESSION = "write.metadata.compression-codec"
DELETE_AFTER_COMMIT = "write.metadata.delete-after-commit.enabled"
PREVIOUS_VERSIONS_MAX = "write.metadata.previous-versions-max"
METRICS_DEFAULT = "write.metadata.metrics.default"
METRICS_COLUMN_PREFIX = "write.metadata.metrics.column."
METRICS_MAX_INFERRED = "write.metadata.metrics.max-inferred-column-defaults"
DEFAULT_METRICS_MAX_INFERRED = 100
DISTRIBUTION_MODE = "write.distribution-mode"
COMMIT_NUM_RETRIES = "commit.retry.num-retries"
COMMIT_MIN_WAIT_MS = "commit.retry.min-wait-ms"
COMMIT_MAX_WAIT_MS = "commit.retry.max-wait-ms"
COMMIT_TOTAL_TIMEOUT_MS = "commit.retry.total-timeout-ms"
FORMAT_VERSION = "format-version"
COPY_ON_WRITE = "copy-on-write"
MERGE_ON_READ = "merge-on-read"
ROW_LEVEL_COMMANDS = ("delete", "update", "merge")  # write.<command>.mode / .isolation-level
ISOLATION_LEVELS = ("serializable", "snapshot")
DEFAULT_FILE_FORMAT = "write.format.default"
DELETE_FILE_FORMAT = "write.delete.format.default"
GC_ENABLED = "gc.enabled"
MAX_SNAPSHOT_AGE_MS = "history.expire.max-snapshot-age-ms"
MIN_SNAPSHOTS_TO_KEEP = "history.expire.min-snapshots-to-keep"
MAX_REF_AGE_MS = "history.expire.max-ref-age-ms"
_LONG_MAX = 2**63 - 1
MANIFEST_MERGE_ENABLED = "commit.manifest-merge.enabled"
MANIFEST_MIN_MERGE_COUNT = "commit.manifest.min-count-to-merge"
DEFAULT_MANIFEST_MIN_MERGE_COUNT = 100
MANIFEST_TARGET_SIZE = "commit.manifest.target-size-bytes"
DEFAULT_MANIFEST_TARGET_SIZE = 8 * 1024 * 1024

# Not stored in metadata: Java's TableProperties.RESERVED_PROPERTIES, and what Spark shows.
RESERVED = frozenset(
    {
        "format-version",
        "uuid",
        "snapshot-count",
        "current-snapshot-id",
        "current-snapshot-summary",
        "current-snapshot-timestamp-ms",
        "current-schema",
        "default-partition-spec",
        "default-sort-order",
    }
)
# What Spark's SparkTable adds to the properties it shows, never stored either.
SPARK_DISPLAY_ONLY = frozenset(
    {"format", "provider", "location", "sort-order", "identifier-fields"}
)

_CODECS = {"zstd", "gzip", "snappy", "lz4", "brotli", "uncompressed", "none", "lz4_raw"}


@dataclass(frozen=True)
class TableProperties:
    """Typed access to a table's properties; ``table`` names it in error messages."""

    values: Mapping[str, str] = field(default_factory=dict)
    table: str = ""

    def _int(self, key: str, default: int, minimum: int = 0) -> int:
        text = self.values.get(key)
        if text is None:
            return default
        try:
            value = int(str(text).strip())
        except ValueError:
            raise ProgrammingError(self._bad(key, text, "an integer")) from None
        if value < minimum:
            raise ProgrammingError(self._bad(key, text, f"an integer >= {minimum}"))
        return value

    def _bool(self, key: str, default: bool) -> bool:
        text = self.values.get(key)
        if text is None:
            return default
        lowered = str(text).strip().lower()
        if lowered not in ("true", "false"):
            raise ProgrammingError(self._bad(key, text, "true or false"))
        return lowered == "true"

    def _bad(self, key: str, text: str, wanted: str) -> str:
        where = f" of table {self.table}" if self.table else ""
        return f"table property {key!r}{where} is {text!r}; expected {wanted}"

    @property
    def target_file_size_bytes(self) -> int:
        return self._int(TARGET_FILE_SIZE, DEFAULT_TARGET_FILE_SIZE, minimum=1)

    @property
    def delete_target_file_size_bytes(self) -> int:
        return self._int(DELETE_TARGET_FILE_SIZE, DEFAULT_DELETE_TARGET_FILE_SIZE, minimum=1)

    @property
    def row_group_size_bytes(self) -> int:
        return self._int(PARQUET_ROW_GROUP_SIZE, DEFAULT_PARQUET_ROW_GROUP_SIZE, minimum=1)

    @property
    def page_size_bytes(self) -> int:
        return self._int(PARQUET_PAGE_SIZE, DEFAULT_PARQUET_PAGE_SIZE, minimum=1)

    @property
    def parquet_compression(self) -> str:
        codec = str(self.values.get(PARQUET_COMPRESSION, DEFAULT_PARQUET_COMPRESSION)).lower()
        if codec not in _CODECS:
            raise ProgrammingError(
                self._bad(PARQUET_COMPRESSION, codec, "one of " + ", ".join(sorted(_CODECS)))
            )
        return codec

    @property
    def parquet_compression_level(self) -> int | None:
        text = self.values.get(PARQUET_COMPRESSION_LEVEL)
        return None if text is None else self._int(PARQUET_COMPRESSION_LEVEL, 0, minimum=-(2**31))

    @property
    def file_format(self) -> str:
        fmt = str(self.values.get(DEFAULT_FILE_FORMAT, "parquet")).lower()
        return fmt

    @property
    def delete_file_format(self) -> tuple[str, str]:
        """The format of new delete files and the property that chose it (Java's default:
        the data format)."""
        if DELETE_FILE_FORMAT in self.values:
            return str(self.values[DELETE_FILE_FORMAT]).lower(), DELETE_FILE_FORMAT
        return self.file_format, DEFAULT_FILE_FORMAT

    @property
    def metadata_gzip(self) -> bool:
        codec = str(self.values.get(METADATA_COMPRESSION, "none")).lower()
        if codec not in ("none", "gzip"):
            raise ProgrammingError(self._bad(METADATA_COMPRESSION, codec, "none or gzip"))
        return codec == "gzip"

    @property
    def delete_after_commit(self) -> bool:
        return self._bool(DELETE_AFTER_COMMIT, False)

    @property
    def previous_versions_max(self) -> int:
        return self._int(PREVIOUS_VERSIONS_MAX, 100)

    @property
    def commit_num_retries(self) -> int:
        return self._int(COMMIT_NUM_RETRIES, 4)

    @property
    def commit_min_wait_ms(self) -> int:
        return self._int(COMMIT_MIN_WAIT_MS, 100)

    @property
    def commit_max_wait_ms(self) -> int:
        return self._int(COMMIT_MAX_WAIT_MS, 60_000)

    @property
    def commit_total_timeout_ms(self) -> int:
        return self._int(COMMIT_TOTAL_TIMEOUT_MS, 30 * 60_000)

    @property
    def manifest_merge_enabled(self) -> bool:
        return self._bool(MANIFEST_MERGE_ENABLED, True)

    @property
    def manifest_min_merge_count(self) -> int:
        return self._int(MANIFEST_MIN_MERGE_COUNT, DEFAULT_MANIFEST_MIN_MERGE_COUNT)

    @property
    def manifest_target_size_bytes(self) -> int:
        return self._int(MANIFEST_TARGET_SIZE, DEFAULT_MANIFEST_TARGET_SIZE, minimum=1)

    @property
    def metrics_max_inferred_columns(self) -> int:
        return self._int(METRICS_MAX_INFERRED, DEFAULT_METRICS_MAX_INFERRED)

    @property
    def gc_enabled(self) -> bool:
        """``gc.enabled``: whether maintenance may delete files (false when the files are
        shared with other tables)."""
        return self._bool(GC_ENABLED, True)

    @property
    def max_snapshot_age_ms(self) -> int:
        return self._int(MAX_SNAPSHOT_AGE_MS, 5 * 24 * 3600 * 1000, minimum=-_LONG_MAX)

    @property
    def min_snapshots_to_keep(self) -> int:
        return self._int(MIN_SNAPSHOTS_TO_KEEP, 1, minimum=-(2**31))

    @property
    def max_ref_age_ms(self) -> int:
        return self._int(MAX_REF_AGE_MS, _LONG_MAX, minimum=-_LONG_MAX)

    def row_level_mode(self, command: str) -> str:
        """``write.<command>.mode`` of a DELETE / UPDATE / MERGE: copy-on-write (default) or
        merge-on-read."""
        return self._choice(f"write.{command}.mode", COPY_ON_WRITE, (COPY_ON_WRITE, MERGE_ON_READ))

    def isolation_level(self, command: str) -> str:
        """``write.<command>.isolation-level``: serializable (default) or snapshot."""
        return self._choice(f"write.{command}.isolation-level", "serializable", ISOLATION_LEVELS)

    def _choice(self, key: str, default: str, allowed: tuple[str, ...]) -> str:
        value = str(self.values.get(key, default)).strip().lower()
        if value not in allowed:
            raise ProgrammingError(self._bad(key, value, " or ".join(allowed)))
        return value

    def data_location(self, table_location: str) -> str:
        return str(self.values.get(DATA_PATH) or f"{table_location.rstrip('/')}/data").rstrip("/")

    def metadata_location(self, table_location: str) -> str:
        path = self.values.get(METADATA_PATH) or f"{table_location.rstrip('/')}/metadata"
        return str(path).rstrip("/")
