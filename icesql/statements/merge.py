"""MERGE INTO: Spark 3.5's clauses over one join of the target and the source, one commit.

The statement becomes one query that DuckDB runs over the target (with its ``_file`` and
``_pos`` metadata columns, and the row lineage columns in v3) joined to the source: an inner
join when every clause is WHEN MATCHED, a left, right or full outer join when there are
NOT MATCHED BY SOURCE or NOT MATCHED clauses. The first clause whose kind and condition hold
decides a row's action (``__icesql_action``: the clause's number, 0 for none), as Spark
evaluates them in order; each UPDATE / INSERT clause's values are computed only for its own
rows (``CASE WHEN action = k``), so an expression that would fail elsewhere is never run.

The rows stream back in batches: positions of updated and deleted target rows are
collected per data file, updated and inserted rows are converted by Spark's store
assignment (``icesql.sql.store_assignment``) and written as new data files on the fly. Spark's
cardinality rule — a target row matched by two source rows is an error when any MATCHED
clause other than a lone unconditional DELETE exists — is checked on the way, per data file
position. The collected changes are committed by ``icesql.statements.row_changes`` as
copy-on-write or merge-on-read (``write.merge.mode``), with conflict validation per
``write.merge.isolation-level``.

A MERGE that changes no row still commits, as Spark 3.5 + Iceberg 1.10 do in both modes: an
empty ``overwrite`` snapshot, or an empty ``append`` when every clause is WHEN NOT MATCHED
(Spark plans that MERGE as an append of the unmatched source rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from icesql.errors import DataError, NotSupportedError, ProgrammingError
from icesql.session import Result, Session
from icesql.session.result import done
from icesql.spec.arrays import bool_scalar, int_scalar, int_values, ints
from icesql.spec.schema import Schema
from icesql.sql.defaults import is_default_keyword, write_default_expression
from icesql.sql.dialect import DIALECT
from icesql.sql.store_assignment import Assignment
from icesql.statements.insert import target_table
from icesql.statements.row_changes import (
    RowChanges,
    apply_changes,
    run_target_query,
    target_table_node,
)
from icesql.write.snapshot import SnapshotOperation

__all__ = ["merge", "MergePlan", "plan_merge"]

MATCHED = "WHEN MATCHED"
NOT_MATCHED = "WHEN NOT MATCHED"
NOT_MATCHED_BY_SOURCE = "WHEN NOT MATCHED BY SOURCE"

FILE = "__icesql_file"
POS = "__icesql_pos"
ROW_ID = "__icesql_row_id"
LAST_UPDATED = "__icesql_last_updated"
ACTION = "__icesql_action"
MATCHED_FLAG = "__icesql_matched"
SOURCE_FLAG = "__icesql_source_row"


@dataclass(frozen=True)
class Clause:
    """One WHEN clause: its kind, condition, and action with the values it assigns."""

    kind: str
    condition: exp.Expr | None
    action: str  # "delete" | "update" | "insert"
    values: dict[str, exp.Expr] = field(default_factory=dict)  # target column -> value

    def describe(self) -> str:
        cond = f" AND {self.condition.sql(dialect=DIALECT)}" if self.condition is not None else ""
        return f"{self.kind}{cond} THEN {self.action.upper()}"


@dataclass(frozen=True)
class MergePlan:
    """The query that classifies rows and what its output columns mean."""

    query: exp.Select
    clauses: tuple[Clause, ...]
    value_columns: dict[int, list[str]]  # clause number -> output column per target column
    check_cardinality: bool
    lineage: bool

    @property
    def insert_only(self) -> bool:
        """Only WHEN NOT MATCHED clauses: Spark's MERGE is then an append."""
        return all(c.kind == NOT_MATCHED for c in self.clauses)


