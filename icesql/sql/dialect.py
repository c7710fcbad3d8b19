"""Spark SQL as Spark with the Iceberg extensions accepts it, on top of sqlglot's Spark.

sqlglot already knows ``VERSION AS OF`` / ``TIMESTAMP AS OF`` / ``FOR SYSTEM_TIME AS OF``;
this dialect adds what Iceberg users also write and sqlglot does not parse
(``FOR SYSTEM_VERSION AS OF``), the Iceberg type names ``FIXED(L)``, ``TIMESTAMP_NS`` and
``TIMESTAMPTZ_NS`` (which sqlglot has no type for: a user-defined type of that name, which is
also DuckDB's), Spark's ``VOID``,
every ``ALTER TABLE`` form (Iceberg's SQL extensions such as ``ADD PARTITION FIELD``,
``WRITE ORDERED BY`` and branches and tags included), ``CALL`` and ``SHOW``, each a phrase in an entry table of the parser
(``ALTER_TABLE_PARSERS``, ``SHOW_PARSERS``) that builds a typed node of
``icesql.sql.nodes``; ``SET`` / ``RESET`` stay a ``Command`` holding their raw text. Parse
errors become ``ProgrammingError`` naming the line and column of the user's own text.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, TypeVar

import sqlglot
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.errors import ParseError, TokenError
from sqlglot.generators.spark import SparkGenerator
from sqlglot.tokens import Token, TokenType

from icesql.errors import InterfaceError, NotSupportedError, ProgrammingError
from icesql.sql import nodes
from icesql.sql.extensions import ExtensionsParser
from icesql.sql.spark.time_formats import spark_to_strftime
from icesql.sql.syntax_errors import parse_error, token_error
from icesql.sql.table_functions import check_table_functions


def require_interpreted(module: object) -> None:
    """Refuse sqlglot's compiled build (``sqlglotc``, which ``sqlglot[c]`` installs into
    sqlglot's own package): its parser and generator classes take no subclass written in
    Python, so icesql's dialect would fail at its first statement with a bare TypeError."""
    path = str(getattr(module, "__file__", "") or "")
    if path and not path.endswith((".py", ".pyc")):  # a .pyc: a sourceless install
        raise InterfaceError(
            f"icesql cannot run on sqlglot's compiled build ({path}): its parser takes no"
            " dialect written in Python, which icesql's Spark SQL is. Remove it with"
            " 'pip uninstall sqlglotc', which 'sqlglot[c]' installed (sqlglot itself stays)"
        )


require_interpreted(sqlglot.parser)

# the statements that are queries: run, planned and explained as SELECTs
QUERY_TYPES = (exp.Query,)

_E = TypeVar("_E", bound=exp.Expr)
_F = TypeVar("_F", bound=exp.Func)

# meta keys the parser leaves for icesql.sql.output_names: a function's name and arguments as written,
# and the mark of a typed numeric literal (1L, 1.5D), which sqlglot parses as a cast
FUNCTION_NAME = "spark_name"
FUNCTION_ARGS = "spark_args"
TYPED_LITERAL = "spark_typed_literal"
EXTRACT_FIELD = "spark_extract_field"
BARE_FUNCTION = "spark_bare_function"  # current_date written without (): maybe a column
NAMESPACE_PROPERTY = "spark_namespace_property"  # of WITH [DB]PROPERTIES: namespaces only
# type names the Spark dialect of sqlglot does not read: Iceberg's TIMESTAMPTZ_NS (no sqlglot
# type: a user-defined type of that name, which is also DuckDB's) and Spark's VOID (NullType,
# Iceberg's v3 unknown)
NAMED_TYPES = {
    "TIMESTAMPTZ_NS": lambda: exp.DataType.build("TIMESTAMPTZ_NS", udt=True),
    "VOID": lambda: exp.DataType(this=exp.DataType.Type.NULL),
}


# the units of Spark's interval literals (IntervalUtils), singular and plural
SPARK_INTERVAL_UNITS = {
    name + plural
    for name in (
        "YEAR",
        "MONTH",
        "WEEK",
        "DAY",
        "HOUR",
        "MINUTE",
        "SECOND",
        "MILLISECOND",
        "MICROSECOND",
    )
    for plural in ("", "S")
}


