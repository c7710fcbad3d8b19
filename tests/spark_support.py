"""Real Spark + Iceberg for icesql's tests: jars, the session, and result comparison.

Three concerns, each usable on its own (facts behind them: /work/shared/SPARK.md):

* **Jars.** :func:`spark_jars` returns the jar list for ``spark.jars``: the env variable
  ``ICESQL_SPARK_JARS`` (comma-separated paths) wins; otherwise the Iceberg 1.10.2 Spark runtime
  jar from the ``snowpark_connect_deps_iceberg`` package plus a Jackson jar relocated to
  ``org.apache.iceberg.shaded.com.fasterxml.jackson`` (that runtime jar was built without it).
  When Debian's HttpClient 5.2 jars are installed, a third jar lets Spark use Iceberg's
  ``RESTCatalog``: httpclient5 + httpcore5 + httpcore5-h2 with the one 5.4 method Iceberg 1.10
  calls added (:func:`relocated_httpclient_jar`), relocated to ``org.apache.iceberg.shaded``.
  Relocated jars are built once into ``ICESQL_TEST_JAR_CACHE`` (default
  ``~/.cache/icesql-test-jars``) with Debian's jarjar when present, else in pure Python by
  rewriting class-file constant pools (``classfile_support.py``). Jars are never committed.
* **Session.** :func:`start_spark` builds a ``local[2]`` session whose catalog ``local``
  (``type=hadoop``) is the default catalog and points at the warehouse icesql opens, so one
  SQL text (``SELECT * FROM db.t``) means the same table to both engines.
* **Comparison.** :func:`normalize_rows` / :func:`assert_same_rows` turn Spark ``Row``\\ s and
  icesql DB-API tuples into one comparable shape (rules in :func:`normalize_value`).
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import math
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import classfile_support

# --------------------------------------------------------------------------------------------
# Jars
# --------------------------------------------------------------------------------------------

ICEBERG_RUNTIME_JAR = "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"
JACKSON_VERSION = "2.15.2"
JACKSON_ARTIFACTS = ("jackson-core", "jackson-databind", "jackson-annotations")
JACKSON_PACKAGE = "com.fasterxml.jackson"
SHADED_PREFIX = classfile_support.SHADED_PREFIX
JARJAR = Path("/usr/share/java/jarjar.jar")
HTTPCLIENT_JAR_DIR = Path("/usr/share/java")
HTTPCLIENT_ARTIFACTS = ("httpclient5", "httpcore5", "httpcore5-h2")
HTTPCLIENT_PACKAGE = "org.apache.hc"
_TLS_SOCKET_STRATEGY = "org/apache/hc/client5/http/ssl/TlsSocketStrategy"
_CONNECTION_MANAGER_BUILDER = (
    "org/apache/hc/client5/http/impl/io/PoolingHttpClientConnectionManagerBuilder"
)
# Bump when the way the relocated jar is built changes, so stale caches are not reused.
_RELOCATION_RECIPE = "1"


def java_executable() -> str | None:
    """The ``java`` Spark will launch (``JAVA_HOME`` first, then ``PATH``), or None."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


def jar_cache_dir() -> Path:
    """Where built jars live: ``$ICESQL_TEST_JAR_CACHE`` or ``~/.cache/icesql-test-jars``."""
    configured = os.environ.get("ICESQL_TEST_JAR_CACHE")
    return (
        Path(configured).expanduser() if configured else Path.home() / ".cache" / "icesql-test-jars"
    )


def iceberg_runtime_jar() -> Path:
    """The Iceberg Spark runtime jar shipped inside the ``snowpark_connect_deps_iceberg`` wheel."""
    import snowpark_connect_deps_iceberg

    path = Path(snowpark_connect_deps_iceberg.get_jar_path(ICEBERG_RUNTIME_JAR))
    if not path.is_file():
        raise FileNotFoundError(
            f"{ICEBERG_RUNTIME_JAR} not found in snowpark_connect_deps_iceberg ({path})"
        )
    return path


def _pyspark_jackson_jars() -> list[Path]:
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    paths = [jars / f"{name}-{JACKSON_VERSION}.jar" for name in JACKSON_ARTIFACTS]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"Jackson jars missing from pyspark: {missing}")
    return paths


