"""What the prompt offers at the cursor: keywords, Spark functions, catalogs, namespaces and
tables, the columns of the tables the statement names, metadata tables and ``branch_``/``tag_``
names after ``t.``, branch and tag names after ``VERSION AS OF``, procedures after ``CALL
[catalog.]system.`` (from the procedure registry, so new procedures are offered as they land).

``suggest(text_before_cursor, full_text, names)`` is a pure function of the text and a
``Names`` source (which asks the connection through icesql's own ``SHOW`` and ``DESCRIBE`` and
caches the answers until ``Names.clear()``); ``Completer`` adapts it to prompt_toolkit.

>>> [s.text for s in suggest("SEL", "SEL", Names(lambda: None))]
['SELECT']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from icesql.dbapi import Connection

KEYWORDS = tuple(
    """SELECT FROM WHERE GROUP BY ORDER HAVING LIMIT OFFSET JOIN INNER LEFT RIGHT FULL OUTER
    CROSS SEMI ANTI ON USING AS AND OR NOT IN IS NULL LIKE ILIKE RLIKE BETWEEN EXISTS CASE WHEN
    THEN ELSE END DISTINCT ALL UNION INTERSECT EXCEPT WITH VALUES INSERT INTO OVERWRITE UPDATE
    SET DELETE MERGE MATCHED CREATE REPLACE TABLE NAMESPACE DATABASE SCHEMA DROP ALTER ADD
    COLUMN COLUMNS RENAME TO PARTITION PARTITIONED FIELD TBLPROPERTIES PROPERTIES SHOW TABLES
    NAMESPACES DESCRIBE EXTENDED EXPLAIN USE CALL BRANCH TAG VERSION TIMESTAMP OF SYSTEM_VERSION
    SYSTEM_TIME FOR IF PURGE WRITE ORDERED UNORDERED LOCALLY DISTRIBUTED ASC DESC NULLS FIRST
    LAST TRUE FALSE CAST INTERVAL LATERAL VIEW OVER WINDOW ROWS RANGE PRECEDING FOLLOWING
    UNBOUNDED CURRENT ROW QUALIFY PIVOT UNPIVOT TABLESAMPLE IDENTIFIER FIELDS RETAIN
    INT BIGINT SMALLINT TINYINT STRING BOOLEAN DOUBLE FLOAT DECIMAL DATE BINARY ARRAY MAP
    STRUCT""".split()
)
# keywords after which a table (or namespace, or catalog) name comes
_TABLE_CONTEXT = {
    "FROM",
    "JOIN",
    "INTO",
    "UPDATE",
    "TABLE",
    "DESCRIBE",
    "MERGE",
    "USING",
    "EXTENDED",
}
_NAMESPACE_CONTEXT = {"NAMESPACE", "DATABASE", "SCHEMA", "IN", "USE"}
_VERSION_OF = re.compile(
    r"((?:`[^`]+`|[\w$]+)(?:\.(?:`[^`]+`|[\w$]+))*)\s+(?:FOR\s+SYSTEM_VERSION|VERSION)\s+AS\s+OF"
    r"\s+('?)[\w-]*$",
    re.IGNORECASE,
)
_CALL = re.compile(r"(?:^|;)\s*CALL\s+((?:[\w$`]+\.)*)[\w$`]*$", re.IGNORECASE)
_WORD = re.compile(r"[\w$`]*(?:\.[\w$`]*)*$")
_TABLE_REF = re.compile(
    r"\b(?:FROM|JOIN|UPDATE|INTO|TABLE|DESCRIBE)\s+((?:`[^`]+`|[\w$]+)(?:\.(?:`[^`]+`|[\w$]+))*)"
    r"(?:\s+(?:AS\s+)?(?!(?:WHERE|ON|JOIN|LEFT|RIGHT|INNER|FULL|CROSS|GROUP|ORDER|LIMIT|SET|"
    r"VALUES|USING|WHEN|VERSION|TIMESTAMP|FOR|SELECT|UNION)\b)([A-Za-z_]\w*))?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Suggestion:
    """Replace the ``length`` characters before the cursor by ``text``; ``kind`` is shown beside."""

    text: str
    length: int
    kind: str


class Names:
    """Catalogs, namespaces, tables and columns as the connection sees them, asked lazily
    (``SHOW NAMESPACES``, ``SHOW TABLES``, ``DESCRIBE``) and cached; failures give nothing."""

    def __init__(self, connection: Callable[[], Connection | None]):
        self.connection = connection  # None while the connection is still being opened
        self._cache: dict[tuple[str, str], list[str]] = {}

    def clear(self) -> None:
        """Forget what was asked, e.g. after a statement that may have changed the catalog."""
        self._cache.clear()

    def catalogs(self) -> list[str]:
        con = self.connection()
        return sorted(con.catalogs) if con is not None else []

    def namespaces(self, parent: str = "") -> list[str]:
        """Child namespaces (last part only) of ``parent`` (a catalog or namespace, or none)."""
        sql = f"SHOW NAMESPACES IN {_quote(parent)}" if parent else "SHOW NAMESPACES"
        return [n.rsplit(".", 1)[-1] for n in self._ask(sql, 0)]

    def tables(self, namespace: str = "") -> list[str]:
        return self._ask(f"SHOW TABLES IN {_quote(namespace)}" if namespace else "SHOW TABLES", 1)

    def columns(self, table: str) -> list[str]:
        names = []
        for name in self._ask(f"DESCRIBE TABLE {_quote(table)}", 0):
            if not name or name.startswith("#"):
                break
            names.append(name)
        return names

    def is_table(self, name: str) -> bool:
        return bool(self.columns(name))

    def refs(self, table: str, kind: str) -> list[str]:
        """The table's branches (``kind`` BRANCH) or tags (TAG), from its ``refs`` table."""
        quoted = _quote(table)
        return self._ask(f"SELECT name FROM {quoted}.refs WHERE type = '{kind}' ORDER BY name", 0)

    def procedures(self) -> list[str]:
        """The procedures ``CALL system.<name>`` runs, from the registry as it is now."""
        if self.connection() is None:
            return []
        from icesql.statements.procedures import PROCEDURES

        return sorted(PROCEDURES)

    def _ask(self, sql: str, column: int) -> list[str]:
        key = (sql, str(column))
        if key not in self._cache:
            con = self.connection()
            if con is None:
                return []
            try:
                rows = con.execute(sql).fetchall()
                self._cache[key] = [str(r[column]) for r in rows if r[column] is not None]
            except Exception:
                self._cache[key] = []
        return self._cache[key]


