"""Table health: how a table's files, deletes, manifests and snapshots stand, and what to run.

``table_health(session, "db.t")`` reads the table metadata and the current snapshot's manifests
(never a data file) into a ``TableHealth`` report: the data file sizes against
``write.target-file-size-bytes``, the delete files and deleted rows of each partition, the
partitions' rows and bytes, the manifests, the snapshot timeline with the retention properties
and the metadata files. Its advice names each problem with its evidence and the
``CALL ... system.<procedure>(...)`` that fixes it, with a dry run of that call planned by the
procedure itself (``icesql.health.advice``). The report renders as text for the shell
(``icesql.health.text``), as HTML with inline SVG charts for notebooks and the web UI
(``icesql.health.html``) and as JSON (``TableHealth.to_dict``).

The package sits above the statement handlers (it runs their planners) and below the fronts
(``Connection.health``, the shell's ``.health``, ``icesql health``, ``icesql serve``).
"""

from __future__ import annotations

import time

from icesql.errors import NoSuchTableError
from icesql.session import Session
from icesql.statements.procedures.base import Call

from . import collect
from .advice import advise, expiring_snapshots, quoted_name
from .model import Advice, TableHealth

__all__ = ["Advice", "TableHealth", "table_health"]


def table_health(session: Session, name: str, orphans: bool = False) -> TableHealth:
    """The health report of table ``name`` (as SQL names it: ``db.t`` or ``catalog.db.t``).

    ``orphans`` also lists the table's location for files no snapshot reaches (what
    ``remove_orphan_files`` would delete): a listing of storage, slower on object stores,
    so it is asked for explicitly.
    """
    started = time.perf_counter()
    catalog, identifier = Call(session, session.catalog, "health", {"table": name}).identifier()
    try:
        table = catalog.load_table(identifier)
    except NoSuchTableError:
        raise NoSuchTableError(f"table not found: {name}") from None
    relative = quoted_name(identifier)
    manifests, entries = collect.live_entries(table, session.manifest_cache)
    files = [e.data_file for e in entries]
    data = [f for f in files if f.content == 0]
    advice = advise(session, catalog, table, relative, {f.file_path for f in data}, orphans)
    expiring, _ = expiring_snapshots(table)
    return TableHealth(
        table=f"{catalog.name}.{relative}",
        location=table.metadata.location,
        format_version=table.metadata.format_version,
        snapshot_id=table.metadata.current_snapshot_id,
        properties=dict(table.metadata.properties),
        files=collect.file_sizes(table, data),
        partitions=collect.partitions(table, files),
        manifests=collect.manifests(manifests),
        manifest_target_bytes=collect.manifest_target(table),
        snapshots=collect.snapshots(table, expiring),
        retention=collect.retention(table),
        metadata_files=collect.metadata_files(table),
        advice=advice,
        orphans_checked=orphans,
        computed_ms=int((time.perf_counter() - started) * 1000),
    )
