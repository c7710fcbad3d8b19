"""The ``icesql`` command: run Spark SQL against a warehouse and print aligned tables.

``icesql WAREHOUSE -c "SQL"`` (or ``-f FILE``) runs statements and exits; without them statements
come from standard input (``;``-separated) or, at a terminal, from the interactive prompt of
``icesql.cli`` (history, completion, dot-commands). Catalogs are
configured as ``icesql.connect`` takes them: ``--catalog sql --uri sqlite:///c.db``, Spark's
``--conf spark.sql.catalog.prod.type=hadoop`` or ``--spark-conf spark-defaults.conf``, or
``--pyiceberg-config .pyiceberg.yaml``. ``icesql serve --warehouse W ...`` runs an Iceberg REST
catalog server instead (``icesql.server``); a warehouse folder named ``serve`` is ``./serve``.
``icesql health TABLE --warehouse W [--json]`` prints a table's health report (``icesql.health``).

A warehouse folder that does not exist is an error unless ``--create`` asks for a new one. With
no catalog at all (no warehouse, no ``$ICESQL_WAREHOUSE``, no PyIceberg configuration) the shell
opens a transient warehouse, removed at exit, as DuckDB's opens an in-memory database.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from icesql.catalog.config import pyiceberg_catalogs, read_spark_defaults
from icesql.cli.app import add_arguments, run
from icesql.cli.formatting import Format, render
from icesql.errors import Error, ProgrammingError

if TYPE_CHECKING:
    from icesql.dbapi import Connection


def format_table(columns: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """An aligned text table (the ``table`` mode of ``icesql.cli.formatting``)."""
    return render(columns, rows, Format("table"))


def serve_main(argv: Sequence[str]) -> int:
    """``icesql serve``: serve the REST catalog until SIGINT/SIGTERM, then shut down gracefully."""
    import logging
    import signal
    import threading

    from icesql.server import DEFAULT_URI, MAX_BODY_BYTES, MAX_JSON_DEPTH, open_server

    parser = argparse.ArgumentParser(
        prog="icesql serve", description="Serve an Iceberg REST catalog over a SQL catalog."
    )
    parser.add_argument("--warehouse", required=True, help="where new tables go (and may only go)")
    parser.add_argument(
        "--uri", default=DEFAULT_URI, help=f"SQL catalog database (default {DEFAULT_URI})"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8181, help="port (default 8181; 0 = any free)")
    parser.add_argument(
        "--name", default="rest", help="catalog_name of the tables' rows (default rest)"
    )
    parser.add_argument(
        "--threads", type=int, default=8, help="requests served at once (default 8)"
    )
    parser.add_argument(
        "--max-body-bytes",
        type=int,
        default=MAX_BODY_BYTES,
        help=f"refuse larger request bodies with 413 (default {MAX_BODY_BYTES})",
    )
    parser.add_argument(
        "--max-json-depth",
        type=int,
        default=MAX_JSON_DEPTH,
        help=f"refuse JSON nested deeper with 400 (default {MAX_JSON_DEPTH})",
    )
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
            args.warehouse,
            args.uri,
            args.host,
            args.port,
            token=args.token or os.environ.get("ICESQL_SERVE_TOKEN") or None,
            credentials=credentials,
            name=args.name,
            threads=args.threads,
            max_body_bytes=args.max_body_bytes,
            max_json_depth=args.max_json_depth,
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
        file=sys.stderr,
        flush=True,
    )
    server.serve_forever()
    server.stop()  # joins requests in flight (idempotent after the signal's stop)
    assert server.router is not None  # open_server serves the REST catalog
    server.router.service.catalog.close()
    print("icesql serve: stopped", file=sys.stderr, flush=True)
    return 0


def health_main(argv: Sequence[str]) -> int:
    """``icesql health TABLE``: the table's health report (``icesql.health``) as text, or as
    JSON with ``--json`` for scripts and CI; ``--check`` exits 1 when a problem is found."""
    import json

    parser = argparse.ArgumentParser(
        prog="icesql health",
        description="The health of an Iceberg table: file sizes, deletes, partitions,"
        " manifests, snapshots, and the CALLs that fix what is wrong (with a dry run of each),"
        " read from its metadata and manifests.",
    )
    parser.add_argument("table", help="the table, as SQL names it (db.t, catalog.db.t)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--orphans", action="store_true", help="also list storage for orphan files (slower)"
    )
    parser.add_argument(
        "--check", action="store_true", help="exit with status 1 when a problem is found"
    )
    parser.add_argument("--width", type=int, default=80, help="text width (default 80)")
    _catalog_arguments(parser)
    args = parser.parse_args(argv)
    args.warehouse, args.engine, args.spark, args.create = None, "local", None, False
    if not _configured(args):
        print(
            "error: icesql health needs a catalog (--warehouse PATH, --catalog, --conf,"
            " $ICESQL_WAREHOUSE)",
            file=sys.stderr,
        )
        return 1
    missing = _missing_folder(args)
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return 1
    from icesql.dbapi import connect
    from icesql.health.text import render_text

    try:
        with connect(**_connect_arguments(args), preload=False) as con:
            report = con.health(args.table, orphans=args.orphans)
    except Error as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(render_text(report, args.width))
    return 1 if args.check and report.advice else 0


def ui_main(argv: Sequence[str], ready: Any = None) -> int:
    """``icesql ui [WAREHOUSE]``: the web UI (``icesql.server.ui``) over a warehouse or the
    catalog options, on 127.0.0.1, opening the browser unless ``--no-browser``; serves until
    SIGINT/SIGTERM. ``ready`` (tests) is called with the server once it accepts."""
    import signal
    import threading
    import webbrowser

    parser = argparse.ArgumentParser(
        prog="icesql ui",
        description="Browse a catalog's tables and their health in a web browser (read-only).",
    )
    parser.add_argument("warehouse", nargs="?", help="warehouse folder of the file-system catalog")
    parser.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: any)")
    parser.add_argument("--token", help="a token the pages ask for")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    _catalog_arguments(parser)
    args = parser.parse_args(argv)
    args.engine, args.spark, args.create = "local", None, False
    if not _configured(args):
        print("error: icesql ui needs a warehouse or catalog options", file=sys.stderr)
        return 1
    missing = _missing_folder(args)
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return 1
    from icesql.dbapi import connect
    from icesql.server import open_ui_server

    try:
        con = connect(**_connect_arguments(args), preload=False)
    except Error as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    with con:
        server = open_ui_server(con.catalogs, con.catalog.name, args.host, args.port, args.token)

        def stop(signum: int, frame: object) -> None:
            threading.Thread(target=server.stop, daemon=True).start()

        handlers = {}
        if threading.current_thread() is threading.main_thread():
            handlers = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            url = f"http://{args.host}:{server.port}/ui/"
            print(f"icesql ui: {url} (Ctrl-C stops)", file=sys.stderr, flush=True)
            if not args.no_browser:
                webbrowser.open(url)
            if ready is not None:
                server.serve_in_background()
                ready(server)
            else:
                server.serve_forever()
        finally:
            server.stop()
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
    return 0


def command() -> int:
    """The ``icesql`` command: ``main``, then the process ends. Its objects are left to the
    exit: Python's last full garbage collection would walk every object of the loaded
    modules (sqlglot, DuckDB, icesql), a noticeable part of a short ``icesql -c "SELECT 1"``."""
    status = main()
    gc.freeze()
    return status


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        return serve_main(argv[1:])
    if argv[:1] == ["health"]:
        return health_main(argv[1:])
    if argv[:1] == ["ui"]:
        return ui_main(argv[1:])
    args = _parser().parse_args(argv)
    missing = _missing_folder(args)
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return 1
    args.transient = None
    if not _configured(args):
        args.transient = tempfile.mkdtemp(prefix="icesql-")
    try:
        notice = None
        if args.transient:
            notice = (
                f"A transient warehouse ({args.transient}), removed at exit: open yours with"
                " .open FOLDER (.open --create FOLDER makes a new one) or icesql FOLDER."
            )
        return run(args, lambda: _connect(args), notice)
    finally:
        if args.transient:
            shutil.rmtree(args.transient, ignore_errors=True)


def _configured(args: argparse.Namespace) -> bool:
    """Whether the command line, ``$ICESQL_WAREHOUSE`` or PyIceberg's configuration names a
    catalog (the last as ``icesql.connect()`` reads it)."""
    if args.warehouse or args.warehouse_option or args.catalog or args.uri or args.conf:
        return True
    if args.spark_conf or args.pyiceberg_config or os.environ.get("ICESQL_WAREHOUSE"):
        return True
    try:
        return bool(pyiceberg_catalogs().catalogs)
    except Error:
        return True  # connect() names what is wrong with it


def _missing_folder(args: argparse.Namespace) -> str | None:
    """A local warehouse folder that is not there, without ``--create``: said before the
    prompt appears (``connect`` refuses it too, but only once the engine has loaded)."""
    if args.catalog or args.uri:  # a SQL or REST catalog's warehouse is where new tables go
        return None
    warehouse = args.warehouse or args.warehouse_option
    if args.warehouse_option and warehouse != args.warehouse_option:
        return None  # two warehouses: ``_connect_arguments`` says so
    if not warehouse or args.create or "://" in warehouse or os.path.isdir(warehouse):
        return None
    if os.path.exists(warehouse):
        return f"the warehouse {warehouse} is not a folder"
    return (
        f"the warehouse folder {warehouse} does not exist"
        f" (icesql --create {warehouse} makes a new warehouse there)"
    )


def _connect(args: argparse.Namespace) -> Connection:
    from icesql.engine import startup

    startup.start()  # DuckDB's database opens while the engine's modules load
    try:
        # imported here: the prompt appears while the engine loads (icesql.cli.app)
        from icesql.dbapi import connect

        # a script's statements may read no table: Arrow loads with the first that does
        return connect(
            **_connect_arguments(args), preload=not (args.command or args.file), create=args.create
        )
    finally:
        startup.discard()  # left untaken when the connection failed


_DESCRIPTION = "Run Spark SQL against Iceberg tables and print the results."
_COMMANDS = """commands:
  icesql [WAREHOUSE] [options]   run SQL: -c/-f, standard input, or the interactive prompt
  icesql serve [options]         serve an Iceberg REST catalog (icesql serve --help)
  icesql health TABLE [options]  a table's health and advice (icesql health --help)
  icesql ui [WAREHOUSE] [options] browse tables and their health in a browser

