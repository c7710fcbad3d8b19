"""``rewrite_data_files`` and ``rewrite_manifests``: compaction as Spark's ``RewriteDataFilesSparkAction`` plans and
commits it, file group by file group.

Planning (Java's ``BinPackRewriteFilePlanner`` / ``SizeBasedFileRewritePlanner``): the data
files of the current snapshot that may match ``where`` are candidates; without
``rewrite-all`` a file is selected when its size is outside [``min-file-size-bytes``
(0.75 x target), ``max-file-size-bytes`` (1.8 x target)], when ``delete-file-threshold`` or
more delete files apply to it, or when its file-scoped deletes remove at least
``delete-ratio-threshold`` (0.3) of its rows. Selected files are grouped by partition (files
of an older spec together), packed in order into groups of at most
``max-file-group-size-bytes`` (100 GiB), and a group is rewritten when it has at least
``min-input-files`` (5) files, more than one file and more bytes than the target, more
bytes than the group limit, or a file with too many deletes; ``rewrite-all`` rewrites them
all. ``max-files-to-rewrite`` caps the files; ``rewrite-job-order`` orders the groups.

Rewriting streams each group's rows with every delete applied (so the new files carry no
deletes; in v3 each row keeps its ``_row_id`` and ``_last_updated_sequence_number``) into
a data writer of the table's current spec, bounded by ``target-file-size-bytes`` (the
table's ``write.target-file-size-bytes``) — nothing holds more than a writer's buffers.
The ``sort`` strategy sorts each whole group by ``sort_order`` (or the table's sort order)
in DuckDB, out of core, and cuts the sorted stream into files, so — as with Spark's
range-partitioned sort — each file holds its own range of keys. Z-order is not supported
(``NotSupportedError``).

Committing (Java's ``RewriteFiles``): one ``replace`` snapshot removing the rewritten data
files and their deletion vectors (file-scoped Parquet position deletes stay, as Java leaves
them, until ``remove-dangling-deletes`` drops them in one more commit), whose new files keep the data sequence number of the snapshot the rewrite read
(``use-starting-sequence-number``, default true), validated by
``icesql.write.validation.RewriteValidation``: a position delete or deletion vector
committed meanwhile for a rewritten file, or a rewritten file removed meanwhile, fails the
commit. With ``partial-progress.enabled`` the groups are committed in up to
``partial-progress.max-commits`` (10) commits; a commit that fails is counted in
``failed_data_files_count`` and the others stand, unless more than
``partial-progress.max-failed-commits`` fail. ``max-concurrent-file-group-rewrites`` is
accepted; groups are rewritten one after the other.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from icesql.catalog.base import Catalog, CommitStateUnknownError
from icesql.catalog.table import Table
from icesql.errors import CommitConflictError, NotSupportedError, ProgrammingError
from icesql.expressions.tree import ALWAYS_TRUE, BooleanExpression
from icesql.metadata.manifest import read_manifest
from icesql.metadata.manifest_list import read_manifest_list
from icesql.metadata.snapshots import Snapshot
from icesql.scan.delete_index import is_deletion_vector
from icesql.scan.planner import FileScanTask, ManifestCache, plan_scan
from icesql.scan.table_scan import TableScan
from icesql.scan.time_travel import ReadVersion
from icesql.spec.content_file import POSITION_DELETES, DataFile
from icesql.spec.manifest_file import CONTENT_DATA
from icesql.spec.schema import Schema
from icesql.spec.sorting import ASC, NULLS_FIRST, SortOrder
from icesql.sql import nodes
from icesql.sql.dialect import DIALECT, parse_one
from icesql.sql.predicates import exact_filter
from icesql.sql.transform_terms import new_sort_order
from icesql.statements.procedures.base import (
    BOOLEAN,
    INT,
    STRING,
    STRING_MAP,
    Call,
    Parameter,
    Procedure,
)
from icesql.write.commit import commit
from icesql.write.data_writer import DataWriter, WriteTarget
from icesql.write.manifest_merge import pack
from icesql.write.manifest_rewrite import ManifestRewrite
from icesql.write.properties import TableProperties
from icesql.write.snapshot import Change, SnapshotOperation
from icesql.write.sorting import sort_keys
from icesql.write.validation import RewriteValidation

__all__ = [
    "PROCEDURES",
    "ManifestRewritePlan",
    "RewritePlan",
    "plan_manifest_rewrite",
    "plan_rewrite",
]

_LINEAGE = ("_row_id", "_last_updated_sequence_number")
_GIB = 1024**3
# options of Iceberg 1.10's RewriteDataFiles, its planner and runners
_OPTIONS = frozenset({
    "target-file-size-bytes", "min-file-size-bytes", "max-file-size-bytes", "min-input-files",
    "rewrite-all", "max-file-group-size-bytes", "delete-file-threshold", "delete-ratio-threshold",
    "max-files-to-rewrite", "partial-progress.enabled", "partial-progress.max-commits",
    "partial-progress.max-failed-commits", "max-concurrent-file-group-rewrites",
    "use-starting-sequence-number", "rewrite-job-order", "remove-dangling-deletes",
    "output-spec-id", "compression-factor", "shuffle-partitions-per-file",
})  # fmt: skip
_JOB_ORDERS = ("none", "bytes-asc", "bytes-desc", "files-asc", "files-desc")

_OUTPUT = pa.schema([
    pa.field("rewritten_data_files_count", pa.int32(), nullable=False),
    pa.field("added_data_files_count", pa.int32(), nullable=False),
    pa.field("rewritten_bytes_count", pa.int64(), nullable=False),
    pa.field("failed_data_files_count", pa.int32(), nullable=False),
    pa.field("removed_delete_files_count", pa.int32(), nullable=False),
])  # fmt: skip


@dataclasses.dataclass(frozen=True)
class _Options:
    target: int
    min_size: int
    max_size: int
    min_input_files: int
    rewrite_all: bool
    max_group_size: int
    delete_file_threshold: int
    delete_ratio: float
    max_files: int | None
    partial_progress: bool
    max_commits: int
    max_failed_commits: int
    starting_sequence: bool
    job_order: str
    remove_dangling: bool


@dataclasses.dataclass(frozen=True)
class _Given:
    """A procedure's ``options`` map, checked against the options it knows."""

    call: Call
    values: dict[str, str]

    @staticmethod
    def of(call: Call, known: frozenset[str]) -> _Given:
        values = {str(k).lower(): str(v) for k, v in call.args.get("options", {}).items()}
        unknown = sorted(set(values) - known)
        if unknown:
            raise call.error(
                f"Cannot use options {unknown}, they are not supported by the action or the"
                f" rewriter (supported: {', '.join(sorted(known))})"
            )
        return _Given(call, values)

    def number(self, key: str, default: int, minimum: int = 0) -> int:
        text = self.values.get(key)
        if text is None:
            return default
        try:
            value = int(text)
        except ValueError:
            raise self.call.error(f"option {key!r} is {text!r}; expected an integer") from None
        if value < minimum:
            raise self.call.error(f"option {key!r} is {value}; it must be >= {minimum}")
        return value

    def flag(self, key: str, default: bool) -> bool:
        text = self.values.get(key)
        if text is None:
            return default
        if text.strip().lower() not in ("true", "false"):
            raise self.call.error(f"option {key!r} is {text!r}; expected true or false")
        return text.strip().lower() == "true"

    def sizes(self, default_target: int) -> tuple[int, int, int]:
        """target, min and max file size (Java's ``SizeBasedFileRewritePlanner``)."""
        target = self.number("target-file-size-bytes", default_target, 1)
        min_size = self.number("min-file-size-bytes", int(target * 0.75))
        max_size = self.number("max-file-size-bytes", int(target * 1.8), 1)
        if not min_size <= target <= max_size:
            raise self.call.error(
                f"min-file-size-bytes ({min_size}) <= target-file-size-bytes ({target}) <="
                f" max-file-size-bytes ({max_size}) does not hold"
            )
        return target, min_size, max_size

    def job_order(self) -> str:
        order = self.values.get("rewrite-job-order", "none").strip().lower()
        if order not in _JOB_ORDERS:
            raise self.call.error(
                f"Invalid rewrite job order name: {order} (one of {', '.join(_JOB_ORDERS)})"
            )
        return order


