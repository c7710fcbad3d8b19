"""The ``icesql`` command: run Spark SQL against a warehouse and print aligned tables.

``icesql WAREHOUSE -c "SQL"`` runs statements and exits; without ``-c`` statements come from
standard input (``;``-separated) or, at a terminal, from a simple prompt. Catalogs are
configured as ``icesql.connect`` takes them: ``--catalog sql --uri sqlite:///c.db``, Spark's
``--conf spark.sql.catalog.prod.type=hadoop`` or ``--spark-conf spark-defaults.conf``, or
``--pyiceberg-config .pyiceberg.yaml``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from icesql.catalog.config import read_spark_defaults
from icesql.dbapi import Connection, connect
from icesql.errors import Error, ProgrammingError
from icesql.sql.dialect import split_statements

MAX_ROWS = 1000


def format_value(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return "0x" + value.hex()
    if isinstance(value, float) and value != value:
        return "NaN"
    return str(value)


def format_table(columns: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """An aligned text table: numbers right-aligned, everything else left-aligned."""
    cells = [[format_value(v) for v in row] for row in rows]
    widths = [len(c) for c in columns]
    for row in cells:
        for i, v in enumerate(row):
            widths[i] = max(widths[i], len(v))
    numeric = [
        bool(rows) and all(isinstance(r[i], (int, float)) or r[i] is None for r in rows)
        for i in range(len(columns))
    ]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(
            v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)
        ) + " |"

    sep = "+-" + "-+-".join("-" * w for w in widths) + "-+"
    out = [sep, line(columns), sep, *(line(r) for r in cells), sep]
    return "\n".join(out)


def run_statement(con: Connection, sql: str, out: TextIO) -> None:
    cur = con.cursor()
    cur.execute(sql)
    if cur.description is None:
        if cur.rowcount >= 0:
            print(f"{cur.rowcount} row(s) affected", file=out)
        else:
            print("OK", file=out)
        return
    rows = cur.fetchmany(MAX_ROWS + 1)
    shown = rows[:MAX_ROWS]
    print(format_table([d[0] for d in cur.description], shown), file=out)
    more = " (more not shown)" if len(rows) > MAX_ROWS else ""
    print(f"{len(shown)} row(s){more}", file=out)


def run_script(con: Connection, text: str, out: TextIO, err: TextIO) -> int:
    """Run every statement of ``text``; stops at the first error and returns 1."""
    try:
        statements = split_statements(text)
    except Error as e:
        print(f"error: {e}", file=err)
        return 1
    for statement in statements:
        try:
            run_statement(con, statement, out)
        except Error as e:
            print(f"error: {e}", file=err)
            return 1
    return 0


def interactive(con: Connection) -> int:
    print("icesql — Spark SQL over Iceberg. End statements with ';'. Ctrl-D to quit.")
    buffer: list[str] = []
    while True:
        try:
            line = input("icesql> " if not buffer else "   ...> ")
        except EOFError:
            print()
            return 0
        except KeyboardInterrupt:
            print()
            buffer = []
            continue
        buffer.append(line)
        text = "\n".join(buffer)
        if text.strip().endswith(";"):
            run_script(con, text, sys.stdout, sys.stdout)
            buffer = []


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        con = connect(**_connect_arguments(args))
    except Error as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    with con:
        if args.command:
            return max(run_script(con, c, sys.stdout, sys.stderr) for c in args.command)
        if sys.stdin.isatty():
            return interactive(con)
        return run_script(con, sys.stdin.read(), sys.stdout, sys.stderr)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="icesql", description=__doc__.splitlines()[0])
    parser.add_argument(
        "warehouse",
        nargs="?",
        help="warehouse folder of the file-system catalog (default, when no other catalog is"
        " configured: $ICESQL_WAREHOUSE or .)",
    )
    parser.add_argument("-c", "--command", action="append", help="SQL to run (repeatable)")
    group = parser.add_argument_group("catalogs (as icesql.connect takes them)")
    group.add_argument("--catalog", metavar="TYPE", help="catalog type: hadoop, sql (jdbc), ...")
    group.add_argument("--uri", help="catalog uri, e.g. sqlite:///catalog.db")
    group.add_argument("--warehouse", dest="warehouse_option", metavar="PATH", help="warehouse location")
    group.add_argument("--name", default="local", help="the catalog's name (default: local)")
    group.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark property (spark.sql.catalog.<name>.<key>, spark.sql.defaultCatalog) or an"
        " Iceberg catalog property of the catalog above (repeatable)",
    )
    group.add_argument("--spark-conf", metavar="FILE", help="a spark-defaults.conf to read catalogs from")
    group.add_argument("--pyiceberg-config", metavar="FILE", help="a .pyiceberg.yaml to read catalogs from")
    group.add_argument("--default", metavar="NAME", help="the catalog unqualified names use")
    return parser


def _connect_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """``connect`` keywords from the command line: ``--conf spark.*`` keys join (and win over)
    the ``--spark-conf`` file, as Spark's ``--conf`` does; other keys are properties of the
    catalog of ``--catalog``/``--uri``/``--warehouse``."""
    if args.warehouse and args.warehouse_option and args.warehouse != args.warehouse_option:
        raise ProgrammingError(f"two warehouses given: {args.warehouse} and --warehouse {args.warehouse_option}")
    spark = dict(read_spark_defaults(args.spark_conf)) if args.spark_conf else {}
    props: dict[str, str] = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ProgrammingError(f"--conf takes KEY=VALUE, got {item!r}")
        (spark if key.strip().startswith("spark.") else props)[key.strip()] = value.strip()
    warehouse = args.warehouse or args.warehouse_option
    own = warehouse or args.catalog or args.uri or props
    if not own and not spark and not args.pyiceberg_config:
        warehouse = os.environ.get("ICESQL_WAREHOUSE", ".")
    return {
        "warehouse": warehouse,
        "catalog": args.catalog,
        "uri": args.uri,
        "name": args.name,
        "properties": props or None,
        "spark_conf": spark if args.spark_conf or spark else None,
        "pyiceberg_config": args.pyiceberg_config,
        "default": args.default,
    }


if __name__ == "__main__":
    sys.exit(main())