def _quote(name: str) -> str:
    return ".".join(p if p.startswith("`") else f"`{p}`" for p in name.split(".") if p)


def suggest(before: str, text: str, names: Names) -> list[Suggestion]:
    """Completions for the word before the cursor, best first."""
    word = _WORD.search(before).group(0)  # type: ignore[union-attr]
    special = _version_or_call(before, word, names)
    if special is not None:
        return special
    if "." in word:
        prefix, partial = word.rsplit(".", 1)
        return _after_dot(prefix, partial, text, names)
    previous = _previous_keyword(before[: len(before) - len(word)])
    if previous in _TABLE_CONTEXT:
        options = [(t, "table") for t in names.tables()]
        options += [(n, "namespace") for n in names.namespaces()]
        options += [(c, "catalog") for c in names.catalogs()]
    elif previous in _NAMESPACE_CONTEXT:
        options = [(n, "namespace") for n in names.namespaces()]
        options += [(c, "catalog") for c in names.catalogs()]
    else:
        options = [(c, "column") for c in _statement_columns(text, names)]
        upper = not word or word[0].isupper()
        options += [(k if upper else k.lower(), "keyword") for k in KEYWORDS]
        from icesql.sql.spark.function_names import SPARK_FUNCTIONS

        options += [(f, "function") for f in sorted(SPARK_FUNCTIONS)]
    return _matching(options, word)