def _options(call: Call, table: Table, strategy: str) -> _Options:
    g = _Given.of(call, _OPTIONS)
    given, number, flag = g.values, g.number, g.flag
    if strategy != "sort":
        for key in ("compression-factor", "shuffle-partitions-per-file"):
            if key in given:
                raise call.error(f"Cannot use option {key!r} with strategy {strategy}")

    props = TableProperties(table.metadata.properties, table.name)
    target, min_size, max_size = g.sizes(props.target_file_size_bytes)
    ratio_text = given.get("delete-ratio-threshold")
    ratio = 0.3
    if ratio_text is not None:
        try:
            ratio = float(ratio_text)
        except ValueError:
            raise call.error(f"option 'delete-ratio-threshold' is {ratio_text!r}") from None
        if not 0 < ratio <= 1:
            raise call.error(f"'delete-ratio-threshold' is set to {ratio} but must be in (0, 1]")
    spec_text = given.get("output-spec-id")
    if spec_text is not None and number("output-spec-id", 0) != table.metadata.default_spec_id:
        raise NotSupportedError(
            f"procedure {call.procedure}: option output-spec-id other than the table's default"
            f" spec ({table.metadata.default_spec_id}) is not supported"
        )
    order = g.job_order()
    max_commits = number("partial-progress.max-commits", 10, 1)
    return _Options(
        target=target,
        min_size=min_size,
        max_size=max_size,
        min_input_files=number("min-input-files", 5, 1),
        rewrite_all=flag("rewrite-all", False),
        max_group_size=number("max-file-group-size-bytes", 100 * _GIB, 1),
        delete_file_threshold=number("delete-file-threshold", 2**31 - 1),
        delete_ratio=ratio,
        max_files=number("max-files-to-rewrite", 0, 1) if "max-files-to-rewrite" in given else None,
        partial_progress=flag("partial-progress.enabled", False),
        max_commits=max_commits,
        max_failed_commits=number("partial-progress.max-failed-commits", max_commits),
        starting_sequence=flag("use-starting-sequence-number", True),
        job_order=order,
        remove_dangling=flag("remove-dangling-deletes", False),
    )


