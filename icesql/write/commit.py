"""The commit protocol: one ``Change`` becomes one new table metadata version, or nothing.

Each attempt starts from the table as the catalog has it now: the change's requirements
are checked, its updates replayed, its snapshot produced (``SnapshotProducer``), and the
catalog asked to swap the metadata atomically (a REST catalog is sent the updates the
metadata builder recorded, ``TableMetadata.changes``). The change lands on its branch
(``Change.branch``, default ``main``): its snapshot's parent, the validation's history and
the ref moved are that branch's. When another commit won the race
(``CommitFailedError``), the attempt's manifest list is deleted and the change is retried
on the re-read table, with exponential backoff, within ``commit.retry.num-retries`` (4),
``commit.retry.min-wait-ms`` (100), ``commit.retry.max-wait-ms`` (60000) and
``commit.retry.total-timeout-ms`` (30 min). Appends have no requirements and always
re-apply; schema and spec changes require what they were based on, so a concurrent change
to those fails the statement with ``CommitConflictError`` instead of overwriting it.

Whatever fails before the swap leaves the table as it was; files written for the change
are deleted. After an unknown outcome (``CommitStateUnknownError``) nothing is deleted,
since the new version may be current — Java's rule, and ours.
"""

from __future__ import annotations

import random
import time

from icesql import faults
from icesql.catalog.base import Catalog, CommitFailedError, CommitStateUnknownError, Identifier
from icesql.catalog.table import Table
from icesql.errors import CommitConflictError, OperationalError
from icesql.metadata.snapshots import Snapshot
from icesql.metadata.table_metadata import TableMetadata
from icesql.metadata.table_requirements import check_table_requirements
from icesql.spec.content_file import DATA
from icesql.write.properties import TableProperties
from icesql.write.snapshot import Change, SnapshotProducer

__all__ = ["Change", "commit", "create_table"]


def _build(
    base: TableMetadata,
    base_path: str | None,
    change: Change,
    producer: SnapshotProducer,
    attempt: int,
) -> tuple[TableMetadata, Snapshot | None]:
    """The new metadata for ``change`` on ``base`` and the snapshot it adds (or None); the
    metadata's ``changes`` are what a REST catalog is sent."""
    builder = base.builder().apply(change.updates)
    snapshot: Snapshot | None = None
    if change.adds_snapshot:
        view = TableMetadata(builder.raw, base.path)
        snapshot = producer.produce(view, attempt)
        builder.add_snapshot(snapshot)
        if not change.stage_only:
            builder.set_branch_snapshot(change.branch, snapshot.snapshot_id)
    return builder.build(previous_metadata_file=base_path), snapshot


def _reached_files(change: Change) -> None:
    """The crash points of the files a statement wrote before it commits."""
    if any(f.content == DATA for f in change.added_files):
        faults.reached("after-data-files")
    if any(f.content != DATA for f in change.added_files):
        faults.reached("after-delete-files")


def commit(catalog: Catalog, table: Table, change: Change) -> Table:
    """Apply ``change`` to ``table`` as one atomic commit; returns the committed table."""
    props = TableProperties(table.metadata.properties, table.name)
    retries = props.commit_num_retries
    min_wait, max_wait = props.commit_min_wait_ms, props.commit_max_wait_ms
    deadline = time.monotonic() + props.commit_total_timeout_ms / 1000
    _reached_files(change)
    producer = SnapshotProducer(table.io, change, table.name)
    base = table
    attempt = 0
    while True:
        attempt += 1
        snapshot = None
        try:
            check_table_requirements(base.metadata, change.requirements, base.name)
            if change.validation is not None:
                change.validation.check(
                    base.metadata, base.io, base.name, change.removed_files, change.branch
                )
            try:
                metadata, snapshot = _build(
                    base.metadata, base.metadata_location, change, producer, attempt
                )
            except OperationalError as e:
                # a file of the base gone (a concurrent expire_snapshots) while the table
                # moved on is a lost race: Java re-reads the table for each attempt, we do then
                if catalog.load_table(table.identifier).metadata_location == base.metadata_location:
                    raise
                raise CommitFailedError(
                    f"{table.name} changed while the commit was prepared: {e}"
                ) from e
            committed = catalog.commit_table(base, metadata)
        except CommitFailedError as e:
            producer.discard_attempt(snapshot)
            if attempt > retries or time.monotonic() >= deadline:
                producer.cleanup()
                raise CommitConflictError(
                    f"could not commit to {table.name} after {attempt} attempts: {e}"
                    " (raise commit.retry.num-retries to retry more often)"
                ) from e
            wait_ms = min(min_wait * (2 ** (attempt - 1)), max_wait)
            time.sleep(wait_ms * (0.9 + 0.2 * random.random()) / 1000)
            base = catalog.load_table(table.identifier)
            continue
        except CommitStateUnknownError:
            raise
        except BaseException:
            producer.cleanup()
            raise
        producer.cleanup(committed=snapshot)
        return committed


def create_table(
    catalog: Catalog, identifier: Identifier, metadata: TableMetadata, change: Change | None = None
) -> Table:
    """Create a table whose first version is ``metadata`` plus ``change`` (CREATE TABLE AS
    SELECT: the table appears with its first snapshot, or not at all)."""
    if change is None:
        return catalog.create_table(identifier, metadata)
    from icesql.io import FileIO

    io = getattr(catalog, "io", None) or FileIO()
    _reached_files(change)
    producer = SnapshotProducer(io, change, ".".join(identifier))
    try:
        first, snapshot = _build(metadata, None, change, producer, 1)
        created = catalog.create_table(identifier, first)
    except CommitStateUnknownError:
        raise
    except BaseException:
        producer.cleanup()
        raise
    producer.cleanup(committed=snapshot)
    return created
