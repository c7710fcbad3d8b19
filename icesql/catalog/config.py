"""Catalog configurations a Spark or PyIceberg user already has, as name -> properties.

Two sources, read as their own tools read them:

* Spark: every ``spark.sql.catalog.<name>`` whose value is Iceberg's ``SparkCatalog`` or
  ``SparkSessionCatalog``, with its ``spark.sql.catalog.<name>.<key>`` properties (``type``,
  ``uri``, ``warehouse``, ``io-impl``, ``s3.*``, ...), and ``spark.sql.defaultCatalog``; from a
  dict or a ``spark-defaults.conf`` file (Java properties syntax, as Spark loads it).
* PyIceberg: the ``catalog:`` mapping of ``.pyiceberg.yaml``, found in ``$PYICEBERG_HOME``,
  then the home directory, then the working directory (or at a given path), keys lowercased,
  ``default-catalog``, and the ``PYICEBERG_CATALOG__<NAME>__<KEY>`` environment variables.

PyIceberg reads its YAML with strictyaml, which has no implicit typing: every scalar is a
string. icesql adds no YAML dependency; ``parse_yaml`` reads the block-mapping subset a
catalog configuration uses (nested mappings of scalars, comments, quoted scalars) and
refuses the rest with the line it cannot read::

    >>> parse_yaml("catalog:\\n  prod:\\n    uri: 'sqlite:///c.db'  # the SQL catalog\\n")
    {'catalog': {'prod': {'uri': 'sqlite:///c.db'}}}
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from icesql.errors import ProgrammingError

__all__ = [
    "CatalogConfig",
    "PYICEBERG_YAML",
    "SPARK_CATALOG_CLASSES",
    "find_pyiceberg_yaml",
    "parse_yaml",
    "pyiceberg_catalogs",
    "read_spark_defaults",
    "spark_catalogs",
]

SPARK_CATALOG_CLASSES = frozenset(
    {"org.apache.iceberg.spark.SparkCatalog", "org.apache.iceberg.spark.SparkSessionCatalog"}
)
PYICEBERG_YAML = ".pyiceberg.yaml"
_SPARK_PREFIX = "spark.sql.catalog."


@dataclass(frozen=True)
class CatalogConfig:
    """Catalogs by name (in the order configured) and the one the source makes the default."""

    catalogs: dict[str, dict[str, str]] = field(default_factory=dict)
    default: str | None = None


# -- Spark -----------------------------------------------------------------------------------


def spark_catalogs(conf: Mapping[str, str] | str | os.PathLike[str]) -> CatalogConfig:
    """The Iceberg catalogs of a Spark configuration (a dict, or a spark-defaults.conf path).

    Catalogs of other implementations (Delta's, Spark's own session catalog) are left out: they
    are no Iceberg catalogs. ``spark.sql.defaultCatalog`` names the default, as in Spark.
    """
    if not isinstance(conf, Mapping):
        conf = read_spark_defaults(conf)
    catalogs: dict[str, dict[str, str]] = {}
    for key, value in conf.items():
        if key.startswith(_SPARK_PREFIX) and "." not in key[len(_SPARK_PREFIX) :]:
            if str(value).strip() in SPARK_CATALOG_CLASSES:
                catalogs[key[len(_SPARK_PREFIX) :]] = {}
    for key, value in conf.items():
        if not key.startswith(_SPARK_PREFIX):
            continue
        name, _, prop = key[len(_SPARK_PREFIX) :].partition(".")
        if prop and name in catalogs:
            catalogs[name][prop] = str(value)
    default = conf.get("spark.sql.defaultCatalog")
    return CatalogConfig(catalogs, str(default).strip() if default else None)


def read_spark_defaults(path: str | os.PathLike[str]) -> dict[str, str]:
    """The properties of a ``spark-defaults.conf`` file.

    Spark loads it with Java's ``Properties.load``: ``key value``, ``key=value`` or
    ``key: value`` lines, ``#``/``!`` comments, ``\\`` line continuations and escapes; Spark
    then trims each value.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ProgrammingError(f"cannot read Spark configuration {os.fspath(path)}: {e}") from e
    out: dict[str, str] = {}
    for line in _logical_lines(text):
        key, value = _split_property(line)
        out[key] = value.strip()
    return out


