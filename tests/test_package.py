"""The package root: every PEP 249 name is there, and importing it (or a light submodule)
loads no engine. Imports are measured in a fresh interpreter, since this one has loaded
everything already."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import icesql

HEAVY = (
    "duckdb",
    "sqlglot",
    "pyarrow",
    "numpy",
    "pandas",
    "polars",
    "pyspark",
    "prompt_toolkit",
    "fastavro",
    "fsspec",
)


def _loaded_after(statement: str) -> list[str]:
    """The heavy libraries a fresh interpreter has loaded after running ``statement``."""
    report = f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    code = f"{statement}\nimport json, sys\n{report}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize(
    "statement",
    [
        "import icesql",
        "import icesql.spec.types",
        "import icesql.spec.schema",
        "import icesql.expressions.tree",
        "from icesql import Error, ProgrammingError, apilevel",
    ],
)
def test_light_imports_load_no_engine(statement: str) -> None:
    assert _loaded_after(statement) == []


def test_lazy_names_load_on_first_use() -> None:
    assert "duckdb" in _loaded_after("import icesql; icesql.connect")


def test_the_engine_loads_no_file_system_avro_or_front_end_library() -> None:
    """A connection's modules load fsspec (and asyncio) with the first remote file opened,
    fastavro with the first manifest read and pyarrow at ``connect`` (``preload``) or with
    the first statement needing it; the fronts and data frame libraries never."""
    loaded = _loaded_after("import icesql.dbapi")
    assert {"duckdb", "sqlglot"} <= set(loaded)
    assert not {
        "fastavro",
        "fsspec",
        "pandas",
        "polars",
        "pyspark",
        "prompt_toolkit",
        "pyarrow",
    } & set(loaded)


def test_a_connection_loads_what_reading_a_table_needs_unless_told_not_to(tmp_path) -> None:
    """``connect`` preloads pyarrow and the scan planner, so that the first query does not
    import them; ``preload=False`` (the shell's ``-c``) leaves them to the first table read."""
    code = (
        "import icesql, json, sys; con = icesql.connect({path!r}, preload={preload});"
        " print(json.dumps([m in sys.modules for m in ('pyarrow', 'icesql.scan.table_scan',"
        " 'icesql.scan.planner', 'icesql.sql.predicates')]))"
    )
    for preload, expected in ((True, [True] * 4), (False, [False] * 4)):
        out = subprocess.run(
            [sys.executable, "-c", code.format(path=str(tmp_path), preload=preload)],
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(out.stdout) == expected, preload


def test_every_public_name_resolves_and_is_listed() -> None:
    for name in icesql.__all__:
        assert getattr(icesql, name) is not None, name
    assert set(icesql.__all__) <= set(dir(icesql))
    assert icesql.Cursor.__module__ == "icesql.dbapi"
    assert icesql.STRING == "STRING" and icesql.NUMBER == "DECIMAL(9,2)"
    assert issubclass(icesql.CommitConflictError, icesql.OperationalError)


def test_unknown_attribute_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'connnect'"):
        icesql.connnect  # noqa: B018


def test_the_license_file_is_the_license_pyproject_names() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    pyproject = (root / "pyproject.toml").read_text()
    assert 'license = { text = "Apache-2.0" }' in pyproject
    text = (root / "LICENSE").read_text()
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