# each try_ function as sqlglot parses it, the operator it computes (Spark's TryAdd & co.
# are RuntimeReplaceable: the operator with the operands' rules, NULL on an error)
_TRY_OPERATORS: dict[type[exp.Expr], tuple[str, type[exp.Binary]]] = {
    exp.SafeAdd: ("try_add", exp.Add),
    exp.SafeSubtract: ("try_subtract", exp.Sub),
    exp.SafeMultiply: ("try_multiply", exp.Mul),
    exp.SafeDivide: ("try_divide", exp.Div),
}
_TRY_NAMES = {cls: name for name, cls in _TRY_OPERATORS.values()}


def _expand_try_arithmetic(statement: exp.Expr) -> None:
    """Each ``try_add(a, b)`` & co. (in place) as ``TRY((a + b))``: the operator, so that
    every rule for its operands' types applies, inside DuckDB's TRY (NULL on an error)."""
    for node in list(statement.find_all(*_TRY_OPERATORS)):
        _, operator = _TRY_OPERATORS[type(node)]
        extra = {"typed": False, "safe": True} if operator is exp.Div else {}
        inner = operator(this=node.this, expression=node.expression, **extra)
        node.replace(exp.Try(this=exp.Paren(this=inner)))


def _try_sql(generator: Any, node: exp.Try) -> str:
    """Spark text of a try_ function (``exp.Try`` has none in Spark)."""
    inner = node.this.this if isinstance(node.this, exp.Paren) else node.this
    name = _TRY_NAMES.get(type(inner))
    if name is None:
        return generator.function_fallback_sql(node)
    return generator.func(name, inner.this, inner.expression)


