"""Statements handed to Spark: the same SQL text, on the same catalogs, results back as Arrow.

When a query outgrows one machine (``icesql.connect(..., engine="spark")``, ``SET
icesql.engine = spark``, or ``auto`` above a planned size), the statement's text goes to a
SparkSession unchanged, with its ``?`` parameters as Spark's positional parameters. So that
``prod.db.t`` means the same table on both engines, every catalog of the connection is declared
in the session as Iceberg's ``SparkCatalog`` under the same name, from the same properties
(:func:`spark_catalog_conf`); a catalog the session already declares must point at the same
place, or the statement is refused rather than run on another table. Spark commits DML and
DDL itself, through the same catalog.

pyspark is never imported unless Spark is chosen: this module imports it inside functions, and a
missing pyspark is an ``InterfaceError`` naming what to install. The session is a SparkSession
the caller gives, one built from a master URL (``local[4]``, ``spark://host:7077``, ``yarn``),
or a Spark Connect client (``sc://host:15002``, ``SparkSession.builder.remote``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from icesql._lazy import lazy_module
from icesql.catalog.loader import catalog_type
from icesql.errors import (
    CommitConflictError,
    Error,
    InterfaceError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
)
from icesql.session.result import Result
from icesql.session.settings import Settings

if TYPE_CHECKING:
    import pyarrow as pa
else:  # pyarrow loads on first use (icesql._lazy)
    pa = lazy_module("pyarrow")

__all__ = ["INSTALL_HINT", "SparkBackend", "jdbc_url", "require_pyspark", "spark_catalog_conf"]

SPARK_CATALOG = "org.apache.iceberg.spark.SparkCatalog"
ICEBERG_EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
INSTALL_HINT = "pip install 'icesql[spark]' (pyspark 3.5)"
CONNECT_HINT = (
    "pip install 'pyspark[connect]==3.5.*' (grpcio, grpcio-status, googleapis-common-protos)"
)
# Iceberg's Java catalog types, by icesql's catalog kind (icesql.catalog.loader.catalog_type)
_SPARK_TYPES = {"hadoop": "hadoop", "sql": "jdbc", "rest": "rest", "glue": "glue", "hive": "hive"}
# what decides which table a name means: compared with a session's own declaration
_IDENTITY_KEYS = ("type", "catalog-impl", "uri", "warehouse")
_JDBC_SUBPROTOCOLS = {
    "postgresql": "postgresql",
    "postgres": "postgresql",
    "mysql": "mysql",
    "mariadb": "mariadb",
}
TIME_ZONE = "spark.sql.session.timeZone"
_ERROR_LINES = 12  # of a Spark error's message (the JVM's stack trace follows them)
# sessions icesql started (no SparkContext was running), by id, with the backends still using each: the last
# one to close stops the session, so a connection's JVM does not outlive it, while a session the
# caller made (or given) is never stopped by icesql
_STARTED: dict[int, list[Any]] = {}


def require_pyspark() -> Any:
    """The ``pyspark.sql`` module, or an ``InterfaceError`` naming what to install."""
    try:
        import pyspark.sql
    except ImportError as err:
        raise InterfaceError(
            f"the Spark engine needs pyspark, which cannot be imported ({err}): {INSTALL_HINT}"
        ) from None
    return pyspark.sql


def jdbc_url(name: str, uri: str) -> tuple[str, dict[str, str]]:
    """The JDBC URL (and ``jdbc.user`` / ``jdbc.password`` properties) of a SQL catalog's
    SQLAlchemy URL, as Iceberg's ``JdbcCatalog`` takes it; a ``jdbc:`` URL is kept."""
    if uri.startswith("jdbc:"):
        return uri, {}
    parts = urlsplit(uri)
    dialect = parts.scheme.split("+", 1)[0].lower()
    if dialect == "sqlite":
        path = uri.split("?", 1)[0].partition(":///")[2]
        if not path or path == ":memory:":
            raise NotSupportedError(
                f"catalog {name!r}: an in-memory SQLite catalog ({uri}) cannot be shared with Spark"
            )
        return f"jdbc:sqlite:{os.path.abspath(os.path.expanduser(path))}", {}
    subprotocol = _JDBC_SUBPROTOCOLS.get(dialect)
    if subprotocol is None:
        known = ", ".join(sorted({"sqlite", *_JDBC_SUBPROTOCOLS}))
        raise NotSupportedError(
            f"catalog {name!r}: no JDBC URL is known for {dialect!r} databases ({known} are);"
            " give the catalog's uri as a jdbc: URL"
        )
    host = parts.hostname or "localhost"
    port = f":{parts.port}" if parts.port else ""
    query = f"?{parts.query}" if parts.query else ""
    extra = {}
    if parts.username:
        extra["jdbc.user"] = unquote(parts.username)
    if parts.password:
        extra["jdbc.password"] = unquote(parts.password)
    return f"jdbc:{subprotocol}://{host}{port}{parts.path}{query}", extra


