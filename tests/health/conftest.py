"""The planted table of the health tests."""

from __future__ import annotations

import pytest
from health_support import small_files_table


@pytest.fixture
def planted(con):
    """db.t: six appends and a merge-on-read DELETE of 40% of the first append's rows."""
    small_files_table(con)
    con.execute("DELETE FROM db.t WHERE id < 100 AND id % 10 < 4")
    return con
