"""Running code in a fresh interpreter, for what a process loads or pays once (imports,
pandas through pyarrow): the test's own process has loaded everything already."""

from __future__ import annotations

import subprocess
import sys


def run_python(code: str, env: dict[str, str] | None = None) -> list[str]:
    """The lines ``code`` prints when run by a fresh ``python -c``; fails with its stderr
    when it does not exit cleanly."""
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.splitlines()