def _location(path: str) -> str:
    """A warehouse as Spark must see it: a local path made absolute (Spark runs elsewhere)."""
    if "://" in path or path.startswith("file:"):
        return path
    return os.path.abspath(os.path.expanduser(path))


def spark_catalog_conf(name: str, properties: Mapping[str, str]) -> dict[str, str]:
    """The ``spark.sql.catalog.<name>*`` settings that declare catalog ``name`` (icesql's
    properties) as Iceberg's ``SparkCatalog``: its type, uri (a SQL catalog's SQLAlchemy URL
    as JDBC) and warehouse, and every other property verbatim (``py-*`` keys are PyIceberg's
    and stay behind). Its table cache is off: icesql commits to the same tables, and a cached
    table would let Spark read a state older than the one icesql just committed."""
    kind = catalog_type(name, properties)
    prefix = f"spark.sql.catalog.{name}"
    conf = {prefix: SPARK_CATALOG, f"{prefix}.cache-enabled": "false"}
    for key, value in properties.items():
        if not key.startswith("py-") and key not in ("type", "uri", "warehouse"):
            conf[f"{prefix}.{key}"] = str(value)
    if "catalog-impl" not in properties:
        conf[f"{prefix}.type"] = _SPARK_TYPES[kind]
    uri = properties.get("uri")
    if uri:
        if kind == "sql":
            uri, credentials = jdbc_url(name, str(uri))
            conf.update({f"{prefix}.{k}": v for k, v in credentials.items()})
        conf[f"{prefix}.uri"] = str(uri)
    warehouse = properties.get("warehouse")
    if warehouse:
        conf[f"{prefix}.warehouse"] = _location(str(warehouse))
    return conf


def _same_place(key: str, have: str, want: str) -> bool:
    if key == "warehouse":
        have, want = (_location(v.removeprefix("file://")).rstrip("/") for v in (have, want))
    if key == "type":
        have, want = have.lower(), want.lower()
    return have == want