# --- planning -------------------------------------------------------------------------------


def _file_scoped(task: FileScanTask) -> list[DataFile]:
    path = task.data_file.file_path
    return [d for d in task.delete_files if d.referenced_data_file == path]


def _dvs(task: FileScanTask) -> list[DataFile]:
    """The deletion vectors of ``task``'s file: Java's ``RewriteFileGroup.danglingDVs``, the
    only delete files a rewrite removes (file-scoped Parquet position deletes stay, dangling,
    until ``remove-dangling-deletes``)."""
    return [d for d in task.delete_files if is_deletion_vector(d)]


def _too_many_deletes(task: FileScanTask, o: _Options) -> bool:
    return len(task.delete_files) >= o.delete_file_threshold


def _too_high_delete_ratio(task: FileScanTask, o: _Options) -> bool:
    deleted = sum(d.record_count for d in _file_scoped(task))
    rows = task.data_file.record_count
    return rows > 0 and deleted / rows >= o.delete_ratio


def _selected(task: FileScanTask, o: _Options) -> bool:
    size = task.data_file.file_size_in_bytes
    return (
        size < o.min_size
        or size > o.max_size
        or _too_many_deletes(task, o)
        or _too_high_delete_ratio(task, o)
    )


def _worth_rewriting(group: list[FileScanTask], o: _Options) -> bool:
    size = sum(t.data_file.file_size_in_bytes for t in group)
    return (
        o.rewrite_all
        or (len(group) > 1 and len(group) >= o.min_input_files)
        or (len(group) > 1 and size > o.target)
        or size > o.max_group_size
        or any(_too_many_deletes(t, o) or _too_high_delete_ratio(t, o) for t in group)
    )


