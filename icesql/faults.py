"""Named crash points in the commit path, for the reliability harness (tests/reliability).

``ICESQL_FAULT=<point>`` (read once, at import) makes the process kill itself with SIGKILL
when it reaches that point, as a power cut or an OOM kill would: no ``finally``, no cleanup.
``ICESQL_FAULT=<point>@<n>`` kills at the n-th time the point is reached (default 1).
Unset, ``reached`` is a constant-time no-op. The points, in commit order::

    after-data-files      the statement's new data files are written (commit starts)
    after-delete-files    its new delete files (position deletes, DVs) are written
    after-manifests       the attempt's manifests are written
    after-manifest-list   its manifest list is written
    after-metadata-json   the new metadata JSON is written (not for REST clients: the
                          server writes it)
    before-swap           just before the catalog's atomic swap
    after-swap            just after it, before anything else (hint, cleanup, answer)
"""

from __future__ import annotations

import os
import signal

POINTS = (
    "after-data-files",
    "after-delete-files",
    "after-manifests",
    "after-manifest-list",
    "after-metadata-json",
    "before-swap",
    "after-swap",
)


def _parse(value: str | None) -> tuple[str | None, int]:
    if not value:
        return None, 0
    point, _, count = value.partition("@")
    if point not in POINTS:
        raise ValueError(
            f"ICESQL_FAULT={value!r}: unknown crash point (one of {', '.join(POINTS)})"
        )
    return point, int(count or 1)


_POINT, _COUNT = _parse(os.environ.get("ICESQL_FAULT"))
_seen = 0


def reached(point: str) -> None:
    """The commit reached ``point``: die here if the environment asks for it."""
    if _POINT is None or point != _POINT:
        return
    global _seen
    _seen += 1
    if _seen >= _COUNT:
        os.kill(os.getpid(), signal.SIGKILL)
