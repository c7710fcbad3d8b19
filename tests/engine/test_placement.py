"""Where a statement runs (``icesql.engine.placement``) without starting Spark: ``auto``
below its threshold runs and explains here."""

from __future__ import annotations

import pytest

import icesql


def test_explain_with_parameters_under_auto(tmp_path):
    """The query of an EXPLAIN is parsed anew: its ``?`` markers are numbered before the
    engine is chosen, so the plan shows the filter with its value pushed to the scan."""
    con = icesql.connect(str(tmp_path), engine="auto")
    con.execute("CREATE TABLE db.t (id INT) USING iceberg PARTITIONED BY (id)")
    con.execute("INSERT INTO db.t VALUES (1), (2), (3)")
    (plan,) = con.execute("EXPLAIN SELECT * FROM db.t WHERE id > ?", [1]).fetchone()
    assert plan.startswith("== Engine ==\nlocal: ")
    assert "data files: total 3, read 2, skipped by partition 1" in plan, plan
    assert "pushed filter: id > 1" in plan
    with pytest.raises(icesql.ProgrammingError, match="1 parameter marker.* but 2 value"):
        con.execute("EXPLAIN SELECT * FROM db.t WHERE id > ?", [1, 2])
    con.close()