def _assignment_column(node: exp.Expr, target_alias: str, columns: dict[str, str]) -> str:
    """The target column an assignment sets (``t.c`` or ``c``), by its declared name."""
    if not isinstance(node, exp.Column):
        raise ProgrammingError(f"cannot assign to {node.sql(dialect=DIALECT)} in MERGE")
    parts = [p.name for p in node.parts]
    if len(parts) == 2 and parts[0].lower() == target_alias.lower():
        parts = parts[1:]
    if len(parts) != 1:
        raise NotSupportedError(
            f"MERGE assignment to a nested field ({node.sql(dialect=DIALECT)}) is not supported yet"
        )
    name = columns.get(parts[0].lower())
    if name is None:
        raise ProgrammingError(
            f"MERGE cannot assign to {node.sql(dialect=DIALECT)}: no column {parts[0]!r} in the"
            f" target table (columns: {', '.join(columns.values())})"
        )
    return name


def _star_values(
    kind: str, source_alias: str, source_columns: Sequence[str], schema: Schema
) -> dict[str, exp.Expr]:
    """``UPDATE SET *`` / ``INSERT *``: each target column from the source column of its name."""
    by_name = {c.lower(): c for c in source_columns}
    out: dict[str, exp.Expr] = {}
    for f in schema.fields:
        src = by_name.get(f.name.lower())
        if src is None:
            raise ProgrammingError(
                f"cannot resolve {f.name} in {kind} clause of MERGE: the source has no column"
                f" {f.name!r} (source columns: {', '.join(source_columns)})"
            )
        out[f.name] = exp.column(src, table=source_alias, quoted=True)
    return out


def _clauses(
    statement: exp.Merge,
    schema: Schema,
    target_alias: str,
    source_alias: str,
    source_columns: Sequence[str] | None,
) -> list[Clause]:
    columns = {f.name.lower(): f.name for f in schema.fields}
    whens = statement.args.get("whens")
    nodes = list(whens.expressions) if whens is not None else []
    if not nodes:
        raise ProgrammingError("MERGE needs at least one WHEN clause")
    out: list[Clause] = []
    for when in nodes:
        if when.args.get("matched"):
            kind = MATCHED
        elif when.args.get("source"):
            kind = NOT_MATCHED_BY_SOURCE
        else:
            kind = NOT_MATCHED
        then = when.args.get("then")
        cond = when.args.get("condition")
        if isinstance(then, exp.Var) and then.name.upper() == "DELETE":
            if kind == NOT_MATCHED:
                raise ProgrammingError("WHEN NOT MATCHED clauses of MERGE can only INSERT")
            out.append(Clause(kind, cond, "delete"))
        elif isinstance(then, exp.Update):
            if kind == NOT_MATCHED:
                raise ProgrammingError("WHEN NOT MATCHED clauses of MERGE can only INSERT")
            items = list(then.expressions)
            if len(items) == 1 and isinstance(items[0], exp.Star):
                if kind == NOT_MATCHED_BY_SOURCE:
                    raise ProgrammingError(
                        "UPDATE SET * is not allowed in WHEN NOT MATCHED BY SOURCE"
                    )
                assert source_columns is not None
                values = _star_values("UPDATE", source_alias, source_columns, schema)
            else:
                values = {}
                for item in items:
                    if not isinstance(item, exp.EQ):
                        raise ProgrammingError(
                            f"bad assignment in MERGE: {item.sql(dialect=DIALECT)}"
                        )
                    name = _assignment_column(item.this, target_alias, columns)
                    if name in values:
                        raise ProgrammingError(
                            f"MERGE UPDATE assigns column {name!r} more than once"
                        )
                    values[name] = _or_default(item.expression, name, schema)
            out.append(Clause(kind, cond, "update", values))
        elif isinstance(then, exp.Insert):
            if kind != NOT_MATCHED:
                raise ProgrammingError(f"{kind} clauses of MERGE cannot INSERT")
            if isinstance(then.this, exp.Star):
                assert source_columns is not None
                values = _star_values("INSERT", source_alias, source_columns, schema)
            else:
                names = [
                    _assignment_column(c, target_alias, columns) for c in then.this.expressions
                ]
                exprs = list(then.expression.expressions) if then.expression is not None else []
                if len(names) != len(exprs):
                    raise ProgrammingError(
                        f"MERGE INSERT names {len(names)} column(s) but gives {len(exprs)} value(s)"
                    )
                if len(set(names)) != len(names):
                    raise ProgrammingError("MERGE INSERT names a column more than once")
                values = {n: _or_default(e, n, schema) for n, e in zip(names, exprs)}
                for f in schema.fields:
                    if f.name not in values:
                        if f.required and f.write_default is None:
                            raise ProgrammingError(
                                f"MERGE INSERT gives no value for the NOT NULL column {f.name!r}"
                            )
                        values[f.name] = write_default_expression(f)
            out.append(Clause(kind, cond, "insert", values))
        else:
            raise NotSupportedError(f"MERGE action {then.sql(dialect=DIALECT) if then else '?'}")
    for kind in (MATCHED, NOT_MATCHED, NOT_MATCHED_BY_SOURCE):
        same = [c for c in out if c.kind == kind]
        if any(c.condition is None for c in same[:-1]):
            raise ProgrammingError(
                f"[NON_LAST_{kind.split(' ', 1)[1].replace(' ', '_')}_CLAUSE_OMIT_CONDITION] when"
                f" there are several {kind} clauses in a MERGE statement, only the last one can"
                " omit the condition"
            )
    return out


