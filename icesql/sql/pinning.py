"""Pinning every table reference of a statement to one version, without editing its text.

The data-check front (``pytest --icesql-ref audit``, ``--icesql-as-of TS``) runs checks
written against the current state on a branch, tag, snapshot or point in time instead: the
audit step of write-audit-publish. The rewrite adds the time-travel clause the user could
have written (``VERSION AS OF`` / ``TIMESTAMP AS OF``) to each table node, so the one binding
pass resolves it as usual and a missing ref or snapshot fails as it would when written out.

A branch or tag name pins only the tables that have it: the others read their current state,
as Spark's ``spark.wap.branch`` falls back to ``main`` for a table without the branch (the
caller says which tables have the ref, and should say so when none had it: a misspelt ref
would otherwise read ``main`` everywhere). References that already name their version keep it:
an explicit ``VERSION AS OF`` /
``TIMESTAMP AS OF`` and the ``t.branch_x`` / ``t.tag_x`` suffixes. CTE names and table
functions are not tables and are left alone. Metadata tables (``t.snapshots``) are pinned too,
as Spark reads them at a version. A snapshot id belongs to one table, so pinning to an id only
suits statements that read one table.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlglot import exp

from icesql.errors import ProgrammingError
from icesql.sql.tables import table_nodes

__all__ = ["pin_tables"]


def pin_tables(
    statement: exp.Expr,
    *,
    version: int | str | None = None,
    timestamp: str | datetime | None = None,
    has_ref: Callable[[exp.Table, str], bool] | None = None,
) -> exp.Expr:
    """A copy of ``statement`` whose table references read ``version`` (a snapshot id, or a
    branch or tag name) or the snapshot current at ``timestamp``; one of the two, or neither
    (the statement is returned unchanged). With ``has_ref(node, name)``, a table without the
    branch or tag ``version`` names is left to read its current state.

    >>> from icesql.sql.dialect import parse_one
    >>> q = parse_one("SELECT * FROM db.t JOIN db.u VERSION AS OF 1 USING (id)")
    >>> pin_tables(q, version="audit").sql("spark")
    "SELECT * FROM db.t VERSION AS OF 'audit' JOIN db.u VERSION AS OF 1 USING (id)"
    >>> pin_tables(parse_one("SELECT 1 FROM db.t"), timestamp="2024-01-01 00:00:00").sql("spark")
    "SELECT 1 FROM db.t TIMESTAMP AS OF '2024-01-01 00:00:00'"
    """
    if version is not None and timestamp is not None:
        raise ProgrammingError("pin tables to a version or to a timestamp, not both")
    if version is None and timestamp is None:
        return statement
    pinned = statement.copy()
    clause = _clause(version, timestamp)
    nodes = [
        n for n in table_nodes(pinned) if n.args.get("version") is None and not _names_a_ref(n)
    ]
    if isinstance(version, str) and not version.isdigit() and has_ref is not None:
        nodes = [n for n in nodes if has_ref(n, version)]
    for node in nodes:
        node.set("version", clause.copy())
    return pinned


def _clause(version: int | str | None, timestamp: str | datetime | None) -> exp.Version:
    if version is not None:
        if isinstance(version, bool) or not isinstance(version, (int, str)) or version == "":
            raise ProgrammingError(f"a version is a snapshot id or a branch/tag name: {version!r}")
        value = (
            exp.Literal.number(version) if isinstance(version, int) else exp.Literal.string(version)
        )
        return exp.Version(this="VERSION", kind="AS OF", expression=value)
    if isinstance(timestamp, datetime):
        timestamp = timestamp.isoformat(sep=" ")
    return exp.Version(
        this="TIMESTAMP", kind="AS OF", expression=exp.Literal.string(str(timestamp))
    )


def _names_a_ref(node: exp.Table) -> bool:
    """``db.t.branch_b`` / ``db.t.tag_t``: the name itself selects a version."""
    parts = node.parts
    if len(parts) < 2:
        return False
    last = parts[-1].name.lower()
    return last.startswith("branch_") or last.startswith("tag_")
