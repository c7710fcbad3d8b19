"""``remove_orphan_files``: delete the files under a table's location that no version of the
table reaches (Java's ``DeleteOrphanFilesSparkAction``).

Steps, in an order that keeps every commit's files:

1. List every file under ``location`` (default: the table's location) through fsspec whose
   modification time is before ``older_than`` (default: 3 days ago), skipping hidden paths
   (a folder or file whose name starts with ``_`` or ``.``, except a partition folder of a
   field whose name starts so, as Java's ``PartitionAwareHiddenPathFilter``).
2. Only then load the table and collect what it reaches: the content files, manifests and
   manifest lists of every snapshot (of every ref, staged ones included), the statistics
   files, the current metadata file and those in its metadata log, and ``version-hint.text``.
3. A listed file is an orphan when no reached file has its path. Paths are compared as Java
   compares them: by their path part, with ``equal_schemes`` (always ``s3a``/``s3n`` = ``s3``)
   and ``equal_authorities`` mapping equivalent schemes and authorities; a listed file whose
   path matches a reached file's with another scheme or authority is a conflict:
   ``prefix_mismatch_mode`` ``ERROR`` (default) fails the call naming the conflicts,
   ``IGNORE`` keeps such files, ``DELETE`` deletes them.
4. Before deleting, the table is loaded again: if a commit landed since step 2, its files are
   taken out of the orphans and the check repeats, so a commit made after the listing loses
   nothing (a commit still writing files older than ``older_than`` is what the age guard is
   for: Spark refuses an ``older_than`` less than 24 hours ago unless ``spark.testing`` is
   set, and so does icesql, reading ``SET spark.testing = true``).
5. Unless ``dry_run``, delete the orphans, ``max_concurrent_deletes`` at a time. The output
   names every orphan found (deleted or, with ``dry_run``, not).

``file_list_view`` replaces step 1 as in Spark: the rows of the table (or anything icesql can
``SELECT`` from) it names, whose ``file_path`` (string) starts with ``location`` and whose
``last_modified`` (timestamp) is before ``older_than``, are the listed files. icesql has no
session views, so the name is a table's. ``prefix_listing`` is accepted: fsspec lists object
stores by prefix either way.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pyarrow as pa
from sqlglot import exp

from icesql.catalog.table import Table
from icesql.errors import ProgrammingError
from icesql.io import FileIO
from icesql.metadata import reachable
from icesql.sql.dialect import parse_one
from icesql.sql.translate import duckdb_errors
from icesql.statements.procedures.base import (
    BOOLEAN,
    INT,
    STRING,
    STRING_MAP,
    TIMESTAMP,
    Call,
    Parameter,
    Procedure,
)
from icesql.statements.procedures.cleanup import delete_files
from icesql.write.properties import TableProperties

__all__ = [
    "PROCEDURES", "OrphanSearch", "PrefixMismatchError", "find_orphans", "list_files",
    "remove_orphans", "valid_files",
]  # fmt: skip

DAY_MS = 24 * 3600 * 1000
DEFAULT_EQUAL_SCHEMES = {"s3n,s3a": "s3"}
PREFIX_MISMATCH_MODES = ("ERROR", "IGNORE", "DELETE")
VERSION_HINT = "version-hint.text"
_MISMATCH = (
    "Unable to determine whether certain files are orphan. Metadata references files that match"
    " listed/provided files except for authority/scheme. Please, inspect the conflicting"
    " authorities/schemes and provide which of them are equal by further configuring the action"
    " via equal_schemes and equal_authorities. Set prefix_mismatch_mode to 'IGNORE' to ignore"
    " remaining locations with conflicting authorities/schemes or to 'DELETE' iff you are"
    " ABSOLUTELY confident that remaining conflicting authorities/schemes are different. It will"
    " be impossible to recover deleted files. Conflicting authorities/schemes: {}."
)


class PrefixMismatchError(ValueError):
    """Listed files match reached ones except for their scheme or authority."""


@dataclass(frozen=True)
class OrphanSearch:
    """What to compare: prefixes are matched after mapping equal schemes and authorities."""

    older_than_ms: int
    location: str
    equal_schemes: Mapping[str, str]
    equal_authorities: Mapping[str, str]
    prefix_mismatch_mode: str = "ERROR"

    def split(self, uri: str) -> tuple[str, str, str]:
        """(scheme, authority, path) as Java's ``new Path(uri).toUri()`` gives them, mapped."""
        parts = urlsplit(uri)
        scheme, authority = parts.scheme.lower(), parts.netloc
        if len(scheme) == 1:  # a Windows drive letter, not a scheme
            scheme, authority, path = "", "", uri
        else:
            path = parts.path
        scheme = self.equal_schemes.get(scheme, scheme)
        authority = self.equal_authorities.get(authority, authority)
        return scheme, authority, path


def flatten(mapping: Mapping[str, str] | None) -> dict[str, str]:
    """Java's ``flattenMap``: a key ``"a,b"`` maps both ``a`` and ``b``."""
    out: dict[str, str] = {}
    for key, value in (mapping or {}).items():
        for part in key.split(","):
            if part.strip():
                out[part.strip()] = value.strip()
    return out


