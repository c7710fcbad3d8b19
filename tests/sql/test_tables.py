import pytest
from sqlglot import exp

from icesql.errors import NoSuchTableError, ProgrammingError
from icesql.sql.dialect import number_parameters, parse_one
from icesql.sql.tables import drop_table_prefixes, replace_table, resolve_reference, table_nodes

EXISTING = {("db", "t"), ("default", "u")}


def resolve(sql, params=()):
    statement = parse_one(sql)
    number_parameters(statement)
    (node,) = table_nodes(statement)
    return resolve_reference(node, {"local": EXISTING.__contains__}, "local", ("default",), params)


def test_plain_and_catalog_prefixed_names():
    assert resolve("select * from db.t").identifier == ("db", "t")
    assert resolve("select * from local.db.t").identifier == ("db", "t")
    assert resolve("select * from u").identifier == ("default", "u")


def test_branch_and_tag_suffixes():
    ref = resolve("select * from local.db.t.branch_b1")
    assert (ref.identifier, ref.travel.ref, ref.travel.ref_kind) == (("db", "t"), "b1", "branch")
    ref = resolve("select * from db.t.tag_t1")
    assert (ref.travel.ref, ref.travel.ref_kind) == ("t1", "tag")


def test_metadata_table_suffix():
    ref = resolve("select * from db.t.snapshots")
    assert ref.metadata_table == "snapshots"


def test_time_travel_values():
    assert resolve("select * from db.t VERSION AS OF 42").travel.version == 42
    assert resolve("select * from db.t VERSION AS OF 'b1'").travel.version == "b1"
    assert resolve("select * from db.t VERSION AS OF ?", (7,)).travel.version == 7
    ts = resolve("select * from db.t TIMESTAMP AS OF '2024-01-01'").travel.timestamp
    assert isinstance(ts, exp.Literal)


def test_unknown_table_is_named():
    with pytest.raises(NoSuchTableError, match="`db`.`nope`"):
        resolve("select * from db.nope")
    with pytest.raises(NoSuchTableError, match="`db`.`t`.`branch_x`.`y`"):
        resolve("select * from db.t.branch_x.y")


def test_branch_with_time_travel_is_rejected():
    with pytest.raises(ProgrammingError, match="time travel"):
        resolve("select * from db.t.branch_b1 VERSION AS OF 1")


def test_ctes_and_table_functions_are_not_tables():
    statement = parse_one("with c as (select 1) select * from c, range(3), db.t")
    assert [n.name for n in table_nodes(statement)] == ["t"]


def _without_prefixes(sql):
    statement = parse_one(sql)
    refs = [
        resolve_reference(n, {"local": EXISTING.__contains__}, "local", ("default",))
        for n in table_nodes(statement)
    ]
    drop_table_prefixes(statement, refs)
    return statement.sql(dialect="spark")


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("SELECT db.t.a FROM db.t", "SELECT t.a FROM db.t"),
        ("SELECT LOCAL.DB.T.a FROM db.t", "SELECT t.a FROM db.t"),
        ("SELECT db.t.s.f FROM local.db.t", "SELECT t.s.f FROM local.db.t"),
        ("SELECT db.t.* FROM db.t", "SELECT t.* FROM db.t"),
        ("SELECT default.u.x FROM u", "SELECT u.x FROM u"),
        # an aliased table answers to its alias only, as in Spark
        ("SELECT db.t.a FROM db.t AS x", "SELECT db.t.a FROM db.t AS x"),
        # t.s.f is a struct field of an unrelated table alias t: left alone
        ("SELECT t.s.f FROM db.t", "SELECT t.s.f FROM db.t"),
    ],
)
def test_full_table_names_in_column_references(sql, expected):
    assert _without_prefixes(sql) == expected


def test_a_catalog_prefix_selects_that_catalog():
    catalogs = {"local": EXISTING.__contains__, "prod": {("db", "t"), ("db", "p")}.__contains__}

    def ref(sql):
        (node,) = table_nodes(parse_one(sql))
        r = resolve_reference(node, catalogs, "local")
        return r.catalog, r.identifier, r.metadata_table, r.travel.ref

    assert ref("select * from prod.db.p") == ("prod", ("db", "p"), None, None)
    assert ref("select * from PROD.db.t.snapshots") == ("prod", ("db", "t"), "snapshots", None)
    assert ref("select * from prod.db.t.branch_b") == ("prod", ("db", "t"), None, "b")
    assert ref("select * from db.t") == ("local", ("db", "t"), None, None)
    assert ref("select * from local.db.t") == ("local", ("db", "t"), None, None)
    with pytest.raises(NoSuchTableError, match="`db`.`p`"):
        ref("select * from db.p")  # only in prod: unqualified names use the current catalog


def test_column_prefixes_name_the_tables_own_catalog():
    catalogs = {"local": EXISTING.__contains__, "prod": {("db", "p")}.__contains__}
    statement = parse_one("SELECT prod.db.p.a, local.db.t.b FROM prod.db.p JOIN db.t ON true")
    refs = [resolve_reference(n, catalogs, "local") for n in table_nodes(statement)]
    drop_table_prefixes(statement, refs)
    assert statement.sql(dialect="spark").startswith("SELECT p.a, t.b FROM")


@pytest.mark.parametrize(
    "sql, expected",
    [
        (
            "SELECT * FROM t PIVOT(SUM(e) FOR y IN (1, 2))",
            "SELECT * FROM (SELECT 1 AS e) AS t PIVOT(SUM(e) FOR y IN (1, 2))",
        ),
        (
            "SELECT * FROM t AS c UNPIVOT(v FOR k IN (a, b)) AS u",
            "SELECT * FROM (SELECT * FROM (SELECT 1 AS e) AS c UNPIVOT(v FOR k IN (a, b))) AS u",
        ),
        (
            "SELECT * FROM t TABLESAMPLE (2 ROWS)",
            "SELECT * FROM (SELECT 1 AS e) TABLESAMPLE (2 ROWS) AS t",
        ),
    ],
)
def test_a_replaced_table_keeps_its_pivot_and_sample(sql, expected):
    statement = parse_one(sql)
    (node,) = table_nodes(statement)
    alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier("t"))
    replace_table(node, exp.Subquery(this=parse_one("SELECT 1 AS e"), alias=alias))
    assert statement.sql(dialect="spark") == expected
