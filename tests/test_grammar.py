"""Every example of the written grammar (``grammar/*.ebnf``) parses and runs.

Each file gets a fresh warehouse: its ``setup`` statements, then its examples in file
order, each of which must succeed (``example``) or fail with the named error class
(``error <Class>``). Every production must have at least one example or error line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import icesql
from icesql.spec.arrow import PYARROW_READS_VARIANT
from icesql.sql.dialect import parse

GRAMMAR = Path(__file__).resolve().parent.parent / "grammar"
_LINE = re.compile(r"^\(\*\s*(setup|example|error\s+\w+)\s*:\s*(.*?)\s*\*\)\s*$")
_PRODUCTION = re.compile(r"^([a-z_]+)\s*=")


def _items(path: Path) -> tuple[list[str], list[tuple[str, str, str]], list[str]]:
    """Setup statements, (production, kind, sql) examples, and productions lacking one."""
    setup, examples, lacking = [], [], []
    current, seen = None, False
    for line in path.read_text().splitlines():
        if m := _PRODUCTION.match(line):
            if current is not None and not seen:
                lacking.append(current)
            current, seen = m.group(1), False
        elif m := _LINE.match(line.strip()):
            kind, sql = m.group(1), m.group(2)
            if kind == "setup":
                setup.append(sql)
            else:
                examples.append((current or "", kind, sql))
                seen = True
    if current is not None and not seen:
        lacking.append(current)
    return setup, examples, lacking


FILES = sorted(GRAMMAR.glob("*.ebnf"))


def test_there_is_a_grammar():
    assert {p.name for p in FILES} >= {
        "namespaces.ebnf",
        "create_table.ebnf",
        "insert.ebnf",
        "alter_table.ebnf",
        "show.ebnf",
    }


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_production_has_an_example(path):
    _, examples, lacking = _items(path)
    assert examples and not lacking, f"{path.name}: productions without an example: {lacking}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_example_parses_and_runs(path, tmp_path):
    if path.stem == "variant" and not PYARROW_READS_VARIANT:
        pytest.skip(
            "pyarrow 22+ writes and reads variants; below, the refusal is tested in"
            " tests/interop/test_variant.py"
        )
    setup, examples, _ = _items(path)
    if "(* catalog: jdbc *)" in path.read_text():  # what needs a catalog that keeps views
        catalog = {"type": "jdbc", "uri": f"sqlite:///{tmp_path}/c.db", "warehouse": str(tmp_path)}
        con = icesql.connect(catalogs={"local": catalog}, create=True)
    else:
        con = icesql.connect(str(tmp_path))
    try:
        for sql in setup:
            con.execute(sql)
        for production, kind, sql in examples:
            assert len(parse(sql)) == 1, (
                f"{path.name} [{production}] does not parse as one statement: {sql}"
            )
            if kind == "example":
                try:
                    cur = con.execute(sql)
                except icesql.Error as e:
                    raise AssertionError(f"{path.name} [{production}] failed: {sql}\n  {e}") from e
                if cur.description:
                    cur.fetchall()
            else:
                error = getattr(icesql, kind.split()[1])
                with pytest.raises(error):
                    con.execute(sql)
    finally:
        con.close()
