"""The import contract of ``[tool.importlinter]`` in pyproject.toml holds: imports run
fronts -> engine -> sql/statements/scan/write/catalog -> expressions/metadata -> spec, and
never the other way; expressions import no sqlglot, scan no write, catalog no sql.

Run by hand with ``lint-imports`` from the repository root. An exemption listed in the
config that no longer matches an import fails the check too, so it is deleted once the code
it excused is gone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
