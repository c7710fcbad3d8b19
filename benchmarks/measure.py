"""Run one worker request in a fresh subprocess and measure it.

Peak RSS is the child's own high-water mark (``VmHWM``, reported by the worker), falling
back to its ``ru_maxrss`` from ``os.wait4`` (per child, unlike ``RUSAGE_CHILDREN`` which keeps
the maximum over every child so far) when the worker died before reporting. ``ru_maxrss``
alone is not enough: Linux keeps the pre-``exec`` high-water mark of the forked (or
vforked) parent image, so a child of a 300 MB parent never shows less than 300 MB. With ``rss_limit_mb``
the parent polls the child's resident set (``/proc/<pid>/status``) and kills it past the
limit: that is how the streaming scenario enforces its memory limit without relying on the
engine under test to police itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass
class Run:
    """One run: the worker's answer plus peak RSS (MB) and whether the limit killed it."""

    ok: bool
    seconds: float | None
    rss_mb: float
    result: Any = None
    error: str | None = None
    not_supported: bool = False
    killed_over_limit: bool = False
    extra: dict[str, Any] | None = None


def _rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _watch(
    proc: subprocess.Popen[bytes], limit_mb: float, flag: list[bool], done: threading.Event
) -> None:
    while not done.wait(0.05):
        rss = _rss_mb(proc.pid)
        if rss is not None and rss > limit_mb:
            flag[0] = True
            proc.send_signal(signal.SIGKILL)
            return


def run_worker(
    request: dict[str, Any], rss_limit_mb: float | None = None, timeout: float = 3600
) -> Run:
    """Start ``python -m benchmarks.worker`` with ``request`` and wait for it; past
    ``timeout`` seconds it is stopped, and the run says so. A run stopped (by the timeout or
    the memory limit) carries ``extra["stopped_after"]``: the seconds it ran unfinished, a
    lower bound of its time."""
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            [
                request.get("python") or sys.executable,
                "-m",
                "benchmarks.worker",
                json.dumps(request),
            ],
            stdout=out,
            stderr=err,
            cwd=REPO,
            env=env,
        )
        killed = [False]
        done = threading.Event()
        watcher = None
        if rss_limit_mb is not None:
            watcher = threading.Thread(
                target=_watch, args=(proc, rss_limit_mb, killed, done), daemon=True
            )
            watcher.start()
        stopped = [False]

        def stop() -> None:
            stopped[0] = True
            proc.kill()

        timer = threading.Timer(timeout, stop)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        ran = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        timer.cancel()
        done.set()
        if watcher is not None:
            watcher.join()
        rss = usage.ru_maxrss / 1024  # KiB on Linux
        out.seek(0)
        err.seek(0)
        lines = [ln for ln in out.read().decode(errors="replace").splitlines() if ln.strip()]
        stderr = err.read().decode(errors="replace")
    if killed[0]:
        return Run(
            False,
            None,
            rss,
            error=f"killed: resident memory passed {rss_limit_mb:.0f} MB",
            killed_over_limit=True,
            extra={"stopped_after": ran},
        )
    if stopped[0]:
        return Run(
            False,
            None,
            rss,
            error=f"did not finish in {timeout:.0f} s (stopped)",
            extra={"stopped_after": ran},
        )
    try:
        answer = json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = stderr.strip().splitlines()[-3:]
        return Run(
            False, None, rss, error=f"worker died (exit {proc.returncode}): {' '.join(tail)}"
        )
    if not answer.get("ok"):
        return Run(
            False,
            None,
            rss,
            error=answer["error"],
            not_supported=answer["not_supported"],
            extra={"traceback": answer.get("traceback")},
        )
    if answer.get("peak_rss_mb"):
        rss = answer["peak_rss_mb"]
    extra = {k: v for k, v in answer.items() if k not in ("ok", "seconds", "result", "peak_rss_mb")}
    return Run(True, answer["seconds"], rss, answer.get("result"), extra=extra or None)