def plan_groups(
    table: Table, tasks: Sequence[FileScanTask], o: _Options
) -> list[list[FileScanTask]]:
    """The file groups to rewrite (module docstring)."""
    spec_id = table.metadata.default_spec_id
    by_partition: dict[tuple[Any, ...], list[FileScanTask]] = {}
    for t in tasks:
        if o.rewrite_all or _selected(t, o):
            key = t.data_file.partition if t.spec_id == spec_id else ("<other specs>",)
            by_partition.setdefault(key, []).append(t)
    groups = [
        g
        for files in by_partition.values()
        for g in pack(files, lambda t: t.data_file.file_size_in_bytes, o.max_group_size)
        if _worth_rewriting(g, o)
    ]
    if o.max_files is not None:
        kept, count = [], 0
        for g in groups:
            if count + len(g) > o.max_files:
                break
            kept.append(g)
            count += len(g)
        groups = kept
    if o.job_order != "none":
        by, direction = o.job_order.split("-")

        def job_size(g: list[FileScanTask]) -> int:
            return sum(t.data_file.file_size_in_bytes for t in g) if by == "bytes" else len(g)

        groups.sort(key=job_size, reverse=direction == "desc")
    return groups


# --- the procedure --------------------------------------------------------------------------


def where_filter(call: Call, table: Table) -> BooleanExpression:
    """The procedure's ``where`` argument as an Iceberg filter (ALWAYS_TRUE without one)."""
    text = call.args.get("where")
    if text is None:
        return ALWAYS_TRUE
    try:
        select = parse_one(f"SELECT * FROM __t WHERE {text}")
    except ProgrammingError as e:
        raise call.error(f"cannot parse where {text!r}: {e}") from None
    where = select.args.get("where")
    found = (
        None
        if where is None
        else exact_filter(where.this, "__t", table.metadata.schema(), (), DIALECT)
    )
    if found is None:
        raise call.error(f"Cannot convert where {text!r} to an Iceberg filter")
    return found


def _sort_order(call: Call, table: Table, strategy: str) -> SortOrder | None:
    text = call.args.get("sort_order")
    md = table.metadata
    if strategy != "sort":
        if text is not None:
            raise call.error("Cannot set a sort_order with the binpack strategy")
        return None
    if text is None:
        order = md.sort_order()
        if order.is_unsorted():
            raise call.error(
                "Cannot sort data without a valid sort order, table has no sort order and"
                " none was given"
            )
        return order
    if "zorder" in text.lower():
        raise NotSupportedError(
            f"procedure {call.procedure}: sort_order {text!r}: z-order is not supported"
        )
    try:
        parsed = parse_one(f"ALTER TABLE __t WRITE LOCALLY ORDERED BY {text}")
        found = parsed.find(nodes.WriteDistributionAndOrdering)
    except ProgrammingError as e:
        raise call.error(f"cannot parse sort_order {text!r}: {e}") from None
    if found is None:
        raise call.error(f"cannot parse sort_order {text!r}")
    return new_sort_order(md.schema(), found.order, max(o.order_id for o in md.sort_orders) + 1)


@dataclasses.dataclass(frozen=True)
class RewritePlan:
    """What ``rewrite_data_files`` would rewrite, planned from manifests without writing:
    the procedure runs it, and a dry run (``icesql.health``) shows it."""

    catalog: Catalog
    table: Table
    snapshot: Snapshot | None
    options: _Options
    order: SortOrder | None
    cache: ManifestCache
    groups: list[list[FileScanTask]]


