"""Spark's functions and operators, rewritten so DuckDB computes Spark's answers.

One module per area (numbers, text, date/time, collections, aggregates). Each exports
``RULES`` (sqlglot node class -> rule), ``FUNCTIONS`` (name of a function sqlglot leaves
``Anonymous`` -> rule) and ``TYPED`` (node kinds whose rules read their arguments' types);
``icesql.sql.semantics`` merges them and applies them bottom-up.
"""
