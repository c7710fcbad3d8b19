"""The typed nodes icesql's dialect adds to sqlglot's tree, where Spark's grammar (with
Iceberg's SQL extensions) goes beyond what sqlglot's Spark parses.

``ALTER TABLE t <action>`` parses to sqlglot's own ``exp.Alter(this=Table, kind='TABLE',
actions=[action])``, the action one of the ``AlterTableAction`` nodes below; ``SHOW ...``
parses to one of the ``exp.Show`` subclasses below. Their children are sqlglot nodes (a
``Table``, a ``Column`` path, a ``DataType``, ``Literal`` strings); the properties give the
plain values the statement handlers work with::

    >>> from icesql.sql.dialect import parse_one
    >>> action = parse_one("ALTER TABLE db.t ADD PARTITION FIELD bucket(16, id) AS shard").args["actions"][0]
    >>> action.term, action.field_name
    (Term(transform='bucket[16]', column=('id',)), 'shard')

The parse methods that build them are ``icesql.sql.extensions``; the entries that route to
those methods are the tables of ``icesql.sql.dialect.IcebergSpark.Parser``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

__all__ = [
    "REPLACE_ONLY",
    "AddColumns",
    "AddPartitionField",
    "AlterColumn",
    "AlterTableAction",
    "Call",
    "CallArgument",
    "CreateOrReplaceRef",
    "DropColumns",
    "DropIdentifierFields",
    "DropPartitionField",
    "DropRef",
    "NewColumn",
    "RenameColumn",
    "RenameTable",
    "ReplacePartitionField",
    "SetIdentifierFields",
    "SetTableProperties",
    "ShowCreateTable",
    "ShowNamespaces",
    "ShowTableProperties",
    "ShowTables",
    "ShowViews",
    "SortTerm",
    "Term",
    "TransformTerm",
    "AlterViewQuery",
    "UnsetTableProperties",
    "WriteDistributionAndOrdering",
    "WriteOrderField",
    "column_path",
    "name_of",
    "table_name",
]

Name = tuple[str, ...]


# --- values the handlers build specs and sort orders from ------------------------------------


# the arg of an ``exp.Create`` parsed from Spark's ``REPLACE TABLE`` (not ``CREATE OR REPLACE``):
# the table must exist
REPLACE_ONLY = "icesql_replace_only"


@dataclass(frozen=True)
class Term:
    """A column and the transform applied to it (spec transform text, e.g. ``bucket[16]``)."""

    transform: str
    column: Name


@dataclass(frozen=True)
class SortTerm:
    term: Term
    direction: str = "asc"
    null_order: str | None = None  # None: the direction's default


# --- names ------------------------------------------------------------------------------------


def name_of(node: exp.Expr) -> Name:
    """The dotted parts of a ``Table``, ``Column`` or ``Dot`` path, or of an ``Identifier``."""
    if isinstance(node, exp.Identifier):
        return (node.name,)
    return tuple(p.name for p in node.parts)  # type: ignore[attr-defined]


def table_name(parts: list[exp.Identifier]) -> exp.Table:
    """A ``Table`` node for ``parts`` (more than three parts nest in a ``Dot``, as sqlglot's)."""
    *qualifiers, last = parts
    this: exp.Expr = last
    if len(qualifiers) > 2:
        this = exp.Dot.build([*qualifiers[2:], last])
        qualifiers = qualifiers[:2]
    keys = ("catalog", "db")[2 - len(qualifiers) :]
    return exp.Table(this=this, **dict(zip(keys, qualifiers, strict=True)))


def column_path(parts: list[exp.Identifier]) -> exp.Expr:
    """A ``Column`` for ``parts`` (a nested field ``st.a``; past four parts a ``Dot``)."""
    head, rest = parts[:4], parts[4:]
    column = exp.Column(
        **dict(zip(("this", "table", "db", "catalog"), reversed(head), strict=False))
    )
    return exp.Dot.build([column, *rest]) if rest else column


def _string(node: exp.Expr | None) -> str | None:
    return node.this if node is not None else None


# --- ALTER TABLE actions ----------------------------------------------------------------------


class AlterTableAction(exp.Expression):
    """One action of ``ALTER TABLE`` (``exp.Alter.args['actions']``)."""


class TransformTerm(exp.Expression):
    """A partition or sort transform of a column: ``bucket(16, id)`` is
    ``TransformTerm(this=Column(id), kind='bucket', width=16)``; a bare column is ``identity``."""

    arg_types = {"this": True, "kind": True, "width": False}

    @property
    def term(self) -> Term:
        kind, width = self.args["kind"], self.args.get("width")
        return Term(f"{kind}[{width}]" if width is not None else kind, name_of(self.this))


class _Positioned(exp.Expression):
    """A column path with its ``kind`` (type), ``comment`` and ``position``, an
    ``exp.ColumnPosition`` (``FIRST`` or ``AFTER col``) or None."""

    @property
    def first(self) -> bool:
        position = self.args.get("position")
        return position is not None and position.args.get("position") == "FIRST"

    @property
    def after(self) -> str | None:
        position = self.args.get("position")
        return position.this.name if position is not None and position.this is not None else None

    @property
    def path(self) -> Name:
        return name_of(self.this)

    @property
    def comment(self) -> str | None:
        return _string(self.args.get("comment"))

    @property
    def data_type(self) -> exp.DataType | None:
        return self.args.get("kind")


class NewColumn(_Positioned):
    """One column of ``ADD COLUMN(S)``: ``path type [NOT NULL] [DEFAULT expr] [COMMENT s]
    [FIRST|AFTER c]``."""

    arg_types = {
        "this": True,
        "kind": True,
        "not_null": False,
        "default": False,
        "comment": False,
        "position": False,
    }

    @property
    def not_null(self) -> bool:
        return bool(self.args.get("not_null"))

    @property
    def default(self) -> exp.Expr | None:
        """The ``DEFAULT`` expression, as written (None: no DEFAULT clause)."""
        return self.args.get("default")


class AddColumns(AlterTableAction):
    arg_types = {"expressions": True}

    @property
    def columns(self) -> tuple[NewColumn, ...]:
        return tuple(self.expressions)


class DropColumns(AlterTableAction):
    arg_types = {"expressions": True, "exists": False}

    @property
    def paths(self) -> tuple[Name, ...]:
        return tuple(name_of(e) for e in self.expressions)

    @property
    def if_exists(self) -> bool:
        return bool(self.args.get("exists"))


class RenameColumn(AlterTableAction):
    arg_types = {"this": True, "to": True}

    @property
    def path(self) -> Name:
        return name_of(self.this)

    @property
    def new_name(self) -> str:
        return self.args["to"].name


class AlterColumn(_Positioned, AlterTableAction):
    """``ALTER [COLUMN] path`` with one of ``TYPE t [COMMENT s]``, ``COMMENT s``,
    ``SET DEFAULT expr``, ``DROP DEFAULT``, ``DROP NOT NULL``, ``SET NOT NULL``, ``FIRST``,
    ``AFTER c``."""

    arg_types = {
        "this": True,
        "kind": False,
        "comment": False,
        "default": False,
        "drop_default": False,
        "drop_not_null": False,
        "set_not_null": False,
        "position": False,
    }

    @property
    def default(self) -> exp.Expr | None:
        return self.args.get("default")

    @property
    def drop_default(self) -> bool:
        return bool(self.args.get("drop_default"))

    @property
    def drop_not_null(self) -> bool:
        return bool(self.args.get("drop_not_null"))

    @property
    def set_not_null(self) -> bool:
        return bool(self.args.get("set_not_null"))


class SetTableProperties(AlterTableAction):
    """``expressions``: ``exp.Property(this=key, value=value)``, both string literals."""

    arg_types = {"expressions": True}

    @property
    def properties(self) -> tuple[tuple[str, str], ...]:
        return tuple((p.this.this, p.args["value"].this) for p in self.expressions)


class AlterViewQuery(AlterTableAction):
    """``ALTER VIEW v AS query``: ``this`` is the query."""

    arg_types = {"this": True}


class UnsetTableProperties(AlterTableAction):
    arg_types = {"expressions": True, "exists": False}

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(e.this for e in self.expressions)

    @property
    def if_exists(self) -> bool:
        return bool(self.args.get("exists"))


class RenameTable(AlterTableAction):
    arg_types = {"this": True}

    @property
    def new_name(self) -> Name:
        return name_of(self.this)


class AddPartitionField(AlterTableAction):
    """``ADD PARTITION FIELD transform [AS name]``."""

    arg_types = {"this": True, "alias": False}

    @property
    def term(self) -> Term:
        return self.this.term

    @property
    def field_name(self) -> str | None:
        return self.alias or None


class DropPartitionField(AlterTableAction):
    """``DROP PARTITION FIELD transform``; ``field`` is set when it is a bare identifier,
    which may name a partition field or an identity-partitioned column."""

    arg_types = {"this": True, "field": False}

    @property
    def term(self) -> Term:
        return self.this.term

    @property
    def field_name(self) -> str | None:
        field = self.args.get("field")
        return field.name if field is not None else None


class ReplacePartitionField(AlterTableAction):
    """``REPLACE PARTITION FIELD old WITH transform [AS name]``: ``this`` is the old field
    (a ``DropPartitionField``), ``expression`` the new ``TransformTerm``."""

    arg_types = {"this": True, "expression": True, "alias": False}

    @property
    def old(self) -> DropPartitionField:
        return self.this

    @property
    def term(self) -> Term:
        return self.expression.term

    @property
    def field_name(self) -> str | None:
        return self.alias or None


class WriteOrderField(exp.Expression):
    """``transform [ASC|DESC] [NULLS FIRST|LAST]`` of ``WRITE ... ORDERED BY``."""

    arg_types = {"this": True, "desc": False, "nulls": False}

    @property
    def sort_term(self) -> SortTerm:
        nulls = self.args.get("nulls")
        return SortTerm(
            self.this.term,
            "desc" if self.args.get("desc") else "asc",
            f"nulls-{nulls}" if nulls else None,
        )


class WriteDistributionAndOrdering(AlterTableAction):
    """``WRITE [LOCALLY] ORDERED BY ... | DISTRIBUTED BY PARTITION ... | UNORDERED``;
    ``distribution`` is the ``write.distribution-mode`` to set (None: leave it)."""

    arg_types = {"distribution": False, "expressions": False}

    @property
    def distribution(self) -> str | None:
        return self.args.get("distribution")

    @property
    def order(self) -> tuple[SortTerm, ...]:
        return tuple(e.sort_term for e in self.expressions)


class _Paths(AlterTableAction):
    arg_types = {"expressions": True}

    @property
    def paths(self) -> tuple[Name, ...]:
        return tuple(name_of(e) for e in self.expressions)


class SetIdentifierFields(_Paths):
    pass


class DropIdentifierFields(_Paths):
    pass


# --- branches and tags (Iceberg's SQL extensions) ---------------------------------------------


class _RefAction(AlterTableAction):
    """A branch or tag statement: ``this`` the ref's name, ``kind`` ``branch`` or ``tag``."""

    @property
    def ref_name(self) -> str:
        return self.this.name

    @property
    def kind(self) -> str:
        return self.args["kind"]


class CreateOrReplaceRef(_RefAction):
    """``CREATE [OR REPLACE] | REPLACE BRANCH|TAG [IF NOT EXISTS] name [AS OF VERSION id]
    [RETAIN n unit] [WITH SNAPSHOT RETENTION [n SNAPSHOTS] [n unit]]`` (the last only for a
    branch); ``kind`` is ``branch`` or ``tag``, the durations are in milliseconds."""

    arg_types = {
        "this": True,
        "kind": True,
        "create": False,
        "replace": False,
        "exists": False,
        "version": False,
        "retain": False,
        "min_snapshots": False,
        "max_snapshot_age": False,
    }

    @property
    def create(self) -> bool:
        return bool(self.args.get("create"))

    @property
    def or_replace(self) -> bool:
        """The OR REPLACE flag (not ``replace``: that is sqlglot's ``Expr.replace()``)."""
        return bool(self.args.get("replace"))

    @property
    def if_not_exists(self) -> bool:
        return bool(self.args.get("exists"))

    @property
    def snapshot_id(self) -> int | None:
        return self.args.get("version")

    @property
    def max_ref_age_ms(self) -> int | None:
        return self.args.get("retain")

    @property
    def min_snapshots_to_keep(self) -> int | None:
        return self.args.get("min_snapshots")

    @property
    def max_snapshot_age_ms(self) -> int | None:
        return self.args.get("max_snapshot_age")


class DropRef(_RefAction):
    """``DROP BRANCH|TAG [IF EXISTS] name``."""

    arg_types = {"this": True, "kind": True, "exists": False}

    @property
    def if_exists(self) -> bool:
        return bool(self.args.get("exists"))


# --- SHOW -------------------------------------------------------------------------------------


class _ShowIn(exp.Show):
    """``this``: the namespace after ``IN|FROM`` (or None); ``like``: the pattern string."""

    arg_types = {"this": False, "like": False}

    @property
    def namespace(self) -> Name | None:
        return name_of(self.this) if self.this is not None else None

    @property
    def pattern(self) -> str | None:
        return _string(self.args.get("like"))


class ShowNamespaces(_ShowIn):
    """``SHOW NAMESPACES|DATABASES|SCHEMAS [IN|FROM parent] [[LIKE] pattern]``."""


class ShowTables(_ShowIn):
    """``SHOW TABLES [IN|FROM namespace] [[LIKE] pattern]``."""


class ShowViews(_ShowIn):
    """``SHOW VIEWS [IN|FROM namespace] [[LIKE] pattern]``."""


class ShowCreateTable(exp.Show):
    arg_types = {"this": True}

    @property
    def table(self) -> Name:
        return name_of(self.this)


class ShowTableProperties(exp.Show):
    """``SHOW TBLPROPERTIES t [(key)]``."""

    arg_types = {"this": True, "expression": False}

    @property
    def table(self) -> Name:
        return name_of(self.this)

    @property
    def property_key(self) -> str | None:
        return _string(self.expression)


# --- CALL (Iceberg's stored procedures) ------------------------------------------------------


class CallArgument(exp.Expression):
    """One argument of ``CALL``: ``expression`` the value as written, ``this`` the name of a
    named argument (``name => value``) or None for a positional one."""

    arg_types = {"this": False, "expression": True}

    @property
    def arg_name(self) -> str | None:
        return self.this.name if self.this is not None else None


class Call(exp.Expression):
    """``CALL [catalog.]namespace.procedure(arg, ...)``: ``this`` the procedure's name as a
    ``Table`` node, ``expressions`` the ``CallArgument`` nodes."""

    arg_types = {"this": True, "expressions": False}

    @property
    def procedure(self) -> Name:
        return name_of(self.this)

    @property
    def arguments(self) -> tuple[CallArgument, ...]:
        return tuple(self.expressions)
