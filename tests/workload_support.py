"""One writer of the mixed concurrent workload (tests/reliability/test_mixed_workload.py).

Run as ``python tests/workload_support.py '<json args>'``: connects to the catalog, runs
``statements`` random statements on ``db.t`` (id BIGINT, v BIGINT, p INT, partitioned by
p) and prints one JSON line per statement: what it was, whether it was acknowledged, the
error if not, and every snapshot the catalog committed for it (id, parent, sequence
number), seen by wrapping the catalog's ``commit_table``. Each statement's effect on the
rows is deterministic given where it lands in the commit order, so the checker can replay
the acknowledged ones: ids are unique per writer and statement, deletes and updates work
on id ranges, an overwrite replaces one partition with given rows.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

import icesql

OPS = (
    ["insert"] * 4 + ["delete", "update", "merge"] * 2 + ["overwrite", "alter", "rewrite", "expire"]
)
PARTS = 4
OVERWRITE_IDS = 10**12  # an overwrite's ids: apart from the inserts'


def new_id(worker: int, step: int, k: int) -> int:
    return worker * 1_000_000 + step * 10 + k


def random_range(rng: random.Random, workers: int, steps: int) -> tuple[int, int]:
    """An id range over some writer's ids (likely to hit rows: inserts are dense)."""
    w = rng.randrange(workers)
    start = new_id(w, rng.randrange(steps), 0)
    return start, start + rng.choice([5, 30, 200])


def statement(
    rng: random.Random, worker: int, step: int, workers: int, steps: int
) -> dict[str, Any]:
    """A random statement: its SQL and the parameters its effect is replayed from."""
    op = rng.choice(OPS)
    if op == "insert":
        rows = [(new_id(worker, step, k), step, new_id(worker, step, k) % PARTS) for k in range(3)]
        values = ", ".join(f"({i}, {v}, {p})" for i, v, p in rows)
        return {"op": op, "rows": rows, "sql": f"INSERT INTO db.t {{cols}} VALUES {values}"}
    if op in ("delete", "update"):
        lo, hi = random_range(rng, workers, steps)
        if op == "delete":
            return {
                "op": op,
                "lo": lo,
                "hi": hi,
                "sql": f"DELETE FROM db.t WHERE id BETWEEN {lo} AND {hi}",
            }
        return {
            "op": op,
            "lo": lo,
            "hi": hi,
            "sql": f"UPDATE db.t SET v = v + 1 WHERE id BETWEEN {lo} AND {hi}",
        }
    if op == "merge":
        lo, _ = random_range(rng, workers, steps)
        fresh = new_id(worker, step, 0)
        rows = [(lo + k, 1000 + step, (lo + k) % PARTS) for k in range(3)]
        rows.append((fresh, 1000 + step, fresh % PARTS))
        values = ", ".join(f"({i}, {v}, {p})" for i, v, p in rows)
        return {
            "op": op,
            "rows": rows,
            "sql": (
                f"MERGE INTO db.t t USING (SELECT * FROM VALUES {values} AS s(id, v, p)) s"
                " ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v"
                " WHEN NOT MATCHED THEN INSERT {cols} VALUES {source}"
            ),
        }
    if op == "overwrite":
        part = rng.randrange(PARTS)
        rows = [
            (OVERWRITE_IDS + new_id(worker, step, k) * PARTS + part, step, part) for k in range(2)
        ]
        values = ", ".join(f"({i}, {v}, {p})" for i, v, p in rows)
        return {
            "op": op,
            "part": part,
            "rows": rows,
            "sql": f"INSERT OVERWRITE db.t {{cols}} SELECT *{{nulls}} FROM VALUES {values} AS s(id, v, p)",
        }
    if op == "alter":
        return {"op": op, "sql": f"ALTER TABLE db.t ADD COLUMN c_{worker}_{step} STRING"}
    if op == "rewrite":
        return {
            "op": op,
            "sql": "CALL system.rewrite_data_files(table => 'db.t',"
            " options => map('min-input-files', '2'))",
        }
    return {
        "op": op,
        "sql": "CALL system.expire_snapshots(table => 'db.t',"
        " older_than => current_timestamp(), retain_last => 3)",
    }