class SparkBackend:
    """One connection's way to Spark: a session of its own (``newSession()`` of the one given
    or opened on first use: the same SparkContext and JVM, its own SQL settings, catalogs and
    current namespace, so any number of connections to different warehouses share one Spark
    and none changes the caller's session) and what icesql last told it (the current catalog
    and namespace, the ``spark.*`` settings SET in icesql), kept in step before each
    statement. A Spark Connect session has no ``newSession``: it is used as it is, and a
    catalog it declares must mean the same tables as icesql's."""

    def __init__(
        self,
        spark: Any,
        catalogs: Mapping[str, Mapping[str, str]],
        spark_conf: Mapping[str, str] | None = None,
    ):
        if spark is not None and not isinstance(spark, str) and not hasattr(spark, "sql"):
            raise ProgrammingError(
                f"spark= takes a SparkSession, a master URL or an sc:// URL, not {type(spark).__name__}"
            )
        self._given = spark
        self._catalogs = {n: dict(p) for n, p in catalogs.items()}
        self._conf = dict(spark_conf or {})
        self._session: Any = None  # this connection's own session (see the class)
        self._base: Any = None  # the session it was made from, which icesql may have started
        self._pushed: set[str] = set()
        self._current: tuple[str, tuple[str, ...]] | None = None
        self._started = False

    @property
    def description(self) -> str:
        """How EXPLAIN names the Spark side."""
        if self._given is None or isinstance(self._given, str):
            return f"Spark ({self._given or 'SparkSession.builder.getOrCreate()'})"
        return "Spark (the SparkSession given)"

    # -- the session -----------------------------------------------------------------------
    def session(self) -> Any:
        """The SparkSession, opened and given the connection's catalogs on first use."""
        if self._session is None:
            base = self._open()
            own = _is_classic(base)
            session = base.newSession() if own else base
            if own:
                _copy_catalogs(base, session)
            self._declare_catalogs(session, own)
            self._base, self._session = base, session
        return self._session

    def close(self) -> None:
        """Stop the session if icesql started it and no other connection still uses it."""
        session, self._session, self._base = self._base, None, None
        if session is None or not self._started:
            return
        self._started = False
        users = _STARTED.get(id(session))
        if users is None:
            return
        users[1] -= 1
        if users[1] <= 0:
            del _STARTED[id(session)]
            session.stop()

    def _open(self) -> Any:
        given = self._given
        if given is not None and not isinstance(given, str):
            return given
        sql = require_pyspark()
        builder = sql.SparkSession.builder
        if isinstance(given, str) and given.startswith("sc://"):
            try:
                import pyspark.sql.connect.session  # noqa: F401 - its dependencies are checked here
            except ImportError as err:
                raise InterfaceError(
                    f"Spark Connect ({given}) needs pyspark's connect extra ({err}): {CONNECT_HINT}"
                ) from None
            try:
                return builder.remote(given).getOrCreate()
            except Exception as err:
                raise OperationalError(
                    f"cannot open a Spark Connect session at {given}: {err}"
                ) from err
        if given:
            builder = builder.master(given)
        conf = {"spark.sql.extensions": ICEBERG_EXTENSIONS, **self._conf}
        for name, props in self._catalogs.items():
            conf.update(spark_catalog_conf(name, props))
        for key, value in conf.items():
            builder = builder.config(key, value)
        from pyspark import SparkContext

        # no SparkContext in the process: getOrCreate starts one, and this connection owns it
        running = SparkContext._active_spark_context is not None
        try:
            session = builder.appName("icesql").getOrCreate()
        except Exception as err:
            raise OperationalError(
                f"cannot start Spark ({given or 'default master'}): {err}"
            ) from err
        users = _STARTED.get(id(session))
        if not running or users is not None:
            if users is None or users[0] is not session:
                users = _STARTED[id(session)] = [session, 0]
            users[1] += 1
            self._started = True
        return session

    def _declare_catalogs(self, session: Any, own: bool) -> None:
        """Declare each catalog the session lacks; in a session of the connection's own every
        catalog is icesql's, in a shared one (Spark Connect) one it has must mean the same
        tables."""
        wanted = {name: spark_catalog_conf(name, props) for name, props in self._catalogs.items()}
        to_set: dict[str, str] = {}
        for name, conf in wanted.items():
            prefix = f"spark.sql.catalog.{name}"
            declared = session.conf.get(prefix, None)
            if declared is None or own:
                to_set.update(conf)
                continue
            for key in _IDENTITY_KEYS:
                want = conf.get(f"{prefix}.{key}")
                have = session.conf.get(f"{prefix}.{key}", None)
                if want is not None and (have is None or not _same_place(key, have, want)):
                    raise ProgrammingError(
                        f"catalog {name!r} means other tables to the Spark session: its {key} is"
                        f" {have!r} there and {want!r} in icesql; give the session no catalog"
                        f" {name!r} (icesql declares it) or the same one"
                    )
        for key, value in to_set.items():
            session.conf.set(key, value)

    # -- statements ------------------------------------------------------------------------
    def execute(
        self,
        sql: str,
        params: Sequence[object],
        settings: Settings,
        catalog: str,
        namespace: Sequence[str],
    ) -> Result:
        """Run ``sql`` on Spark: its rows as an Arrow stream, or ``done()`` for a statement
        without rows (Spark has committed it when ``sql()`` returns)."""
        session = self.session()
        try:
            self._sync(session, settings, catalog, tuple(namespace))
            frame = session.sql(sql, args=list(params)) if params else session.sql(sql)
            if not frame.columns:
                return Result(rowcount=-1, engine="spark")
            table = _to_arrow(frame)
        except Error:
            raise
        except Exception as err:
            raise _spark_error(err) from err
        return Result(reader=table.to_reader(), engine="spark")

    def explain(
        self,
        sql: str,
        params: Sequence[object],
        settings: Settings,
        catalog: str,
        namespace: Sequence[str],
    ) -> str:
        """Spark's plan of ``sql`` (``EXPLAIN <sql>``)."""
        result = self.execute(f"EXPLAIN {sql}", params, settings, catalog, namespace)
        assert result.reader is not None
        return "\n".join(str(v) for v in result.reader.read_all().column(0).to_pylist())

    def _sync(
        self, session: Any, settings: Settings, catalog: str, namespace: tuple[str, ...]
    ) -> None:
        """Give Spark icesql's ``spark.*`` settings (unset those RESET since), its time zone
        (UTC) and its current catalog and namespace."""
        values = {k: v for k, v in settings.items() if k.startswith("spark.")}
        # icesql sessions run in UTC: the same SQL must mean the same instants on both sides
        values.setdefault(TIME_ZONE, settings.get(TIME_ZONE) or "UTC")
        for key in sorted(self._pushed - values.keys()):
            session.conf.unset(key)
        for key, value in values.items():
            if session.conf.get(key, None) != value:
                session.conf.set(key, value)
        self._pushed = set(values)
        if self._current != (catalog, namespace):
            # USE, not session.catalog.setCurrentCatalog: the catalog API reads the settings
            # of the thread's active session (the caller's), sql() those of its own session
            session.sql(f"USE {_quote(catalog)}")
            if namespace:
                try:
                    session.sql(f"USE {'.'.join(_quote(p) for p in (catalog, *namespace))}")
                except Exception:
                    pass
            self._current = (catalog, namespace)


