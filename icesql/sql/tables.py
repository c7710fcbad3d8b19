"""Finding the Iceberg tables a statement reads, and what version of each it asks for.

A table reference in Spark SQL carries more than a name: an optional catalog prefix
(``local.db.t``, ``prod.db.t``: one of the connection's catalogs, else the current one), a branch or tag suffix (``db.t.branch_b1``, ``db.t.tag_t1``), a metadata
table suffix (``db.t.snapshots``) and a time-travel clause (``VERSION AS OF``, ``TIMESTAMP
AS OF``, ``FOR SYSTEM_VERSION|SYSTEM_TIME AS OF``). Which reading applies depends on what
exists, so resolution takes, per catalog name, a predicate that asks that catalog.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp

from icesql.errors import ProgrammingError
from icesql.sql.spark_errors import table_not_found

METADATA_TABLES = frozenset(
    {
        "snapshots",
        "history",
        "files",
        "data_files",
        "delete_files",
        "manifests",
        "partitions",
        "entries",
        "refs",
        "metadata_log_entries",
        "all_data_files",
        "all_delete_files",
        "all_files",
        "all_manifests",
        "all_entries",
        "position_deletes",
    }
)


@dataclass(frozen=True)
class TimeTravel:
    """What version of a table a reference reads; all None means the current snapshot.

    ``version`` is a snapshot id (int) or a branch / tag name (str), as Spark's
    ``VERSION AS OF`` accepts either; ``timestamp`` is the SQL expression of
    ``TIMESTAMP AS OF``, evaluated later; ``ref`` comes from a ``branch_`` / ``tag_`` suffix.
    """

    version: int | str | None = None
    timestamp: exp.Expr | None = None
    ref: str | None = None
    ref_kind: str | None = None  # "branch" | "tag" when ``ref`` came from a suffix

    @property
    def is_current(self) -> bool:
        return self.version is None and self.timestamp is None and self.ref is None


@dataclass
class TableReference:
    node: exp.Table
    identifier: tuple[str, ...]
    travel: TimeTravel
    metadata_table: str | None = None
    catalog: str = ""  # the name of the catalog that holds the table

    @property
    def name(self) -> str:
        return ".".join(self.identifier)


def cte_names(statement: exp.Expr) -> set[str]:
    return {cte.alias_or_name.lower() for cte in statement.find_all(exp.CTE)}


def table_nodes(statement: exp.Expr) -> list[exp.Table]:
    """Every named table in the statement that is not a CTE, table function or subquery."""
    ctes = cte_names(statement)
    out = []
    for node in statement.find_all(exp.Table):
        if not isinstance(node.this, (exp.Identifier, exp.Dot)):
            continue  # table functions such as range(10)
        parts = node.parts
        if len(parts) == 1 and parts[0].name.lower() in ctes:
            continue
        out.append(node)
    return out


# what sqlglot hangs on a table node that applies to the relation the node stands for:
# ``t PIVOT (...)``, ``t UNPIVOT (...)``, ``t TABLESAMPLE (...)``
_RELATION_CLAUSES = ("pivots", "sample")


def replace_table(node: exp.Table, relation: exp.Table | exp.Subquery) -> None:
    """Put ``relation`` (a view's or a scan's subquery, or the name DuckDB reads it by) in
    the place of ``node``, carrying over the clauses that apply to whatever relation stands
    there: without them ``t PIVOT (...)`` would read the table's own rows."""
    for key in _RELATION_CLAUSES:
        clause = node.args.get(key)
        if clause and not relation.args.get(key):
            relation.set(key, clause)
    node.replace(relation)


def resolve_reference(
    node: exp.Table,
    catalogs: Mapping[str, Callable[[tuple[str, ...]], bool]],
    current: str,
    default_namespace: Sequence[str] = ("default",),
    params: Sequence[object] = (),
) -> TableReference:
    """Turn a parsed table node into the catalog and table it names and the version it asks
    for. ``catalogs`` maps each catalog's name to its ``table_exists``; ``current`` names the
    catalog of names without a catalog prefix."""
    parts = tuple(p.name for p in node.parts)
    if not parts or any(p == "" for p in parts):
        raise ProgrammingError(f"invalid table name: {node.sql(dialect='spark')}")
    travel = _time_travel(node, params)
    candidates = name_candidates(parts, list(catalogs), current, tuple(default_namespace))
    for catalog, identifier, suffix in candidates:
        if not catalogs[catalog](identifier):
            continue
        if suffix is None:
            return TableReference(node, identifier, travel, catalog=catalog)
        lowered = suffix.lower()
        if lowered.startswith("branch_") or lowered.startswith("tag_"):
            kind, ref = suffix.split("_", 1)
            if not travel.is_current:
                raise ProgrammingError(
                    f"cannot combine {kind.lower()} {ref!r} with time travel on {'.'.join(identifier)}"
                )
            travel = TimeTravel(ref=ref, ref_kind=kind.lower())
            return TableReference(node, identifier, travel, catalog=catalog)
        if lowered in METADATA_TABLES:
            return TableReference(node, identifier, travel, lowered, catalog)
    raise table_not_found(node)