def _or_default(value: exp.Expr, name: str, schema: Schema) -> exp.Expr:
    """``value``, or for the ``DEFAULT`` keyword the column's write-default (NULL without one)."""
    if not is_default_keyword(value):
        return value
    return write_default_expression(schema.find_field_by_name(name))


def _needs_cardinality_check(clauses: Sequence[Clause]) -> bool:
    """Spark's rule: any MATCHED clause but a single unconditional DELETE."""
    matched = [c for c in clauses if c.kind == MATCHED]
    if not matched:
        return False
    return not (
        len(matched) == 1 and matched[0].action == "delete" and matched[0].condition is None
    )


def _join_kind(clauses: Sequence[Clause]) -> str:
    by_source = any(c.kind == NOT_MATCHED_BY_SOURCE for c in clauses)
    by_target = any(c.kind == NOT_MATCHED for c in clauses)
    if by_source and by_target:
        return "FULL"
    if by_source:
        return "LEFT"
    if by_target:
        return "RIGHT"
    return ""


def name_target_by_its_alias(statement: exp.Merge, catalog: str) -> None:
    """Spark names an unaliased target in the ON clause, conditions and assignments by any
    tail of its full name (``t.id``, ``db.t.id``, ``cat.db.t.id``): rewrite the longer forms
    to ``t.id``, the name the classifying query gives the target."""
    target = statement.this
    if not isinstance(target, exp.Table) or target.args.get("alias") is not None:
        return  # an aliased target is named by its alias only
    full = [p.name.lower() for p in target.parts]
    if not target.args.get("catalog"):
        full.insert(0, catalog.lower())
    parts = [statement.args.get("on"), *(statement.args.get("whens") or exp.Whens()).expressions]
    for node in parts:
        for column in list(node.find_all(exp.Column)) if node is not None else []:
            qualifier = [p.name.lower() for p in column.parts[:-1]]
            if len(qualifier) >= 2 and full[-len(qualifier) :] == qualifier:
                column.set("catalog", None)
                column.set("db", None)
                column.set("table", exp.to_identifier(target.name))