def _is_classic(session: Any) -> bool:
    """A session in this process's JVM (not Spark Connect's client), so ``newSession`` makes
    one sharing its SparkContext."""
    return hasattr(session, "_jsparkSession") and hasattr(session, "newSession")


def _copy_catalogs(parent: Any, child: Any) -> None:
    """The catalogs ``parent`` was given at run time (``spark.conf.set``), which a new session
    does not inherit as it inherits those of the SparkContext: the user's other catalogs stay
    reachable from icesql's statements."""
    try:
        rows = parent.sql("SET").collect()
    except Exception:  # nothing to copy from a session that cannot list its settings
        return
    for key, value in ((r[0], r[1]) for r in rows):
        if key.startswith("spark.sql.catalog.") or key == "spark.sql.defaultCatalog":
            if child.conf.get(key, None) != value:
                child.conf.set(key, value)


def _quote(part: str) -> str:
    return "`" + part.replace("`", "``") + "`"


def _to_arrow(frame: Any) -> pa.Table:
    """A Spark DataFrame's rows as one Arrow table (Spark's own Arrow collect: classic
    ``_collect_as_arrow``, Spark Connect's ``to_table``)."""
    session = getattr(frame, "_session", None)
    if (
        session is not None
        and getattr(frame, "_plan", None) is not None
        and hasattr(session, "client")
    ):  # Spark Connect
        table, _ = session.client.to_table(frame._plan.to_proto(session.client))
        return table
    batches = frame._collect_as_arrow()
    if batches:
        return pa.Table.from_batches(batches)
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(frame.schema).empty_table()


def _spark_error(err: Exception) -> Error:
    """A Spark failure as the DB-API error it is: analysis and parse errors are the
    statement's (``ProgrammingError``); Iceberg's commit conflicts ``CommitConflictError``;
    anything else ``OperationalError``. The message keeps Spark's first lines."""
    text = "\n".join(str(err).strip().splitlines()[:_ERROR_LINES])
    message = f"Spark: {text}"
    try:
        from pyspark.errors import AnalysisException
    except ImportError:  # pragma: no cover - pyspark older than 3.4
        AnalysisException = ()  # type: ignore[assignment,misc]
    if isinstance(err, AnalysisException):
        return ProgrammingError(message)
    if "CommitFailedException" in text or "ValidationException" in text:
        return CommitConflictError(message)
    return OperationalError(message)