def apply(rows: list[tuple[int, int, int]], entry: dict[str, Any]) -> list[tuple[int, int, int]]:
    """Replay one acknowledged statement on the model rows (id, v, p); ids may repeat (a
    MERGE may insert an id another writer inserts later), so the model is a list."""
    op = entry["op"]
    if op == "insert":
        return [*rows, *map(tuple, entry["rows"])]
    if op == "delete":
        return [r for r in rows if not entry["lo"] <= r[0] <= entry["hi"]]
    if op == "update":
        return [(i, v + 1, p) if entry["lo"] <= i <= entry["hi"] else (i, v, p) for i, v, p in rows]
    if op == "merge":
        source = {i: v for i, v, _ in entry["rows"]}
        matched = {i for i, _, _ in rows if i in source}
        out = [(i, source[i], p) if i in source else (i, v, p) for i, v, p in rows]
        return out + [tuple(r) for r in entry["rows"] if r[0] not in matched]
    if op == "overwrite":
        kept = [r for r in rows if r[2] != entry["part"]]
        return kept + [tuple(r) for r in entry["rows"]]
    return rows


def with_columns(sql: str, columns: list[str]) -> str:
    """Fill in the table's current columns: ADD COLUMN makes a narrower insert an error
    (Spark's INCOMPATIBLE_DATA_FOR_TABLE), so every insert names all of them."""
    extra = [c for c in columns if c not in ("id", "v", "p")]
    nulls = "".join(", NULL" for _ in extra)
    cols = "(" + ", ".join(["id", "v", "p", *extra]) + ")"
    source = "(s.id, s.v, s.p" + nulls + ")"
    sql = sql.replace("VALUES (", "VALUES\x00(")
    parts = sql.split("\x00")  # the VALUES rows get the NULLs too
    head, rows = parts[0], "".join(parts[1:])
    if "INSERT INTO db.t {cols}" in head:
        rows = rows.replace("), (", nulls + "), (")
        rows = rows[: rows.rfind(")")] + nulls + ")"
        sql = head + rows
    else:
        sql = head + rows
    return sql.replace("{cols}", cols).replace("{nulls}", nulls).replace("{source}", source)


def _record(catalog: Any, commits: list) -> None:
    """Wrap ``catalog.commit_table`` to note every snapshot it commits."""
    inner = catalog.commit_table

    def commit_table(base, metadata):
        committed = inner(base, metadata)
        sid = committed.metadata.current_snapshot_id
        if sid is not None and sid != base.metadata.current_snapshot_id:
            snap = committed.metadata.snapshot_by_id(sid)
            commits.append([sid, snap.parent_snapshot_id, snap.sequence_number])
        return committed

    catalog.commit_table = commit_table


def main(args: dict[str, Any]) -> None:
    rng = random.Random(args["seed"])
    con = icesql.connect(**args["connect"])
    con.execute("SET spark.sql.sources.partitionOverwriteMode = dynamic")
    commits: list = []
    _record(con.catalog, commits)
    for step in range(args["statements"]):
        entry = statement(rng, args["worker"], step, args["workers"], args["statements"])
        columns = [f.name for f in con.catalog.load_table(("db", "t")).metadata.schema().fields]
        entry["sql"] = with_columns(entry["sql"], columns)
        commits.clear()
        try:
            con.execute(entry["sql"])
            entry["ok"] = True
        except icesql.Error as e:
            entry["ok"], entry["error"] = False, f"{type(e).__name__}: {e}"
            entry["lost_race"] = isinstance(e, icesql.CommitConflictError)
        entry["commits"] = list(commits)
        entry["t"] = time.time()
        print(json.dumps(entry), flush=True)
    con.close()


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
