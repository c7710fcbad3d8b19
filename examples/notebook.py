# %% [markdown]
# # icesql in a notebook
#
# A notebook written as `# %%` cells: VS Code, PyCharm and jupytext open it as one, and
# `python examples/notebook.py` runs it top to bottom as a script. It shows what icesql gives a
# notebook: DataFrames from cursors, lazy `con.sql()` relations that render as tables, the
# progress display of long statements, and SQLAlchemy for jupysql's `%sql`.
#
# Needs `pip install 'icesql[pandas,sqlalchemy]'` (with `jupysql ipykernel` for `%sql` in a
# kernel; not pyspark's `connect` extra, which downgrades numpy under pyarrow:
# docs/python-data.md).

# %%
import shutil
import sys
import tempfile
from pathlib import Path

try:
    import pandas as pd
    import sqlalchemy as sa
except ImportError as missing:  # a base install: say what to install, not a traceback
    sys.exit(f"this notebook needs {missing.name}: pip install 'icesql[pandas,sqlalchemy]'")

import icesql
from icesql.notebook_progress import NotebookProgress, in_kernel

try:  # in Jupyter, display() renders HTML; as a script, print the text form
    from IPython.display import display
except ImportError:
    display = print

# %% A new warehouse in a temporary folder (removed in the last cell)
folder = Path(tempfile.mkdtemp(prefix="icesql-notebook-"))
con = icesql.connect(str(folder / "warehouse"), create=True)
con.execute(
    "CREATE TABLE shop.orders (id BIGINT, region STRING, amount DECIMAL(10,2),"
    " ordered_at TIMESTAMP) USING iceberg PARTITIONED BY (region)"
)
print("warehouse:", folder / "warehouse")

# %% A DataFrame in the notebook is a table in SQL, by its variable name
new_orders = pd.DataFrame(
    {
        "id": range(1, 7),
        "region": ["eu", "us", "eu", "apac", "us", "eu"],
        "amount": [10.5, 20.0, 7.25, 3.0, 99.99, 12.0],
        "ordered_at": pd.to_datetime(["2024-05-01 10:00"] * 6),
    }
)
print("inserted:", con.execute("INSERT INTO shop.orders SELECT * FROM new_orders").rowcount)

# %% Results as DataFrames: cur.df() (pandas with Arrow-backed dtypes; cur.pl() for polars)
totals = con.execute(
    "SELECT region, count(*) AS n, sum(amount) AS total FROM shop.orders"
    " GROUP BY region ORDER BY region"
).df()
print(totals.to_string(index=False))

# %% A relation: nothing runs until it is read, and each read runs it again
by_region = con.sql(
    "SELECT region, count(*) AS n, sum(amount) AS total FROM shop.orders"
    " WHERE amount > ? GROUP BY region ORDER BY region",
    (5,),
)
display(by_region)  # a cell's last value renders like this: column types and the row count
html = by_region._repr_html_()  # what Jupyter shows
print("html:", html[: html.index("</th>") + 5])

# %% Relations are tables in later SQL (by their variable name) and convert like cursors
big = con.sql("SELECT * FROM by_region WHERE n > 1")
print("big regions:", big.df().to_dict("list"))
con.sql("SELECT id, amount FROM shop.orders ORDER BY id").show(max_rows=3)

# %% Progress: in a Jupyter kernel connect() adds a progress bar under the cell of any statement
# running longer than a second. The same display, shown here at once (delay=0) and printed:
print("in a kernel:", in_kernel())
shown: list[object] = []
stop = con.add_progress_listener(NotebookProgress(show=shown.append, delay=0, refresh=0))
con.execute("INSERT INTO shop.orders SELECT id + 100, region, amount, ordered_at FROM shop.orders")
stop()
states = [s for s in shown if s is not None]
print(f"progress: {len(states)} states shown, then removed: {shown[-1] is None}")
print("last state:", states[-1] if states else "(none)")

# %% SQLAlchemy: pandas.read_sql, and the URL jupysql's %sql takes (%sql icesql:///<warehouse>)
engine = sa.create_engine(f"icesql:///{folder / 'warehouse'}")
eu = pd.read_sql(
    "SELECT id, amount FROM shop.orders WHERE region = ? ORDER BY id", engine, params=("eu",)
)
print("eu orders via SQLAlchemy:", len(eu))
engine.dispose()

# %% Clean up
con.close()
shutil.rmtree(folder)
print("done")
