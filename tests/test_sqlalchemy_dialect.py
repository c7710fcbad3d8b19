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
        "warehouse": "s3://b/wh", "catalog": "sql", "uri": "sqlite:///cat.db", "name": "prod",
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
        c.execute(sa.insert(t).values(id=3, name="c", d=Decimal("3.25"), ts=None, tags=None, s=None))
        assert c.execute(sa.select(t.c.d).where(t.c.id == 3)).scalar() == Decimal("3.25")
