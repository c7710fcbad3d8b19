"""The import contract of ``[tool.importlinter]`` in pyproject.toml holds: imports run
fronts -> dbapi -> engine -> statements -> sql/session -> write -> scan -> catalog ->
expressions/metadata -> io/spec -> foundations, and never the other way; no import cycle
joins two units, counting every import (inside functions and under TYPE_CHECKING too);
expressions import no sqlglot, scan no write, catalog no sql. Every unit sits in a layer.

Run by hand with ``lint-imports`` from the repository root. An exemption listed in the
config that no longer matches an import fails the check too, so it is deleted once the code
it excused is gone."""

from __future__ import annotations

import pkgutil
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import icesql

ROOT = Path(__file__).resolve().parents[1]
# what the ``lint-imports`` console script runs (``python -m importlinter.cli`` runs nothing)
LINT_IMPORTS = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def test_import_contracts_hold() -> None:
    # run from the root: the config is its pyproject.toml, the package its icesql
    result = subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert " 0 broken" in report, report


def test_every_unit_sits_in_a_layer() -> None:
    # a module added at the top of the package must say where it stands
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["id"] == "layers"]
    placed = {name for layer in layers for name in re.split(r"\s*[|:]\s*", layer.strip())}
    units = {f"icesql.{m.name}" for m in pkgutil.iter_modules(icesql.__path__)}
    assert sorted(units - placed) == []
    assert sorted(placed - units) == []