def list_files(
    io: FileIO, location: str, older_than_ms: int, hidden_ok: Iterable[str] = ()
) -> list[str]:
    """The files under ``location`` modified before ``older_than_ms``, as URIs that start with
    ``location``; hidden paths skipped (module docstring), ``hidden_ok`` the name prefixes
    (``_field=``) of partition folders that are not hidden."""
    fs, root = io.fs(location)
    root = fs._strip_protocol(root).rstrip("/")  # as the file system spells what it finds
    allowed = tuple(hidden_ok)
    try:
        found = fs.find(root, withdirs=False, detail=True)
    except FileNotFoundError:
        return []
    prefix = location.rstrip("/")
    out = []
    for path, info in found.items():
        relative = path[len(root) :].lstrip("/") if path.startswith(root) else None
        if not relative:
            continue
        if any(_hidden(part, allowed) for part in relative.split("/")):
            continue
        modified = _modified_ms(info)
        if modified is None or modified >= older_than_ms:
            continue  # no time known: never an orphan
        out.append(f"{prefix}/{relative}")
    return sorted(out)


def _hidden(name: str, allowed: tuple[str, ...]) -> bool:
    return name.startswith(("_", ".")) and not name.startswith(allowed)


def _modified_ms(info: Mapping[str, Any]) -> int | None:
    for key in ("mtime", "LastModified", "last_modified", "updated", "created"):
        value = info.get(key)
        if value is None:
            continue
        if isinstance(value, dt.datetime):
            if value.tzinfo is None:
                value = value.replace(tzinfo=dt.UTC)
            return int(value.timestamp() * 1000)
        if isinstance(value, int | float):
            return int(value * 1000)
        if isinstance(value, str):
            try:
                return int(
                    dt.datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000
                )
            except ValueError:
                continue
    return None


def valid_files(table: Table) -> Iterator[str]:
    """Every file the table reaches (module docstring, step 2); paths may repeat."""
    md, io = table.metadata, table.io
    ids = [s.snapshot_id for s in md.snapshots]
    manifests = reachable.manifests(io, md, ids)
    yield from manifests
    yield from (path for path, _ in reachable.content_files(io, manifests.values()))
    yield from reachable.manifest_lists(md, ids)
    yield from reachable.statistics_files(md)
    if table.metadata_location:
        yield table.metadata_location
    yield from (entry.metadata_file for entry in md.metadata_log)
    yield f"{md.location.rstrip('/')}/metadata/{VERSION_HINT}"


def find_orphans(listed: Sequence[str], valid: Iterable[str], search: OrphanSearch) -> list[str]:
    """The listed files no valid file matches (module docstring, step 3)."""
    by_path: dict[str, set[tuple[str, str]]] = {}
    wanted = {search.split(uri)[2] for uri in listed}
    for uri in valid:
        scheme, authority, path = search.split(uri)
        if path in wanted:
            by_path.setdefault(path, set()).add((scheme, authority))
    orphans, conflicts = [], set()
    for uri in listed:
        scheme, authority, path = search.split(uri)
        prefixes = by_path.get(path)
        if prefixes is None:
            orphans.append(uri)
            continue
        mismatches = []
        for valid_scheme, valid_authority in prefixes:
            scheme_ok = not valid_scheme or valid_scheme == scheme
            authority_ok = not valid_authority or valid_authority.lower() == authority.lower()
            if scheme_ok and authority_ok:
                break
            if not scheme_ok:
                mismatches.append((valid_scheme, scheme))
            if not authority_ok:
                mismatches.append((valid_authority, authority))
        else:
            if search.prefix_mismatch_mode == "DELETE":
                orphans.append(uri)
            else:
                conflicts.update(mismatches)
    if conflicts and search.prefix_mismatch_mode == "ERROR":
        shown = ", ".join(f"({a}, {b})" for a, b in sorted(conflicts))
        raise PrefixMismatchError(_MISMATCH.format(f"[{shown}]"))
    return orphans


def remove_orphans(
    table: Table,
    load: Callable[[], Table],
    search: OrphanSearch,
    dry_run: bool,
    max_workers: int,
    given: Callable[[], list[str]] | None = None,
) -> list[str]:
    """Steps 1-5 of the module docstring on ``table`` as the statement loaded it; ``load``
    reads the table as the catalog has it after the listing (a file a commit added meanwhile
    is then no orphan), ``given`` (``file_list_view``) lists the files instead of the file
    system."""
    if given is not None:
        listed = given()
    else:
        hidden_ok = {
            f"{field.name}=" for spec in table.metadata.specs for field in spec.fields
            if field.name.startswith(("_", "."))
        }  # fmt: skip
        listed = list_files(table.io, search.location, search.older_than_ms, hidden_ok)
    table = load()
    orphans = find_orphans(listed, valid_files(table), search)
    while orphans:
        again = load()
        if again.metadata_location == table.metadata_location:
            break
        table = again
        orphans = find_orphans(orphans, valid_files(table), search)
    if not dry_run and orphans:
        delete_files(table.io, [(path, "") for path in orphans], max_workers)
    return orphans


