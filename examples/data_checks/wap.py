"""Write-audit-publish with data checks: a batch goes to branch ``audit`` of ``shop.orders``,
the checks run on that branch (``pytest --icesql-ref audit``), and only a green run publishes
it to ``main`` with Iceberg's ``fast_forward`` procedure.

    python wap.py "(5, 2, 'new', 19.90, current_timestamp())"    # published
    python wap.py "(6, 42, 'lost', -3.00, current_timestamp())"  # held back on the branch

Tables the batch does not touch (``shop.customers``) have no ``audit`` branch: the checks read
them at their current state, as Spark's ``spark.wap.branch`` does.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from make_warehouse import build

import icesql

HERE = Path(__file__).resolve().parent


def write_audit_publish(rows: str, warehouse: Path = HERE / "warehouse") -> bool:
    """Write ``rows`` (a VALUES list) to branch ``audit``; publish them if the checks pass."""
    build(warehouse)
    con = icesql.connect(str(warehouse))
    try:
        con.execute("ALTER TABLE shop.orders CREATE OR REPLACE BRANCH audit")
        con.execute(f"INSERT INTO shop.orders.branch_audit VALUES {rows}")  # write
        audit = subprocess.run(  # audit: the same checks, on the branch
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                f"--icesql-warehouse={warehouse}",
                "--icesql-ref",
                "audit",
            ],
            cwd=HERE,
        )
        if audit.returncode != 0:
            print("checks failed on branch audit: main is unchanged", file=sys.stderr)
            return False
        con.execute("CALL system.fast_forward('shop.orders', 'main', 'audit')")  # publish
        print("published branch audit to main")
        return True
    finally:
        con.close()


if __name__ == "__main__":
    sys.exit(0 if write_audit_publish(sys.argv[1]) else 1)
