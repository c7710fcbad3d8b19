"""``CALL [catalog.]system.<procedure>(args)``: Iceberg's stored procedures, by Spark's names.

The registry maps each procedure's name to its ``Procedure`` (``base``): one module per
family — ``snapshots`` (rollback_to_snapshot, rollback_to_timestamp, set_current_snapshot,
fast_forward, ancestors_of), ``publish`` (cherrypick_snapshot, publish_changes), ``tables``
(register_table, add_files), ``expire`` (expire_snapshots), ``orphans`` (remove_orphan_files),
``rewrite`` (rewrite_data_files, rewrite_manifests), ``rewrite_deletes``
(rewrite_position_delete_files), ``statistics`` (compute_table_stats, compute_partition_stats), ``changelog`` (create_changelog_view). ``call`` resolves the procedure in the ``system`` namespace of the named
(else the current) catalog, binds the arguments as Spark does and returns its output rows.
Iceberg's other procedures are known by name and refused with ``NotSupportedError``.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from icesql.errors import NotSupportedError, ProgrammingError
from icesql.session import Result, Session
from icesql.sql import nodes
from icesql.sql.identifiers import catalog_named
from icesql.statements.procedures import (
    changelog,
    expire,
    orphans,
    publish,
    rewrite,
    rewrite_deletes,
    snapshots,
    statistics,
    tables,
)
from icesql.statements.procedures.base import Call, Procedure, bind

__all__ = ["NOT_BUILT", "PROCEDURES", "call"]

PROCEDURES: dict[str, Procedure] = {
    p.name: p
    for family in (
        snapshots,
        publish,
        tables,
        expire,
        orphans,
        rewrite,
        rewrite_deletes,
        statistics,
        changelog,
    )
    for p in family.PROCEDURES
}
# Iceberg 1.10's other Spark procedures
NOT_BUILT = frozenset({
    "snapshot", "migrate",
    "rewrite_table_path",
})  # fmt: skip
# why a procedure cannot apply here at all (the others are simply not built yet)
_WHY_NOT = {
    "snapshot": "it makes an Iceberg table of a Hive/Spark session catalog table's files, and"
    " icesql has no session catalog of non-Iceberg tables (add files with system.add_files"
    " and source_table => '`parquet`.`/path`' instead)",
    "migrate": "it replaces a Hive/Spark session catalog table by an Iceberg table, and icesql"
    " has no session catalog of non-Iceberg tables (add files with system.add_files"
    " and source_table => '`parquet`.`/path`' instead)",
}


def call(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    """Run one ``CALL`` (module docstring)."""
    assert isinstance(statement, nodes.Call)
    *qualifiers, name = statement.procedure
    catalog = session.catalog
    if len(qualifiers) == 2:
        found = catalog_named(qualifiers[0], session.catalogs)
        if found is None:
            raise ProgrammingError(
                f"catalog {qualifiers[0]!r} not found (catalogs: {', '.join(session.catalogs)})"
            )
        catalog, qualifiers = found, qualifiers[1:]
    qualified = ".".join([*qualifiers, name])
    lowered = name.lower()
    if [q.lower() for q in qualifiers] != ["system"] or (
        lowered not in PROCEDURES and lowered not in NOT_BUILT
    ):
        raise ProgrammingError(
            f"Procedure {qualified} not found (procedures live in namespace system:"
            f" {', '.join(sorted(PROCEDURES))})"
        )
    if lowered in NOT_BUILT:
        why = _WHY_NOT.get(lowered, "it is not supported yet")
        raise NotSupportedError(f"procedure system.{lowered} cannot run here: {why}")
    procedure = PROCEDURES[lowered]
    qualified = f"system.{lowered}"
    args = bind(procedure, qualified, statement.arguments, session, params)
    return procedure.result(procedure.run(Call(session, catalog, qualified, args)))
