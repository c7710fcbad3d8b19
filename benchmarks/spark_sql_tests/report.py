"""The differential's report: totals, a table per file, and every query that does not agree.

The markdown file is for reading (totals, per-file counts, icesql's errors grouped by
message, then each differing, refused, failing or accepting query with both answers); the
JSON beside it holds every statement's two answers and outcome, for tools.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks.spark_sql_tests import compare as outcomes
from benchmarks.spark_sql_tests.answers import Answer
from benchmarks.spark_sql_tests.compare import Outcome

__all__ = ["FileResult", "Totals", "markdown", "results_json", "totals"]

_SHOWN_ROWS = 10
_SHOWN_CHARS = 2000
_TOP_MESSAGES = 40
_COLUMNS = (*outcomes.OUTCOMES, outcomes.SETUP, outcomes.SETUP_FAILED)


@dataclass
class FileResult:
    name: str
    spark: list[Answer]
    icesql: list[Answer]
    outcomes: list[Outcome]
    note: str | None = None  # e.g. no Spark answers for this file's content


@dataclass
class Totals:
    counts: Counter = field(default_factory=Counter)
    order_only: int = 0

    @property
    def queries(self) -> int:
        return sum(self.counts[k] for k in outcomes.OUTCOMES)

    @property
    def agreeing(self) -> int:
        return self.counts[outcomes.AGREE] + self.counts[outcomes.BOTH_RAISE]

    def add(self, outcome: Outcome) -> None:
        self.counts[outcome.kind] += 1
        self.order_only += outcome.order_only


def totals(results: Iterable[FileResult]) -> Totals:
    total = Totals()
    for result in results:
        for outcome in result.outcomes:
            total.add(outcome)
    return total


def summary(total: Totals) -> str:
    """The totals in one paragraph (printed at the end of a run)."""
    n = total.queries or 1
    c = total.counts
    return (
        f"{total.queries} queries: {total.agreeing} agree ({100 * total.agreeing / n:.0f}%:"
        f" {c[outcomes.AGREE]} same rows, {c[outcomes.BOTH_RAISE]} both raise),"
        f" {c[outcomes.DIFFER]} return different rows ({total.order_only} of them the same"
        f" rows in another order), {c[outcomes.REFUSED]} refused and {c[outcomes.ERROR]}"
        f" other errors in icesql where Spark answers, {c[outcomes.ACCEPTS]} answered where"
        f" Spark raises; {c[outcomes.SETUP]} temporary views read from Spark's Iceberg tables"
        f" ({c[outcomes.SETUP_FAILED]} of them failed in icesql)"
    )


def _mask(message: str) -> str:
    message = re.sub(r"'[^']*'", "'…'", message)
    message = re.sub(r'"[^"]*"', '"…"', message)
    message = re.sub(r"`[^`]*`", "`…`", message)
    return re.sub(r"\d+", "N", message)[:140]


def error_groups(results: Iterable[FileResult]) -> list[tuple[str, int, str]]:
    """icesql's errors where Spark answers, grouped by message with literals masked:
    (group, count, one example query)."""
    counts: Counter = Counter()
    examples: dict[str, str] = {}
    for result in results:
        for mine, outcome in zip(result.icesql, result.outcomes):
            if outcome.kind in (outcomes.REFUSED, outcomes.ERROR):
                key = f"{mine.error_class}: {_mask(mine.error or '')}"
                counts[key] += 1
                examples.setdefault(key, mine.sql)
    return [(key, n, examples[key]) for key, n in counts.most_common(_TOP_MESSAGES)]


def _answer_text(answer: Answer) -> str:
    if not answer.ok:
        return f"raises {answer.error_class}: {answer.error}"
    if not answer.rows:
        return "(no rows)"
    shown = answer.rows[:_SHOWN_ROWS]
    more = len(answer.rows) - len(shown)
    text = "\n".join(shown) + (f"\n… {more} more rows" if more else "")
    return text[:_SHOWN_CHARS]


def _block(text: str) -> str:
    return "```\n" + text.replace("```", "`\u200b``") + "\n```"


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def markdown(results: Sequence[FileResult], meta: dict[str, Any]) -> str:
    total = totals(results)
    lines = ["# Spark's SQL tests: Spark 3.5 and icesql", ""]
    lines += [f"- {key}: {value}" for key, value in meta.items()]
    lines += ["", summary(total) + ".", "", "## Totals", ""]
    lines += _table(
        ["queries", *_COLUMNS, "order only"],
        [[total.queries, *(total.counts[k] for k in _COLUMNS), total.order_only]],
    )
    lines += ["", "## Per file", ""]
    per_file = []
    for result in results:
        t = totals([result])
        agree = f"{100 * t.agreeing / t.queries:.0f}%" if t.queries else "-"
        name = result.name + (f" ({result.note})" if result.note else "")
        per_file.append([name, t.queries, agree, *(t.counts[k] for k in _COLUMNS)])
    lines += _table(["file", "queries", "agree %", *_COLUMNS], per_file)
    lines += ["", "## icesql's errors where Spark answers, by message", ""]
    lines += _table(
        ["count", "error (literals masked)", "example"],
        [
            [n, key.replace("|", "\\|"), "`" + example.replace("\n", " ")[:100] + "`"]
            for key, n, example in error_groups(results)
        ],
    )
    sections = [
        (outcomes.DIFFER, "Different rows"),
        (outcomes.ACCEPTS, "Answered where Spark raises"),
        (outcomes.ERROR, "Errors where Spark answers"),
        (outcomes.REFUSED, "Refused where Spark answers"),
        (outcomes.SETUP_FAILED, "Views icesql could not make over Spark's tables"),
    ]
    for kind, title in sections:
        lines += ["", f"## {title}", ""]
        for result in results:
            for spark, mine, outcome in zip(result.spark, result.icesql, result.outcomes):
                if outcome.kind != kind:
                    continue
                order = " (same rows, another order)" if outcome.order_only else ""
                lines += [f"### {result.name}{order}", "", _block(mine.sql), ""]
                lines += ["Spark:", "", _block(_answer_text(spark)), ""]
                lines += ["icesql:", "", _block(_answer_text(mine)), ""]
    return "\n".join(lines) + "\n"


def results_json(results: Sequence[FileResult], meta: dict[str, Any]) -> str:
    return json.dumps(
        {
            "meta": meta,
            "totals": dict(totals(results).counts),
            "files": [
                {
                    "name": r.name,
                    "note": r.note,
                    "statements": [
                        {
                            "outcome": o.kind,
                            "order_only": o.order_only,
                            "spark": s.to_json(),
                            "icesql": m.to_json(),
                        }
                        for s, m, o in zip(r.spark, r.icesql, r.outcomes)
                    ],
                }
                for r in results
            ],
        },
        indent=1,
    )