def _merge_jars(
    sources: Sequence[Path],
    out: Path,
    patches: dict[str, Callable[[bytes], bytes]] | None = None,
    extra: dict[str, bytes] | None = None,
) -> None:
    """One jar of the sources' entries, without ``META-INF/`` (multi-release versions,
    services, manifests) and without ``module-info.class`` — neither survives relocation.
    ``patches`` rewrites named entries on the way; ``extra`` adds entries."""
    patches, seen = patches or {}, set(extra or {})
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as merged:
        for name, data in (extra or {}).items():
            merged.writestr(name, data)
        for source in sources:
            with zipfile.ZipFile(source) as jar:
                for name in jar.namelist():
                    if (
                        name.endswith("/")
                        or name.startswith("META-INF/")
                        or name.endswith("module-info.class")
                        or name in seen
                    ):
                        continue
                    seen.add(name)
                    data = jar.read(name)
                    merged.writestr(name, patches.pop(name)(data) if name in patches else data)
    if patches:
        names = [s.name for s in sources]
        raise FileNotFoundError(f"entries to patch not found in {names}: {list(patches)}")


def _relocate_with_jarjar(java: str, merged: Path, out: Path, package: str) -> None:
    rules = out.with_suffix(".rules.txt")
    rules.write_text(f"rule {package}.** {SHADED_PREFIX}{package}.@1\n")
    try:
        subprocess.run(
            [java, "-jar", str(JARJAR), "process", str(rules), str(merged), str(out)],
            check=True,
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
    finally:
        rules.unlink(missing_ok=True)


def _relocate_in_python(merged: Path, out: Path, package: str) -> None:
    with zipfile.ZipFile(merged) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dest:
        for name in source.namelist():
            data = source.read(name)
            if name.endswith(".class"):
                data = classfile_support.relocate_class_file(data, package)
            dest.writestr(classfile_support.relocate_path(name, package), data)


def _cached_relocated_jar(
    cache_dir: Path | None,
    stem: str,
    sources: Sequence[Path],
    package: str,
    use_jarjar: bool | None,
    merge: Callable[[Sequence[Path], Path], None] = _merge_jars,
) -> Path:
    """``sources`` merged by ``merge`` and relocated from ``package`` to under
    ``org.apache.iceberg.shaded``, cached as ``<stem>-<key>.jar`` keyed by the recipe version and
    the sources' names and sizes.

    ``use_jarjar=None`` uses jarjar when ``/usr/share/java/jarjar.jar`` and Java exist and
    falls back to the pure-Python relocation otherwise (also when jarjar fails).
    Concurrent test runs may race to build it; each writes a private temp file and
    renames it into place atomically, so readers never see a partial jar.
    """
    cache_dir = cache_dir or jar_cache_dir()
    key = hashlib.sha256(_RELOCATION_RECIPE.encode())
    for source in sources:
        key.update(source.name.encode() + str(source.stat().st_size).encode())
    target = cache_dir / f"{stem}-{key.hexdigest()[:12]}.jar"
    if target.is_file():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    java = java_executable()
    if use_jarjar is None:
        use_jarjar = JARJAR.is_file() and java is not None
    with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".build-") as work:
        merged, built = Path(work) / "merged.jar", Path(work) / "relocated.jar"
        merge(sources, merged)
        if use_jarjar:
            try:
                _relocate_with_jarjar(java or "java", merged, built, package)
            except (OSError, subprocess.CalledProcessError) as err:
                print(f"jarjar failed ({err}); relocating {package} in Python", file=sys.stderr)
                _relocate_in_python(merged, built, package)
        else:
            _relocate_in_python(merged, built, package)
        os.replace(built, target)
    return target


def relocated_jackson_jar(cache_dir: Path | None = None, *, use_jarjar: bool | None = None) -> Path:
    """The Jackson jar relocated under ``org.apache.iceberg.shaded``, built once and cached
    (``use_jarjar``: see :func:`_cached_relocated_jar`)."""
    return _cached_relocated_jar(
        cache_dir,
        f"jackson-{JACKSON_VERSION}-iceberg-shaded",
        _pyspark_jackson_jars(),
        JACKSON_PACKAGE,
        use_jarjar,
    )


def debian_httpclient_jars() -> list[Path] | None:
    """Debian's HttpClient 5 jars (``libhttpclient5-java``, ``libhttpcore5-java``), or None
    when any is missing."""
    paths = [HTTPCLIENT_JAR_DIR / f"{name}.jar" for name in HTTPCLIENT_ARTIFACTS]
    return [p.resolve() for p in paths] if all(p.is_file() for p in paths) else None