def drop_table_prefixes(statement: exp.Expr, refs: Sequence[TableReference]) -> None:
    """Rewrite columns qualified by a table's full name (``db.t.c``, ``local.db.t.c``,
    ``db.t.*``), as Spark accepts them, to ``t.c``: the only name DuckDB binds for the table.

    Spark qualifies the columns of an unaliased table with its catalog, namespace and name;
    an aliased table answers to its alias alone, so its references are left as written.
    """
    short: dict[tuple[str, ...], str] = {}
    for ref in refs:
        if ref.node.args.get("alias") is not None or ref.metadata_table is not None:
            continue
        if ref.travel.ref_kind is not None:
            continue  # db.t.branch_b: the suffix is not part of a column's qualifier
        full = tuple(p.lower() for p in ref.identifier)
        short[full] = ref.identifier[-1]
        short[(ref.catalog.lower(), *full)] = ref.identifier[-1]
    if not short:
        return
    for column in list(statement.find_all(exp.Column)):
        parts = column.parts
        names = [p.name.lower() for p in parts]
        for k in range(len(parts) - 1, 1, -1):  # the longest qualifier first
            table = short.get(tuple(names[:k]))
            if table is None:
                continue
            node: exp.Expr = exp.Column(this=parts[k], table=exp.to_identifier(table))
            for field in parts[k + 1 :]:  # db.t.s.f: f is a field of the struct column s
                node = exp.Dot(this=node, expression=field)
            column.replace(node)
            break


def name_candidates(
    parts: tuple[str, ...], catalogs: Sequence[str], current: str, default_ns: tuple[str, ...]
) -> list[tuple[str, tuple[str, ...], str | None]]:
    """Readings of a dotted name, most literal first: (catalog, identifier, suffix or None),
    the suffix a branch, tag or metadata table of the table the identifier names."""
    readings = [(current, parts)]
    if len(parts) >= 3:
        named = next((c for c in catalogs if c.lower() == parts[0].lower()), None)
        if named is not None:
            readings.insert(0, (named, parts[1:]))  # `prod.db.t`: table db.t of catalog prod
    out: list[tuple[str, tuple[str, ...], str | None]] = []
    for catalog, p in readings:
        if len(p) == 1:
            out.append((catalog, (*default_ns, p[0]), None))
            continue
        out.append((catalog, p, None))
        if len(p) >= 3:
            out.append((catalog, p[:-1], p[-1]))
        else:
            out.append((catalog, (*default_ns, p[0]), p[1]))
    return out


def _time_travel(node: exp.Table, params: Sequence[object]) -> TimeTravel:
    version = node.args.get("version")
    if version is None:
        return TimeTravel()
    kind = (version.text("kind") or "").upper()
    if kind != "AS OF":
        raise ProgrammingError(f"unsupported time travel clause: {version.sql(dialect='spark')}")
    value = version.expression
    if version.name.upper() == "TIMESTAMP":
        return TimeTravel(timestamp=value)
    literal = _literal_value(value, params)
    if isinstance(literal, bool) or not isinstance(literal, (int, str)):
        raise ProgrammingError(
            f"VERSION AS OF needs a snapshot id or a branch/tag name, got {value.sql(dialect='spark')}"
        )
    return TimeTravel(version=literal)


def _literal_value(node: exp.Expr, params: Sequence[object]) -> object:
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = node.this
        try:
            return int(text)
        except ValueError:
            return float(text)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        value = _literal_value(node.this, params)
        return -value if isinstance(value, (int, float)) else value
    if isinstance(node, exp.Placeholder):
        index = node.meta.get("icesql_param")
        if index is None or index >= len(params):
            raise ProgrammingError("parameter ? in VERSION AS OF has no value")
        return params[index]
    if isinstance(node, (exp.Column, exp.Identifier)):
        return node.name  # VERSION AS OF b1 (a bare name) names a ref
    return None
