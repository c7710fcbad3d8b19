"""The parse methods behind the ``ALTER TABLE`` and ``SHOW`` entries of icesql's dialect.

``IcebergSpark.Parser`` (``icesql.sql.dialect``) routes ``ALTER TABLE t <phrase>`` through its
``ALTER_TABLE_PARSERS`` table and ``SHOW <phrase>`` through ``SHOW_PARSERS``; each entry
calls one method here, which reads on from sqlglot's own token cursor and returns a typed
node of ``icesql.sql.nodes``. ``grammar/alter_table.ebnf`` and ``grammar/show.ebnf`` are the
written form. Column types are read by sqlglot's type parser, as in ``CREATE TABLE``.

Spark refuses what it cannot parse, and so do we: a syntax error is a ``ProgrammingError``
naming the token where parsing stopped, its line and column, and what was expected.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NoReturn

from sqlglot import exp
from sqlglot.parsers.spark import SparkParser
from sqlglot.tokens import Token, TokenType

from icesql.errors import NotSupportedError, ProgrammingError
from icesql.sql import nodes

__all__ = ["ExtensionsParser"]

# Spark's transform names (and Iceberg's singular aliases) -> spec transform names
_TRANSFORMS = {
    "identity": "identity",
    "bucket": "bucket",
    "truncate": "truncate",
    "years": "year",
    "year": "year",
    "months": "month",
    "month": "month",
    "days": "day",
    "day": "day",
    "date": "day",
    "hours": "hour",
    "hour": "hour",
    "date_hour": "hour",
    "void": "void",
}

_TIME_UNITS = {"DAYS": 86_400_000, "HOURS": 3_600_000, "MINUTES": 60_000}

_PUNCTUATION = {
    TokenType.DOT,
    TokenType.COMMA,
    TokenType.L_PAREN,
    TokenType.R_PAREN,
    TokenType.EQ,
    TokenType.LT,
    TokenType.GT,
    TokenType.SEMICOLON,
}
_QUOTED = (TokenType.STRING, TokenType.IDENTIFIER)

_ALTER_ACTIONS = (
    "an ALTER TABLE action (ADD/DROP/RENAME/ALTER COLUMN, ADD/DROP/REPLACE PARTITION FIELD,"
    " WRITE ..., SET/UNSET TBLPROPERTIES, RENAME TO, SET/DROP IDENTIFIER FIELDS,"
    " CREATE/REPLACE/DROP BRANCH|TAG)"
)

Entry = Callable[["ExtensionsParser"], exp.Expr]


class ExtensionsParser(SparkParser):  # the class Spark.Parser names
    """sqlglot's Spark parser plus the methods the dialect's entry tables name."""

    # --- dispatch -----------------------------------------------------------------------------

    def _find_phrase(self, entries: Mapping[str, Entry]) -> Entry | None:
        """The first entry whose key (words) the next tokens spell, consumed; else None.
        Keys are tried in order, so ``ALTER COLUMN`` is listed before ``ALTER``."""
        for phrase, entry in entries.items():
            if self._match_words(*phrase.split(" ")):
                return entry
        return None

    def _parse_alter_table_action(
        self, entries: Mapping[str, Entry], kind: str = "TABLE"
    ) -> exp.Alter:
        """``TABLE name <action>`` (or ``VIEW name <action>``) after ``ALTER``: sqlglot's
        ``exp.Alter`` with one action."""
        self._advance()  # TABLE / VIEW
        table = nodes.table_name(self._parse_name_parts())
        entry = self._find_phrase(entries)
        if entry is None:
            if kind == "VIEW":
                raise self._syntax_error("SET TBLPROPERTIES, UNSET TBLPROPERTIES, RENAME TO or AS")
            self._refuse_alter_action()
        action = entry(self)
        self._expect_end()
        return self.expression(exp.Alter(this=table, kind=kind, actions=[action]))

    def _parse_alter_view_query(self) -> nodes.AlterViewQuery:
        query = self._parse_select(nested=True)
        if query is None:
            raise self._syntax_error("a query")
        return self.expression(nodes.AlterViewQuery(this=query))

    def _refuse_alter_action(self) -> NoReturn:
        for verb, expected in (
            ("ADD", "COLUMN, COLUMNS or PARTITION FIELD"),
            ("DROP", "COLUMN, COLUMNS, PARTITION FIELD, IDENTIFIER FIELDS, BRANCH or TAG"),
            ("CREATE", "BRANCH, TAG or OR REPLACE BRANCH|TAG"),
            ("REPLACE", "BRANCH, TAG or PARTITION FIELD"),
            ("RENAME", "COLUMN or TO"),
        ):
            if self._peek_word() == verb:
                self._advance()
                raise self._syntax_error(expected)
        raise self._syntax_error(_ALTER_ACTIONS)

    def _refuse_show(self) -> NoReturn:
        rest = self._find_sql(self._curr, self._tokens[-1]) if self._curr else ""
        raise NotSupportedError(
            f"SHOW {rest} is not supported (SHOW NAMESPACES, TABLES, VIEWS,"
            " CREATE TABLE and TBLPROPERTIES are)"
        )

    # --- tokens -------------------------------------------------------------------------------

    def _peek_word(self, offset: int = 0) -> str | None:
        """The next token (``offset`` further on) as an upper-case keyword; None when it is
        quoted (a string or a back-quoted name is never a keyword) or past the end."""
        index = self._index + offset
        token = self._tokens[index] if index < len(self._tokens) else None
        if not token or token.token_type in _QUOTED:
            return None
        return token.text.upper()

    def _match_words(self, *words: str) -> bool:
        """Consume ``words`` if the next tokens are exactly these keywords."""
        if all(self._peek_word(i) == w for i, w in enumerate(words)):
            self._advance(len(words))
            return True
        return False

    def _expect_words(self, *words: str) -> None:
        if not self._match_words(*words):
            raise self._syntax_error(" ".join(words))

    def _expect_token(self, token_type: TokenType, what: str) -> Token:
        if not self._match(token_type):
            raise self._syntax_error(what)
        return self._prev

    def _expect_end(self) -> None:
        if self._curr:
            raise self._syntax_error("the end of the statement")

    def _syntax_error(self, expected: str) -> ProgrammingError:
        first = self._tokens[0]
        statement = self._find_sql(first, self._tokens[-1])
        if first.token_type in (TokenType.ALTER, TokenType.SHOW, TokenType.EXECUTE):
            keyword = first.text.upper()
        else:  # a PARTITIONED BY item, parsed on its own
            keyword, statement = "PARTITIONED BY", f"PARTITIONED BY {statement}"
        token = self._curr
        if not token:
            where = "at the end"
        else:
            column = token.start - self.sql.rfind("\n", 0, token.start)
            where = f"near '{token.text}' (line {token.line}, column {column})"
        return ProgrammingError(
            f"syntax error in {keyword} statement {where}: expected {expected}\n  {statement}"
        )

    # --- names, strings, numbers, types -------------------------------------------------------

    def _parse_name_part(self) -> exp.Identifier:
        token = self._curr
        if (
            not token
            or token.token_type in _PUNCTUATION
            or token.token_type
            in (
                TokenType.STRING,
                TokenType.NUMBER,
            )
        ):
            raise self._syntax_error("a name")
        self._advance()
        return exp.Identifier(this=token.text, quoted=token.token_type == TokenType.IDENTIFIER)

    def _parse_name_parts(self) -> list[exp.Identifier]:
        parts = [self._parse_name_part()]
        while self._match(TokenType.DOT):
            parts.append(self._parse_name_part())
        return parts

    def _parse_column_path(self) -> exp.Expr:
        return nodes.column_path(self._parse_name_parts())

    def _parse_column_paths(self, closing: bool = False) -> list[exp.Expr]:
        paths = [self._parse_column_path()]
        while self._match(TokenType.COMMA):
            paths.append(self._parse_column_path())
        if closing:
            self._expect_token(TokenType.R_PAREN, "')'")
        return paths

    def _parse_string_literal(self) -> exp.Literal:
        return exp.Literal.string(self._expect_token(TokenType.STRING, "a quoted string").text)

    def _parse_integer(self) -> int:
        token = self._expect_token(TokenType.NUMBER, "a number")
        try:
            return int(token.text)
        except ValueError:
            raise self._syntax_error("an integer") from None

    def _parse_column_type(self) -> exp.DataType:
        token = self._curr
        if not token:
            raise self._syntax_error("a type")
        dtype = self.EXPRESSION_PARSERS[exp.DataType](self)
        if not isinstance(dtype, exp.DataType):
            raise ProgrammingError(f"invalid type {token.text!r} in ALTER statement")
        return dtype

    # --- transforms ---------------------------------------------------------------------------

    def _parse_transform_term(self) -> nodes.TransformTerm:
        """``col`` | ``transform(col)`` | ``bucket(N, col)`` | ``truncate(N, col)``."""
        first = self._parse_name_parts()
        if len(first) != 1 or not self._match(TokenType.L_PAREN):
            return self.expression(
                nodes.TransformTerm(this=nodes.column_path(first), kind="identity")
            )
        written = first[0].name
        func = written.lower()
        if func not in _TRANSFORMS:
            raise ProgrammingError(
                f"unknown partition transform {written!r}; expected one of"
                " identity, bucket, truncate, years, months, days, hours, void"
            )
        kind = _TRANSFORMS[func]
        start = self._curr
        args: list[int | exp.Expr] = []
        while True:
            if self._curr and self._curr.token_type == TokenType.NUMBER:
                args.append(self._parse_integer())
            else:
                args.append(self._parse_column_path())
            if not self._match(TokenType.COMMA):
                break
        self._expect_token(TokenType.R_PAREN, "')'")
        written_term = f"{written}({self._find_sql(start, self._prev)}"
        columns = [a for a in args if isinstance(a, exp.Expr)]
        widths = [a for a in args if isinstance(a, int)]
        if not columns:
            raise ProgrammingError(f"partition transform {func} needs a column")
        if len(columns) > 1:  # Spark's refusal (Iceberg's multi-argument specs are v3 metadata)
            raise ProgrammingError(
                f"cannot convert transform with more than one column reference: {written_term}"
            )
        column = columns[0]
        if len(widths) > 1 or (func == "bucket" and widths and not isinstance(args[0], int)):
            raise ProgrammingError(f"invalid transform {written_term}: expected {func}(N, column)")
        width = widths[0] if widths else None
        if kind in ("bucket", "truncate"):
            if width is None or width <= 0:
                raise ProgrammingError(f"{func}(N, column) needs a positive N")
            return self.expression(nodes.TransformTerm(this=column, kind=kind, width=width))
        if width is not None:
            raise ProgrammingError(f"transform {func} takes only a column")
        return self.expression(nodes.TransformTerm(this=column, kind=kind))

    def _parse_bucket_or_truncate_item(self) -> exp.Expr | None:
        """sqlglot's ``BUCKET(..)`` / ``TRUNCATE(..)`` of a ``PARTITIONED BY`` item keeps two
        arguments and drops the rest; refuse what Spark refuses instead: more than one column
        (``bucket(4, id, s)``) and ``bucket(column, N)``."""
        if not self._match(TokenType.L_PAREN, advance=False):
            return super()._parse_partitioned_by_bucket_or_truncate()
        written, start = self._prev.text, self._prev
        args = self._parse_wrapped_csv(lambda: self._parse_primary() or self._parse_column())
        text = self._find_sql(start, self._prev)
        columns = [a for a in args if not isinstance(a, exp.Literal)]
        if len(columns) > 1:
            raise ProgrammingError(
                f"cannot convert transform with more than one column reference: {text}"
            )
        if (
            len(args) != 2
            or not columns
            or (written.upper() == "BUCKET" and not isinstance(args[0], exp.Literal))
        ):
            raise ProgrammingError(
                f"invalid transform {text}: expected {written.lower()}(N, column)"
            )
        klass = exp.PartitionedByBucket if written.upper() == "BUCKET" else exp.PartitionByTruncate
        this, width = (args[1], args[0]) if isinstance(args[0], exp.Literal) else (args[0], args[1])
        return self.expression(klass(this=this, expression=width))

    def _parse_partition_term(self) -> nodes.TransformTerm:
        """One transform and nothing after it (a ``PARTITIONED BY`` item)."""
        transform = self._parse_transform_term()
        self._expect_end()
        return transform

    def _parse_alias_name(self) -> exp.Identifier | None:
        return self._parse_name_part() if self._match_words("AS") else None

    # --- partition fields ---------------------------------------------------------------------

    def _parse_add_partition_field(self) -> nodes.AddPartitionField:
        transform = self._parse_transform_term()
        return self.expression(
            nodes.AddPartitionField(this=transform, alias=self._parse_alias_name())
        )

    def _parse_drop_partition_field(self) -> nodes.DropPartitionField:
        start = self._index
        transform = self._parse_transform_term()
        bare = self._index == start + 1  # one name: a field name, or an identity column
        field = transform.this.this.copy() if bare else None
        return self.expression(nodes.DropPartitionField(this=transform, field=field))

    def _parse_replace_partition_field(self) -> nodes.ReplacePartitionField:
        old = self._parse_drop_partition_field()
        self._expect_words("WITH")
        transform = self._parse_transform_term()
        return self.expression(
            nodes.ReplacePartitionField(
                this=old, expression=transform, alias=self._parse_alias_name()
            )
        )

    # --- write order --------------------------------------------------------------------------

    def _parse_write_order(self) -> nodes.WriteDistributionAndOrdering:
        if self._match_words("UNORDERED"):
            return self.expression(nodes.WriteDistributionAndOrdering(distribution="none"))
        if self._match_words("DISTRIBUTED", "BY", "PARTITION"):
            order = (
                self._parse_write_order_fields()
                if self._match_words("LOCALLY", "ORDERED", "BY")
                else []
            )
            return self.expression(
                nodes.WriteDistributionAndOrdering(distribution="hash", expressions=order)
            )
        if self._match_words("LOCALLY", "ORDERED", "BY"):
            return self.expression(
                nodes.WriteDistributionAndOrdering(expressions=self._parse_write_order_fields())
            )
        if self._match_words("ORDERED", "BY"):
            return self.expression(
                nodes.WriteDistributionAndOrdering(
                    distribution="range", expressions=self._parse_write_order_fields()
                )
            )
        raise self._syntax_error(
            "ORDERED BY, LOCALLY ORDERED BY, DISTRIBUTED BY PARTITION or UNORDERED"
        )

    def _parse_write_order_fields(self) -> list[nodes.WriteOrderField]:
        fields = []
        while True:
            transform = self._parse_transform_term()
            desc = self._match_words("DESC")
            if not desc:
                self._match_words("ASC")
            nulls = None
            if self._match_words("NULLS", "FIRST"):
                nulls = "first"
            elif self._match_words("NULLS", "LAST"):
                nulls = "last"
            fields.append(
                self.expression(nodes.WriteOrderField(this=transform, desc=desc, nulls=nulls))
            )
            if not self._match(TokenType.COMMA):
                return fields

    # --- columns ------------------------------------------------------------------------------

    def _parse_add_columns(self) -> nodes.AddColumns:
        wrapped = self._match(TokenType.L_PAREN)
        columns = [self._parse_new_column()]
        while self._match(TokenType.COMMA):
            columns.append(self._parse_new_column())
        if wrapped:
            self._expect_token(TokenType.R_PAREN, "')'")
        return self.expression(nodes.AddColumns(expressions=columns))

    def _parse_new_column(self) -> nodes.NewColumn:
        """``path type`` then, in any order as Spark allows, ``NOT NULL``, ``DEFAULT expr``,
        ``COMMENT s`` and ``FIRST`` / ``AFTER c``."""
        path = self._parse_column_path()
        kind = self._parse_column_type()
        options: dict[str, object] = {}
        while True:
            start = self._index
            value: object
            if self._match_words("NOT", "NULL"):
                name, value = "not_null", True
            elif self._match_words("DEFAULT"):
                name, value = "default", self._parse_bitwise()
                if value is None:
                    raise self._syntax_error("a default value")
            elif self._match_words("COMMENT"):
                name, value = "comment", self._parse_string_literal()
            else:
                name, value = "position", self._parse_column_position()
                if value is None:
                    break
            if name in options:
                self._retreat(start)
                raise self._syntax_error(f"one {name.replace('_', ' ').upper()} per column")
            options[name] = value
        return self.expression(nodes.NewColumn(this=path, kind=kind, **options))

    def _parse_column_position(self) -> exp.ColumnPosition | None:
        if self._match_words("FIRST"):
            return self.expression(exp.ColumnPosition(position="FIRST"))
        if self._match_words("AFTER"):
            return self.expression(
                exp.ColumnPosition(this=self._parse_name_part(), position="AFTER")
            )
        return None

    def _parse_drop_columns(self) -> nodes.DropColumns:
        exists = self._match_words("IF", "EXISTS")
        closing = self._match(TokenType.L_PAREN)
        paths = self._parse_column_paths(closing=closing)
        return self.expression(nodes.DropColumns(expressions=paths, exists=exists))

    def _parse_rename_column(self) -> nodes.RenameColumn:
        path = self._parse_column_path()
        self._expect_words("TO")
        return self.expression(nodes.RenameColumn(this=path, to=self._parse_name_part()))

    def _parse_rename_table(self) -> nodes.RenameTable:
        return self.expression(nodes.RenameTable(this=nodes.table_name(self._parse_name_parts())))

    def _parse_alter_column(self) -> nodes.AlterColumn:
        path = self._parse_column_path()
        if self._match_words("TYPE"):
            kind = self._parse_column_type()
            comment = self._parse_string_literal() if self._match_words("COMMENT") else None
            return self.expression(nodes.AlterColumn(this=path, kind=kind, comment=comment))
        if self._match_words("COMMENT"):
            return self.expression(
                nodes.AlterColumn(this=path, comment=self._parse_string_literal())
            )
        if self._match_words("SET", "DEFAULT"):
            default = self._parse_bitwise()
            if default is None:
                raise self._syntax_error("a default value")
            return self.expression(nodes.AlterColumn(this=path, default=default))
        if self._match_words("DROP", "DEFAULT"):
            return self.expression(nodes.AlterColumn(this=path, drop_default=True))
        if self._match_words("DROP", "NOT", "NULL"):
            return self.expression(nodes.AlterColumn(this=path, drop_not_null=True))
        if self._match_words("SET", "NOT", "NULL"):
            return self.expression(nodes.AlterColumn(this=path, set_not_null=True))
        position = self._parse_column_position()
        if position is None:
            raise self._syntax_error(
                "TYPE, COMMENT, SET DEFAULT, DROP DEFAULT, DROP NOT NULL, SET NOT NULL, FIRST or AFTER"
            )
        return self.expression(nodes.AlterColumn(this=path, position=position))

    def _parse_identifier_fields(
        self, node: type[nodes.AlterTableAction]
    ) -> nodes.AlterTableAction:
        return self.expression(node(expressions=self._parse_column_paths()))

    # --- properties ---------------------------------------------------------------------------

    def _parse_property_key(self) -> exp.Literal:
        if self._match(TokenType.STRING):
            return exp.Literal.string(self._prev.text)
        return exp.Literal.string(".".join(p.name for p in self._parse_name_parts()))

    def _parse_property_value(self) -> exp.Literal:
        token = self._curr
        if not token:
            raise self._syntax_error("a property value")
        self._advance()
        if token.token_type == TokenType.STRING:
            return exp.Literal.string(token.text)
        text = token.text.lower() if token.text.upper() in ("TRUE", "FALSE") else token.text
        return exp.Literal.string(text)

    def _parse_set_table_properties(self) -> nodes.SetTableProperties:
        self._expect_token(TokenType.L_PAREN, "'('")
        properties = []
        while True:
            key = self._parse_property_key()
            self._match(TokenType.EQ)
            properties.append(exp.Property(this=key, value=self._parse_property_value()))
            if not self._match(TokenType.COMMA):
                break
        self._expect_token(TokenType.R_PAREN, "')'")
        return self.expression(nodes.SetTableProperties(expressions=properties))

    def _parse_unset_table_properties(self) -> nodes.UnsetTableProperties:
        exists = self._match_words("IF", "EXISTS")
        self._expect_token(TokenType.L_PAREN, "'('")
        keys = [self._parse_property_key()]
        while self._match(TokenType.COMMA):
            keys.append(self._parse_property_key())
        self._expect_token(TokenType.R_PAREN, "')'")
        return self.expression(nodes.UnsetTableProperties(expressions=keys, exists=exists))

    # --- branches and tags ---------------------------------------------------------------------

    def _parse_create_ref(self, kind: str, create: bool, replace: bool) -> nodes.CreateOrReplaceRef:
        """The rest of ``CREATE [OR REPLACE] | REPLACE BRANCH|TAG`` (Iceberg's
        ``createReplaceBranchClause`` / ``createReplaceTagClause``)."""
        exists = not replace and self._match_words("IF", "NOT", "EXISTS")
        name = self._parse_name_part()
        version = self._parse_integer() if self._match_words("AS", "OF", "VERSION") else None
        retain = self._parse_duration() if self._match_words("RETAIN") else None
        min_snapshots = max_age = None
        if kind == "branch" and self._match_words("WITH", "SNAPSHOT", "RETENTION"):
            if self._peek_word(1) == "SNAPSHOTS":
                min_snapshots = self._parse_integer()
                self._advance()  # SNAPSHOTS
            if min_snapshots is None or self._curr:
                max_age = self._parse_duration()
        return self.expression(
            nodes.CreateOrReplaceRef(
                this=name,
                kind=kind,
                create=create,
                replace=replace,
                exists=exists,
                version=version,
                retain=retain,
                min_snapshots=min_snapshots,
                max_snapshot_age=max_age,
            )
        )

    def _parse_duration(self) -> int:
        """``n DAYS|HOURS|MINUTES`` in milliseconds (Iceberg's ``timeUnit``)."""
        amount = self._parse_integer()
        unit = _TIME_UNITS.get(self._peek_word() or "")
        if unit is None:
            raise self._syntax_error("DAYS, HOURS or MINUTES")
        self._advance()
        return amount * unit

    def _parse_drop_ref(self, kind: str) -> nodes.DropRef:
        exists = self._match_words("IF", "EXISTS")
        return self.expression(
            nodes.DropRef(this=self._parse_name_part(), kind=kind, exists=exists)
        )

    # --- CALL ------------------------------------------------------------------------------

    def _parse_replace_table(self) -> exp.Expr:
        """Spark's ``REPLACE TABLE t ... [AS SELECT ...]``: ``CREATE OR REPLACE`` that requires
        the table to exist (``REPLACE_ONLY`` on the ``exp.Create``, read by the handler)."""
        if self._curr is None or self._curr.token_type != TokenType.TABLE:
            self.raise_error("REPLACE must be followed by TABLE")
        create = self._parse_create()
        if not isinstance(create, exp.Create):
            self.raise_error("Invalid REPLACE TABLE statement")
        create.set(nodes.REPLACE_ONLY, True)
        return create

    def _parse_call(self) -> exp.Expr:
        """``CALL name(arg, ...)`` (Iceberg's ``#call``: each argument an expression or
        ``name => expression``); the tokenizer reads ``CALL`` as ``EXECUTE``, which Spark SQL
        does not otherwise have."""
        if self._prev.text.upper() != "CALL":
            raise NotSupportedError(f"{self._prev.text.upper()} statements are not supported")
        name = nodes.table_name(self._parse_name_parts())
        self._expect_token(TokenType.L_PAREN, "'('")
        arguments = []
        if not self._match(TokenType.R_PAREN):
            while True:
                arguments.append(self._parse_call_argument())
                if not self._match(TokenType.COMMA):
                    break
            self._expect_token(TokenType.R_PAREN, "',' or ')'")
        self._expect_end()
        return self.expression(nodes.Call(this=name, expressions=arguments))

    def _parse_call_argument(self) -> nodes.CallArgument:
        name = None
        if self._next and self._next.token_type == TokenType.FARROW:
            name = self._parse_name_part()
            self._advance()  # =>
        value = self._parse_assignment()
        if value is None:
            raise self._syntax_error("an argument value")
        return self.expression(nodes.CallArgument(this=name, expression=value))

    # --- SHOW ---------------------------------------------------------------------------------

    def _parse_show_in(self, node: type[exp.Show]) -> exp.Show:
        """``[IN|FROM name] [[LIKE] 'pattern']`` of SHOW NAMESPACES / TABLES / VIEWS."""
        within = None
        if self._match_words("IN") or self._match_words("FROM"):
            within = nodes.table_name(self._parse_name_parts())
        self._match_words("LIKE")
        like = self._parse_string_literal() if self._curr else None
        self._expect_end()
        return self.expression(node(this=within, like=like))

    def _parse_show_create_table(self) -> nodes.ShowCreateTable:
        table = nodes.table_name(self._parse_name_parts())
        self._match_words("AS", "SERDE")
        self._expect_end()
        return self.expression(nodes.ShowCreateTable(this=table))

    def _parse_show_table_properties(self) -> nodes.ShowTableProperties:
        table = nodes.table_name(self._parse_name_parts())
        key = None
        if self._match(TokenType.L_PAREN):
            key = self._parse_property_key()
            self._expect_token(TokenType.R_PAREN, "')'")
        self._expect_end()
        return self.expression(nodes.ShowTableProperties(this=table, expression=key))