def plan_rewrite(call: Call, cache: ManifestCache | None = None) -> RewritePlan:
    """The file groups ``call`` would rewrite (module docstring, planning); ``cache`` holds
    manifests already read (a dry run shares the connection's)."""
    catalog, table = call.table()
    strategy = str(call.args.get("strategy", "binpack")).lower()
    if strategy not in ("binpack", "sort"):
        raise call.error(f"unsupported strategy: {strategy}. Only binpack or sort is supported")
    order = _sort_order(call, table, strategy)
    o = _options(call, table, strategy)
    row_filter = where_filter(call, table)
    md = table.metadata
    snapshot = md.current_snapshot()
    cache = cache or ManifestCache()
    groups: list[list[FileScanTask]] = []
    if snapshot is not None:
        plan = plan_scan(md, snapshot, table.io, cache, table.name, row_filter, md.schema())
        groups = plan_groups(table, plan.tasks, o)
    return RewritePlan(catalog, table, snapshot, o, order, cache, groups)


def _rewrite_data_files(call: Call) -> Sequence[Sequence[Any]]:
    p = plan_rewrite(call)
    catalog, table, snapshot, o, order, cache, groups = (
        p.catalog, p.table, p.snapshot, p.options, p.order, p.cache, p.groups
    )  # fmt: skip
    if snapshot is None or not groups:
        return [(0, 0, 0, 0, 0)]
    md = table.metadata
    n_commits = min(o.max_commits, len(groups)) if o.partial_progress else 1
    per_commit = math.ceil(len(groups) / n_commits)
    batches = [groups[i : i + per_commit] for i in range(0, len(groups), per_commit)]
    version = ReadVersion(snapshot, md.schema())
    rewritten = added = removed_deletes = failed = failed_commits = 0
    rewritten_bytes = 0
    for batch in batches:
        tasks = [t for g in batch for t in g]
        writer_files: list[DataFile] = []
        writers: list[DataWriter] = []
        try:
            for group in batch:
                writer = _writer(table, order, o.target)
                writers.append(writer)
                _copy(table, version, cache, group, writer, order)
                writer_files.extend(writer.close())
            dvs = {(d.file_path, d.content_offset): d for t in tasks for d in _dvs(t)}
            change = Change(
                operation=SnapshotOperation.REPLACE,
                added_files=tuple(writer_files),
                removed_files=(*(t.data_file for t in tasks), *dvs.values()),
                validation=RewriteValidation(snapshot.snapshot_id, o.starting_sequence),
                data_sequence_number=snapshot.sequence_number if o.starting_sequence else None,
            )
            table = commit(catalog, table, change)
        except CommitConflictError:
            for w in writers:
                w.abort()
            if not o.partial_progress:
                raise
            failed_commits += 1
            failed += len(tasks)
            if failed_commits > o.max_failed_commits:
                raise
            table = catalog.load_table(table.identifier)
            continue
        except CommitStateUnknownError:
            raise  # the new files may be the table's now: never delete them
        except BaseException:
            for w in writers:
                w.abort()
            raise
        rewritten += len(tasks)
        rewritten_bytes += sum(t.data_file.file_size_in_bytes for t in tasks)
        added += len(writer_files)
        removed_deletes += len(dvs)
    if o.remove_dangling and rewritten:
        removed_deletes += _remove_dangling_deletes(catalog, table)
    return [(rewritten, added, rewritten_bytes, failed, removed_deletes)]


def _writer(table: Table, order: SortOrder | None, target_size: int) -> DataWriter:
    """A writer of the table's spec and ``target_size`` files. Rows of the sort strategy
    arrive globally sorted (``_copy``): the writer keeps their order, cutting files at the
    target size, and the files record ``order``'s id when it is one of the table's orders
    (else 0)."""
    target = WriteTarget.for_table(table, row_lineage=True)
    props = dict(target.properties.values)
    props["write.target-file-size-bytes"] = str(target_size)
    changes: dict[str, Any] = {"properties": TableProperties(props, table.name)}
    if order is not None:
        known = [o for o in table.metadata.sort_orders if o.fields == order.fields]
        changes["sort_order"] = SortOrder(0, ())
        changes["recorded_sort_order_id"] = known[0].order_id if known else 0
    return DataWriter(dataclasses.replace(target, **changes))


