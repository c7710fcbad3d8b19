"""The ``icesql`` command: run Spark SQL against a warehouse and print aligned tables.

``icesql WAREHOUSE -c "SQL"`` runs statements and exits; without ``-c`` statements come from
standard input (``;``-separated) or, at a terminal, from a simple prompt. Catalogs are
configured as ``icesql.connect`` takes them: ``--catalog sql --uri sqlite:///c.db``, Spark's
``--conf spark.sql.catalog.prod.type=hadoop`` or ``--spark-conf spark-defaults.conf``, or
``--pyiceberg-config .pyiceberg.yaml``. ``icesql serve --warehouse W ...`` runs an Iceberg REST
catalog server instead (``icesql.server``); a warehouse folder named ``serve`` is ``./serve``.
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


def serve_main(argv: Sequence[str]) -> int:
    """``icesql serve``: serve the REST catalog until SIGINT/SIGTERM, then shut down gracefully."""
    import logging
    import signal
    import threading

    from icesql.server import DEFAULT_URI, open_server

    parser = argparse.ArgumentParser(
        prog="icesql serve", description="Serve an Iceberg REST catalog over a SQL catalog."
    )
    parser.add_argument("--warehouse", required=True, help="where new tables go (and may only go)")
    parser.add_argument("--uri", default=DEFAULT_URI, help=f"SQL catalog database (default {DEFAULT_URI})")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8181, help="port (default 8181; 0 = any free)")
    parser.add_argument("--name", default="rest", help="catalog_name of the tables' rows (default rest)")
    auth = parser.add_mutually_exclusive_group()
    auth.add_argument("--token", help="require this bearer token (default $ICESQL_SERVE_TOKEN)")
    auth.add_argument("--credentials", help="file of client_id:secret lines for /v1/oauth/tokens")
    args = parser.parse_args(argv)
    credentials = None
    if args.credentials:
        try:
            with open(args.credentials, encoding="utf-8") as f:
                pairs = [line.strip().split(":", 1) for line in f if line.strip()]
        except OSError as e:
            print(f"error: cannot read credentials: {e}", file=sys.stderr)
            return 1
        if any(len(p) != 2 for p in pairs):
            print("error: credentials lines must be client_id:secret", file=sys.stderr)
            return 1
        credentials = dict(pairs)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    try:
        server = open_server(
            args.warehouse, args.uri, args.host, args.port,
            token=args.token or os.environ.get("ICESQL_SERVE_TOKEN") or None,
            credentials=credentials, name=args.name,
        )
    except (Error, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1

    def stop(signum: int, frame: object) -> None:
        threading.Thread(target=server.stop, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(
        f"icesql serve: http://{args.host}:{server.port} (warehouse {args.warehouse},"
        f" catalog {args.uri})",
        file=sys.stderr, flush=True,
    )
    server.serve_forever()
    server.stop()  # joins requests in flight (idempotent after the signal's stop)
    server.router.service.catalog.close()
    print("icesql serve: stopped", file=sys.stderr, flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        return serve_main(argv[1:])
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
