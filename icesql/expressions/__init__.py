"""Iceberg expressions: filters on a table's rows, and what they say about its files.

* ``tree`` — the expression nodes (true/false, and/or/not, predicates) and builders;
* ``literals`` / ``binding`` — literals converted to a column's type, names resolved by
  field id (``bind``), bound once and evaluated many times;
* ``visitors`` — the single bottom-up ``visit()``, ``rewrite_not``;
* ``projections`` — inclusive / strict projection onto a partition spec, through the rules
  of each transform in ``transform_projections`` (``project`` / ``strict_project``);
* ``evaluator`` — a bound expression on one struct value (partition tuples);
* ``manifest_evaluator`` — manifests skipped by their partition summaries;
* ``inclusive_metrics`` / ``strict_metrics`` — files skipped, or wholly matched, by their
  column metrics (data and delete files alike);
* ``residuals`` — the part of a filter a file's partition leaves undecided;
* ``bounds`` — the one rule that decodes lower / upper bounds for every evaluator;
* ``file_filter`` — all of the above as one file-pruning component (may match, must match,
  residual) for the scan planner, commits and commit validation.

Semantics are SQL's (see ``tree``): pruning with these evaluators never drops a file that
holds a row the SQL predicate keeps.
"""
