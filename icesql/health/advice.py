"""Advice: each maintenance problem of a table, its evidence, the ``CALL`` that fixes it, and a
dry run of that call.

A problem is reported exactly when the procedure that fixes it would change something, because
the dry run *is* the procedure's own planning (``plan_rewrite``, ``plan_delete_rewrite``,
``plan_manifest_rewrite``, ``plan_expiry``, ``remove_orphan_files`` with ``dry_run``), run
with the arguments the advice shows and nothing committed. So the advice disappears once the
advised call has run, and its thresholds are Iceberg's: ``rewrite_data_files`` selects files
outside [0.75, 1.8] x ``write.target-file-size-bytes`` or whose file-scoped deletes remove
``delete-ratio-threshold`` (0.3) of their rows, and rewrites a partition's group of at least
``min-input-files`` (5) such files; ``rewrite_position_delete_files`` does the same over the
delete files against ``write.delete.target-file-size-bytes``; ``expire_snapshots`` removes
what ``history.expire.max-snapshot-age-ms`` (5 days) and ``history.expire.min-snapshots-to-keep``
(1) no longer keep. Manifests have no planner threshold in Java (``rewrite_manifests`` always
rewrites); the one Iceberg applies on its own is ``commit.manifest.min-count-to-merge`` (100),
the manifest count at which a commit merges them, so a rewrite is advised from that count on.
"""

from __future__ import annotations

import re
import time
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from icesql.catalog.base import Catalog
from icesql.catalog.table import Table
from icesql.errors import ProgrammingError
from icesql.metadata import reachable
from icesql.metadata.manifest import read_manifest
from icesql.scan.delete_index import is_deletion_vector
from icesql.scan.planner import FileScanTask
from icesql.session import Session
from icesql.spec.content_file import POSITION_DELETES
from icesql.statements.procedures.base import Call
from icesql.statements.procedures.expire import ExpirePolicy, plan_expiry
from icesql.statements.procedures.orphans import PROCEDURES as ORPHAN_PROCEDURES
from icesql.statements.procedures.rewrite import plan_manifest_rewrite, plan_rewrite
from icesql.statements.procedures.rewrite_deletes import plan_delete_rewrite
from icesql.write.properties import TableProperties

from .model import Advice

__all__ = ["advise", "call_text", "expiring_snapshots", "quoted_name"]

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SHOWN_PATHS = 10  # orphan paths listed in a preview


def _quoted(part: str) -> str:
    return part if _PLAIN.fullmatch(part) else "`" + part.replace("`", "``") + "`"


def quoted_name(parts: Sequence[str]) -> str:
    """A table's name parts as SQL spells them, back-quoted where needed.

    >>> quoted_name(("db", "we ird"))
    'db.`we ird`'
    """
    return ".".join(_quoted(p) for p in parts)


def _string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def call_text(catalog: str, procedure: str, table: str, options: Mapping[str, str] = {}) -> str:
    """The Spark SQL of a procedure call on ``table`` (a name relative to ``catalog``).

    >>> call_text("local", "rewrite_data_files", "db.t", {"remove-dangling-deletes": "true"})
    "CALL local.system.rewrite_data_files(table => 'db.t', options => map('remove-dangling-deletes', 'true'))"
    """
    args = [f"table => {_string(table)}"]
    if options:
        pairs = ", ".join(f"{_string(k)}, {_string(v)}" for k, v in options.items())
        args.append(f"options => map({pairs})")
    return f"CALL {_quoted(catalog)}.system.{procedure}({', '.join(args)})"


