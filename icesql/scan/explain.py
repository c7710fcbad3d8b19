"""The text EXPLAIN shows for each Iceberg table scan of a query.

Per scan: the table (and alias), the snapshot, how many manifests and data files planning
read or skipped (by partition, by metrics), the delete files, the filter pushed into
planning, and the residual filters left per file (grouped, with file counts)::

    == Iceberg scan: db.events AS e ==
    snapshot: 4567 (schema 0)
    manifests: total 3, read 1, skipped 2
    data files: total 365, read 1, skipped by partition 364, skipped by metrics 0
    delete files: total 0, applied 0, skipped 0
    pushed filter: ts_day_col = '2024-03-01'
    readers: DuckDB read_parquet 1 file, Arrow stream 0 files
    residual: true (1 file)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from icesql.scan.table_scan import TableScan

__all__ = ["explain_scans"]


def explain_scans(scans: Sequence[tuple[str, TableScan]]) -> str:
    """The scan sections for (label, planned scan) pairs, in query order."""
    return "\n\n".join(_section(label, scan) for label, scan in scans)


def _section(label: str, scan: TableScan) -> str:
    scan.tasks()
    plan = scan.plan
    assert plan is not None
    m = plan.metrics
    schema_id = scan.version.schema.schema_id
    snapshot = "none (empty table)" if plan.snapshot_id is None else str(plan.snapshot_id)
    lines = [
        f"== Iceberg scan: {label} ==",
        f"snapshot: {snapshot} (schema {schema_id})",
        f"manifests: total {m.manifests_total}, read {m.manifests_read},"
        f" skipped {m.manifests_skipped}",
        f"data files: total {m.data_files_total}, read {m.data_files_read},"
        f" skipped by partition {m.data_files_skipped_by_partition},"
        f" skipped by metrics {m.data_files_skipped_by_metrics}",
        f"delete files: total {m.delete_files_total}, applied {m.delete_files_applied},"
        f" skipped {m.delete_files_skipped}",
        f"pushed filter: {plan.row_filter}",
        _readers(scan),
    ]
    residuals = Counter(str(t.residual) for t in plan.tasks)
    if not residuals:
        lines.append("residual: (no files)")
    for text, count in residuals.most_common():
        lines.append(f"residual: {text} ({count} file{'s' if count != 1 else ''})")
    return "\n".join(lines)


def _readers(scan: TableScan) -> str:
    """How many files DuckDB's own Parquet reader takes and how many the Arrow stream."""
    native = scan.native_read_files()
    deletes = scan.native_read_deletes()
    streamed = len(scan.streamed_tasks())
    applied = f" ({deletes} with deletes)" if deletes else ""
    return (
        f"readers: DuckDB read_parquet {native} file{'s' if native != 1 else ''}{applied},"
        f" Arrow stream {streamed} file{'s' if streamed != 1 else ''}"
    )