class IcebergSpark(Spark):
    ORIGINAL_NAME_META_KEY = FUNCTION_NAME

    @classmethod
    def format_time(cls, expression: str | exp.Expr | None) -> exp.Expr | None:
        """A datetime pattern as strftime, translated letter by letter or refused; a pattern
        computed at run time cannot be translated, so it is refused too."""
        if expression is None:
            return None
        if isinstance(expression, str):  # the dialect's default formats, quoted
            return exp.Literal.string(spark_to_strftime(expression[1:-1]))
        if isinstance(expression, exp.Literal) and expression.is_string:
            return exp.Literal.string(spark_to_strftime(expression.this))
        raise NotSupportedError(
            f"a datetime pattern computed at run time ({expression.sql(dialect='spark')}) is not"
            " supported: write the pattern as a literal"
        )

    class Generator(SparkGenerator):  # the class Spark.Generator names
        TRANSFORMS = {**SparkGenerator.TRANSFORMS, exp.Try: _try_sql}

    class Tokenizer(Spark.Tokenizer):
        # Iceberg types Spark cannot spell; sqlglot would read FIXED as DECIMAL
        KEYWORDS = {
            **Spark.Tokenizer.KEYWORDS,
            "FIXED": TokenType.FIXEDSTRING,
            "TIMESTAMP_NS": TokenType.TIMESTAMP_NS,
            "RESET": TokenType.COMMAND,  # RESET [key]: the rest of the text is the key
            "CALL": TokenType.EXECUTE,  # parsed (STATEMENT_PARSERS), not a Command string
        }
        # SHOW is parsed (SHOW_PARSERS), so its words are tokens, not one Command string
        COMMANDS = Spark.Tokenizer.COMMANDS - {TokenType.SHOW, TokenType.EXECUTE}

    class Parser(ExtensionsParser):
        FUNCTIONS = {
            **Spark.Parser.FUNCTIONS,
            # to_timestamp's reading of the text, typed TIMESTAMP_NTZ / TIMESTAMP (LTZ)
            "TO_TIMESTAMP_NTZ": lambda args, dialect: exp.Cast(
                this=Spark.Parser.FUNCTIONS["TO_TIMESTAMP"](args, dialect),
                to=exp.DataType.build("TIMESTAMP"),
            ),
            "TO_TIMESTAMP_LTZ": Spark.Parser.FUNCTIONS["TO_TIMESTAMP"],
        }
        # Spark's USE NAMESPACE a.b (sqlglot knows USE DATABASE / SCHEMA / CATALOG)
        USABLES = {**Spark.Parser.USABLES, "NAMESPACE": ()}
        VERSION_PHRASES = {
            ("FOR", "SYSTEM_VERSION"): "VERSION",
            **Spark.Parser.VERSION_PHRASES,
        }
        STATEMENT_PARSERS = {
            **Spark.Parser.STATEMENT_PARSERS,
            # SET key = value keeps its raw text, as Spark reads it (icesql.statements.settings)
            TokenType.SET: lambda self: self._parse_as_command(self._prev),
            TokenType.SHOW: lambda self: self._parse_show(),
            TokenType.EXECUTE: lambda self: self._parse_call(),
            TokenType.REPLACE: lambda self: self._parse_replace_table(),
        }
        # ALTER TABLE t <phrase> ...: tried in order (so ALTER COLUMN before ALTER); sqlglot's
        # ALTER_PARSERS keep serving the other ALTER statements
        ALTER_TABLE_PARSERS = {
            # Iceberg's SQL extensions
            "ADD PARTITION FIELD": lambda self: self._parse_add_partition_field(),
            "DROP PARTITION FIELD": lambda self: self._parse_drop_partition_field(),
            "REPLACE PARTITION FIELD": lambda self: self._parse_replace_partition_field(),
            "WRITE": lambda self: self._parse_write_order(),
            "CREATE OR REPLACE BRANCH": lambda self: self._parse_create_ref("branch", True, True),
            "CREATE BRANCH": lambda self: self._parse_create_ref("branch", True, False),
            "REPLACE BRANCH": lambda self: self._parse_create_ref("branch", False, True),
            "DROP BRANCH": lambda self: self._parse_drop_ref("branch"),
            "CREATE OR REPLACE TAG": lambda self: self._parse_create_ref("tag", True, True),
            "CREATE TAG": lambda self: self._parse_create_ref("tag", True, False),
            "REPLACE TAG": lambda self: self._parse_create_ref("tag", False, True),
            "DROP TAG": lambda self: self._parse_drop_ref("tag"),
            "SET IDENTIFIER FIELDS": lambda self: self._parse_identifier_fields(
                nodes.SetIdentifierFields
            ),
            "DROP IDENTIFIER FIELDS": lambda self: self._parse_identifier_fields(
                nodes.DropIdentifierFields
            ),
            # Spark's own
            "ADD COLUMNS": lambda self: self._parse_add_columns(),
            "ADD COLUMN": lambda self: self._parse_add_columns(),
            "DROP COLUMNS": lambda self: self._parse_drop_columns(),
            "DROP COLUMN": lambda self: self._parse_drop_columns(),
            "RENAME COLUMN": lambda self: self._parse_rename_column(),
            "RENAME TO": lambda self: self._parse_rename_table(),
            "ALTER COLUMN": lambda self: self._parse_alter_column(),
            "ALTER": lambda self: self._parse_alter_column(),
            "CHANGE COLUMN": lambda self: self._parse_alter_column(),
            "SET TBLPROPERTIES": lambda self: self._parse_set_table_properties(),
            "UNSET TBLPROPERTIES": lambda self: self._parse_unset_table_properties(),
        }
        ALTER_VIEW_PARSERS = {
            "SET TBLPROPERTIES": lambda self: self._parse_set_table_properties(),
            "UNSET TBLPROPERTIES": lambda self: self._parse_unset_table_properties(),
            "RENAME TO": lambda self: self._parse_rename_table(),
            "AS": lambda self: self._parse_alter_view_query(),
        }
        SHOW_PARSERS = {
            "NAMESPACES": lambda self: self._parse_show_in(nodes.ShowNamespaces),
            "DATABASES": lambda self: self._parse_show_in(nodes.ShowNamespaces),
            "SCHEMAS": lambda self: self._parse_show_in(nodes.ShowNamespaces),
            "TABLES": lambda self: self._parse_show_in(nodes.ShowTables),
            "VIEWS": lambda self: self._parse_show_in(nodes.ShowViews),
            "CREATE TABLE": lambda self: self._parse_show_create_table(),
            "TBLPROPERTIES": lambda self: self._parse_show_table_properties(),
        }
        EXPRESSION_PARSERS = {
            **Spark.Parser.EXPRESSION_PARSERS,
            nodes.TransformTerm: lambda self: self._parse_partition_term(),
        }
        COLUMN_OPERATORS = {
            **Spark.Parser.COLUMN_OPERATORS,
            TokenType.DCOLON: lambda self, this, to: self._parse_dcolon_cast(this, to),
        }
        # PARTITIONED BY (bucket(..) / truncate(..)): Spark's refusals, not sqlglot's 2-argument cut
        CONSTRAINT_PARSERS = {
            **Spark.Parser.CONSTRAINT_PARSERS,
            "BUCKET": lambda self: self._parse_bucket_or_truncate_item(),
            "TRUNCATE": lambda self: self._parse_bucket_or_truncate_item(),
        }
        PLACEHOLDER_PARSERS = {
            **Spark.Parser.PLACEHOLDER_PARSERS,
            TokenType.PLACEHOLDER: lambda self: self._positioned_placeholder(),
        }

        # sqlglot declares Alter | Command; ALTER TABLE's actions here are icesql's own nodes
        def _parse_alter(self) -> exp.Expr:  # type: ignore[override]
            # every ALTER TABLE goes through ALTER_TABLE_PARSERS, one grammar for the family
            # (sqlglot parses only some of its forms and degrades Iceberg's to a Command)
            if self._curr is not None and self._curr.token_type == TokenType.TABLE:
                return self._parse_alter_table_action(self.ALTER_TABLE_PARSERS)
            if self._curr is not None and self._curr.token_type == TokenType.VIEW:
                return self._parse_alter_table_action(self.ALTER_VIEW_PARSERS, "VIEW")
            index = self._index
            statement = super()._parse_alter()
            if isinstance(statement, exp.Command):  # not an ALTER sqlglot knows either
                self._retreat(index)
                raise self._syntax_error("TABLE")
            return statement

        def _parse_with_property(self) -> exp.Expr | None | list[exp.Expr]:
            # CREATE NAMESPACE ... WITH [DB]PROPERTIES (...), which sqlglot degrades to a
            # Command; marked, so that a CREATE TABLE refuses it as Spark's parser does
            if self._match_texts(("DBPROPERTIES", "PROPERTIES")):
                found: list[exp.Expr] = []
                for prop in self._parse_wrapped_properties():
                    found.extend(prop) if isinstance(prop, list) else found.append(prop)
                for prop in found:
                    prop.meta[NAMESPACE_PROPERTY] = True
                return found
            return super()._parse_with_property()

        def _parse_show(self) -> exp.Expr:
            entry = self._find_phrase(self.SHOW_PARSERS)
            if entry is None:
                self._refuse_show()
            return entry(self)

        def validate_expression(self, expression: _E, args: list | None = None) -> _E:
            if args is not None:
                expression.meta[FUNCTION_ARGS] = list(args)  # a known function, as written
            return super().validate_expression(expression, args)

        def _parse_function_call(self, *args: Any, **kwargs: Any) -> exp.Expr | None:
            token = self._curr
            result = super()._parse_function_call(*args, **kwargs)
            func = result.this if isinstance(result, exp.Window) else result
            if isinstance(func, exp.Func) and token is not None:
                func.meta.setdefault(FUNCTION_NAME, token.text)  # also the specially parsed
                if self._prev is token and not func.args:
                    # current_date (current_user...) without parentheses: the word as
                    # written, since Spark reads a column of that name first
                    func.meta[BARE_FUNCTION] = token.text
            return result

        def _parse_column_def(
            self, this: exp.Expr | None, computed_column: bool = True
        ) -> exp.Expr | None:
            # CREATE TABLE t (current_date INT): a column's name, not the function
            if this is not None and this.meta.get(BARE_FUNCTION):
                this = exp.to_identifier(this.meta[BARE_FUNCTION])
            return super()._parse_column_def(this, computed_column)

        def _parse_distinct_arg_function(self, func: type[_F], distinct_index: int = 0) -> _F:
            # percentile(x, p, frequency): sqlglot keeps the arguments its node has room for;
            # remember all of them, so a rewrite can refuse the ones it would drop
            start = self._index
            node = super()._parse_distinct_arg_function(func, distinct_index)
            end = self._index
            self._retreat(start)
            self._match(TokenType.DISTINCT) or self._match(TokenType.ALL)
            written = [self._parse_lambda()]
            if self._match(TokenType.COMMA):
                written.extend(self._parse_function_args())
            self._retreat(end)
            node.meta[FUNCTION_ARGS] = written
            return node

        def _parse_interval(  # type: ignore[override]  # a parenthesised sum: any operand
            self, require_interval: bool = True, parse_function_unit: bool = True
        ) -> exp.Expr | None:
            # Spark's INTERVAL 1 DAY -1 HOUR 2 SECONDS is one literal: sqlglot reads its units
            # as a sum but stops at a minus, and the sum needs parentheses to stay one operand
            # (-INTERVAL 1 YEAR 1 MONTH, INTERVAL 2 WEEKS 3 MICROSECONDS * 1.5)
            unit_less = self._unit_less_interval() if require_interval else None
            if unit_less is not None:
                return unit_less
            node = super()._parse_interval(
                require_interval=require_interval, parse_function_unit=parse_function_unit
            )
            if not require_interval or node is None:
                return node
            while self._negative_interval_part_follows():
                self._advance()
                part = super()._parse_interval(False, parse_function_unit=parse_function_unit)
                if part is None:
                    break
                first = part
                while isinstance(first, exp.Add):
                    first = first.this
                if isinstance(first, exp.Interval) and isinstance(first.this, exp.Literal):
                    text = first.this.name
                    first.set(
                        "this", exp.Literal.string(text[1:] if text[:1] == "-" else f"-{text}")
                    )
                node = exp.Add(this=node, expression=part)
            if not isinstance(node, exp.Add):
                return node
            parts = [p for p in node.walk() if isinstance(p, exp.Interval)]
            if any(isinstance(p.args.get("unit"), exp.IntervalSpan) for p in parts):
                raise ProgrammingError(
                    "Can only have a single from-to unit in the interval literal syntax."
                )
            return exp.Paren(this=node)

        def _unit_less_interval(self) -> exp.Interval | None:
            """``INTERVAL '1 day 2 hours'`` as written: sqlglot splits a unit off the text
            (``'1 day 2'`` becomes 1 DAY), where Spark reads or refuses the text whole. A unit
            written after text that names units is refused, as Spark refuses it."""
            if self._curr is None or self._curr.token_type != TokenType.INTERVAL:
                return None
            value = self._next
            if value is None or value.token_type != TokenType.STRING:
                return None
            tokens = self._tokens[self._index + 2 : self._index + 4]
            unit = tokens[0].text.upper() if tokens else ""
            if unit not in SPARK_INTERVAL_UNITS:
                self._advance(2)
                return exp.Interval(this=exp.Literal.string(value.text))
            spanned = len(tokens) > 1 and tokens[1].text.upper() == "TO"
            if not spanned and any(ch.isalpha() for ch in value.text):
                raise ProgrammingError(
                    "Can only use numbers in the interval value part for multiple unit value"
                    f" pairs interval form, but got invalid value: {value.text}"
                )
            return None

        def _negative_interval_part_follows(self) -> bool:
            if self._curr is None or self._curr.token_type != TokenType.DASH:
                return False
            value = self._next
            unit = self._tokens[self._index + 2] if self._index + 2 < len(self._tokens) else None
            return (
                value is not None
                and value.token_type in (TokenType.NUMBER, TokenType.STRING)
                and unit is not None
                and unit.text.upper() in self.dialect.VALID_INTERVAL_UNITS
            )

        def _parse_extract(self) -> exp.Extract | exp.Anonymous:
            field = self._curr.text if self._curr is not None else None
            node = super()._parse_extract()
            if field is not None:
                node.meta[EXTRACT_FIELD] = field  # as written: sqlglot upper-cases it
            return node

        def _parse_types(
            self,
            check_func: bool = False,
            schema: bool = False,
            allow_identifiers: bool = True,
            with_collation: bool = False,
        ) -> exp.Expr | None:
            # where a type may stand; sqlglot's _parse_type retreats to a column of that name
            # when no literal follows (``SELECT timestamptz_ns FROM t``)
            token = self._curr
            if (
                token is not None
                and token.token_type == TokenType.VAR
                and token.text.upper() in NAMED_TYPES
            ):
                self._advance()
                return NAMED_TYPES[token.text.upper()]()
            parsed = super()._parse_types(
                check_func=check_func,
                schema=schema,
                allow_identifiers=allow_identifiers,
                with_collation=with_collation,
            )
            if (
                isinstance(parsed, exp.DataType)
                and parsed.this == exp.DataType.Type.DECIMAL
                and not parsed.expressions
            ):
                # Spark's DECIMAL (DEC, NUMERIC) is DECIMAL(10, 0); DuckDB's DECIMAL(18, 3)
                parsed.set(
                    "expressions", [exp.DataTypeParam(this=exp.Literal.number(n)) for n in (10, 0)]
                )
            return parsed

        def _parse_struct_types(self, type_required: bool = False) -> exp.Expr | None:
            # ``STRUCT<a: TIMESTAMPTZ_NS>``: sqlglot checks the field's type against its type
            # tokens before parsing it, and a named type is no token
            name = self._curr
            after: Token | None = self._next
            if after is not None and after.token_type == TokenType.COLON:
                after = (
                    self._tokens[self._index + 2] if self._index + 2 < len(self._tokens) else None
                )
            if (
                name is not None
                and after is not None
                and after.token_type == TokenType.VAR
                and after.text.upper() in NAMED_TYPES
            ):
                this = self._parse_id_var(any_token=True)
                self._match(TokenType.COLON)
                return self._parse_column_def(this)
            return super()._parse_struct_types(type_required=type_required)

        def _parse_dcolon_cast(self, this: exp.Expr, to: exp.Expr) -> exp.Expr:
            node = self.build_cast(strict=self.STRICT_CAST, this=this, to=to)
            if self._prev.text.upper() in Spark.Tokenizer.NUMERIC_LITERALS:
                node.meta[TYPED_LITERAL] = True  # 1L is tokenized as 1::BIGINT
                value = node.this
                if (
                    self._prev.text.upper() == "BD"
                    and isinstance(value, exp.Literal)
                    and "e" in value.name.lower()
                ):
                    # 123.0E-28BD: DuckDB's cast of the exponent form to a DECIMAL is NULL
                    value.set("this", format(Decimal(value.name), "f"))
            return node

        def _warn_unsupported(self) -> None:
            # the Commands left (SET, RESET, EXPLAIN, CALL ...) are read or refused by their
            # handlers; sqlglot's fallback warning would only be noise
            pass

        def _positioned_placeholder(self) -> exp.Placeholder:
            # the tree's walk order is not the text's order (LIMIT comes before WHERE), so
            # each `?` remembers where it stood; number_parameters() relies on that
            node = self.expression(exp.Placeholder())
            node.meta["icesql_pos"] = self._prev.start
            return node


