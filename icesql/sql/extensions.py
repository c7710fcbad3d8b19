"""The statements sqlglot leaves as an opaque ``Command``: ``ALTER TABLE`` and ``SHOW``.

The dialect hands every ``ALTER TABLE`` here (Iceberg's SQL extensions such as
``ADD PARTITION FIELD`` and ``WRITE ORDERED BY`` included), so one grammar covers the
family; ``grammar/alter_table.ebnf`` and ``grammar/show.ebnf`` are its written form. The
parser is a small recursive descent over sqlglot's tokens and returns frozen dataclasses::

    >>> parse_command("ALTER", "TABLE db.t ADD PARTITION FIELD bucket(16, id) AS shard")
    AddPartitionField(table=('db', 't'), term=Term(transform='bucket[16]', column=('id',)), name='shard')

Column types are parsed by sqlglot (``exp.DataType``), so ``ADD COLUMN c STRUCT<a: INT>``
means what it means in ``CREATE TABLE``. Errors are ``ProgrammingError`` naming the column
of the statement where parsing stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from icesql.errors import NotSupportedError, ProgrammingError

__all__ = [
    "AddColumn",
    "AddColumns",
    "AddPartitionField",
    "AlterColumn",
    "DropColumns",
    "DropIdentifierFields",
    "DropPartitionField",
    "RenameColumn",
    "RenameTable",
    "ReplacePartitionField",
    "SetIdentifierFields",
    "SetTableProperties",
    "ShowCreateTable",
    "ShowNamespaces",
    "ShowTables",
    "ShowTableProperties",
    "SortTerm",
    "Term",
    "UnsetTableProperties",
    "WriteDistributionAndOrdering",
    "parse_command",
]

Name = tuple[str, ...]


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


@dataclass(frozen=True)
class Position:
    """``FIRST`` (after is None) or ``AFTER <column>``."""

    after: str | None = None


@dataclass(frozen=True)
class AddColumn:
    path: Name
    type: exp.DataType = field(compare=False)
    not_null: bool = False
    comment: str | None = None
    position: Position | None = None


@dataclass(frozen=True)
class AddColumns:
    table: Name
    columns: tuple[AddColumn, ...]


@dataclass(frozen=True)
class DropColumns:
    table: Name
    paths: tuple[Name, ...]
    if_exists: bool = False


@dataclass(frozen=True)
class RenameColumn:
    table: Name
    path: Name
    new_name: str


@dataclass(frozen=True)
class AlterColumn:
    table: Name
    path: Name
    type: exp.DataType | None = field(default=None, compare=False)
    comment: str | None = None
    drop_not_null: bool = False
    set_not_null: bool = False
    position: Position | None = None


@dataclass(frozen=True)
class SetTableProperties:
    table: Name
    properties: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class UnsetTableProperties:
    table: Name
    keys: tuple[str, ...]
    if_exists: bool = False


@dataclass(frozen=True)
class RenameTable:
    table: Name
    new_name: Name


@dataclass(frozen=True)
class AddPartitionField:
    table: Name
    term: Term
    name: str | None = None


@dataclass(frozen=True)
class DropPartitionField:
    table: Name
    term: Term | None = None
    name: str | None = None  # a bare identifier may name a field or an identity column


@dataclass(frozen=True)
class ReplacePartitionField:
    table: Name
    old: DropPartitionField
    term: Term
    name: str | None = None


@dataclass(frozen=True)
class WriteDistributionAndOrdering:
    """``distribution`` is the ``write.distribution-mode`` to set (None: leave it)."""

    table: Name
    distribution: str | None
    order: tuple[SortTerm, ...]


@dataclass(frozen=True)
class SetIdentifierFields:
    table: Name
    paths: tuple[Name, ...]


@dataclass(frozen=True)
class DropIdentifierFields:
    table: Name
    paths: tuple[Name, ...]


@dataclass(frozen=True)
class ShowNamespaces:
    parent: Name | None = None
    pattern: str | None = None


@dataclass(frozen=True)
class ShowTables:
    namespace: Name | None = None
    pattern: str | None = None


@dataclass(frozen=True)
class ShowCreateTable:
    table: Name


@dataclass(frozen=True)
class ShowTableProperties:
    table: Name
    key: str | None = None


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


def parse_command(keyword: str, text: str) -> object:
    """Parse a ``Command`` (``keyword`` is its first word, ``text`` the rest)."""
    try:
        return _Parser(keyword.upper(), text).statement()
    except TokenError as e:
        raise ProgrammingError(f"syntax error in {keyword} statement: {e}") from None


def command_parts(node: exp.Command) -> tuple[str, str]:
    """The first word and the rest of a sqlglot ``Command``'s text."""
    rest = node.args.get("expression")
    text = rest.name if isinstance(rest, exp.Expr) else str(rest or "")
    return str(node.this), text