def _copy(
    table: Table,
    version: Any,
    cache: ManifestCache,
    group: list[FileScanTask],
    writer: DataWriter,
    order: SortOrder | None,
) -> None:
    """Stream the live rows of ``group`` (deletes applied) into ``writer``; with ``order``,
    through DuckDB's ORDER BY (out of core), as Spark sorts a whole file group."""
    lineage = table.metadata.format_version >= 3
    scan = TableScan(table, version, None, cache, metadata_columns=_LINEAGE if lineage else ())
    scan.restrict_to(group)
    schema = table.metadata.schema()
    names = [*(f.name for f in schema.fields), *(_LINEAGE if lineage else ())]
    batches = (b.select(names) for b in scan.batches() if b.num_rows)
    if order is None:
        for batch in batches:
            writer.write(batch)
        return
    for batch in _globally_sorted(batches, schema, order, writer.arrow_schema):
        writer.write(batch)


def _globally_sorted(
    batches: Iterator[pa.RecordBatch], schema: Schema, order: SortOrder, out: pa.Schema
) -> Iterator[pa.RecordBatch]:
    """``batches`` in ``order``: each batch gets its sort keys (the order's transforms,
    computed by Arrow) as extra columns, DuckDB sorts the stream, spilling to a temporary
    folder beyond its memory limit, and the keys are dropped again."""
    import tempfile

    import duckdb

    first = next(batches, None)
    if first is None:
        return
    keys: list[str] = []
    directions: list[str] = []
    for i, f in enumerate(order.fields):
        keys += [f"__icesql_null{i}", f"__icesql_key{i}"]
        directions += [
            "DESC" if f.null_order == NULLS_FIRST else "ASC",
            "ASC" if f.direction == ASC else "DESC",
        ]

    def with_keys(batch: pa.RecordBatch) -> pa.RecordBatch:
        values = sort_keys(batch, schema, order)
        columns = [*batch.columns]
        for value in values:
            columns += [pc.is_null(value), value]
        return pa.RecordBatch.from_arrays(columns, names=[*batch.schema.names, *keys])

    head = with_keys(first)
    source = pa.RecordBatchReader.from_batches(
        head.schema, itertools.chain([head], (with_keys(b) for b in batches))
    )
    with tempfile.TemporaryDirectory(prefix="icesql-sort-") as spill:
        con = duckdb.connect(":memory:")
        try:
            con.execute(f"SET temp_directory = '{spill}'")
            con.register("__icesql_group", source)
            by = ", ".join(f'"{k}" {d}' for k, d in zip(keys, directions))
            columns = ", ".join(f'"{n}"' for n in out.names)
            reader = con.sql(f"SELECT {columns} FROM __icesql_group ORDER BY {by}").to_arrow_reader(
                64 * 1024
            )
            for batch in reader:
                yield pa.RecordBatch.from_arrays(
                    [c.cast(f.type) for c, f in zip(batch.columns, out)], schema=out
                )
        finally:
            con.close()


def _remove_dangling_deletes(catalog: Catalog, table: Table) -> int:
    """Java's ``RemoveDanglingDeletesSparkAction`` after a rewrite: delete files that can no
    longer apply to a live data file of their partition (sequence number too low, or a
    deletion vector of a removed file), removed in one more ``replace`` commit."""
    md = table.metadata
    snapshot = md.current_snapshot()
    if snapshot is None:
        return 0
    plan = plan_scan(md, snapshot, table.io, ManifestCache(), table.name)
    live_paths = {t.data_file.file_path for t in plan.tasks}
    min_seq: dict[tuple[int, tuple[Any, ...]], int] = {}
    for t in plan.tasks:
        key = (t.spec_id, t.data_file.partition)
        seq = t.data_sequence_number or 0
        min_seq[key] = min(seq, min_seq.get(key, seq))
    everywhere = min(min_seq.values(), default=None)
    dangling: list[DataFile] = []
    for m in read_manifest_list(table.io, snapshot.manifest_list, snapshot):
        if m.content == CONTENT_DATA:
            continue
        spec = md.spec_by_id(m.partition_spec_id)
        for e in read_manifest(table.io, m):
            if not e.is_live:
                continue
            f = e.data_file
            if f.referenced_data_file is not None:
                gone = f.referenced_data_file not in live_paths
            else:
                key = (m.partition_spec_id, f.partition)
                lowest = everywhere if spec is not None and not spec.fields else min_seq.get(key)
                seq = e.sequence_number or 0
                # position deletes apply to data of a sequence number <= theirs, equality < theirs
                gone = lowest is None or (
                    seq < lowest if f.content == POSITION_DELETES else seq <= lowest
                )
            if gone:
                dangling.append(f)
    if not dangling:
        return 0
    commit(
        catalog, table, Change(operation=SnapshotOperation.REPLACE, removed_files=tuple(dangling))
    )
    return len(dangling)