def plan_merge(
    statement: exp.Merge,
    target: exp.Table,
    schema: Schema,
    source_columns: Sequence[str] | None,
    lineage: bool,
) -> MergePlan:
    """The classifying query for ``statement`` on the target node ``target`` (a table
    reference the engine resolves) whose current schema is ``schema``."""
    target_alias = target.alias_or_name
    source = statement.args["using"]
    alias = source.args.get("alias")
    if alias is not None and alias.columns:
        raise ProgrammingError(
            "[COLUMN_ALIASES_IS_NOT_ALLOWED] Columns aliases are not allowed in MERGE:"
            f" {source.sql(dialect=DIALECT)[:80]}"
        )
    source_alias = source.alias_or_name or "__icesql_source"
    clauses = _clauses(statement, schema, target_alias, source_alias, source_columns)

    def tcol(name: str) -> exp.Column:
        return exp.column(name, table=target_alias, quoted=True)

    # a source row is present when its marker is; a target row when its _file is
    inner_source = source.copy()
    marked = exp.select(exp.Star(), exp.alias_(exp.true(), SOURCE_FLAG)).from_(inner_source)
    source_node = exp.Subquery(
        this=marked, alias=exp.TableAlias(this=exp.to_identifier(source_alias))
    )
    t_absent = exp.Is(this=tcol("_file"), expression=exp.Null())
    s_absent = exp.Is(this=exp.column(SOURCE_FLAG, table=source_alias), expression=exp.Null())
    t_present, s_present = exp.Not(this=t_absent.copy()), exp.Not(this=s_absent.copy())
    presence = {
        MATCHED: exp.and_(t_present.copy(), s_present.copy()),
        NOT_MATCHED: exp.and_(t_absent.copy(), s_present.copy()),
        NOT_MATCHED_BY_SOURCE: exp.and_(t_present.copy(), s_absent.copy()),
    }
    action = exp.Case()
    for number, clause in enumerate(clauses, start=1):
        cond = presence[clause.kind].copy()
        if clause.condition is not None:
            cond = exp.and_(cond, exp.paren(clause.condition.copy()))
        action = action.when(cond, exp.Literal.number(number))
    action = action.else_(exp.Literal.number(0))

    projections: list[exp.Expr] = [
        exp.alias_(tcol("_file"), FILE),
        exp.alias_(tcol("_pos"), POS),
    ]
    if lineage:
        projections.append(exp.alias_(tcol("_row_id"), ROW_ID))
        projections.append(exp.alias_(tcol("_last_updated_sequence_number"), LAST_UPDATED))
    projections.append(exp.alias_(action.copy(), ACTION))
    check = _needs_cardinality_check(clauses)
    if check:
        projections.append(exp.alias_(presence[MATCHED].copy(), MATCHED_FLAG))
    value_columns: dict[int, list[str]] = {}
    for number, clause in enumerate(clauses, start=1):
        if clause.action == "delete":
            continue
        names = []
        for i, f in enumerate(schema.fields):
            value = clause.values.get(f.name)
            if value is None:  # an UPDATE keeps the columns it does not set
                value = tcol(f.name)
            name = f"__icesql_c{number}_{i}"
            guarded = exp.Case().when(
                exp.EQ(this=action.copy(), expression=exp.Literal.number(number)), value.copy()
            )
            projections.append(exp.alias_(guarded, name))
            names.append(name)
        value_columns[number] = names

    keep: exp.Expr = exp.NEQ(this=action.copy(), expression=exp.Literal.number(0))
    if check:
        keep = exp.or_(keep, presence[MATCHED].copy())
    join_kind = _join_kind(clauses)
    query = (
        exp.select(*projections)
        .from_(target.copy())
        .join(source_node, on=statement.args["on"].copy(), join_type=join_kind or None)
        .where(keep)
    )
    return MergePlan(query, tuple(clauses), value_columns, check, lineage)


def merge(session: Session, statement: exp.Expr, params: Sequence[object]) -> Result:
    """``MERGE INTO t USING s ON ... WHEN ...``: one commit (module docstring)."""
    assert isinstance(statement, exp.Merge)
    node = statement.this
    if not isinstance(node, exp.Table):
        raise ProgrammingError(f"MERGE INTO needs a table, got {node.sql(dialect=DIALECT)}")
    catalog, table, _, ref = target_table(session, node)
    name_target_by_its_alias(statement, catalog.name)
    target, _ = target_table_node(node, table)
    md = table.metadata
    lineage = md.format_version >= 3
    plan = plan_merge(
        statement, target, md.schema(), source_columns(session, statement, params), lineage
    )
    result, scan = run_target_query(session, plan.query, params)  # the table loaded above
    empty = SnapshotOperation.APPEND if plan.insert_only else SnapshotOperation.OVERWRITE
    changes = apply_changes(
        catalog, result, scan, "merge", _Collector(plan, table.name), empty, ref
    )
    return done(changes.affected_rows)


