"""The SQLAlchemy dialect ``icesql://``: found through its entry point, bound parameters,
``pandas.read_sql``, the inspector and reflection into ``Table`` objects."""

from __future__ import annotations

from decimal import Decimal

import pytest

sa = pytest.importorskip("sqlalchemy")
pd = pytest.importorskip("pandas")


@pytest.fixture
def engine(tmp_path):
    engine = sa.create_engine(f"icesql:///{tmp_path}")
    with engine.connect() as c:
        c.exec_driver_sql(
            "CREATE TABLE db.t (id BIGINT NOT NULL, name STRING, d DECIMAL(9,2),"
            " ts TIMESTAMP, tags ARRAY<STRING>, s STRUCT<a: INT>) USING iceberg"
        )
        c.exec_driver_sql("ALTER TABLE db.t SET IDENTIFIER FIELDS id")
        c.exec_driver_sql(
            "INSERT INTO db.t VALUES (1, 'a', 1.5, NULL, NULL, NULL), (2, 'b', 2.5, NULL, NULL, NULL)"
        )
        c.exec_driver_sql("CREATE TABLE other.u (x INT) USING iceberg")
    yield engine
    engine.dispose()


def test_entry_point_and_connect_args():
    from sqlalchemy.dialects import registry

    from icesql.sqlalchemy_dialect import IcesqlDialect

    assert registry.load("icesql") is IcesqlDialect
    assert registry.load("icesql.sql") is IcesqlDialect
    url = sa.make_url("icesql+sql:///s3://b/wh?uri=sqlite:///cat.db&name=prod&s3.region=eu-west-1")
    _, kwargs = IcesqlDialect().create_connect_args(url)
    assert kwargs == {
        "warehouse": "s3://b/wh",
        "catalog": "sql",
        "uri": "sqlite:///cat.db",
        "name": "prod",
        "properties": {"s3.region": "eu-west-1"},
    }


def test_read_sql_with_parameters(engine):
    df = pd.read_sql("SELECT id, name FROM db.t WHERE id > ?", engine, params=(1,))
    assert df.to_dict("records") == [{"id": 2, "name": "b"}]
    df = pd.read_sql(sa.text("SELECT d FROM db.t WHERE name = :name"), engine, params={"name": "a"})
    assert df["d"].tolist() == [Decimal("1.50")]


def test_inspector(engine):
    insp = sa.inspect(engine)
    assert insp.get_schema_names() == ["db", "other"]
    assert insp.default_schema_name == "default"
    assert insp.get_table_names("db") == ["t"] and insp.get_table_names("nope") == []
    assert insp.get_view_names("db") == []
    assert insp.has_table("t", "db") and not insp.has_table("missing", "db")
    columns = {c["name"]: c for c in insp.get_columns("t", "db")}
    assert isinstance(columns["id"]["type"], sa.BigInteger) and not columns["id"]["nullable"]
    assert columns["d"]["type"].precision == 9 and columns["d"]["type"].scale == 2
    assert columns["ts"]["type"].timezone is True
    assert isinstance(columns["tags"]["type"], sa.ARRAY)
    assert isinstance(columns["s"]["type"], sa.types.NullType)
    assert insp.get_pk_constraint("t", "db")["constrained_columns"] == ["id"]
    with pytest.raises(sa.exc.NoSuchTableError):
        insp.get_columns("missing", "db")


def test_reflected_table_compiles_to_spark_sql(engine):
    t = sa.Table("t", sa.MetaData(), schema="db", autoload_with=engine)
    assert [c.name for c in t.primary_key] == ["id"]
    query = sa.select(t.c.name).where(t.c.id == 2).order_by(t.c.name).limit(1)
    assert "`odd name`" in str(sa.select(sa.column("odd name")).compile(engine))  # Spark quoting
    with engine.connect() as c:
        assert c.execute(query).all() == [("b",)]
        assert c.execute(sa.select(sa.func.count()).select_from(t)).scalar() == 2
        # Spark's INSERT with a column list names every column
        c.execute(
            sa.insert(t).values(id=3, name="c", d=Decimal("3.25"), ts=None, tags=None, s=None)
        )
        assert c.execute(sa.select(t.c.d).where(t.c.id == 3)).scalar() == Decimal("3.25")


def test_to_sql_appends_and_creates_tables(engine):
    with engine.connect() as c:
        c.exec_driver_sql("CREATE TABLE db.small (id BIGINT, name STRING) USING iceberg")
    frame = pd.DataFrame({"id": [5, 6], "name": ["e", "f"]})
    frame.to_sql("small", engine, schema="db", if_exists="append", index=False, method="multi")
    frame.assign(id=[7, 8]).to_sql("small", engine, schema="db", if_exists="append", index=False)
    ids = pd.read_sql("SELECT id, name FROM db.small ORDER BY id", engine)
    assert ids.to_dict("list") == {"id": [5, 6, 7, 8], "name": ["e", "f", "e", "f"]}
    frame.to_sql("fresh", engine, schema="db", index=False)  # CREATE TABLE from the frame
    columns = sa.inspect(engine).get_columns("fresh", "db")
    assert [(c["name"], type(c["type"])) for c in columns] == [
        ("id", sa.BigInteger),
        ("name", sa.String),
    ]
    assert pd.read_sql("SELECT count(*) AS n FROM db.fresh", engine)["n"].tolist() == [2]


# jupysql's %sql magic in a real IPython shell, in a fresh interpreter (IPython's shell is a
# process-wide singleton). jupysql probes Spark Connect when pyspark is installed and only
# catches ModuleNotFoundError, while pyspark raises ImportError for its missing grpcio: the
# script hides pyspark.sql.connect, as an environment without Spark Connect has it.
JUPYSQL_SCRIPT = r"""
import json, sys
sys.modules["pyspark.sql.connect.dataframe"] = None
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "sql")
shell.run_line_magic("config", "SqlMagic.named_parameters = 'enabled'")
shell.run_line_magic("sql", "icesql:///" + sys.argv[1])
shell.user_ns["low"] = 1
cell = shell.run_cell("result = %sql SELECT id, name FROM db.t WHERE id > :low ORDER BY id")
assert cell.success, cell.error_in_exec
result = shell.user_ns["result"]
frame = result.DataFrame()
tables = shell.run_line_magic("sqlcmd", "tables --schema db")
cell = shell.run_cell("%%sql\nSELECT count(*) AS n FROM db.t")
print(json.dumps({
    "rows": [list(r) for r in result],
    "frame": frame.to_dict("list"),
    "tables": str(tables),
    "count": [list(r) for r in cell.result],
}, default=str))
"""


@pytest.mark.slow
def test_jupysql_magic_in_an_ipython_shell(engine, tmp_path):
    import importlib.util
    import json
    import subprocess
    import sys

    for module in ("IPython", "sql"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (the test extra has it)")
    warehouse = engine.url.database
    done = subprocess.run(
        [sys.executable, "-c", JUPYSQL_SCRIPT, warehouse],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(next(ln for ln in done.stdout.splitlines() if ln.startswith("{")))
    assert answer["rows"] == [[2, "b"]]  # :low bound as a parameter through the dialect
    assert answer["frame"] == {"id": [2], "name": ["b"]}
    cells = [ln.strip("| ") for ln in answer["tables"].splitlines() if ln.startswith("|")]
    assert cells == ["Name", "t"]  # %sqlcmd tables: the inspector's table names of db
    assert answer["count"] == [[2]]