class _Parser:
    def __init__(self, keyword: str, text: str):
        from icesql.sql.dialect import DIALECT

        self.keyword = keyword
        self.text = text
        self.dialect = DIALECT
        self.tokens: list[Token] = [t for t in DIALECT.tokenize(text) if t.token_type != TokenType.SEMICOLON]
        self.pos = 0

    # --- token helpers ---------------------------------------------------------------------

    @property
    def current(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def error(self, expected: str) -> ProgrammingError:
        tok = self.current
        where = f"near '{tok.text}' (column {tok.start + len(self.keyword) + 2})" if tok else "at the end"
        return ProgrammingError(
            f"syntax error in {self.keyword} statement {where}: expected {expected}\n"
            f"  {self.keyword} {self.text.strip()}"
        )

    def peek_word(self, offset: int = 0) -> str | None:
        i = self.pos + offset
        if i >= len(self.tokens):
            return None
        tok = self.tokens[i]
        if tok.token_type in (TokenType.STRING, TokenType.IDENTIFIER):
            return None
        return tok.text.upper()

    def match(self, *words: str) -> bool:
        """Consume ``words`` if the next tokens are exactly these keywords."""
        for i, w in enumerate(words):
            if self.peek_word(i) != w:
                return False
        self.pos += len(words)
        return True

    def expect(self, *words: str) -> None:
        if not self.match(*words):
            raise self.error(" ".join(words))

    def match_type(self, token_type: TokenType) -> Token | None:
        tok = self.current
        if tok is not None and tok.token_type == token_type:
            self.pos += 1
            return tok
        return None

    def expect_type(self, token_type: TokenType, what: str) -> Token:
        tok = self.match_type(token_type)
        if tok is None:
            raise self.error(what)
        return tok

    def identifier(self) -> str:
        tok = self.current
        if tok is None or tok.token_type in _PUNCTUATION or tok.token_type in (
            TokenType.STRING,
            TokenType.NUMBER,
        ):
            raise self.error("a name")
        self.pos += 1
        return tok.text

    def name(self) -> Name:
        parts = [self.identifier()]
        while self.match_type(TokenType.DOT):
            parts.append(self.identifier())
        return tuple(parts)

    def string(self) -> str:
        return self.expect_type(TokenType.STRING, "a quoted string").text

    def number(self) -> int:
        tok = self.expect_type(TokenType.NUMBER, "a number")
        try:
            return int(tok.text)
        except ValueError:
            raise self.error("an integer") from None

    def end(self) -> None:
        if self.current is not None:
            raise self.error("the end of the statement")

    def data_type(self) -> exp.DataType:
        """A Spark SQL type, handed to sqlglot: scan to the end of ``NAME(...)<...>``."""
        tok = self.current
        if tok is None:
            raise self.error("a type")
        start = tok.start
        i = start
        text = self.text
        while i < len(text) and (text[i].isalnum() or text[i] == "_"):
            i += 1
        for opener, closer in (("(", ")"), ("<", ">")):
            j = i
            while j < len(text) and text[j].isspace():
                j += 1
            if j < len(text) and text[j] == opener:
                i = _skip_balanced(text, j, opener, closer)
        while self.current is not None and self.current.start < i:
            self.pos += 1
        try:
            return exp.DataType.build(text[start:i], dialect=self.dialect)
        except (ParseError, ValueError):
            raise ProgrammingError(f"invalid type {text[start:i]!r} in {self.keyword} statement") from None

    # --- statements ------------------------------------------------------------------------

    def statement(self) -> object:
        if self.keyword == "SHOW":
            return self.show()
        if self.keyword == "ALTER":
            self.expect("TABLE")
            table = self.name()
            return self.alter_table(table)
        raise NotSupportedError(f"{self.keyword} statements are not supported")

    def show(self) -> object:
        if self.match("NAMESPACES") or self.match("DATABASES") or self.match("SCHEMAS"):
            parent = self.name() if (self.match("IN") or self.match("FROM")) else None
            return ShowNamespaces(parent, self.pattern())
        if self.match("TABLES"):
            namespace = self.name() if (self.match("IN") or self.match("FROM")) else None
            return ShowTables(namespace, self.pattern())
        if self.match("CREATE", "TABLE"):
            table = self.name()
            self.match("AS", "SERDE")
            self.end()
            return ShowCreateTable(table)
        if self.match("TBLPROPERTIES"):
            table = self.name()
            key = None
            if self.match_type(TokenType.L_PAREN):
                key = self.property_key()
                self.expect_type(TokenType.R_PAREN, "')'")
            self.end()
            return ShowTableProperties(table, key)
        raise NotSupportedError(
            f"SHOW {self.text.strip()} is not supported (SHOW NAMESPACES, TABLES, CREATE TABLE"
            " and TBLPROPERTIES are)"
        )

    def pattern(self) -> str | None:
        self.match("LIKE")
        pattern = self.string() if self.current is not None else None
        self.end()
        return pattern

    def property_key(self) -> str:
        tok = self.current
        if tok is not None and tok.token_type == TokenType.STRING:
            self.pos += 1
            return tok.text
        return ".".join(self.name())

    def property_value(self) -> str:
        tok = self.current
        if tok is None:
            raise self.error("a property value")
        self.pos += 1
        if tok.token_type == TokenType.STRING:
            return tok.text
        return tok.text.lower() if tok.text.upper() in ("TRUE", "FALSE") else tok.text

    def alter_table(self, table: Name) -> object:
        if self.match("ADD", "PARTITION", "FIELD"):
            term = self.term()
            name = self.identifier() if self.match("AS") else None
            self.end()
            return AddPartitionField(table, term, name)
        if self.match("DROP", "PARTITION", "FIELD"):
            old = self.partition_field_ref(table)
            self.end()
            return old
        if self.match("REPLACE", "PARTITION", "FIELD"):
            old = self.partition_field_ref(table)
            self.expect("WITH")
            term = self.term()
            name = self.identifier() if self.match("AS") else None
            self.end()
            return ReplacePartitionField(table, old, term, name)
        if self.match("WRITE"):
            return self.write_spec(table)
        if self.match("SET", "IDENTIFIER", "FIELDS"):
            return SetIdentifierFields(table, self.name_list())
        if self.match("DROP", "IDENTIFIER", "FIELDS"):
            return DropIdentifierFields(table, self.name_list())
        if self.match("ADD", "COLUMNS") or self.match("ADD", "COLUMN"):
            return AddColumns(table, self.column_specs())
        if self.match("DROP", "COLUMNS") or self.match("DROP", "COLUMN"):
            if_exists = self.match("IF", "EXISTS")
            if self.match_type(TokenType.L_PAREN):
                paths = self.name_list(closing=True)
            else:
                paths = self.name_list()
            return DropColumns(table, paths, if_exists)
        if self.match("RENAME", "COLUMN"):
            path = self.name()
            self.expect("TO")
            new_name = self.identifier()
            self.end()
            return RenameColumn(table, path, new_name)
        if self.match("RENAME", "TO"):
            new_name = self.name()
            self.end()
            return RenameTable(table, new_name)
        if self.match("ALTER", "COLUMN") or self.match("ALTER") or self.match("CHANGE", "COLUMN"):
            return self.alter_column(table)
        if self.match("SET", "TBLPROPERTIES"):
            return SetTableProperties(table, self.property_list())
        if self.match("UNSET", "TBLPROPERTIES"):
            if_exists = self.match("IF", "EXISTS")
            self.expect_type(TokenType.L_PAREN, "'('")
            keys = [self.property_key()]
            while self.match_type(TokenType.COMMA):
                keys.append(self.property_key())
            self.expect_type(TokenType.R_PAREN, "')'")
            self.end()
            return UnsetTableProperties(table, tuple(keys), if_exists)
        for verb, expected in (
            ("ADD", "COLUMN, COLUMNS or PARTITION FIELD"),
            ("DROP", "COLUMN, COLUMNS, PARTITION FIELD or IDENTIFIER FIELDS"),
            ("RENAME", "COLUMN or TO"),
        ):
            if self.peek_word() == verb and self.peek_word(1) not in ("BRANCH", "TAG"):
                self.pos += 1
                raise self.error(expected)
        for verb in ("CREATE", "REPLACE", "DROP"):
            for ref in ("BRANCH", "TAG"):
                if self.peek_word() == verb and ref in (self.peek_word(1), self.peek_word(3), self.peek_word(4)):
                    raise NotSupportedError(f"ALTER TABLE ... {verb} {ref} is not supported yet")
        raise self.error(
            "an ALTER TABLE action (ADD/DROP/RENAME/ALTER COLUMN, ADD/DROP/REPLACE PARTITION FIELD,"
            " WRITE ..., SET/UNSET TBLPROPERTIES, RENAME TO, SET/DROP IDENTIFIER FIELDS)"
        )

    def name_list(self, closing: bool = False) -> tuple[Name, ...]:
        names = [self.name()]
        while self.match_type(TokenType.COMMA):
            names.append(self.name())
        if closing:
            self.expect_type(TokenType.R_PAREN, "')'")
        self.end()
        return tuple(names)

    def property_list(self) -> tuple[tuple[str, str], ...]:
        self.expect_type(TokenType.L_PAREN, "'('")
        out = []
        while True:
            key = self.property_key()
            self.match_type(TokenType.EQ)
            out.append((key, self.property_value()))
            if not self.match_type(TokenType.COMMA):
                break
        self.expect_type(TokenType.R_PAREN, "')'")
        self.end()
        return tuple(out)

    def column_specs(self) -> tuple[AddColumn, ...]:
        if self.match_type(TokenType.L_PAREN):
            specs = [self.column_spec()]
            while self.match_type(TokenType.COMMA):
                specs.append(self.column_spec())
            self.expect_type(TokenType.R_PAREN, "')'")
        else:
            specs = [self.column_spec()]
            while self.match_type(TokenType.COMMA):
                specs.append(self.column_spec())
        self.end()
        return tuple(specs)

    def column_spec(self) -> AddColumn:
        path = self.name()
        dtype = self.data_type()
        not_null = self.match("NOT", "NULL")
        comment = self.string() if self.match("COMMENT") else None
        return AddColumn(path, dtype, not_null, comment, self.position())

    def position(self) -> Position | None:
        if self.match("FIRST"):
            return Position(None)
        if self.match("AFTER"):
            return Position(self.identifier())
        return None

    def alter_column(self, table: Name) -> AlterColumn:
        path = self.name()
        if self.match("TYPE"):
            out = AlterColumn(table, path, type=self.data_type())
            if self.match("COMMENT"):
                out = AlterColumn(table, path, type=out.type, comment=self.string())
        elif self.match("COMMENT"):
            out = AlterColumn(table, path, comment=self.string())
        elif self.match("DROP", "NOT", "NULL"):
            out = AlterColumn(table, path, drop_not_null=True)
        elif self.match("SET", "NOT", "NULL"):
            out = AlterColumn(table, path, set_not_null=True)
        else:
            position = self.position()
            if position is None:
                raise self.error("TYPE, COMMENT, DROP NOT NULL, SET NOT NULL, FIRST or AFTER")
            out = AlterColumn(table, path, position=position)
        self.end()
        return out

    def term(self) -> Term:
        """``col`` | ``transform(col)`` | ``bucket(N, col)`` | ``truncate(N, col)``."""
        first = self.name()
        if len(first) != 1 or not self.match_type(TokenType.L_PAREN):
            return Term("identity", first)
        func = first[0].lower()
        if func not in _TRANSFORMS:
            raise ProgrammingError(
                f"unknown partition transform {first[0]!r}; expected one of"
                " identity, bucket, truncate, years, months, days, hours, void"
            )
        transform = _TRANSFORMS[func]
        width: int | None = None
        column: Name | None = None
        while True:
            tok = self.current
            if tok is not None and tok.token_type == TokenType.NUMBER:
                width = self.number()
            else:
                column = self.name()
            if not self.match_type(TokenType.COMMA):
                break
        self.expect_type(TokenType.R_PAREN, "')'")
        if column is None:
            raise ProgrammingError(f"partition transform {func} needs a column")
        if transform in ("bucket", "truncate"):
            if width is None or width <= 0:
                raise ProgrammingError(f"{func}(N, column) needs a positive N")
            return Term(f"{transform}[{width}]", column)
        if width is not None:
            raise ProgrammingError(f"transform {func} takes only a column")
        return Term(transform, column)

    def partition_field_ref(self, table: Name) -> DropPartitionField:
        start = self.pos
        term = self.term()
        if term.transform == "identity" and len(term.column) == 1 and self.pos == start + 1:
            return DropPartitionField(table, term, term.column[0])
        return DropPartitionField(table, term, None)

    def write_spec(self, table: Name) -> WriteDistributionAndOrdering:
        distribution: str | None = None
        order: tuple[SortTerm, ...] = ()
        if self.match("UNORDERED"):
            self.end()
            return WriteDistributionAndOrdering(table, "none", ())
        if self.match("DISTRIBUTED", "BY", "PARTITION"):
            distribution = "hash"
            if self.match("LOCALLY", "ORDERED", "BY"):
                order = self.sort_terms()
            self.end()
            return WriteDistributionAndOrdering(table, distribution, order)
        if self.match("LOCALLY", "ORDERED", "BY"):
            order = self.sort_terms()
            self.end()
            return WriteDistributionAndOrdering(table, None, order)
        if self.match("ORDERED", "BY"):
            order = self.sort_terms()
            self.end()
            return WriteDistributionAndOrdering(table, "range", order)
        raise self.error("ORDERED BY, LOCALLY ORDERED BY, DISTRIBUTED BY PARTITION or UNORDERED")

    def sort_terms(self) -> tuple[SortTerm, ...]:
        terms = []
        while True:
            term = self.term()
            direction = "asc"
            if self.match("DESC"):
                direction = "desc"
            else:
                self.match("ASC")
            null_order = None
            if self.match("NULLS", "FIRST"):
                null_order = "nulls-first"
            elif self.match("NULLS", "LAST"):
                null_order = "nulls-last"
            terms.append(SortTerm(term, direction, null_order))
            if not self.match_type(TokenType.COMMA):
                return tuple(terms)


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


def _skip_balanced(text: str, i: int, opener: str, closer: str) -> int:
    """The index after the ``closer`` matching ``text[i] == opener`` (quotes skipped)."""
    depth = 0
    quote: str | None = None
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        elif c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ProgrammingError(f"unbalanced {opener}{closer} in type: {text}")


def parse_term(text: str) -> Term:
    """One transform term (``bucket(16, id)``, ``days(ts)``, ``st.a``), e.g. from the text
    of a ``PARTITIONED BY`` item sqlglot parsed."""
    parser = _Parser("PARTITIONED BY", text)
    term = parser.term()
    parser.end()
    return term
