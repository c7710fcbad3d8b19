"""``rewrite_position_delete_files``: compacting Parquet position delete files as Spark's
``RewritePositionDeleteFilesSparkAction`` does (v2), or turning them into deletion vectors (v3).

Planning is the size-based bin-pack of ``rewrite_data_files`` over the live position delete
files (target ``write.delete.target-file-size-bytes``, 64 MiB; ``min-file-size-bytes``,
``max-file-size-bytes``, ``min-input-files``, ``rewrite-all``, ``max-file-group-size-bytes``,
``rewrite-job-order``), grouped by partition. Each group becomes one position delete file of
its partition holding the group's ``(file_path, pos)`` rows sorted, without the *dangling*
ones — rows of data files no longer in the table; a group left with none is removed
outright. As Java writes them (``write.delete.granularity``, default ``file``), the output is
one file per data file the rows name (``referenced_data_file`` set), or with ``partition``
one file per group. A new file keeps the highest data sequence number of the files it replaces, so it
applies to exactly the data files they applied to. One ``replace`` commit (a replaced file
removed meanwhile fails it); ``partial-progress.*`` and ``max-concurrent-file-group-rewrites``
are accepted, groups are committed together. In a v3 table (deletion vectors are one per
data file already) the chosen groups' Parquet position delete files, left from v2, become
deletion vectors instead, as Java's action does on v3 (there the groups hold the DVs too,
each rewritten into the data file's new DV).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from icesql.catalog.base import Catalog, CommitStateUnknownError
from icesql.catalog.table import Table
from icesql.expressions.file_filter import FileFilter, FileVerdict
from icesql.metadata.manifest import ManifestEntry, read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.snapshots import Snapshot
from icesql.scan.delete_loaders import DeleteLoader
from icesql.scan.planner import ManifestCache, plan_scan
from icesql.spec.content_file import POSITION_DELETES, DataFile
from icesql.spec.manifest_file import CONTENT_DATA
from icesql.statements.procedures.base import STRING, STRING_MAP, Call, Parameter, Procedure
from icesql.statements.procedures.rewrite import _GIB, _Given, where_filter
from icesql.write.commit import commit
from icesql.write.manifest_merge import pack
from icesql.write.position_deletes import write_deletion_vectors, write_position_delete_file
from icesql.write.properties import TableProperties
from icesql.write.snapshot import Change, SnapshotOperation

__all__ = ["PROCEDURES", "DeleteRewritePlan", "plan_delete_rewrite"]

DELETE_GRANULARITY = "write.delete.granularity"

_OPTIONS = frozenset({
    "target-file-size-bytes", "min-file-size-bytes", "max-file-size-bytes", "min-input-files",
    "rewrite-all", "max-file-group-size-bytes", "partial-progress.enabled",
    "partial-progress.max-commits", "partial-progress.max-failed-commits",
    "max-concurrent-file-group-rewrites", "rewrite-job-order",
})  # fmt: skip
_OUTPUT = pa.schema([
    pa.field("rewritten_delete_files_count", pa.int32(), nullable=False),
    pa.field("added_delete_files_count", pa.int32(), nullable=False),
    pa.field("rewritten_bytes_count", pa.int64(), nullable=False),
    pa.field("added_bytes_count", pa.int64(), nullable=False),
])  # fmt: skip


def _is_parquet_position_delete(f: DataFile) -> bool:
    return f.content == POSITION_DELETES and f.file_format.upper() != "PUFFIN"


@dataclass(frozen=True)
class DeleteRewritePlan:
    """What ``rewrite_position_delete_files`` would rewrite, planned from manifests without
    writing: the groups by (spec id, partition), each a list of delete file entries."""

    catalog: Catalog
    table: Table
    snapshot: Snapshot | None
    groups: list[tuple[tuple[int, tuple[Any, ...]], list[ManifestEntry]]]
    granularity: str


def plan_delete_rewrite(call: Call) -> DeleteRewritePlan:
    """The position delete file groups ``call`` would rewrite (module docstring)."""
    catalog, table = call.table()
    md = table.metadata
    g = _Given.of(call, _OPTIONS)
    props = TableProperties(md.properties, table.name)
    target, min_size, max_size = g.sizes(props.delete_target_file_size_bytes)
    min_input = g.number("min-input-files", 5, 1)
    rewrite_all = g.flag("rewrite-all", False)
    max_group = g.number("max-file-group-size-bytes", 100 * _GIB, 1)
    order = g.job_order()
    g.flag("partial-progress.enabled", False)
    granularity = str(md.properties.get(DELETE_GRANULARITY, "file")).strip().lower()
    if granularity not in ("file", "partition"):
        raise call.error(
            f"table property {DELETE_GRANULARITY} is {granularity!r}; expected file or partition"
        )
    row_filter = where_filter(call, table)
    snapshot = md.current_snapshot()
    if snapshot is None:
        return DeleteRewritePlan(catalog, table, None, [], granularity)
    filters = FileFilter(md.schema(), md.specs, row_filter)
    candidates: list[tuple[int, ManifestEntry]] = []
    for m in read_manifest_list(table.io, snapshot.manifest_list, snapshot):
        if m.content == CONTENT_DATA:
            continue
        for e in read_manifest(table.io, m):
            f = e.data_file
            if not e.is_live or f.content != POSITION_DELETES:
                continue
            if md.format_version < 3 and not _is_parquet_position_delete(f):
                continue
            if filters.may_match(m.partition_spec_id, f) is not FileVerdict.MAY_MATCH:
                continue
            candidates.append((m.partition_spec_id, e))
    if not any(_is_parquet_position_delete(e.data_file) for _, e in candidates):
        # v3: the v2 deletes were all turned into DVs already
        return DeleteRewritePlan(catalog, table, snapshot, [], granularity)
    by_partition: dict[tuple[int, tuple[Any, ...]], list[ManifestEntry]] = {}
    for spec_id, e in candidates:
        size = e.data_file.file_size_in_bytes
        if rewrite_all or size < min_size or size > max_size:
            by_partition.setdefault((spec_id, e.data_file.partition), []).append(e)
    groups: list[tuple[tuple[int, tuple[Any, ...]], list[ManifestEntry]]] = []
    for key, entries in by_partition.items():
        for group in pack(entries, lambda e: e.data_file.file_size_in_bytes, max_group):
            size = sum(e.data_file.file_size_in_bytes for e in group)
            if (
                rewrite_all
                or (len(group) > 1 and len(group) >= min_input)
                or (len(group) > 1 and size > target)
                or size > max_group
            ):
                groups.append((key, group))
    if order != "none":
        by, direction = order.split("-")
        groups.sort(
            key=lambda kg: (
                sum(e.data_file.file_size_in_bytes for e in kg[1]) if by == "bytes" else len(kg[1])
            ),
            reverse=direction == "desc",
        )
    return DeleteRewritePlan(catalog, table, snapshot, groups, granularity)


def _rewrite_position_delete_files(call: Call) -> Sequence[Sequence[Any]]:
    p = plan_delete_rewrite(call)
    catalog, table, snapshot, groups, granularity = (
        p.catalog, p.table, p.snapshot, p.groups, p.granularity
    )  # fmt: skip
    if snapshot is None or not groups:
        return [(0, 0, 0, 0)]
    md = table.metadata
    props = TableProperties(md.properties, table.name)
    if md.format_version >= 3:
        chosen = [(spec_id, e) for (spec_id, _), group in groups for e in group]
        return _to_deletion_vectors(catalog, table, snapshot, chosen)
    live = {
        t.data_file.file_path
        for t in plan_scan(md, snapshot, table.io, ManifestCache(), table.name).tasks
    }
    data_location = props.data_location(md.location)
    operation = str(uuid.uuid4())
    added: list[DataFile] = []
    seqs: dict[str, int] = {}
    try:
        for n, ((spec_id, partition), group) in enumerate(groups, 1):
            rows = _live_rows(table, group, live)
            if rows.num_rows == 0:
                continue
            spec = md.spec_by_id(spec_id)
            folder = data_location
            if spec is not None and spec.fields:
                folder = f"{data_location}/{spec.partition_path(partition, md.schema())}"
            if granularity == "file":  # one file per data file, as Java's default writes
                paths = pc.unique(rows.column("file_path")).to_pylist()
                parts = [(p, rows.filter(pc.equal(rows.column("file_path"), p))) for p in paths]
            else:
                distinct = pc.unique(rows.column("file_path"))
                parts = [(distinct[0].as_py() if len(distinct) == 1 else None, rows)]
            for k, (referenced, part) in enumerate(parts, 1):
                path = f"{folder}/00000-{n}-{operation}-{k:05d}-deletes.parquet"
                chunks = part.to_batches(max_chunksize=1 << 20)
                f = write_position_delete_file(
                    table,
                    path,
                    spec_id,
                    partition,
                    (pa.Table.from_batches([b]) for b in chunks),
                    referenced,
                )
                added.append(f)
                seqs[f.file_path] = max(e.sequence_number or 0 for e in group)
        removed = tuple(e.data_file for _, group in groups for e in group)
        _replace(catalog, table, added, removed, data_sequence_numbers=seqs)
    except CommitStateUnknownError:
        raise  # the new delete files may be the table's now: never delete them
    except BaseException:
        _delete_quietly(table, {f.file_path for f in added})
        raise
    return [(
        len(removed),
        len(added),
        sum(f.file_size_in_bytes for f in removed),
        sum(f.file_size_in_bytes for f in added),
    )]  # fmt: skip


def _to_deletion_vectors(
    catalog: Any, table: Any, snapshot: Any, candidates: list[tuple[int, ManifestEntry]]
) -> Sequence[Sequence[Any]]:
    """A v3 table's chosen Parquet position delete files become deletion vectors (Java's
    action on v3): every live data file they apply to gets one DV holding all its deleted
    positions (its previous DV merged in, and replaced); rows of data files no longer in the
    table are dropped. The DVs keep the highest sequence number of the files they replace."""
    md = table.metadata
    tasks = plan_scan(md, snapshot, table.io, ManifestCache(), table.name).tasks
    loader = DeleteLoader(table.io)
    vectors: list[tuple[DataFile, Any]] = []
    replaced_dvs: list[DataFile] = []
    chosen = {(e.data_file.file_path, e.data_file.content_offset) for _, e in candidates}
    for task in tasks:
        positional = [d for d in task.delete_files if d.content == POSITION_DELETES]
        if not any((d.file_path, d.content_offset) in chosen for d in positional):
            continue
        positions = loader.deleted_positions(task.data_file.file_path, positional)
        if len(positions):
            vectors.append((task.data_file, positions))
        replaced_dvs += [d for d in positional if not _is_parquet_position_delete(d)]
    removed_by_key = {(d.file_path, d.content_offset): d for d in replaced_dvs}
    removed_by_key.update(
        {(e.data_file.file_path, e.data_file.content_offset): e.data_file for _, e in candidates}
    )
    removed = tuple(removed_by_key.values())
    seq = max(e.sequence_number or 0 for _, e in candidates)
    added: list[DataFile] = []
    path = None
    if vectors:
        location = TableProperties(md.properties, table.name).data_location(md.location)
        path = f"{location}/00000-0-{uuid.uuid4()}-00001-deletes.puffin"
    try:
        if path is not None:
            added = write_deletion_vectors(table.io, path, vectors)
        _replace(catalog, table, added, removed, data_sequence_number=seq)
    except CommitStateUnknownError:
        raise  # the new deletion vectors may be the table's now: never delete them
    except BaseException:
        _delete_quietly(table, {path} if path is not None else set())
        raise
    size = table.io.size(path) if path is not None else 0
    return [(len(removed), len(added), sum(f.file_size_in_bytes for f in removed), size)]


def _replace(
    catalog: Any, table: Any, added: Sequence[DataFile], removed: Sequence[DataFile], **seqs: Any
) -> None:
    """One ``replace`` commit of new delete files for old ones."""
    change = Change(
        operation=SnapshotOperation.REPLACE,
        added_files=tuple(added),
        removed_files=tuple(removed),
        **seqs,
    )
    commit(catalog, table, change)


def _delete_quietly(table: Any, paths: set[str]) -> None:
    for path in paths:
        try:
            table.io.delete(path)
        except Exception:
            pass


def _live_rows(table: Any, group: Sequence[ManifestEntry], live: set[str]) -> pa.Table:
    """The group's ``(file_path, pos)`` rows of live data files, sorted, distinct."""
    parts = []
    for e in group:
        with table.io.open(e.data_file.file_path) as source:
            t = pq.read_table(source, columns=["file_path", "pos"])
        parts.append(t.select(["file_path", "pos"]))
    rows = pa.concat_tables(parts) if parts else pa.table({"file_path": [], "pos": []})
    rows = rows.filter(
        pc.is_in(rows.column("file_path"), value_set=pa.array(sorted(live), pa.string()))
    )
    rows = rows.group_by(["file_path", "pos"]).aggregate([])
    return rows.sort_by([("file_path", "ascending"), ("pos", "ascending")])


PROCEDURES = (
    Procedure(
        "rewrite_position_delete_files",
        (
            Parameter("table", STRING),
            Parameter("options", STRING_MAP, required=False),
            Parameter("where", STRING, required=False),
        ),
        _OUTPUT,
        _rewrite_position_delete_files,
    ),
)
