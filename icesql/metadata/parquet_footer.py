"""Whether a local Parquet data file carries Iceberg field ids, and its row count, from its
footer.

DuckDB's ``read_parquet(..., schema=MAP{field_id: ...})`` matches columns by Parquet field
id and reads a file without any as all NULLs, silently; the Arrow stream refuses such a file
(or applies the table's name mapping). So a file goes to DuckDB only when its footer shows a
top-level column with a field id, the rule the stream applies (``reader._file_fields``;
Iceberg Java's ``ParquetSchemaUtil.hasIds`` also looks into nested fields, which only the
stream reads). Manifest metrics cannot stand in for the footer: ``add_files`` records metrics under the ids of the name mapping it sets, for files
that hold none, and planning without a filter does not decode metrics at all.

The row count lets a file whose deletes DuckDB applies by position (``native_deletes``)
be checked against its manifest's ``record_count`` before the query: a keep-mask of the
wrong length would drop or keep the wrong rows. Checking it per row inside the query would
add work to every row; checked here, it is one number per file.

The footer is the Thrift compact encoding of ``FileMetaData``; only its schema list and
``num_rows`` are read, so a file costs an open and one small read, less than pyarrow's
``read_schema``, which builds the whole Arrow schema. Answers are cached per process by
(path, size, modification time): a repeated query checks its files with one ``stat`` each.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["footer_row_count", "footer_row_groups", "has_field_ids", "schema_element_ends"]

_T = TypeVar("_T")

MAGIC = b"PAR1"
FOOTER_PREFIX = 64 * 1024  # schemas come first in the footer: usually all that is read
CACHE_LIMIT = 100_000  # entries; the cache starts over when full

_cache: dict[tuple[str, int, int], tuple[bool, int, int | None] | None] = {}
_ids_cache: dict[tuple[str, int, int], bool | None] = {}  # has_field_ids alone
_lock = threading.Lock()

# Thrift compact protocol type codes
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(1, 13)
_SCHEMA, _NUM_ROWS, _ROW_GROUPS = 2, 3, 4  # FileMetaData: schema, num_rows, row_groups
_NAME, _NUM_CHILDREN, _FIELD_ID = 4, 5, 9  # SchemaElement fields


def has_field_ids(path: str, decode_all: bool = False) -> bool:
    """True when the footer of the local Parquet file ``path`` gives a top-level column a
    field id; False when it gives none, and when the file cannot be read or decoded here
    (the caller's other reader then raises the proper error).

    Decoding stops at the first column with an id (the first, from every writer that sets
    them), not at the row count after the whole schema: this runs for every file of a first
    query, so on a scan of many files of wide schemas the rest of the schema would be most
    of the cost. ``decode_all`` decodes (and caches)
    the row count too, for a caller that asks for it next: one read of the file, not two."""
    if decode_all:
        facts = _footer(path)
        return facts is not None and facts[0]
    found = _cached(
        _ids_cache,
        path,
        lambda size: _read_tail(path, size, _decode_ids),
        lambda key: (_cache.get(key) or (None,))[0],
    )  # decoded whole already
    return bool(found)


def footer_row_count(path: str) -> int | None:
    """The row count the footer of the local Parquet file ``path`` gives; None when it
    cannot be read or decoded here."""
    facts = _footer(path)
    return facts[1] if facts is not None else None


def footer_row_groups(path: str) -> int | None:
    """How many row groups the local Parquet file ``path`` has; None when its footer does
    not say where it is read (the list follows ``num_rows`` in every writer's footers)."""
    facts = _footer(path)
    return facts[2] if facts is not None else None


def _footer(path: str) -> tuple[bool, int, int | None] | None:
    return _cached(_cache, path, lambda size: _read_tail(path, size, _decode))


def _cached(
    cache: dict[tuple[str, int, int], Any],
    path: str,
    read: Callable[[int], Any],
    known: Callable[[tuple[str, int, int]], Any] = lambda key: None,
) -> Any:
    """``read(size)`` of the file at ``path``, cached by (path, size, modification time);
    None when the file is missing, unreadable or does not decode (a reader says why).
    ``known`` answers from another cache first."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    key = (path, stat.st_size, stat.st_mtime_ns)
    if key in cache:
        return cache[key]
    found = known(key)
    if found is not None:
        return found
    try:
        found = read(stat.st_size)
    except (OSError, ValueError, IndexError, RecursionError):  # corrupt: let a reader say so
        found = None
    with _lock:
        if len(cache) >= CACHE_LIMIT:
            cache.clear()
        cache[key] = found
    return found


def _read_tail(path: str, size: int, decode: Callable[[bytes], _T]) -> _T:
    if size < 12:
        raise ValueError("too short for Parquet")
    with open(path, "rb", buffering=0) as f:
        # one read of the file's tail: the whole footer of a small file, and of most others
        # the schema and row count that lead it (a second read only when it starts earlier)
        start = max(0, size - 8 - FOOTER_PREFIX)
        f.seek(start)
        tail = f.read(size - start)
        length = int.from_bytes(tail[-8:-4], "little")
        if len(tail) < 8 or tail[-4:] != MAGIC or length > size - 12:
            raise ValueError("not a plain Parquet footer")  # encrypted footers end in PARE
        begin = size - 8 - length
        if begin >= start:
            return decode(tail[begin - start : -8])
        f.seek(begin)
        footer = f.read(FOOTER_PREFIX)
        try:
            return decode(footer)
        except IndexError:
            if len(footer) == length:
                raise
        return decode(footer + f.read(length - len(footer)))


def _decode(buf: bytes) -> tuple[bool, int, int | None]:
    """(whether a top-level schema element has a field id, ``num_rows``, the number of row
    groups if the list of them comes next, as writers order the fields) of
    ``FileMetaData`` (schema elements come in depth-first order after the root). Raises
    IndexError when ``buf`` ends first."""
    pos, fid = 0, 0
    has_ids, num_rows = None, None
    while has_ids is None or num_rows is None:
        fid, kind, pos = _field_header(buf, pos, fid)
        if kind == 0:
            raise ValueError("footer without a schema or row count")
        if fid == _SCHEMA and kind == _LIST:
            has_ids, pos = _schema_has_ids(buf, pos)
        elif fid == _NUM_ROWS and kind == _I64:
            num_rows, pos = _zigzag(buf, pos)
        else:
            pos = _skip(buf, pos, kind)
    row_groups = None
    try:
        fid, kind, pos = _field_header(buf, pos, fid)
        if fid == _ROW_GROUPS and kind == _LIST:
            row_groups = _collection_header(buf, pos)[0]
    except IndexError:
        pass  # the prefix read ends here: unknown
    return has_ids, num_rows, row_groups


def _decode_ids(buf: bytes) -> bool:
    """Whether a top-level schema element of ``FileMetaData`` has a field id, reading no
    further than the first that has one."""
    return _schema_has_ids(buf, _schema_start(buf), stop_at_first=True)[0]


def _schema_start(buf: bytes) -> int:
    """The position of the schema list in ``FileMetaData`` (the fields before it skipped)."""
    pos, fid = 0, 0
    while True:
        fid, kind, pos = _field_header(buf, pos, fid)
        if kind == 0:
            raise ValueError("footer without a schema")
        if fid == _SCHEMA and kind == _LIST:
            return pos
        pos = _skip(buf, pos, kind)


def _schema_has_ids(buf: bytes, pos: int, stop_at_first: bool = False) -> tuple[bool, int]:
    """Whether a top-level element of the schema list at ``pos`` has a field id, and the
    position after the list."""
    count, _, pos = _collection_header(buf, pos)
    nested = 0  # elements still to pass inside the current top-level column
    found = False
    for index in range(count):
        children, field_id, pos = _schema_element(buf, pos)
        if index == 0:
            continue  # the root
        if nested:
            nested += children - 1
        elif field_id is not None and field_id >= 0:
            found = True
            if stop_at_first:
                return True, pos
        else:
            nested = children
    return found, pos


def _schema_element(buf: bytes, pos: int) -> tuple[int, int | None, int]:
    """(number of children, field id, position after) of the SchemaElement at ``pos``.

    The headers, integers and names of its fields are decoded inline, not through
    ``_field_header`` and ``_skip``: a file whose row count is checked has its whole schema
    decoded, once per file of a scan, and a function call per field would be most of that
    decoding."""
    children, field_id, fid = 0, None, 0
    while True:
        byte = buf[pos]
        pos += 1
        if byte == 0:
            return children, field_id, pos
        kind = byte & 15
        if byte >> 4:
            fid += byte >> 4
        else:
            fid, pos = _zigzag(buf, pos)
        if kind == _I32:
            if fid == _NUM_CHILDREN or fid == _FIELD_ID:
                value, pos = _zigzag(buf, pos)
                if fid == _NUM_CHILDREN:
                    children = value
                else:
                    field_id = value
            else:  # type, repetition, converted type, scale...: a varint to pass
                while buf[pos] & 0x80:
                    pos += 1
                pos += 1
        elif kind == _BINARY and buf[pos] < 0x80:  # a name shorter than 128 bytes
            pos += 1 + buf[pos]
        else:
            pos = _skip(buf, pos, kind)


def schema_element_ends(buf: bytes) -> tuple[list[tuple[str, int, int]], int]:
    """The schema list of the ``FileMetaData`` in ``buf``: (name, number of children, offset
    of the element's closing stop byte) per element, depth first from the root; and the
    offset just after the list. How the writer adds annotations pyarrow cannot write."""
    count, _, pos = _collection_header(buf, _schema_start(buf))
    elements = []
    for _ in range(count):
        name, children, fid = "", 0, 0
        while True:
            fid, kind, after = _field_header(buf, pos, fid)
            if kind == 0:
                elements.append((name, children, pos))
                pos = after
                break
            if fid == _NAME and kind == _BINARY:
                length, start = _varint(buf, after)
                name, pos = buf[start : start + length].decode(), start + length
            elif fid == _NUM_CHILDREN and kind == _I32:
                children, pos = _zigzag(buf, after)
            else:
                pos = _skip(buf, after, kind)
    return elements, pos


def _field_header(buf: bytes, pos: int, last: int) -> tuple[int, int, int]:
    """(field id, type, position after the header); type 0 is the end of the struct."""
    byte = buf[pos]
    pos += 1
    if byte == 0:
        return last, 0, pos
    if byte >> 4:
        return last + (byte >> 4), byte & 15, pos
    fid, pos = _zigzag(buf, pos)
    return fid, byte & 15, pos


def _collection_header(buf: bytes, pos: int) -> tuple[int, int, int]:
    """(element count, element type, position) of a list or set."""
    byte = buf[pos]
    count = byte >> 4
    pos += 1
    if count == 15:
        count, pos = _varint(buf, pos)
    return _fits(buf, pos, count), byte & 15, pos


def _fits(buf: bytes, pos: int, count: int) -> int:
    """``count``, after checking that that many elements (a byte each at least) can follow:
    a corrupt count must not loop for long."""
    if count > len(buf) - pos:
        raise IndexError("collection runs past the footer")
    return count


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    value = 0
    for shift in range(0, 70, 7):
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
    raise ValueError("varint longer than 10 bytes")


def _zigzag(buf: bytes, pos: int) -> tuple[int, int]:
    value, pos = _varint(buf, pos)
    return (value >> 1) ^ -(value & 1), pos


def _skip(buf: bytes, pos: int, kind: int) -> int:
    """The position after a value of type ``kind`` (its field header already read)."""
    if kind in (_TRUE, _FALSE):
        return pos  # a field's boolean is in its header
    if kind == _BYTE:
        return pos + 1
    if kind in (_I16, _I32, _I64):
        return _varint(buf, pos)[1]
    if kind == _DOUBLE:
        return pos + 8
    if kind == _BINARY:
        length, pos = _varint(buf, pos)
        return pos + length
    if kind in (_LIST, _SET):
        count, element, pos = _collection_header(buf, pos)
        for _ in range(count):
            pos = _skip_element(buf, pos, element)
        return pos
    if kind == _MAP:
        count, pos = _varint(buf, pos)
        if _fits(buf, pos, count):
            types = buf[pos]
            pos += 1
            for _ in range(count):
                pos = _skip_element(buf, pos, types >> 4)
                pos = _skip_element(buf, pos, types & 15)
        return pos
    if kind == _STRUCT:
        fid = 0
        while True:
            fid, inner, pos = _field_header(buf, pos, fid)
            if inner == 0:
                return pos
            pos = _skip(buf, pos, inner)
    raise ValueError(f"unknown Thrift compact type {kind}")


def _skip_element(buf: bytes, pos: int, kind: int) -> int:
    """Like ``_skip`` for an element of a list, set or map, where a boolean is one byte."""
    return pos + 1 if kind in (_TRUE, _FALSE) else _skip(buf, pos, kind)


def footer_decodes(path: str) -> bool:
    """Whether DuckDB and Arrow both decode the whole footer of the local Parquet file
    ``path`` (schema and row groups): how a failed read that DuckDB did not pin on a file
    finds the damaged one."""
    import duckdb
    import pyarrow.parquet as pq

    try:
        literal = "'" + path.replace("'", "''") + "'"
        with duckdb.connect() as con:
            con.execute(f"SELECT count(*) FROM parquet_metadata({literal})").fetchall()
            con.execute(f"SELECT count(*) FROM parquet_schema({literal})").fetchall()
        meta = pq.read_metadata(path)
        meta.schema.to_arrow_schema()
        for i in range(meta.num_row_groups):
            group = meta.row_group(i)
            for j in range(group.num_columns):
                group.column(j).path_in_schema  # noqa: B018 - decoding it is the check
    except Exception:
        return False
    return True


def pages_decode(path: str) -> bool:
    """Whether DuckDB decodes every page of every column of the local Parquet file ``path``:
    a damaged data or dictionary page fails only when read, and DuckDB's message for it
    ("dictionary offset out of range") does not name the file. Used on that error only."""
    import duckdb

    literal = "'" + path.replace("'", "''") + "'"
    try:
        with duckdb.connect() as con:
            con.execute(f"SELECT max(hash(COLUMNS(*))) FROM read_parquet({literal})").fetchall()
    except Exception:
        return False
    return True
