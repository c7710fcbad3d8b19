"""DuckDB's memory limit under a process address-space limit (``ulimit -v``, RLIMIT_AS).

DuckDB sizes its buffer pool from the machine's memory (80%) or a cgroup's limit, not from
RLIMIT_AS: under that limit it allocates until ``malloc`` fails, and a large sort or hash
aggregate fails instead of spilling. With a finite limit, the engine gives DuckDB a share
of the address space still free, so DuckDB spills to its temporary directory in time; what
still does not fit fails with DuckDB's "Out of Memory" error (``OperationalError``), never
a kill. Without a limit DuckDB's own default stands.
"""

from __future__ import annotations

import resource

import duckdb

SHARE = 0.4  # of the free address space: the rest is Arrow batches, Python and thread stacks
FLOOR = 32 << 20  # below this DuckDB cannot run a scan at all


class MemoryFit:
    """Keeps one DuckDB database's ``memory_limit`` within the process's RLIMIT_AS, checked
    before each statement (one ``getrlimit`` call) since a limit may be set after connecting."""

    def __init__(self) -> None:
        self._seen = resource.RLIM_INFINITY

    def apply(self, con: duckdb.DuckDBPyConnection) -> None:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == self._seen:
            return
        self._seen = soft
        if soft != resource.RLIM_INFINITY:
            limit = max(FLOOR, int((soft - _address_space()) * SHARE))
            con.execute(f"SET memory_limit = '{limit}B'")
        else:
            con.execute("RESET memory_limit")


def _address_space() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0  # not Linux: count the whole limit as free