def _mib(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MiB"


def advise(
    session: Session,
    catalog: Catalog,
    table: Table,
    name: str,
    live: Collection[str],
    orphans: bool = False,
) -> tuple[Advice, ...]:
    """Every problem found in ``table`` (``name`` relative to ``catalog``, ``live`` the paths
    of its live data files), in the order the
    fixes are best run: compaction first (it leaves snapshots and files to clean), then
    delete files, manifests, snapshots and orphans."""
    out = [
        *_data_files(session, catalog, name),
        *_delete_files(session, catalog, name, live),
        *_manifests(session, catalog, table, name),
        *_snapshots(table, catalog.name, name),
    ]
    if orphans:
        out.extend(_orphans(session, catalog, table, name))
    return tuple(out)


def _call(session: Session, catalog: Catalog, procedure: str, args: dict[str, Any]) -> Call:
    return Call(session, catalog, f"system.{procedure}", args)


def _data_files(session: Session, catalog: Catalog, name: str) -> list[Advice]:
    call = _call(session, catalog, "rewrite_data_files", {"table": name})
    plan = plan_rewrite(call, session.manifest_cache)
    if not plan.groups:
        return []
    o = plan.options
    tasks = [t for g in plan.groups for t in g]

    def many_deleted(t: FileScanTask) -> bool:
        """Java's ``tooHighDeleteRatio``: file-scoped deletes remove enough of its rows."""
        path, rows = t.data_file.file_path, t.data_file.record_count
        deleted = sum(d.record_count for d in t.delete_files if d.referenced_data_file == path)
        return rows > 0 and deleted / rows >= o.delete_ratio

    def by_size(g: list[FileScanTask]) -> bool:
        """The group is worth rewriting for its files' sizes alone."""
        size = sum(t.data_file.file_size_in_bytes for t in g)
        return (len(g) > 1 and (len(g) >= o.min_input_files or size > o.target)) or (
            size > o.max_group_size
        )

    sized = [t for g in plan.groups if by_size(g) for t in g]
    small = [t for t in sized if t.data_file.file_size_in_bytes < o.min_size]
    large = [t for t in sized if t.data_file.file_size_in_bytes > o.max_size]
    deleted = [t for t in tasks if many_deleted(t)]
    parquet_deletes = {
        d.file_path for t in tasks for d in t.delete_files
        if d.content == POSITION_DELETES and not is_deletion_vector(d)
    }  # fmt: skip
    # a rewrite leaves file-scoped Parquet position deletes dangling (as Java does): the
    # advised call drops them in the same run
    options = {"remove-dangling-deletes": "true"} if parquet_deletes else {}
    evidence = []
    if small:
        evidence.append(
            f"{len(small)} data files are smaller than min-file-size-bytes"
            f" ({_mib(o.min_size)}, 0.75 x write.target-file-size-bytes {_mib(o.target)})"
        )
    if large:
        evidence.append(
            f"{len(large)} data files are larger than max-file-size-bytes ({_mib(o.max_size)})"
        )
    if deleted:
        evidence.append(
            f"{len(deleted)} data files have deletes removing at least"
            f" delete-ratio-threshold ({o.delete_ratio}) of their rows"
        )
    partitions = {(t.spec_id, t.data_file.partition) for t in tasks}
    evidence.append(
        f"{len(plan.groups)} file groups in {len(partitions)} partitions to rewrite (a group:"
        f" at least min-input-files ({o.min_input_files}) files, more than the target size,"
        " or a file with too many deletes)"
    )
    size = sum(t.data_file.file_size_in_bytes for t in tasks)
    dvs = {
        (d.file_path, d.content_offset)
        for t in tasks for d in t.delete_files if is_deletion_vector(d)
    }  # fmt: skip
    code = "small-files" if small else ("large-files" if large else "deleted-rows")
    problem = {
        "small-files": "small data files",
        "large-files": "data files larger than the target",
        "deleted-rows": "data files with many deleted rows",
    }[code]
    return [
        Advice(
            code=code,
            problem=problem,
            evidence=tuple(evidence),
            call=call_text(catalog.name, "rewrite_data_files", name, options),
            preview={
                "procedure": "rewrite_data_files",
                "rewritten_data_files": len(tasks),
                "rewritten_bytes": size,
                "rewritten_records": sum(t.data_file.record_count for t in tasks),
                "file_groups": len(plan.groups),
                "partitions": len(partitions),
                "estimated_added_data_files": sum(
                    max(1, -(-sum(t.data_file.file_size_in_bytes for t in g) // o.target))
                    for g in plan.groups
                ),
                "removed_deletion_vectors": len(dvs),
                "dangling_position_delete_files": len(parquet_deletes),
            },
        )
    ]


def _delete_files(
    session: Session, catalog: Catalog, name: str, live: Collection[str]
) -> list[Advice]:
    call = _call(session, catalog, "rewrite_position_delete_files", {"table": name})
    plan = plan_delete_rewrite(call)
    if not plan.groups:
        return []
    v3 = plan.table.metadata.format_version >= 3
    entries = [e for _, g in plan.groups for e in g]
    # what each group becomes: one file (partition granularity), else one per data file its
    # rows name (a partition-scoped file names several: counted once, at least), none for
    # rows of data files gone (dangling)
    dangling = [
        e for e in entries
        if e.data_file.referenced_data_file is not None
        and e.data_file.referenced_data_file not in live
    ]  # fmt: skip
    gone = {id(e) for e in dangling}
    added = 0
    for _, group in plan.groups:
        kept = [e for e in group if id(e) not in gone]
        if plan.granularity == "partition" and not v3:
            added += 1 if kept else 0
        else:
            added += len({e.data_file.referenced_data_file or e.data_file.file_path for e in kept})
    if not v3 and added >= len(entries):
        return []  # the rewrite would write as many files as it removes
    target = TableProperties(plan.table.metadata.properties).delete_target_file_size_bytes
    size = sum(e.data_file.file_size_in_bytes for e in entries)
    evidence = [
        f"{len(entries)} position delete files in {len(plan.groups)} groups are outside"
        f" [0.75, 1.8] x write.delete.target-file-size-bytes ({_mib(target)}), at least"
        " min-input-files (5) per partition",
    ]
    if dangling:
        evidence.append(f"{len(dangling)} of them delete rows of data files no longer live")
    if v3:
        evidence.append("format v3: the Parquet position delete files become deletion vectors")
    else:
        evidence.append(
            f"write.delete.granularity is {plan.granularity}: they become about {added} files"
        )
    return [
        Advice(
            code="delete-files",
            problem="many small position delete files",
            evidence=tuple(evidence),
            call=call_text(catalog.name, "rewrite_position_delete_files", name),
            preview={
                "procedure": "rewrite_position_delete_files",
                "rewritten_delete_files": len(entries),
                "rewritten_bytes": size,
                "deleted_positions": sum(e.data_file.record_count for e in entries),
                "estimated_added_delete_files": added,
                "dangling_delete_files": len(dangling),
                "file_groups": len(plan.groups),
            },
        )
    ]


def _manifests(session: Session, catalog: Catalog, table: Table, name: str) -> list[Advice]:
    props = TableProperties(table.metadata.properties, table.name)
    plan = plan_manifest_rewrite(_call(session, catalog, "rewrite_manifests", {"table": name}))
    before = sum(len(g.manifests) for g in plan.groups)
    after = sum(g.count for g in plan.groups)
    threshold = props.manifest_min_merge_count
    if before <= after or before < threshold:
        return []
    return [
        Advice(
            code="manifests",
            problem="many manifests that a rewrite would merge",
            evidence=(
                f"{before} manifests of the default spec; commit.manifest.min-count-to-merge"
                f" is {threshold}",
                f"rewritten to commit.manifest.target-size-bytes"
                f" ({_mib(props.manifest_target_size_bytes)}) they are {after}",
            ),
            call=call_text(catalog.name, "rewrite_manifests", name),
            preview={
                "procedure": "rewrite_manifests",
                "rewritten_manifests": before,
                "added_manifests": after,
                "rewritten_bytes": sum(m.manifest_length for g in plan.groups for m in g.manifests),
                "entries": sum(
                    (m.added_files_count or 0) + (m.existing_files_count or 0)
                    for g in plan.groups
                    for m in g.manifests
                ),
            },
        )
    ]


def expiring_snapshots(table: Table, now_ms: int | None = None) -> tuple[set[int], tuple[str, ...]]:
    """The snapshots and refs ``expire_snapshots`` would remove with its defaults (the
    table's ``history.expire.*`` properties); none when ``gc.enabled`` is false."""
    md = table.metadata
    if not TableProperties(md.properties, table.name).gc_enabled:
        return set(), ()
    now = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    plan = plan_expiry(md, ExpirePolicy(now_ms=now), table.io, ProgrammingError)
    return set(plan.snapshot_ids), plan.refs


def _snapshots(table: Table, catalog: str, name: str) -> list[Advice]:
    md = table.metadata
    expired, refs = expiring_snapshots(table)
    if not expired and not refs:
        return []
    props = TableProperties(md.properties, table.name)
    kept = [s.snapshot_id for s in md.snapshots if s.snapshot_id not in expired]
    files = _unreachable(table, sorted(expired), kept)
    evidence = [
        f"{len(expired)} of {len(md.snapshots)} snapshots are older than"
        f" history.expire.max-snapshot-age-ms ({props.max_snapshot_age_ms / 3_600_000:g} h)"
        f" beyond history.expire.min-snapshots-to-keep ({props.min_snapshots_to_keep})",
    ]
    if refs:
        evidence.append(f"refs past history.expire.max-ref-age-ms: {', '.join(refs)}")
    return [
        Advice(
            code="snapshots",
            problem="snapshots past the retention properties",
            evidence=tuple(evidence),
            call=call_text(catalog, "expire_snapshots", name),
            preview={
                "procedure": "expire_snapshots",
                "expired_snapshots": len(expired),
                "removed_refs": list(refs),
                **files,
            },
        )  # fmt: skip
    ]


def _unreachable(table: Table, expired: list[int], kept: list[int]) -> dict[str, int]:
    """What expiring ``expired`` would delete: files they reach and no kept snapshot does
    (counts per kind, and the bytes of the content files)."""
    io, md, same = table.io, table.metadata, reachable.same_file
    gone = reachable.manifests(io, md, expired)
    stay = reachable.manifests(io, md, kept)
    stay_keys = {same(p) for p in stay}
    only = [m for p, m in gone.items() if same(p) not in stay_keys]
    kept_files = {same(p) for p, _ in reachable.content_files(io, stay.values())} if only else set()
    counts = {"data_files": 0, "delete_files": 0, "content_bytes": 0}
    seen: set[str] = set()
    for manifest in only:
        for entry in read_manifest(io, manifest, metrics=False):
            f = entry.data_file
            key = same(f.file_path)
            if not entry.is_live or key in kept_files or key in seen:
                continue
            seen.add(key)
            counts["data_files" if f.content == 0 else "delete_files"] += 1
            counts["content_bytes"] += f.file_size_in_bytes
    counts["manifests"] = len(only)
    counts["manifest_lists"] = len(
        reachable.manifest_lists(md, expired) - reachable.manifest_lists(md, kept)
    )
    return counts


def _orphans(session: Session, catalog: Catalog, table: Table, name: str) -> list[Advice]:
    if not TableProperties(table.metadata.properties, table.name).gc_enabled:
        return []
    (procedure,) = ORPHAN_PROCEDURES
    call = _call(session, catalog, "remove_orphan_files", {"table": name, "dry_run": True})
    paths = [row[0] for row in procedure.run(call)]
    if not paths:
        return []
    size = 0
    for path in paths:
        try:
            fs, local = table.io.fs(path)
            size += int(fs.size(local))
        except (OSError, ValueError):
            continue
    return [
        Advice(
            code="orphans",
            problem="files in the table's location that no snapshot reaches",
            evidence=(
                f"{len(paths)} files older than 3 days under {table.metadata.location} are"
                " reached by no snapshot or metadata file",
            ),
            call=call_text(catalog.name, "remove_orphan_files", name),
            preview={
                "procedure": "remove_orphan_files",
                "orphan_files": len(paths),
                "orphan_bytes": size,
                "paths": paths[:_SHOWN_PATHS],
            },
        )  # fmt: skip
    ]
