"""icesql from Python: DataFrames and Arrow streams in, DataFrames out, SQLAlchemy on top.

Needs the extras ``icesql[pandas,polars,sqlalchemy]``. The warehouse goes to a temporary
folder (pass a folder as the first argument to keep it).
"""

from __future__ import annotations

import sys
import tempfile

import pyarrow as pa

try:
    import pandas as pd
    import polars as pl
    import sqlalchemy as sa
except ImportError as missing:  # a base install: say what to install, not a traceback
    sys.exit(f"this example needs {missing.name}: pip install 'icesql[pandas,polars,sqlalchemy]'")

import icesql


def main(warehouse: str) -> None:
    con = icesql.connect(warehouse, create=True)
    con.execute(
        "CREATE TABLE shop.orders (id BIGINT NOT NULL, region STRING, amount DECIMAL(10,2),"
        " ordered_at TIMESTAMP) USING iceberg PARTITIONED BY (region)"
    )

    # a pandas DataFrame in scope is a table by its variable name
    new_orders = pd.DataFrame(  # noqa: F841 - the SQL below reads it by name
        {
            "id": [1, 2, 3],
            "region": pd.Categorical(["eu", "us", "eu"]),
            "amount": [10.5, 20.0, 7.25],
            "ordered_at": pd.to_datetime(
                ["2024-05-01 10:00", "2024-05-01 11:30", "2024-05-02 09:15"], utc=True
            ),
        }
    )
    con.execute("INSERT INTO shop.orders SELECT * FROM new_orders")

    # an Arrow stream is read batch by batch, once
    more = pa.table(
        {
            "id": [4, 5],
            "region": ["us", "eu"],
            "amount": [3.0, 4.0],
            "ordered_at": pa.array([None, None], pa.timestamp("us", "UTC")),
        }
    )
    stream = more.to_reader(max_chunksize=1)  # noqa: F841 - read by name
    print("streamed rows:", con.execute("INSERT INTO shop.orders SELECT * FROM stream").rowcount)

    # register a polars DataFrame by name, and MERGE from it
    con.register("corrections", pl.DataFrame({"id": [2, 6], "amount": [25.0, 1.0]}))
    con.execute(
        "MERGE INTO shop.orders o USING corrections c ON o.id = c.id"
        " WHEN MATCHED THEN UPDATE SET amount = c.amount"
        " WHEN NOT MATCHED THEN INSERT (id, region, amount, ordered_at)"
        " VALUES (c.id, 'eu', c.amount, NULL)"
    )

    # results out: pandas (Arrow-backed dtypes), polars, Arrow, or any Arrow stream consumer
    totals = con.execute(
        "SELECT region, sum(amount) AS total, count(*) AS n FROM shop.orders"
        " GROUP BY region ORDER BY region"
    ).df()
    print(totals)
    print(con.execute("SELECT id, amount FROM shop.orders ORDER BY id").pl())
    reader = pa.RecordBatchReader.from_stream(con.execute("SELECT * FROM shop.orders"))
    print("columns:", reader.schema.names)

    # a lazy relation: nothing runs until it is read; printed (or shown in Jupyter, where
    # _repr_html_ renders it) with the column types and the row count, fetching only the
    # rows it shows
    by_region = con.sql(
        "SELECT region, count(*) AS n, sum(amount) AS total FROM shop.orders"
        " WHERE id > ? GROUP BY region ORDER BY region",
        (0,),
    )
    print(by_region)
    html = by_region._repr_html_()  # what a notebook displays
    print("html header:", html[html.index("<th>") : html.index("</th>") + 5])
    print("relation as pandas:", by_region.df().to_dict("list"))
    con.sql("SELECT id FROM shop.orders ORDER BY id").show(max_rows=3)

    # SQLAlchemy: pandas.read_sql with parameters, and the inspector
    engine = sa.create_engine(f"icesql:///{warehouse}")
    eu = pd.read_sql(
        "SELECT id, amount FROM shop.orders WHERE region = ? ORDER BY id", engine, params=("eu",)
    )
    print(eu)
    print([c["name"] for c in sa.inspect(engine).get_columns("orders", "shop")])
    engine.dispose()
    con.close()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory() as folder:
            main(folder)
