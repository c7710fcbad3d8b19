"""``register_table``: a catalog entry for an existing metadata file (Spark's
``RegisterTableProcedure``), in the procedure's catalog; catalogs that cannot register tables
(the file-system catalog, like Java's ``HadoopCatalog``) refuse it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from icesql.statements.procedures.base import STRING, Call, Parameter, Procedure

__all__ = ["PROCEDURES"]


def _register_table(call: Call) -> Sequence[Sequence[Any]]:
    metadata_file = call.args["metadata_file"]
    if not metadata_file:
        raise call.error("Cannot handle an empty argument metadata_file")
    catalog, identifier = call.identifier()
    table = catalog.register_table(identifier, metadata_file)
    current = table.metadata.current_snapshot()
    if current is None:
        return [(None, None, None)]
    summary = current.summary

    def total(key: str) -> int | None:
        return int(summary[key]) if key in summary else None

    return [(current.snapshot_id, total("total-records"), total("total-data-files"))]


PROCEDURES = (
    Procedure(
        "register_table",
        (Parameter("table", STRING), Parameter("metadata_file", STRING)),
        pa.schema([pa.field("current_snapshot_id", pa.int64()),
                   pa.field("total_records_count", pa.int64()),
                   pa.field("total_data_files_count", pa.int64())]),
        _register_table,
    ),
)  # fmt: skip