def _merge_httpclient(sources: Sequence[Path], out: Path) -> None:
    """HttpClient 5.2 as Iceberg 1.10's ``HTTPClient`` links against it: 5.4's
    ``PoolingHttpClientConnectionManagerBuilder.setTlsSocketStrategy(TlsSocketStrategy)`` added
    (it returns ``this``: the TLS strategy is ignored, so only plain http works) with an empty
    ``TlsSocketStrategy`` interface for its parameter type."""
    tls, builder = _TLS_SOCKET_STRATEGY, _CONNECTION_MANAGER_BUILDER
    descriptor = f"(L{tls};)L{builder};"
    _merge_jars(
        sources,
        out,
        patches={
            f"{builder}.class": lambda data: classfile_support.add_return_this_method(
                data, "setTlsSocketStrategy", descriptor
            )
        },
        extra={f"{tls}.class": classfile_support.interface_class_file(tls)},
    )


def relocated_httpclient_jar(
    cache_dir: Path | None = None, *, use_jarjar: bool | None = None
) -> Path | None:
    """HttpClient 5 (client, core, h2) patched for Iceberg 1.10 and relocated under
    ``org.apache.iceberg.shaded``, built once and cached; None without Debian's jars. The
    Iceberg runtime jar of ``snowpark_connect_deps_iceberg`` lacks it, and Spark's
    ``RESTCatalog`` needs it."""
    sources = debian_httpclient_jars()
    if sources is None:
        return None
    return _cached_relocated_jar(
        cache_dir,
        "httpclient5-iceberg-shaded",
        sources,
        HTTPCLIENT_PACKAGE,
        use_jarjar,
        merge=_merge_httpclient,
    )


def spark_jars() -> list[str]:
    """Jars for ``spark.jars``: ``$ICESQL_SPARK_JARS`` if set, else runtime + relocated Jackson
    (+ relocated HttpClient 5 when Debian's jars are installed)."""
    configured = os.environ.get("ICESQL_SPARK_JARS", "").strip()
    if configured:
        return [part.strip() for part in configured.split(",") if part.strip()]
    jars = [iceberg_runtime_jar(), relocated_jackson_jar(), relocated_httpclient_jar()]
    if SQLITE_JDBC_JAR.exists():  # Iceberg's JdbcCatalog over SQLite (Debian's driver)
        jars.append(SQLITE_JDBC_JAR)
    return [str(jar) for jar in jars if jar is not None]


SQLITE_JDBC_JAR = Path("/usr/share/java/sqlite-jdbc.jar")


def spark_jdbc_catalog_available() -> bool:
    """Whether Spark can open Iceberg's ``JdbcCatalog`` over SQLite: Debian's
    ``libxerial-sqlite-jdbc-java`` is installed (or the jar list is the user's own)."""
    return bool(os.environ.get("ICESQL_SPARK_JARS", "").strip()) or SQLITE_JDBC_JAR.exists()


def jdbc_catalog_conf(sqlite_path: str, warehouse: str, name: str) -> dict[str, str]:
    """Settings of a Spark catalog ``name`` that is Iceberg's ``JdbcCatalog`` over the SQLite
    file ``sqlite_path``, in the V1 layout that keeps views (SPARK.md)."""
    prefix = f"spark.sql.catalog.{name}"
    return {
        prefix: "org.apache.iceberg.spark.SparkCatalog",
        f"{prefix}.type": "jdbc",
        f"{prefix}.uri": f"jdbc:sqlite:{sqlite_path}",
        f"{prefix}.warehouse": warehouse,
        f"{prefix}.jdbc.schema-version": "V1",
        f"{prefix}.cache-enabled": "false",
    }


def spark_rest_catalog_available() -> bool:
    """Whether Spark can use Iceberg's ``RESTCatalog``: the jar list is the user's own
    (``$ICESQL_SPARK_JARS``, e.g. Maven's complete runtime), or Debian's HttpClient 5 is here."""
    return (
        bool(os.environ.get("ICESQL_SPARK_JARS", "").strip())
        or debian_httpclient_jars() is not None
    )


# --------------------------------------------------------------------------------------------
# Session
# --------------------------------------------------------------------------------------------

CATALOG = "local"
REST_CATALOG = "rest"


