"""Which branch a statement reads and writes under write-audit-publish, as Spark decides.

With the table property ``write.wap.enabled=true`` (Iceberg's ``TableProperties.
WRITE_AUDIT_PUBLISH_ENABLED``) two session settings redirect writes (Spark's
``SparkWriteConf.branch`` / ``SparkTableUtil.determineWriteBranch``):

* ``spark.wap.branch = b`` — writes go to branch ``b`` (created from the current snapshot by
  the first write), and reads of the table read ``b`` once it exists (``SparkReadConf.branch``);
* ``spark.wap.id = x`` — writes are *staged*: the snapshot is added with summary ``wap.id=x``
  on top of the branch head but no ref moves (Java's ``stageOnly``); ``publish_changes``
  cherry-picks it later. Reads stay on ``main``.

Both at once, or a WAP branch with an explicit ``t.branch_x`` target, is refused with Spark's
messages. Without the property the settings do nothing, as in Spark.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from icesql.errors import ProgrammingError
from icesql.metadata.snapshots import MAIN_BRANCH
from icesql.metadata.table_metadata import TableMetadata
from icesql.session.settings import Settings

if TYPE_CHECKING:
    from icesql.write.snapshot import Change

__all__ = [
    "WAP_BRANCH",
    "WAP_ENABLED",
    "WAP_ID",
    "WAP_ID_SUMMARY",
    "WriteRef",
    "read_branch",
    "write_ref",
]

WAP_BRANCH = "spark.wap.branch"
WAP_ID = "spark.wap.id"
WAP_ENABLED = "write.wap.enabled"
WAP_ID_SUMMARY = "wap.id"  # SnapshotSummary.STAGED_WAP_ID_PROP


@dataclass(frozen=True)
class WriteRef:
    """Where a write lands: the branch it commits to, and the WAP id it is staged under
    (then no ref moves)."""

    branch: str = MAIN_BRANCH
    wap_id: str | None = None

    def apply(self, change: Change) -> Change:
        """``change`` aimed at this branch, staged when there is a WAP id."""
        if self.wap_id is None:
            return dataclasses.replace(change, branch=self.branch)
        summary = {**change.summary, WAP_ID_SUMMARY: self.wap_id}
        return dataclasses.replace(change, branch=self.branch, stage_only=True, summary=summary)


def _enabled(metadata: TableMetadata) -> bool:
    return (metadata.properties.get(WAP_ENABLED) or "false").strip().lower() == "true"


def _setting(settings: Settings, key: str) -> str | None:
    value = settings.get(key)
    return value.strip() if value is not None and value.strip() else None


def read_branch(settings: Settings, metadata: TableMetadata) -> str | None:
    """The WAP branch a read of the table's current state reads instead, if any."""
    if not _enabled(metadata):
        return None
    branch = _setting(settings, WAP_BRANCH)
    return branch if branch is not None and branch in metadata.refs else None


def write_ref(settings: Settings, metadata: TableMetadata, branch: str | None = None) -> WriteRef:
    """Where a write to the table lands; ``branch`` is the target's ``branch_`` suffix."""
    if not _enabled(metadata):
        return WriteRef(branch or MAIN_BRANCH)
    wap_id, wap_branch = _setting(settings, WAP_ID), _setting(settings, WAP_BRANCH)
    if wap_id is not None and wap_branch is not None:
        raise ProgrammingError(
            f"Cannot set both WAP ID and branch, but got ID [{wap_id}] and branch [{wap_branch}]"
        )
    if wap_branch is not None:
        if branch is not None:
            raise ProgrammingError(
                f"Cannot write to both branch and WAP branch, but got branch [{branch}] and WAP"
                f" branch [{wap_branch}]"
            )
        return WriteRef(wap_branch)
    return WriteRef(branch or MAIN_BRANCH, wap_id)