def _logical_lines(text: str) -> list[str]:
    """Java properties lines: comments and blank lines dropped, continuations joined."""
    lines: list[str] = []
    pending: str | None = None
    for raw in text.splitlines():
        line = raw.lstrip()
        if pending is None and (not line or line[0] in "#!"):
            continue
        line = line if pending is None else pending + line
        backslashes = len(line) - len(line.rstrip("\\"))
        if backslashes % 2 == 1:
            pending = line[:-1]
            continue
        pending = None
        lines.append(line)
    if pending:
        lines.append(pending)
    return lines


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _split_property(line: str) -> tuple[str, str]:
    """Key and value of one logical line: the key ends at the first unescaped ``=``, ``:``
    or white space."""
    key: list[str] = []
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line):
            key.append(_unescape(line, i))
            i += 6 if line[i + 1] == "u" else 2
            continue
        if ch in "=: \t\f":
            break
        key.append(ch)
        i += 1
    rest = line[i:].lstrip(" \t\f")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t\f")
    value: list[str] = []
    j = 0
    while j < len(rest):
        if rest[j] == "\\" and j + 1 < len(rest):
            value.append(_unescape(rest, j))
            j += 6 if rest[j + 1] == "u" else 2
        else:
            value.append(rest[j])
            j += 1
    return "".join(key), "".join(value)


def _unescape(text: str, i: int) -> str:
    ch = text[i + 1]
    if ch == "u":
        try:
            return chr(int(text[i + 2 : i + 6], 16))
        except ValueError as e:
            raise ProgrammingError(f"bad \\u escape in Spark configuration line: {text}") from e
    return _ESCAPES.get(ch, ch)


# -- PyIceberg ---------------------------------------------------------------------------------


def find_pyiceberg_yaml(environ: Mapping[str, str] | None = None) -> Path | None:
    """The ``.pyiceberg.yaml`` PyIceberg would read: in ``$PYICEBERG_HOME``, then the home
    directory, then the working directory; None when there is none."""
    environ = os.environ if environ is None else environ
    for directory in (environ.get("PYICEBERG_HOME"), os.path.expanduser("~"), os.getcwd()):
        if directory and (Path(directory) / PYICEBERG_YAML).is_file():
            return Path(directory) / PYICEBERG_YAML
    return None


def pyiceberg_catalogs(
    path: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None
) -> CatalogConfig:
    """The catalogs PyIceberg's ``load_catalog`` sees: the YAML file (``path``, else the one
    ``find_pyiceberg_yaml`` finds) merged with the ``PYICEBERG_*`` environment variables.
    PyIceberg's ``default-catalog`` names the default, else a catalog called ``default``."""
    environ = os.environ if environ is None else environ
    if path is None:
        path = find_pyiceberg_yaml(environ)
    config: dict = {}
    if path is not None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise ProgrammingError(
                f"cannot read PyIceberg configuration {os.fspath(path)}: {e}"
            ) from e
        config = _lowercase_keys(parse_yaml(text, os.fspath(path)))
    _merge_environment(config, environ)
    found = config.get("catalog") or {}
    if not isinstance(found, dict):
        raise ProgrammingError(f"PyIceberg configuration {path}: 'catalog' must be a mapping")
    catalogs: dict[str, dict[str, str]] = {}
    for name, props in found.items():
        if not isinstance(props, dict):
            raise ProgrammingError(
                f"PyIceberg configuration {path}: catalog {name!r} must be a mapping"
            )
        catalogs[name] = {k: v for k, v in props.items() if isinstance(v, str)}
    default = config.get("default-catalog")
    if not isinstance(default, str) or not default:
        default = "default" if "default" in catalogs else None
    return CatalogConfig(catalogs, default)