examples:
  icesql path/to/warehouse -c "SELECT * FROM db.events LIMIT 10"
  icesql path/to/warehouse -f report.sql --csv > report.csv
  icesql serve --warehouse /data/wh --port 8181
  icesql health db.events --warehouse /data/wh --json"""


def _parser() -> argparse.ArgumentParser:
    """``--help`` is plain text for a terminal, and names every command the program has."""
    parser = argparse.ArgumentParser(
        prog="icesql",
        description=_DESCRIPTION,
        epilog=_COMMANDS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "warehouse",
        nargs="?",
        help="warehouse folder of the file-system catalog (default, when no other catalog is"
        " configured: $ICESQL_WAREHOUSE, else a transient one removed at exit)",
    )
    parser.add_argument(
        "--create",
        action="store_true",
        help="make the warehouse folder when it does not exist (a new warehouse)",
    )
    parser.add_argument("-c", "--command", action="append", help="SQL to run (repeatable)")
    add_arguments(parser)
    _catalog_arguments(parser)
    group = parser.add_argument_group("engine")
    group.add_argument(
        "--engine",
        choices=("local", "spark", "auto"),
        default="local",
        help="where statements run (default local; SET icesql.engine changes it)",
    )
    group.add_argument(
        "--spark",
        metavar="MASTER",
        help="the Spark of --engine spark|auto: a"
        " master URL (local[4], spark://host:7077, yarn) or sc://host:port;"
        " --spark-conf's properties configure it",
    )
    return parser


def _catalog_arguments(parser: argparse.ArgumentParser) -> None:
    """The catalog options ``icesql`` and ``icesql health`` share."""
    group = parser.add_argument_group("catalogs (as icesql.connect takes them)")
    group.add_argument("--catalog", metavar="TYPE", help="catalog type: hadoop, sql (jdbc), ...")
    group.add_argument("--uri", help="catalog uri, e.g. sqlite:///catalog.db")
    group.add_argument(
        "--warehouse", dest="warehouse_option", metavar="PATH", help="warehouse location"
    )
    group.add_argument("--name", default="local", help="the catalog's name (default: local)")
    group.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark property (spark.sql.catalog.<name>.<key>, spark.sql.defaultCatalog) or an"
        " Iceberg catalog property of the catalog above (repeatable)",
    )
    group.add_argument(
        "--spark-conf", metavar="FILE", help="a spark-defaults.conf to read catalogs from"
    )
    group.add_argument(
        "--pyiceberg-config", metavar="FILE", help="a .pyiceberg.yaml to read catalogs from"
    )
    group.add_argument("--default", metavar="NAME", help="the catalog unqualified names use")


def _connect_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """``connect`` keywords from the command line: ``--conf spark.*`` keys join (and win over)
    the ``--spark-conf`` file, as Spark's ``--conf`` does; other keys are properties of the
    catalog of ``--catalog``/``--uri``/``--warehouse``."""
    if args.warehouse and args.warehouse_option and args.warehouse != args.warehouse_option:
        raise ProgrammingError(
            f"two warehouses given: {args.warehouse} and --warehouse {args.warehouse_option}"
        )
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
        warehouse = os.environ.get("ICESQL_WAREHOUSE") or getattr(args, "transient", None)
    return {
        "warehouse": warehouse,
        "catalog": args.catalog,
        "uri": args.uri,
        "name": args.name,
        "properties": props or None,
        "spark_conf": spark if args.spark_conf or spark else None,
        "pyiceberg_config": args.pyiceberg_config,
        "default": args.default,
        "engine": args.engine,
        "spark": args.spark,
    }


if __name__ == "__main__":
    sys.exit(command())