def _version_or_call(before: str, word: str, names: Names) -> list[Suggestion] | None:
    """Branch and tag names after ``t VERSION AS OF``, quoted; the ``system`` namespace and
    its procedures after ``CALL``. None elsewhere."""
    version = _VERSION_OF.search(before)
    if version is not None:
        table, quote = version.group(1), version.group(2)
        refs = [(r, "branch") for r in names.refs(table, "BRANCH")]
        refs += [(r, "tag") for r in names.refs(table, "TAG")]
        found = _matching(refs, word)
        return [Suggestion(f"{'' if quote else chr(39)}{s.text}'", s.length, s.kind) for s in found]
    call = _CALL.search(before)
    if call is None:
        return None
    qualifiers = [q.strip("`").lower() for q in call.group(1).split(".") if q]
    partial = word.rsplit(".", 1)[-1]
    catalogs = names.catalogs()
    if qualifiers and qualifiers[-1] == "system" and len(qualifiers) <= 2:
        return _matching([(p, "procedure") for p in names.procedures()], partial)
    if not qualifiers:
        return _matching([("system", "namespace"), *((c, "catalog") for c in catalogs)], partial)
    if len(qualifiers) == 1 and qualifiers[0] in {c.lower() for c in catalogs}:
        return _matching([("system", "namespace")], partial)
    return []


def _after_dot(prefix: str, partial: str, text: str, names: Names) -> list[Suggestion]:
    aliases = dict(_aliases(text))
    table = aliases.get(prefix.lower())
    options: list[tuple[str, str]] = []
    if table is not None and table.lower() != prefix.lower() and names.is_table(table):
        options += [(c, "column") for c in names.columns(table)]
    elif names.is_table(prefix):
        options += [(c, "column") for c in names.columns(prefix)]
        from icesql.sql.tables import METADATA_TABLES

        options += [(m, "metadata table") for m in sorted(METADATA_TABLES)]
        if partial.lower().startswith(("b", "t")):  # t.branch_<name>, t.tag_<name>
            options += [(f"branch_{b}", "branch") for b in names.refs(prefix, "BRANCH")]
            options += [(f"tag_{t}", "tag") for t in names.refs(prefix, "TAG")]
    else:  # a catalog or namespace: what is inside
        options += [(n, "namespace") for n in names.namespaces(prefix)]
        if prefix not in names.catalogs():
            options += [(t, "table") for t in names.tables(prefix)]
    return _matching(options, partial)


def _matching(options: Iterable[tuple[str, str]], word: str) -> list[Suggestion]:
    plain = word.strip("`").lower()
    seen: set[str] = set()
    out = []
    for text, kind in options:
        if text.lower().startswith(plain) and text not in seen:
            seen.add(text)
            out.append(Suggestion(text, len(word), kind))
    return out


def _previous_keyword(text: str) -> str:
    words = re.findall(r"[A-Za-z_]+", text[-200:])
    return words[-1].upper() if words else ""


def _aliases(text: str) -> Iterator[tuple[str, str]]:
    """(name or alias, table) for each table the statement names, e.g. ``FROM db.t x``."""
    for match in _TABLE_REF.finditer(text):
        table, alias = match.group(1), match.group(2)
        yield table.lower(), table
        yield table.rsplit(".", 1)[-1].lower(), table
        if alias:
            yield alias.lower(), table


def _statement_columns(text: str, names: Names) -> list[str]:
    out: list[str] = []
    for table in dict.fromkeys(t for _, t in _aliases(text)):
        out += names.columns(table)
    return out


class Completer:
    """prompt_toolkit's completer over ``suggest`` (built lazily: prompt_toolkit is imported
    only at the prompt)."""

    def __new__(cls, names: Names) -> Any:
        from prompt_toolkit.completion import Completer as Base
        from prompt_toolkit.completion import Completion

        class _Completer(Base):
            def get_completions(self, document: Any, complete_event: Any) -> Iterator[Completion]:
                before = document.text_before_cursor
                text = document.text
                if before.lstrip().startswith("."):
                    from icesql.cli.meta import COMMANDS

                    word = before.strip()
                    if " " not in word:
                        for name in COMMANDS:
                            if name.startswith(word):
                                yield Completion(name, -len(word), display_meta="command")
                        return
                    before = text = "FROM " + before.split(" ", 1)[1]  # its argument: a table
                for s in suggest(before, text, names):
                    yield Completion(s.text, -s.length, display_meta=s.kind)

        return _Completer()