def spark_conf(
    warehouse: str | os.PathLike[str],
    scratch: str | os.PathLike[str],
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The session settings of SPARK.md; ``local`` is also the default catalog so that
    ``db.t`` resolves to the Iceberg table in both engines. ``scratch`` receives Spark's own
    temp files and its (unused) built-in warehouse, keeping the working tree clean; ``extra``
    settings are added last (e.g. :func:`rest_catalog_conf`)."""
    return {
        "spark.jars": ",".join(spark_jars()),
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        f"spark.sql.catalog.{CATALOG}": "org.apache.iceberg.spark.SparkCatalog",
        f"spark.sql.catalog.{CATALOG}.type": "hadoop",
        f"spark.sql.catalog.{CATALOG}.warehouse": str(warehouse),
        "spark.sql.defaultCatalog": CATALOG,
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.extraJavaOptions": "-Duser.timezone=UTC",
        "spark.executor.extraJavaOptions": "-Duser.timezone=UTC",
        "spark.local.dir": str(scratch),
        "spark.sql.warehouse.dir": str(Path(scratch) / "spark-warehouse"),
        **(extra or {}),
    }


def rest_catalog_conf(uri: str, warehouse: str, name: str = REST_CATALOG) -> dict[str, str]:
    """Settings of a Spark catalog ``name`` that is Iceberg's ``RESTCatalog`` at ``uri``
    (an ``icesql serve``). Spark's table cache is off: other processes commit too, and each
    statement must load the table's current metadata."""
    prefix = f"spark.sql.catalog.{name}"
    return {
        prefix: "org.apache.iceberg.spark.SparkCatalog",
        f"{prefix}.type": "rest",
        f"{prefix}.uri": uri,
        f"{prefix}.warehouse": warehouse,
        f"{prefix}.cache-enabled": "false",
    }


def start_spark(
    warehouse: str | os.PathLike[str],
    scratch: str | os.PathLike[str],
    extra: Mapping[str, str] | None = None,
):
    """A fresh ``local[2]`` SparkSession over ``warehouse`` (stop it with ``.stop()``), with
    the ``extra`` settings of :func:`spark_conf`."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master("local[2]").appName("icesql-tests")
    for key, value in spark_conf(warehouse, scratch, extra).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------


class _NaN:
    """NaN that equals itself, so rows holding NaN compare equal."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _NaN)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "NaN"


NAN = _NaN()


def normalize_value(value: Any) -> Any:
    """One engine-neutral form of a result value; the rules, in order:

    * a Spark ``Row`` inside a value (a struct) becomes a ``dict`` field name -> value;
      a DuckDB struct is already a dict;
    * a map becomes a ``dict`` with normalised keys and values, whether it arrives as a dict
      (Spark, DuckDB) or as pyarrow's ``to_pylist()`` list of ``(key, value)`` tuples (an empty
      one is then ``[]``, so :func:`values_equal` lets ``[]`` equal ``{}``);
    * a list / tuple (array) becomes a ``list`` of normalised elements;
    * ``bytearray`` / ``memoryview`` become ``bytes``;
    * float NaN becomes :data:`NAN` (equal to itself); other floats stay floats and are
      compared with a relative tolerance of 1e-9 by :func:`values_equal`, which also lets a
      ``Decimal`` equal an int or float of the same value (``avg`` of a decimal is a decimal in
      Spark and a double in DuckDB);
    * a ``datetime`` becomes timezone-aware UTC: naive values are read as UTC (Spark's
      ``collect()`` returns naive datetimes in the process time zone, which the test
      session sets to UTC; ``timestamp_ntz`` is naive in both engines);
    * ``date``, ``str``, ``int``, ``bool``, ``Decimal``, ``None`` stay as they are.
    """
    from pyspark.sql import Row

    if isinstance(value, Row):
        return {key: normalize_value(item) for key, item in value.asDict(recursive=False).items()}
    if isinstance(value, dict):
        return {normalize_value(key): normalize_value(item) for key, item in value.items()}
    if (
        isinstance(value, list)
        and value
        and all(type(item) is tuple and len(item) == 2 for item in value)
    ):  # pyarrow's to_pylist() form of a map: [(key, value), ...]
        return {normalize_value(key): normalize_value(item) for key, item in value}
    if isinstance(value, (list, tuple)):
        return [normalize_value(item) for item in value]
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, float) and math.isnan(value):
        return NAN
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC)
    return value


def normalize_row(row: Iterable[Any]) -> tuple:
    """A result row (Spark ``Row`` or DB-API tuple) as a tuple of normalised values."""
    return tuple(normalize_value(value) for value in row)


