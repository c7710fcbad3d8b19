"""The query path as an ordered list of stages, each a function from one immutable value
to the next, and the one driver that runs them (as sqlglot's optimizer runs its ``RULES``).

``Parsed`` -> bind -> ``Bound`` -> push_filters -> ``Filtered`` -> plan -> ``Planned``;
each stage takes the connection (what it may ask of it: ``bind.Binder``, ``plan.Planner``)
and the value the stage before made. The last two stages need what only the caller knows
(an EXPLAIN, what it takes of the rows): ``icesql.engine.dispatch`` runs them,
``Planned`` -> to_duckdb (``icesql.engine.to_duckdb``) -> ``Translated`` -> run
(``icesql.engine.run``), with the overflow rerun and progress as wrappers of the run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlglot import exp

from icesql.engine.bind import Parsed, bind
from icesql.engine.plan import Planned, plan, push_filters

__all__ = ["STAGES", "plan_query"]

Stage = Callable[[Any, Any], Any]
STAGES: tuple[Stage, ...] = (bind, push_filters, plan)


def plan_query(
    connection: Any, statement: exp.Expr, params: Sequence[object], stages: Sequence[Stage] = STAGES
) -> Planned:
    """Run ``stages`` in order over the parsed ``statement``: its plan."""
    value: Any = Parsed(statement, tuple(params))
    for stage in stages:
        value = stage(connection, value)
    assert isinstance(value, Planned)
    return value
