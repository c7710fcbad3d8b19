"""A manifest's live entries as columns, for planning thousands of files without building an
object per file.

Planning with a filter needs, per entry, only its partition tuple, record count and the
metrics of the few columns the filter names; the ``DataFile`` (every metric map as a dict)
is wanted only for the files that survive. So entries are decoded with their six metric
arrays left as spans in the decompressed block (``skipping.compile_spans``); the counts or
bounds of one field id are taken out of those spans on request, by one regular expression
match per entry (``skipping.key_pattern``), and cached. ``entry(i)`` decodes entry ``i`` in
full, with the very resolution ``ManifestReader`` applies, so it equals what
``read_manifest`` yields for it.

Anything the span decoder does not handle (another codec, an unusual schema, an array
written in several blocks, a byte string of 64 bytes or more) falls back: the whole
manifest to ``read_manifest`` (``from_entries``), or one entry's one array to a full decode
of its record. Either way the values are the same.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from icesql.errors import CorruptFileError
from icesql.io import FileIO
from icesql.metadata.avro import skipping
from icesql.metadata.avro.container import read_avro_blocks
from icesql.metadata.manifest import (
    _METRIC_KEYS,
    _METRIC_SET,
    STATUS_DELETED,
    ManifestEntry,
    ManifestReader,
    _data_file,
    _unwrap,
    read_manifest,
)
from icesql.spec.manifest_file import ManifestFile

__all__ = ["MISSING", "ManifestColumns", "read_manifest_columns"]

MISSING = np.iinfo(np.int64).min  # a count the entry does not carry
_BAD = (KeyError, TypeError, AttributeError, ValueError, IndexError, UnicodeDecodeError)


def read_manifest_columns(io: FileIO, manifest: ManifestFile) -> ManifestColumns:
    """The live entries of ``manifest`` as columns (module docstring). A missing file raises
    ``OperationalError``; a damaged one ``CorruptFileError`` naming it."""
    data = io.read_bytes(manifest.manifest_path)
    opened = read_avro_blocks(data, manifest.manifest_path, _METRIC_SET)
    if opened is None:
        entries = [e for e in read_manifest(io, manifest) if e.status != STATUS_DELETED]
        return ManifestColumns.from_entries(manifest, entries)
    reader = ManifestReader(manifest, data, True, opened)
    return ManifestColumns._decode(reader, opened)


class ManifestColumns:
    """Live entries of one manifest: ``partitions``, ``record_counts`` (int64), ``content``,
    ``key_metadata_at``, and per field id ``counts`` / ``bounds`` on request; ``entry(i)``
    builds entry ``i``. Read-only once built, apart from caches that are safe to race."""

    def __init__(self, manifest: ManifestFile, spec_id: int, n: int) -> None:
        self.manifest = manifest
        self.path = manifest.manifest_path
        self.spec_id = spec_id
        self.n = n
        self.partitions: list[tuple[Any, ...]] = []
        self.record_counts = np.zeros(0, np.int64)
        self.content: list[int] = []
        self.key_metadata_at: int | None = None  # the first entry with key_metadata
        self.derived: dict[Any, Any] = {}  # what evaluators derive (decoded bounds), cached
        self._entries: Sequence[ManifestEntry] | None = None
        self._counts: dict[tuple[str, int], np.ndarray] = {}
        self._bounds: dict[tuple[str, int], list[bytes | None]] = {}
        # span backend
        self._reader: ManifestReader | None = None
        self._full: skipping.Decoder | None = None
        self._blocks: list[bytes] = []
        self._where: list[tuple[int, int]] = []  # (block, offset) of each live record
        self._resolved: list[tuple[Any, ...]] = []  # status, snapshot, seqs, first row id
        self._spans: dict[str, list[tuple[int, int, int] | None]] = {}
        self._patterns: dict[tuple[str, int], re.Pattern[bytes] | None] = {}
        self._items: dict[str, Any] = {}

    @classmethod
    def from_entries(
        cls, manifest: ManifestFile, entries: Sequence[ManifestEntry]
    ) -> ManifestColumns:
        """Columns over entries already decoded (the fallback)."""
        spec_id = entries[0].data_file.spec_id if entries else manifest.partition_spec_id
        cols = cls(
            manifest, spec_id if spec_id is not None else manifest.partition_spec_id, len(entries)
        )
        cols._entries = tuple(entries)
        cols.partitions = [e.data_file.partition for e in entries]
        cols.record_counts = np.array([e.data_file.record_count for e in entries], np.int64)
        cols.content = [e.data_file.content for e in entries]
        cols.key_metadata_at = next(
            (i for i, e in enumerate(entries) if e.data_file.key_metadata is not None), None
        )
        return cols

    @classmethod
    def _decode(cls, reader: ManifestReader, opened: Any) -> ManifestColumns:
        blocks: list[bytes] = []
        where: list[tuple[int, int]] = []
        spans_decode = opened.spans

        def records() -> Any:
            for block, count in opened.blocks:
                b = len(blocks)
                blocks.append(block)
                at = 0
                for _ in range(count):
                    start = at
                    record, at = spans_decode(block, at)
                    where.append((b, start))
                    yield record
                if at != len(block):
                    raise ValueError("data block holds more bytes than its records")

        partitions: list[tuple[Any, ...]] = []
        counts: list[int] = []
        content: list[int] = []
        resolved: list[tuple[Any, ...]] = []
        live_where: list[tuple[int, int]] = []
        spans: dict[str, list[Any]] = {k: [] for k in _METRIC_KEYS}
        span_lists = [(k, spans[k]) for k in _METRIC_KEYS]
        key_metadata: int | None = None
        try:
            for status, snap, seq, fseq, row_id, values, df in reader.resolve(records()):
                if status == STATUS_DELETED:
                    continue
                live_where.append(where[-1])
                partitions.append(values)
                counts.append(df["record_count"])
                content.append(df.get("content") or 0)
                resolved.append((status, snap, seq, fseq, row_id))
                for k, out in span_lists:
                    out.append(df.get(k))
                if key_metadata is None and df.get("key_metadata") is not None:
                    key_metadata = len(partitions) - 1
        except CorruptFileError:
            raise
        except Exception as e:
            raise CorruptFileError(reader.path, f"bad manifest entry: {e!r}") from None
        cols = cls(reader.manifest, reader.spec_id, len(partitions))
        cols.partitions = partitions
        cols.record_counts = np.array(counts, np.int64)
        cols.content = content
        cols.key_metadata_at = key_metadata
        cols._reader = reader
        cols._full = opened.full
        cols._blocks = blocks
        cols._where = live_where
        cols._resolved = resolved
        cols._spans = spans
        cols._items = _metric_items(opened.plain)
        return cols

    # -- per field metrics -------------------------------------------------------------------

    def counts(self, kind: str, field_id: int) -> np.ndarray:
        """The ``kind`` count (``value_counts``, ``null_value_counts``,
        ``nan_value_counts``) of ``field_id`` per entry; ``MISSING`` where absent."""
        key = (kind, field_id)
        found = self._counts.get(key)
        if found is None:
            raw = self._metric(kind, field_id, True)
            found = np.array([MISSING if v is None else v for v in raw], np.int64)
            self._counts[key] = found
        return found

    def bounds(self, kind: str, field_id: int) -> list[bytes | None]:
        """The ``kind`` bound (``lower_bounds``, ``upper_bounds``) bytes of ``field_id`` per
        entry; None where absent."""
        key = (kind, field_id)
        found = self._bounds.get(key)
        if found is None:
            found = self._bounds[key] = self._metric(kind, field_id, False)
        return found

    def _metric(self, kind: str, field_id: int, varint: bool) -> list[Any]:
        if self._entries is not None:
            out = []
            for e in self._entries:
                m = getattr(e.data_file, kind)
                out.append(None if m is None else m.get(field_id))
            return out
        key = (kind, field_id)
        if key not in self._patterns:
            item = self._items.get(kind)
            self._patterns[key] = None if item is None else skipping.key_pattern(item, field_id)
        rx = self._patterns[key]
        blocks, where, read_long = self._blocks, self._where, skipping.read_long
        out = []
        try:
            for i, span in enumerate(self._spans[kind]):
                if span is None:
                    out.append(None)
                    continue
                items = span[1]
                if items == span[2]:  # an empty array
                    out.append(None)
                    continue
                if items < 0 or rx is None:
                    out.append(self._full_metric(i, kind, field_id))
                    continue
                m = rx.match(blocks[where[i][0]], items, span[2])
                if m is None:
                    out.append(None)
                elif varint:
                    out.append(read_long(m.group(1), 0)[0])
                else:
                    out.append(m.group(1)[1:])
        except _BAD as e:
            raise CorruptFileError(self.path, f"bad manifest entry: {e!r}") from None
        return out

    def _full_metric(self, i: int, kind: str, field_id: int) -> Any:
        rec = self._record(i)
        items = rec["data_file"].get(kind)
        if items is None:
            return None
        found = None
        for item in items:
            if item["key"] == field_id:
                found = item["value"]
        return found

    def _record(self, i: int) -> dict[str, Any]:
        assert self._full is not None
        b, offset = self._where[i]
        return self._full(self._blocks[b], offset)[0]

    # -- entries -----------------------------------------------------------------------------

    def entry(self, i: int) -> ManifestEntry:
        """Entry ``i`` in full, equal to what ``read_manifest`` yields for it."""
        if self._entries is not None:
            return self._entries[i]
        try:
            status, snap, seq, fseq, row_id = self._resolved[i]
            df = self._record(i)["data_file"]
            data_file = _data_file(df, self.partitions[i], row_id, self.spec_id, True)
        except _BAD as e:
            raise CorruptFileError(self.path, f"bad manifest entry: {e!r}") from None
        return ManifestEntry(status, snap, seq, fseq, data_file)


def _metric_items(plain: dict[str, Any]) -> dict[str, Any]:
    """The item record schema of each metric array (of the plain schema)."""
    try:
        data_file = next(f for f in plain["fields"] if f["name"] == "data_file")
        fields = _unwrap(data_file["type"])["fields"]
    except (KeyError, StopIteration, TypeError):
        return {}
    out = {}
    for f in fields:
        if f["name"] in _METRIC_SET:
            array = _unwrap(f["type"])
            if isinstance(array, dict) and array.get("type") == "array":
                out[f["name"]] = array.get("items")
    return out