DIALECT = IcebergSpark()


def parse(sql: str) -> list[exp.Expr]:
    """Parse one or more ``;``-separated statements; empty statements are dropped. A call of
    a table function that is not Spark's (DuckDB's ``read_csv``...) is refused here, so that
    no statement can reach it (``icesql.sql.table_functions``)."""
    try:
        statements = sqlglot.parse(sql, dialect=DIALECT)
    except ParseError as e:
        raise _parse_error(sql, e) from None
    except TokenError as e:
        raise token_error(e) from None
    out = [s for s in statements if s is not None]
    for statement in out:
        check_table_functions(statement)
        _expand_try_arithmetic(statement)
    if any(_is_view(s) for s in out):
        texts = split_statements(sql)
        if len(texts) == len(out):
            for statement, text in zip(out, texts):
                if _is_view(statement):
                    statement.meta[VIEW_TEXT] = _view_query_text(text)
    return out


VIEW_TEXT = "icesql_view_text"  # a CREATE VIEW's query as written (Spark keeps it so)


def _is_view(statement: exp.Expr) -> bool:
    return (
        isinstance(statement, exp.Create)
        and str(statement.args.get("kind") or "").upper() == "VIEW"
        and statement.expression is not None
    )


def _view_query_text(text: str) -> str | None:
    """The text after a CREATE VIEW's ``AS`` (the first one outside parentheses after
    ``VIEW``), exactly as written: what Spark stores as the view's SQL."""
    depth, seen_view = 0, False
    for token in DIALECT.tokenize(text):
        kind = token.token_type
        if kind == TokenType.L_PAREN:
            depth += 1
        elif kind == TokenType.R_PAREN:
            depth -= 1
        elif kind == TokenType.VIEW:
            seen_view = True
        elif seen_view and depth == 0 and kind == TokenType.ALIAS:
            return text[token.end + 1 :].strip()
    return None


