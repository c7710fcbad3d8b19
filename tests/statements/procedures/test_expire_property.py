"""A property of expire_snapshots over random histories (a seeded generator, no hypothesis):
afterwards every ref reads the rows it read before, every file a kept snapshot reaches is on
disk, and exactly the files only the expired snapshots reached are gone, counted by kind; then
remove_orphan_files, with every file old, finds nothing left behind and removes nothing."""

from __future__ import annotations

import os
import random
import time

import pytest
from maintenance_support import (
    local,
    random_expiry,
    random_history,
    reached_files,
    ref_rows,
)

SEEDS = range(30)


@pytest.mark.parametrize("seed", SEEDS)
def test_expiry_keeps_every_ref_and_deletes_only_the_unreachable(con, seed):
    rng = random.Random(seed)
    random_history(con, rng, "db.r")
    before_rows = ref_rows(con, "db.r")
    before = reached_files(con, ("db", "r"))
    call = random_expiry(con, rng, "db.r")
    (counts,) = con.execute(call).fetchall()
    assert ref_rows(con, "db.r") == before_rows, call
    after = reached_files(con, ("db", "r"))
    assert not [p for p in after if not os.path.exists(local(p))], call
    gone = before - after
    assert not [p for p in gone if os.path.exists(local(p))], call
    assert sum(counts) == len(gone), call
    assert after <= before
    then = time.time() - 10 * 24 * 3600
    folder = local(con.catalog.load_table(("db", "r")).metadata.location)
    for root, _, files in os.walk(folder):
        for name in files:
            os.utime(os.path.join(root, name), (then, then))
    assert con.execute("CALL system.remove_orphan_files(table => 'db.r')").fetchall() == [], call
    assert ref_rows(con, "db.r") == before_rows, call