def _lowercase_keys(config: dict) -> dict:
    return {k.lower(): _lowercase_keys(v) if isinstance(v, dict) else v for k, v in config.items()}


def _merge_environment(config: dict, environ: Mapping[str, str]) -> None:
    """PyIceberg's ``PYICEBERG_<A>__<B>__<C>`` variables, as its ``Config`` maps them: the
    name lowercased, split at the first two ``__``, then ``__`` -> ``.`` and ``_`` -> ``-``
    in each part (``PYICEBERG_CATALOG__PROD__S3__ENDPOINT`` is ``catalog.prod.s3.endpoint``)."""
    for name, value in environ.items():
        lowered = name.lower()
        if not lowered.startswith("pyiceberg_") or lowered == "pyiceberg_home":
            continue
        parts = [p.replace("__", ".").replace("_", "-") for p in lowered[10:].split("__", 2)]
        node = config
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ProgrammingError(
                    f"environment variable {name} extends a value, not a mapping"
                )
        node[parts[-1]] = value


# -- the YAML subset ---------------------------------------------------------------------------

_KEY = re.compile(
    r"""^(?P<key>"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s'"#][^:#]*?)\s*:(?:\s+(?P<value>.*)|\s*)$"""
)


def parse_yaml(text: str, source: str = "<yaml>") -> dict:
    """Block mappings of scalars (every scalar a string, as strictyaml reads them)."""
    root: dict = {}
    stack: list[tuple[int | None, dict]] = [(None, root)]  # (indentation of its keys, mapping)
    pending: tuple[dict, str] | None = None  # `key:` at the end of the line above
    for number, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw).rstrip()
        if not line.strip() or line.strip() in ("---", "..."):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if line[indent] == "\t":
            raise _yaml_error(source, number, raw, "tabs cannot indent YAML")
        if pending is not None:
            above, key = pending
            top = stack[-1][0]
            if top is not None and indent > top:
                above[key] = {}
                stack.append((None, above[key]))
            pending = None
        while len(stack) > 1 and stack[-1][0] is not None and indent < stack[-1][0]:
            stack.pop()
        if stack[-1][0] is None:
            stack[-1] = (indent, stack[-1][1])
        if indent != stack[-1][0]:
            raise _yaml_error(source, number, raw, "bad indentation")
        match = _KEY.match(line.strip())
        if match is None:
            raise _yaml_error(source, number, raw, "only mappings of scalars are supported")
        mapping = stack[-1][1]
        key = _scalar(match.group("key"), source, number, raw)
        if key in mapping:
            raise _yaml_error(source, number, raw, f"duplicate key {key!r}")
        value = match.group("value")
        if value is None:
            mapping[key] = ""  # strictyaml's value of `key:` with nothing under it
            pending = (mapping, key)
        elif value[:1] in ("[", "{", "|", ">", "&", "*", "!", "-"):
            raise _yaml_error(
                source,
                number,
                raw,
                "flow style, block scalars, anchors and lists are not supported",
            )
        else:
            mapping[key] = _scalar(value, source, number, raw)
    return root


def _strip_comment(line: str) -> str:
    """The line without a ``#`` comment (one at the start or after white space, not quoted)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"" and (i == 0 or line[i - 1] in " :\t"):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def _scalar(text: str, source: str, number: int, raw: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        except UnicodeDecodeError as e:
            raise _yaml_error(source, number, raw, f"bad escape: {e}") from e
    if text[:1] in ("'", '"'):
        raise _yaml_error(source, number, raw, "unterminated quoted scalar")
    return text


def _yaml_error(source: str, number: int, raw: str, why: str) -> ProgrammingError:
    return ProgrammingError(f"{source}, line {number}: {why}: {raw.strip()}")