def _remove_orphan_files(call: Call) -> Sequence[Sequence[Any]]:
    args = call.args
    workers = args.get("max_concurrent_deletes")
    if workers is not None and workers <= 0:
        raise call.error(f"max_concurrent_deletes should have value > 0, value: {workers}")
    mode = args.get("prefix_mismatch_mode", "ERROR").upper()
    if mode not in PREFIX_MISMATCH_MODES:
        raise call.error(
            f"Invalid mode: {args['prefix_mismatch_mode']} (one of {', '.join(PREFIX_MISMATCH_MODES)})"
        )
    catalog, table = call.table()
    if not TableProperties(table.metadata.properties, table.name).gc_enabled:
        raise call.error(
            "Cannot delete orphan files: GC is disabled (deleting files may corrupt other tables)"
        )
    now = time.time_ns() // 1_000_000
    older_than = args.get("older_than")
    if older_than is None:
        older_than = now - 3 * DAY_MS
    elif now - older_than < DAY_MS and not _testing(call):
        raise call.error(
            "Cannot remove orphan files with an interval less than 24 hours. Executing this"
            " procedure with a short interval may corrupt the table if other operations are"
            " happening at the same time. If you are absolutely confident that no concurrent"
            " operations will be affected by removing orphan files with such a short interval,"
            " SET spark.testing = true first, as Spark's tests do."
        )
    search = OrphanSearch(
        older_than_ms=older_than,
        location=args.get("location") or table.metadata.location,
        equal_schemes=flatten({**DEFAULT_EQUAL_SCHEMES, **(args.get("equal_schemes") or {})}),
        equal_authorities=flatten(args.get("equal_authorities")),
        prefix_mismatch_mode=mode,
    )
    view = args.get("file_list_view")
    given = None if view is None else (lambda: _file_list(call, view, search))
    try:
        orphans = remove_orphans(
            table, lambda: catalog.load_table(table.identifier), search,
            bool(args.get("dry_run", False)), workers or 4, given,
        )  # fmt: skip
    except PrefixMismatchError as e:
        raise call.error(str(e)) from None
    return [(path,) for path in orphans]


def _file_list(call: Call, name: str, search: OrphanSearch) -> list[str]:
    """The files ``file_list_view`` names (module docstring), Spark's checks applied."""
    try:
        source = parse_one(f"SELECT * FROM {name}").find(exp.Table)
    except ProgrammingError:
        source = None
    if source is None or not name.strip():
        raise call.error(f"cannot parse argument file_list_view as a table name: {name!r}")
    result = call.session.query(exp.select("*").from_(source.copy()), ())
    try:
        assert result.reader is not None
        with duckdb_errors(result.scans):
            schema = result.reader.schema
            columns = {f.name.lower(): f for f in schema}
            for column, check, kind in (
                ("file_path", pa.types.is_string, "a string"),
                ("last_modified", pa.types.is_timestamp, "a timestamp"),
            ):
                found = columns.get(column)
                if found is None:
                    raise call.error(
                        f"{column} does not exist. Available: {', '.join(schema.names)}"
                    )
                if not (
                    check(found.type)
                    or (column == "file_path" and pa.types.is_large_string(found.type))
                ):
                    raise call.error(f"Invalid {column} column: {found.type} is not {kind}")
            path_at = schema.get_field_index(columns["file_path"].name)
            time_at = schema.get_field_index(columns["last_modified"].name)
            listed = []
            for batch in result.reader:
                for path, modified in zip(
                    batch.column(path_at).to_pylist(),
                    batch.column(time_at).to_pylist(),
                    strict=True,
                ):
                    if path is None or modified is None or not path.startswith(search.location):
                        continue
                    if modified.tzinfo is None:
                        modified = modified.replace(tzinfo=dt.UTC)
                    if modified.timestamp() * 1000 < search.older_than_ms:
                        listed.append(path)
    finally:
        result.close()
    return listed


def _testing(call: Call) -> bool:
    return (call.session.settings.get("spark.testing") or "false").strip().lower() == "true"


PROCEDURES = (
    Procedure(
        "remove_orphan_files",
        (
            Parameter("table", STRING),
            Parameter("older_than", TIMESTAMP, required=False),
            Parameter("location", STRING, required=False),
            Parameter("dry_run", BOOLEAN, required=False),
            Parameter("max_concurrent_deletes", INT, required=False),
            Parameter("file_list_view", STRING, required=False),
            Parameter("equal_schemes", STRING_MAP, required=False),
            Parameter("equal_authorities", STRING_MAP, required=False),
            Parameter("prefix_mismatch_mode", STRING, required=False),
            Parameter("prefix_listing", BOOLEAN, required=False),
        ),
        pa.schema([pa.field("orphan_file_location", pa.string(), nullable=False)]),
        _remove_orphan_files,
    ),
)  # fmt: skip