def values_equal(left: Any, right: Any) -> bool:
    """Equality of two normalised values; numbers compare by value, floats with tolerance."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    numbers = (int, float, decimal.Decimal)
    if isinstance(left, numbers) and isinstance(right, numbers):
        if isinstance(left, float) or isinstance(right, float):
            a, b = float(left), float(right)
            if math.isinf(a) or math.isinf(b):
                return a == b
            return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
        return left == right
    if (left == [] and right == {}) or (left == {} and right == []):
        return True  # an empty map in pyarrow's list form
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(values_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(values_equal(a, b) for a, b in zip(left, right))
    if isinstance(left, dt.datetime) != isinstance(right, dt.datetime):
        return False  # a date never equals a timestamp, though datetime subclasses date
    if left is None or right is None:
        return left is right
    return left == right


def _sort_key(value: Any) -> tuple:
    """A total order over normalised values of mixed types (only used to line rows up)."""
    if value is None:
        return (0,)
    if value is NAN:
        return (1, math.inf, 1)
    if isinstance(value, bool):
        return (1, int(value), 0)
    if isinstance(value, (int, float, decimal.Decimal)):
        number = float(value)
        return (1, float(f"{number:.9g}") if math.isfinite(number) else number, 0)
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, bytes):
        return (3, value)
    if isinstance(value, dt.datetime):
        return (4, value.timestamp())
    if isinstance(value, dt.date):
        return (4, dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC).timestamp())
    if isinstance(value, list):
        return (5, tuple(_sort_key(item) for item in value))
    if isinstance(value, dict):
        return (6, tuple(sorted((_sort_key(k), _sort_key(v)) for k, v in value.items())))
    return (7, repr(value))


def normalize_rows(rows: Iterable[Iterable[Any]], *, ordered: bool) -> list[tuple]:
    """Normalised rows; unless ``ordered``, sorted into a canonical order."""
    result = [normalize_row(row) for row in rows]
    if not ordered:
        result.sort(key=lambda row: tuple(_sort_key(value) for value in row))
    return result


def rows_equal(left: Sequence[tuple], right: Sequence[tuple]) -> bool:
    return len(left) == len(right) and all(
        len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))
        for a, b in zip(left, right)
    )


def assert_same_rows(
    expected: Iterable, actual: Iterable, *, ordered: bool, context: str = ""
) -> None:
    """Assert two result sets are equal after normalisation (see :func:`normalize_value`)."""
    want = normalize_rows(expected, ordered=ordered)
    got = normalize_rows(actual, ordered=ordered)
    if rows_equal(want, got):
        return
    lines = [
        f"results differ{': ' + context if context else ''}",
        f"  Spark  ({len(want)} rows) vs icesql ({len(got)} rows), ordered={ordered}",
    ]
    for index in range(max(len(want), len(got))):
        a = want[index] if index < len(want) else "<missing>"
        b = got[index] if index < len(got) else "<missing>"
        same = isinstance(a, tuple) and isinstance(b, tuple) and rows_equal([a], [b])
        lines.append(f"  {'  ' if same else '!='} {a!r}\n     {b!r}")
    raise AssertionError("\n".join(lines))


def has_top_level_order_by(sql: str) -> bool:
    """True when ``ORDER BY`` appears outside every parenthesis (and outside string literals),
    i.e. the query's final rows are ordered; ``OVER (ORDER BY ...)`` does not count."""
    depth, quote, words = 0, None, []
    token = []
    for char in sql + " ":
        if quote:
            if char == quote:
                quote = None
            continue
        if char in "'\"`":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char.isalnum() or char == "_":
            token.append(char)
            continue
        if token:
            words.append(("".join(token).upper(), depth))
            token = []
    return any(
        first == ("ORDER", 0) and second == ("BY", 0) for first, second in zip(words, words[1:])
    )


# --------------------------------------------------------------------------------------------
# Tables in the shared session
# --------------------------------------------------------------------------------------------


def assert_same_query(spark, con, query: str, *, ordered: bool | None = None) -> list:
    """Run ``query`` in Spark and in icesql (a DB-API connection) and assert the same rows,
    in order only when ``ordered`` (default: when the query has a top-level ORDER BY).
    Returns Spark's rows."""
    expected = spark.sql(query).collect()
    actual = con.execute(query).fetchall()
    if ordered is None:
        ordered = has_top_level_order_by(query)
    assert_same_rows(expected, actual, ordered=ordered, context=query)
    return expected


def snapshot_ids(spark, table: str) -> list[int]:
    """The table's snapshot ids, oldest first."""
    rows = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at").collect()
    return [r.snapshot_id for r in rows]


def table_location(spark, table: str) -> str:
    """The table's location as Spark reports it (``file:/...`` for local tables)."""
    loc = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").where("col_name = 'Location'").collect()
    return loc[0].data_type


def java_table(spark, table: str):
    """The Iceberg Java ``Table`` of a hadoop-catalog table, for changes Spark SQL cannot make
    (equality deletes, column defaults). Run ``REFRESH TABLE`` after committing through it."""
    jvm = spark._jvm
    tables = jvm.org.apache.iceberg.hadoop.HadoopTables(spark._jsc.hadoopConfiguration())
    return tables.load(table_location(spark, table))