@dataclasses.dataclass(frozen=True)
class ManifestRewritePlan:
    """What ``rewrite_manifests`` would rewrite: the manifests of each group and how many
    manifests each becomes, planned from the manifest list alone."""

    catalog: Catalog
    table: Table
    groups: list[ManifestRewrite]


def plan_manifest_rewrite(call: Call) -> ManifestRewritePlan:
    """The manifests ``call`` would rewrite (``_rewrite_manifests``)."""
    catalog, table = call.table()
    md = table.metadata
    spec_id = call.args.get("spec_id", md.default_spec_id)
    if md.spec_by_id(spec_id) is None:
        raise call.error(f"Cannot find spec id {spec_id} in table {table.name}")
    snapshot = md.current_snapshot()
    groups: list[ManifestRewrite] = []
    if snapshot is None:
        return ManifestRewritePlan(catalog, table, groups)
    target = TableProperties(md.properties, table.name).manifest_target_size_bytes
    manifests = read_manifest_list(table.io, snapshot.manifest_list, snapshot)
    for data in (True, False):
        matching = tuple(
            m
            for m in manifests
            if (m.content == CONTENT_DATA) == data and m.partition_spec_id == spec_id
        )
        if not matching:
            continue
        count = -(-sum(m.manifest_length for m in matching) // target)
        if count == 1 and len(matching) == 1:
            continue
        groups.append(ManifestRewrite(matching, count))
    return ManifestRewritePlan(catalog, table, groups)


def _rewrite_manifests(call: Call) -> Sequence[Sequence[Any]]:
    """Spark's ``RewriteManifestsSparkAction``: the data manifests, then the delete manifests,
    of one spec (``spec_id``, default the table's) are each rewritten into
    ceil(total bytes / ``commit.manifest.target-size-bytes``) manifests clustered by
    partition (``icesql.write.manifest_rewrite``), unless that is one manifest again; one
    ``replace`` commit. ``use_caching`` tunes Spark's job and is accepted."""
    p = plan_manifest_rewrite(call)
    catalog, table, groups = p.catalog, p.table, p.groups
    if not groups:
        return [(0, 0)]
    committed = commit(
        catalog,
        table,
        Change(operation=SnapshotOperation.REPLACE, rewritten_manifests=tuple(groups)),
    )
    replaced = committed.metadata.current_snapshot()
    assert replaced is not None  # the REPLACE commit just added it
    created = replaced.summary.get("manifests-created", "0")
    return [(sum(len(g.manifests) for g in groups), int(created))]


PROCEDURES = (
    Procedure(
        "rewrite_manifests",
        (
            Parameter("table", STRING),
            Parameter("use_caching", BOOLEAN, required=False),
            Parameter("spec_id", INT, required=False),
        ),
        pa.schema(
            [
                pa.field("rewritten_manifests_count", pa.int32(), nullable=False),
                pa.field("added_manifests_count", pa.int32(), nullable=False),
            ]
        ),
        _rewrite_manifests,
    ),
    Procedure(
        "rewrite_data_files",
        (
            Parameter("table", STRING),
            Parameter("strategy", STRING, required=False),
            Parameter("sort_order", STRING, required=False),
            Parameter("options", STRING_MAP, required=False),
            Parameter("where", STRING, required=False),
        ),
        _OUTPUT,
        _rewrite_data_files,
    ),
)
