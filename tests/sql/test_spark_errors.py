"""Names that resolve to nothing get Spark's error class, Spark's suggestions and the
position of the name as written, wherever in the statement the name is; and no message of a
bad statement shows DuckDB's binder text, a sqlglot class or a traceback."""

from __future__ import annotations

import re

import pytest

import icesql
from icesql.sql.spark_errors import levenshtein, quote_id

EVENTS = "db.events"


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    connection = icesql.connect(str(tmp_path_factory.mktemp("wh")))
    connection.execute(f"CREATE TABLE {EVENTS} (user_id INT, country STRING, n INT) USING iceberg")
    connection.execute("CREATE TABLE db.users (user_id INT, name STRING) USING iceberg")
    connection.execute(f"INSERT INTO {EVENTS} VALUES (1, 'de', 3)")
    connection.execute("INSERT INTO db.users VALUES (1, 'ann')")
    yield connection
    connection.close()


def _error(con, sql: str) -> icesql.Error:
    with pytest.raises(icesql.Error) as info:
        con.execute(sql).fetchall()
    return info.value


COLUMN_CASES = {  # statement -> (name as Spark quotes it, proposal, position (line, column))
    "SELECT contry FROM db.events": (
        "`contry`",
        "`country`, `n`, `user_id`",
        (1, 8),
    ),
    "SELECT contry, count(*) FROM db.events GROUP BY contry": (
        "`contry`",
        "`country`, `n`, `user_id`",
        (1, 8),
    ),
    "SELECT country FROM db.events GROUP BY contry": (
        "`contry`",
        "`country`, `n`, `user_id`",
        (1, 40),
    ),
    "SELECT e.contry FROM db.events e JOIN db.users u USING (user_id)": (
        "`e`.`contry`",
        "`e`.`country`, `e`.`n`, `u`.`name`, `e`.`user_id`, `u`.`user_id`",
        (1, 8),
    ),
    "SELECT n FROM db.events\nWHERE\n  cuntry = 'de'": (
        "`cuntry`",
        "`country`, `n`, `user_id`",
        (3, 3),
    ),
    "SELECT * FROM db.events WHERE n IN (SELECT nme FROM db.users)": (
        "`nme`",
        "`name`, `user_id`",
        (1, 44),
    ),
    "SELECT * FROM (SELECT n AS m FROM db.events) s WHERE q > 1": ("`q`", "`m`", (1, 54)),
    "SELECT x.n FROM db.events": (
        "`x`.`n`",
        "`events`.`n`, `events`.`country`, `events`.`user_id`",
        (1, 8),
    ),
    "DELETE FROM db.events WHERE contry = 'x'": (
        "`contry`",
        "`country`, `n`, `user_id`",
        (1, 29),
    ),
    "CREATE TEMPORARY VIEW v AS SELECT contry FROM db.events": (
        "`contry`",
        "`country`, `n`, `user_id`",
        (1, 35),
    ),
}


@pytest.mark.parametrize("sql", sorted(COLUMN_CASES))
def test_an_unresolved_column_is_said_as_spark_says_it(con, sql):
    name, proposal, position = COLUMN_CASES[sql]
    error = _error(con, sql)
    assert isinstance(error, icesql.ProgrammingError)
    line, column = position
    assert str(error) == (
        f"[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name {name}"
        f" cannot be resolved. Did you mean one of the following? [{proposal}]."
        f" SQLSTATE: 42703; line {line} pos {column - 1}"
    )
    assert error.position == position  # type: ignore[attr-defined]
    assert error.length == len(name.replace("`", ""))  # type: ignore[attr-defined]


def test_an_unknown_function_is_an_unresolved_routine_with_sparks_names(con):
    error = _error(con, "SELECT cnt(*) FROM db.events")
    assert str(error).startswith(
        "[UNRESOLVED_ROUTINE] Cannot resolve function `cnt` on search path"
        " [`system`.`builtin`, `system`.`session`, `local`.`default`]. Did you mean `count`"
    )
    assert str(error).endswith("SQLSTATE: 42883; line 1 pos 7")
    assert error.position == (1, 8) and error.length == 3  # type: ignore[attr-defined]


def test_a_column_that_exists_keeps_duckdbs_judgement(con):
    # DuckDB refuses a grouping error about a column there is: not an unresolved name
    error = _error(con, "SELECT country, n FROM db.events GROUP BY country")
    assert "UNRESOLVED" not in str(error)


def test_suggestions_are_at_most_five_ordered_as_spark_orders_them(tmp_path):
    with icesql.connect(str(tmp_path)) as con:
        con.execute("CREATE TABLE db.w (xyz INT, ab1 INT, q INT, abcd INT, b INT, a INT, zz INT)")
        error = _error(con, "SELECT ab FROM db.w")
    proposal = re.search(r"following\? \[(.*)\]\.", str(error)).group(1)  # type: ignore[union-attr]
    names = [p.split(".")[-1].strip("`") for p in proposal.split(", ")]
    assert names == ["a", "b", "ab1", "q", "abcd"]  # by distance of the quoted name, then name


def test_levenshtein_and_quoting_follow_spark():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("Country", "country") == 1  # case-sensitive, as commons-text is
    assert quote_id(["local", "db", "a`b"]) == "`local`.`db`.`a``b`"


# bad statements of every kind: no message may show how icesql runs them
BAD_STATEMENTS = [
    "SELEC 1",
    "SELECT 1 +",
    "SELECT * FROM db.events WHERE AND n = 1",
    "SELECT n FROM db.events WHERE (n = 1",
    "SELECT contry FROM db.events",
    "SELECT contry, count(*) FROM db.events GROUP BY contry",
    "SELECT e.contry FROM db.events e JOIN db.users u USING (user_id)",
    "SELECT cnt(*) FROM db.events",
    "SELECT * FROM db.events WHERE n IN (SELECT nme FROM db.users)",
    "SELECT * FROM db.events e WHERE EXISTS (SELECT 1 FROM db.users u WHERE u.id = e.user_id)",
    "SELECT u.name FROM db.events e",
    "SELECT n FROM db.events ORDER BY contry",
    "SELECT country, sum(nn) FROM db.events GROUP BY country",
    "WITH c AS (SELECT n FROM db.events) SELECT m FROM c",
    "UPDATE db.events SET n = contry",
    "DELETE FROM db.events WHERE contry = 'x'",
    "MERGE INTO db.events t USING db.users s ON t.user_id = s.usr_id WHEN MATCHED THEN DELETE",
    "INSERT INTO db.events SELECT user_id, nme, 1 FROM db.users",
    "CREATE TEMPORARY VIEW v AS SELECT contry FROM db.events",
    "CREATE TEMPORARY VIEW v AS SELECT cnt(*) FROM db.events",
]
_LEAKS = re.compile(
    r"Binder Error|Catalog Error|Parser Error|Candidate bindings|Values list|__icesql"
    r"|sqlglot|<class|Traceback|Did you mean \"|LINE \d"
)


@pytest.mark.parametrize("sql", BAD_STATEMENTS)
def test_no_message_of_a_bad_statement_shows_the_machinery(con, sql):
    before = con.execute(f"SELECT count(*) FROM {EVENTS}").fetchone()
    error = _error(con, sql)
    assert _LEAKS.search(str(error)) is None, str(error)
    assert re.match(r"\[[A-Z_.]+\] ", str(error)), str(error)  # Spark's error class first
    assert con.execute(f"SELECT count(*) FROM {EVENTS}").fetchone() == before