class _Collector:
    """Turns each batch of classified rows into removals and new rows (module docstring)."""

    def __init__(self, plan: MergePlan, table: str):
        self.plan = plan
        self.table = table
        self.removing = [n for n, c in enumerate(plan.clauses, start=1) if c.action != "insert"]
        self.cardinality = CardinalityCheck(table) if plan.check_cardinality else None
        self.assignments: dict[int, Assignment] = {}

    def __call__(self, changes: RowChanges, batch: pa.RecordBatch) -> None:
        plan, schema = self.plan, changes.schema
        action = batch.column(ACTION)
        files, positions = batch.column(FILE), batch.column(POS)
        if self.cardinality is not None:
            matched = pc.fill_null(batch.column(MATCHED_FLAG), bool_scalar(False))
            self.cardinality.add(pc.filter(files, matched), pc.filter(positions, matched))
        gone = pc.is_in(action, int_values(list(self.removing), action.type))
        changes.remove(pc.filter(files, gone), pc.filter(positions, gone))
        changes.count(pc.sum(pc.not_equal(action, int_scalar(0, action.type))).as_py() or 0)
        for number, names in plan.value_columns.items():
            rows = batch.filter(pc.equal(action, int_scalar(number, action.type)))
            if rows.num_rows == 0:
                continue
            values = rows.select(names).rename_columns([f.name for f in schema.fields])
            assignment = self.assignments.get(number)
            if assignment is None:
                assignment = self.assignments[number] = Assignment(
                    self.table, schema, values.schema
                )
            row_ids = None
            if plan.lineage and plan.clauses[number - 1].action == "update":
                row_ids = rows.column(ROW_ID)
            changes.write(assignment.convert(values), row_ids)


def source_columns(
    session: Session, statement: exp.Merge, params: Sequence[object]
) -> list[str] | None:
    """The source's column names, when a ``*`` clause needs them (bound, not run)."""
    whens = statement.args.get("whens")
    stars = whens is not None and any(
        isinstance(w.args.get("then"), exp.Insert | exp.Update)
        and any(isinstance(e, exp.Star) for e in [w.args["then"].this, *w.args["then"].expressions])
        for w in whens.expressions
    )
    if not stars:
        return None
    source = statement.args["using"].copy()
    return session.query_columns(exp.select(exp.Star()).from_(source), params)


class CardinalityCheck:
    """Spark's MERGE_CARDINALITY_VIOLATION: no target row may be matched twice."""

    def __init__(self, table: str):
        from pyroaring import BitMap64

        self.table = table
        self._seen: dict[str, BitMap64] = {}
        self._new = BitMap64

    def add(self, files: pa.Array, positions: pa.Array) -> None:
        if len(files) == 0:
            return
        encoded = (
            pc.dictionary_encode(files).combine_chunks()
            if isinstance(files, pa.ChunkedArray)
            else pc.dictionary_encode(files)
        )
        paths = encoded.dictionary.to_pylist()
        indices = ints(encoded.indices)
        by_file = ints(positions).astype(np.uint64)[np.argsort(indices, kind="stable")]
        ends = np.cumsum(np.bincount(indices, minlength=len(paths)))
        for index, path in enumerate(paths):
            pos = by_file[ends[index - 1] if index else 0 : ends[index]]
            seen = self._seen.get(path)
            if seen is None:
                seen = self._seen[path] = self._new()
            before = len(seen)
            seen.update(pos)
            if len(seen) - before != len(pos):
                raise DataError(
                    "[MERGE_CARDINALITY_VIOLATION] The ON search condition of the MERGE statement"
                    f" matched a single row from the target table {self.table} with multiple rows"
                    " of the source table. This could result in the target row being operated on"
                    " more than once with an update or delete operation and is not allowed."
                )
