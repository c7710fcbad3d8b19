"""What DML tests look at besides rows: the metadata version, the files under a table's
location, and the newest snapshot's operation and summary."""

from __future__ import annotations

from pathlib import Path


def metadata_version(con, identifier: tuple[str, ...]) -> int:
    """The table's current metadata version (unchanged by a failed statement)."""
    return con.catalog.current_version(identifier)[0]


def table_files(con, identifier: tuple[str, ...]) -> set[str]:
    """Every file under the table's location (a failed statement leaves none behind), less
    Hadoop's ``.<name>.crc`` sidecars of Spark-written files: any commit drops the stale one
    of ``version-hint.text`` (``icesql.io.drop_checksum_sidecar``)."""
    location = con.catalog.load_table(identifier).metadata.location
    return {
        str(p)
        for p in Path(location).rglob("*")
        if p.is_file() and not (p.name.startswith(".") and p.name.endswith(".crc"))
    }


def last_snapshot(con, table: str) -> tuple[str, dict]:
    """The newest snapshot's operation and summary."""
    op, summary = con.execute(
        f"SELECT operation, summary FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1"
    ).fetchone()
    return op, dict(summary)


def append_before_commit(
    con, monkeypatch, warehouse: str, statement: str, identifier
) -> list[set[str]]:
    """Make another connection run ``statement`` (an INSERT) after ``con``'s next statement
    has planned, just before its first commit attempt, which then loses the race and is
    retried on the new table. The returned list receives the files the INSERT wrote."""
    import icesql

    real = con.catalog.commit_table
    pending, written = [statement], []

    def commit_table(table, metadata):
        if pending:
            before = table_files(con, identifier)
            other = icesql.connect(warehouse)
            try:
                other.execute(pending.pop())
            finally:
                other.close()
            written.append(table_files(con, identifier) - before)
        return real(table, metadata)

    monkeypatch.setattr(con.catalog, "commit_table", commit_table)
    return written


def live_data_files(table) -> list:
    """The data files of the table's current snapshot, as the planner finds them."""
    from icesql.scan.planner import plan_files

    md = table.metadata
    return [t.data_file for t in plan_files(md, md.current_snapshot(), table.io)]


def largest_file_of(table, value):
    """The data file of the (single-field) partition ``value`` holding the most rows."""
    files = [f for f in live_data_files(table) if f.partition == (value,)]
    return max(files, key=lambda f: f.record_count)