def split_statements(sql: str) -> list[str]:
    """The text of each ``;``-separated statement, exactly as written (empty ones dropped)."""
    try:
        tokens = DIALECT.tokenize(sql)
    except TokenError as e:
        raise token_error(e) from None
    out, start = [], 0
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            out.append(sql[start : token.start])
            start = token.end + 1
    out.append(sql[start:])
    return [text.strip() for text in out if text.strip()]


def number_parameters(statement: exp.Expr) -> int:
    """Give each ``?`` its index in the text (``meta['icesql_param']``); returns the count."""
    marks = [p for p in statement.find_all(exp.Placeholder) if "icesql_pos" in p.meta]
    marks.sort(key=lambda p: p.meta["icesql_pos"])
    for i, node in enumerate(marks):
        node.meta["icesql_param"] = i
    return len(marks)


def check_parameters(statement: exp.Expr, params: Sequence[object]) -> None:
    """Number the ``?`` markers and refuse a count that differs from the values given."""
    count = number_parameters(statement)
    if count != len(params):
        raise ProgrammingError(
            f"the statement has {count} parameter marker(s) but {len(params)} value(s) were given"
        )


_EXPLAIN_MODES = ("EXTENDED", "FORMATTED", "CODEGEN", "COST")


def explained_query(statement: exp.Expr) -> exp.Expr | None:
    """The query of an ``EXPLAIN [mode] <query>`` (sqlglot keeps EXPLAIN as a Command)."""
    if not isinstance(statement, exp.Command) or str(statement.this).upper() != "EXPLAIN":
        return None
    text = statement.expression.name if statement.expression is not None else ""
    first = text.split(None, 1)
    if first and first[0].upper() in _EXPLAIN_MODES:
        text = first[1] if len(first) > 1 else ""
    inner = parse(text)
    if len(inner) != 1 or not isinstance(inner[0], QUERY_TYPES):
        raise NotSupportedError("EXPLAIN is supported for queries (SELECT ...) only")
    return inner[0]


def parse_term(text: str) -> nodes.Term:
    """One transform term (``bucket(16, id)``, ``days(ts)``, ``st.a``), e.g. from the text
    of a ``PARTITIONED BY`` item sqlglot parsed."""
    try:
        (transform,) = DIALECT.parser().parse_into(
            nodes.TransformTerm, DIALECT.tokenize(text), text
        )
    except ParseError as e:
        raise _parse_error(text, e) from None
    except TokenError as e:
        raise token_error(e) from None
    return transform.term  # type: ignore[union-attr]


def command_parts(node: exp.Command) -> tuple[str, str]:
    """The first word and the rest of a sqlglot ``Command``'s text."""
    rest = node.args.get("expression")
    text = rest.name if isinstance(rest, exp.Expr) else str(rest or "")
    return str(node.this), text


def parse_one(sql: str) -> exp.Expr:
    statements = parse(sql)
    if len(statements) != 1:
        raise ProgrammingError(
            f"expected exactly one statement, got {len(statements)}"
            " (use executescript or split on ';')"
        )
    return statements[0]


def _parse_error(sql: str, e: ParseError) -> ProgrammingError:
    return parse_error(sql, e, DIALECT.tokenize)
