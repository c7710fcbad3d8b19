"""Checks shared by the table-maintenance tests (expire_snapshots, remove_orphan_files)."""

from __future__ import annotations

import os

from icesql.metadata import reachable


def local(path: str) -> str:
    return path.removeprefix("file:")


def reached_files(con, identifier: tuple[str, ...]) -> set[str]:
    """Every manifest list, manifest, live content file and statistics file of every snapshot
    the table keeps."""
    table = con.catalog.load_table(identifier)
    md, io = table.metadata, table.io
    ids = [s.snapshot_id for s in md.snapshots]
    manifests = reachable.manifests(io, md, ids)
    paths = set(manifests) | reachable.manifest_lists(md, ids) | reachable.statistics_files(md)
    paths |= {p for p, _ in reachable.content_files(io, manifests.values())}
    return paths


def assert_every_reached_file_exists(con, name: str = "t", namespace: str = "db") -> int:
    """Every file a kept snapshot reaches is on disk; returns how many files that is."""
    paths = reached_files(con, (namespace, name))
    missing = sorted(p for p in paths if not os.path.exists(local(p)))
    assert not missing, f"files a kept snapshot reaches were deleted: {missing}"
    return len(paths)


def random_history(con, rng, table: str) -> None:
    """A random history on ``table`` (``db.name``-style, created here): appends, deletes and
    updates on main and on branches, branches and tags made and dropped at random snapshots
    (some with snapshot retention), and rollbacks of main."""
    version = rng.choice([2, 3])
    mode = rng.choice(["copy-on-write", "merge-on-read"])
    con.execute(
        f"CREATE TABLE {table} (id BIGINT, part INT) USING iceberg PARTITIONED BY (part)"
        f" TBLPROPERTIES ('format-version' = '{version}', 'write.delete.mode' = '{mode}',"
        f" 'write.update.mode' = '{mode}')"
    )
    next_id = 0
    namespace, name = table.rsplit(".", 1)
    for _ in range(rng.randint(8, 16)):
        md = con.catalog.load_table((namespace, name)).metadata
        branches = [n for n, r in md.refs.items() if r.is_branch]
        others = [n for n in md.refs if n != "main"]
        snapshots = [s.snapshot_id for s in md.snapshots]
        target = (
            table
            if not branches or rng.random() < 0.6
            else f"{table}.branch_{rng.choice(branches)}"
        )
        if target.endswith(".branch_main"):
            target = table
        op = rng.random()
        if op < 0.35 or not snapshots:
            rows = ", ".join(
                f"({next_id + i}, {rng.randint(0, 2)})" for i in range(rng.randint(1, 4))
            )
            next_id += 4
            con.execute(f"INSERT INTO {target} VALUES {rows}")
        elif op < 0.5:
            con.execute(
                f"DELETE FROM {target} WHERE id % {rng.randint(2, 5)} = {rng.randint(0, 1)}"
            )
        elif op < 0.58:
            con.execute(f"UPDATE {target} SET part = part + 1 WHERE id % 3 = {rng.randint(0, 2)}")
        elif op < 0.72:
            retention = rng.choice(["", " WITH SNAPSHOT RETENTION 2 SNAPSHOTS"])
            con.execute(
                f"ALTER TABLE {table} CREATE BRANCH IF NOT EXISTS b{rng.randint(0, 3)}"
                f" AS OF VERSION {rng.choice(snapshots)}{retention}"
            )
        elif op < 0.82:
            con.execute(
                f"ALTER TABLE {table} CREATE TAG IF NOT EXISTS t{rng.randint(0, 3)}"
                f" AS OF VERSION {rng.choice(snapshots)}"
            )
        elif op < 0.9 and others:
            ref = rng.choice(others)
            kind = "BRANCH" if md.refs[ref].is_branch else "TAG"
            con.execute(f"ALTER TABLE {table} DROP {kind} {ref}")
        elif md.current_snapshot_id is not None:
            ancestors = [s.snapshot_id for s in md.ancestors_of(md.current_snapshot_id)]
            con.execute(f"CALL system.rollback_to_snapshot('{table}', {rng.choice(ancestors)})")


def random_expiry(con, rng, table: str) -> str:
    """A random ``expire_snapshots`` call for ``table``: by age, count, ids (never a ref's
    head) and with or without ``clean_expired_metadata``."""
    namespace, name = table.rsplit(".", 1)
    md = con.catalog.load_table((namespace, name)).metadata
    heads = {r.snapshot_id for r in md.refs.values()}
    args = [f"table => '{table}'"]
    args.append("older_than => " + rng.choice([
        "TIMESTAMP '2100-01-01 00:00:00'", "TIMESTAMP '2100-01-01 00:00:00'",
        "current_timestamp() + INTERVAL 1 DAY", "TIMESTAMP '2000-01-01 00:00:00'",
    ]))  # fmt: skip
    if rng.random() < 0.6:
        args.append(f"retain_last => {rng.randint(1, 3)}")
    candidates = [s.snapshot_id for s in md.snapshots if s.snapshot_id not in heads]
    if candidates and rng.random() < 0.4:
        chosen = rng.sample(candidates, rng.randint(1, min(2, len(candidates))))
        args.append(f"snapshot_ids => array({', '.join(map(str, chosen))})")
    if rng.random() < 0.5:
        args.append("clean_expired_metadata => true")
    return f"CALL system.expire_snapshots({', '.join(args)})"


def ref_rows(con, table: str) -> dict[str, list]:
    """The rows of every ref of the table, as icesql reads them."""
    namespace, name = table.rsplit(".", 1)
    md = con.catalog.load_table((namespace, name)).metadata
    return {
        ref: sorted(con.execute(f"SELECT * FROM {table} VERSION AS OF '{ref}'").fetchall())
        for ref in md.refs
    }
