"""Generate the benchmark warehouse once and describe it in ``dataset.json``.

The warehouse (Spark ``hadoop`` layout, namespace ``bench``) holds:

* ``lineitem``: v2, partitioned by ``months(l_shipdate)``, ``months x files_per_month``
  Parquet files;
* ``lineitem_pos`` (v2) / ``lineitem_dv`` (v3): the same data files with the same 10% of rows
  deleted by file-scoped position delete files / by deletion vectors in Puffin files;
* ``lineitem_eq``: the same data files, 1% of rows deleted by partition-scoped equality
  deletes on ``(l_orderkey, l_linenumber)``;
* ``many_files``: 10,000 small files in 100 manifests, for planning.

The variants share the base table's data files (absolute paths, as Iceberg allows), so the
only difference between a delete scenario and the base one is the deletes. ``dataset.json``
records the live files and row counts the baselines need; a folder whose ``dataset.json``
names the same sizes is reused as it is.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from benchmarks import config
from benchmarks.config import (
    BASE,
    DV,
    EQ,
    MANY,
    NAMESPACE,
    ORC,
    POS,
    Sizes,
    epoch_month,
    month_start,
)
from benchmarks.iceberg_files import (
    TableLayout,
    commit_table,
    write_data_file,
    write_equality_deletes,
    write_position_deletes,
)
from benchmarks.lineitem import (
    LINENUMBER_ID,
    ORDERKEY_ID,
    SCHEMA,
    SHIPDATE_ID,
    deleted_positions,
    rows,
)
from icesql.io import FileIO
from icesql.spec.arrow import schema_to_arrow
from icesql.spec.content_file import DataFile
from icesql.spec.partitioning import PartitionField, PartitionSpec
from icesql.spec.transforms import parse_transform
from icesql.write.position_deletes import write_deletion_vectors

POSITION_FRACTION = 0.10
EQUALITY_FRACTION = 0.01
SPEC = PartitionSpec(
    0, (PartitionField(SHIPDATE_ID, 1000, parse_transform("month"), "l_shipdate_month"),)
)
FORMAT = 2  # bump when the generated layout changes


@dataclass(frozen=True)
class Dataset:
    """What the scenarios need to know about the generated warehouse."""

    root: str
    info: dict[str, Any]

    @property
    def warehouse(self) -> str:
        return f"{self.root}/warehouse"

    def metadata(self, table: str) -> str:
        return self.info["tables"][table]["metadata"]

    def files(self, table: str = BASE) -> list[str]:
        return [f["path"] for f in self.info["tables"][table]["files"]]

    def file_rows(self, table: str = BASE) -> list[dict[str, Any]]:
        return self.info["tables"][table]["files"]


def dataset_dir(cache: str, sizes: Sizes) -> str:
    return os.path.join(os.path.abspath(cache), f"rows-{sizes.rows}-seed-{sizes.seed}")


def load_or_generate(cache: str, sizes: Sizes, log: Any = print) -> Dataset:
    """The dataset for ``sizes`` under ``cache``, generated if missing or stale."""
    root = dataset_dir(cache, sizes)
    info_path = os.path.join(root, "dataset.json")
    if os.path.exists(info_path):
        with open(info_path) as f:
            info = json.load(f)
        if info.get("sizes") == sizes.key() and info.get("format") == FORMAT:
            log(f"using cached data in {root}")
            return Dataset(root, info)
    if os.path.exists(root):
        shutil.rmtree(root)
    started = time.perf_counter()
    info = _generate(root, sizes, log)
    info["generation_seconds"] = round(time.perf_counter() - started, 1)
    with open(info_path, "w") as f:
        json.dump(info, f, indent=1)
    log(f"generated data in {info['generation_seconds']} s: {root}")
    return Dataset(root, info)


def _table_dir(root: str, table: str) -> str:
    return f"{root}/warehouse/{NAMESPACE}/{table}"


def _describe(files: list[DataFile], month_of: list[int]) -> list[dict[str, Any]]:
    return [
        {"path": f.file_path, "rows": f.record_count, "month": m, "bytes": f.file_size_in_bytes}
        for f, m in zip(files, month_of, strict=True)
    ]


def _generate(root: str, sizes: Sizes, log: Any) -> dict[str, Any]:
    arrow_schema = schema_to_arrow(SCHEMA)
    base_dir = _table_dir(root, BASE)
    orc_dir = _table_dir(root, ORC)
    orc_files: list[DataFile] = []
    data_files: list[DataFile] = []
    month_of: list[int] = []
    orderkeys: list[tuple[int, int]] = []
    arrow_bytes = 0
    for k in range(sizes.files):
        m = k // sizes.files_per_month
        first = k * sizes.rows // sizes.files
        count = (k + 1) * sizes.rows // sizes.files - first
        start = month_start(m)
        table = rows(arrow_schema, first, count, start, sizes.seed)
        arrow_bytes += table.nbytes
        part = f"l_shipdate_month={start:%Y-%m}"
        path = f"{base_dir}/data/{part}/{k:05d}-0-{sizes.seed}.parquet"
        data_files.append(write_data_file(path, table, SCHEMA, (epoch_month(start),)))
        orc_path = f"{orc_dir}/data/{part}/{k:05d}-0-{sizes.seed}.orc"
        orc_files.append(_write_orc(orc_path, table, (epoch_month(start),)))
        month_of.append(m)
        orderkeys.append((int(table.column(0)[0].as_py()), int(table.column(0)[-1].as_py())))
        if k % 20 == 19:
            log(f"  data files {k + 1}/{sizes.files}")
    files_info = _describe(data_files, month_of)
    for f, (lo, hi) in zip(files_info, orderkeys, strict=True):
        f["orderkey_min"], f["orderkey_max"] = lo, hi
    tables: dict[str, Any] = {}
    props = {"write.parquet.compression-codec": "zstd"}

    def add(name: str, layout: TableLayout, deleted: int, files: list[dict[str, Any]]) -> None:
        tables[name] = {
            "metadata": commit_table(layout, sizes.seed),
            "files": files,
            "rows": sizes.rows - deleted,
            "deleted_rows": deleted,
            "delete_files": len({d.file_path for d in layout.delete_files}),
        }

    add(BASE, TableLayout(base_dir, SCHEMA, SPEC, 2, [data_files], [], props), 0, files_info)
    orc_props = {**props, "write.format.default": "orc"}
    orc_info = [
        {**f, "path": o.file_path, "bytes": o.file_size_in_bytes}
        for f, o in zip(files_info, orc_files, strict=True)
    ]
    add(ORC, TableLayout(orc_dir, SCHEMA, SPEC, 2, [orc_files], [], orc_props), 0, orc_info)
    log("  base table committed; position deletes / deletion vectors ...")

    positions = [
        deleted_positions(f.record_count, POSITION_FRACTION, sizes.seed, k)
        for k, f in enumerate(data_files)
    ]
    deleted = sum(len(p) for p in positions)
    pos_dir = _table_dir(root, POS)
    pos_files = [
        write_position_deletes(f"{pos_dir}/data/deletes/{k:05d}-pos.parquet", f, p)
        for k, (f, p) in enumerate(zip(data_files, positions, strict=True))
    ]
    add(
        POS,
        TableLayout(pos_dir, SCHEMA, SPEC, 2, [data_files], pos_files, props),
        deleted,
        files_info,
    )

    dv_dir = _table_dir(root, DV)
    dv_files: list[DataFile] = []
    per = sizes.files_per_month
    for m in range(sizes.months):  # one Puffin file per month, as one write task per partition
        group = [(data_files[k], positions[k]) for k in range(m * per, (m + 1) * per)]
        dv_files += write_deletion_vectors(
            FileIO(), f"{dv_dir}/data/deletes/{m:04d}-dv.puffin", group
        )
    add(
        DV, TableLayout(dv_dir, SCHEMA, SPEC, 3, [data_files], dv_files, props), deleted, files_info
    )
    log("  equality deletes ...")

    add(EQ, *_equality_layout(root, sizes, data_files, props), files_info)
    log("  many small files ...")
    many_layout, many_files = _many_files_layout(root, sizes, arrow_schema, props)
    add(MANY, many_layout, 0, many_files)
    tables[MANY]["rows"] = sum(f["rows"] for f in many_files)
    return {
        "format": FORMAT,
        "sizes": sizes.key(),
        "tables": tables,
        "arrow_bytes": arrow_bytes,
        "parquet_bytes": sum(f.file_size_in_bytes for f in data_files),
    }


def _write_orc(path: str, table: pa.Table, partition: tuple[Any, ...]) -> DataFile:
    """One ORC data file of ``table`` by icesql's ORC writer (field ids as Iceberg attributes,
    counts and bounds)."""
    from icesql.io import FileIO
    from icesql.write.column_metrics import FULL, MetricsConfig
    from icesql.write.file_writers import OrcDataWriter

    writer = OrcDataWriter(
        FileIO(), path, SCHEMA, SPEC.spec_id, partition, MetricsConfig(FULL, {}), None
    )
    writer.write(table)
    return writer.close()


def _equality_layout(
    root: str, sizes: Sizes, data_files: list[DataFile], props: dict[str, str]
) -> tuple[TableLayout, int]:
    """1% of each file's rows, deleted by key, one equality delete file per partition."""
    eq_dir = _table_dir(root, EQ)
    key_schema = SCHEMA.select("l_orderkey", "l_linenumber")
    arrow_keys = schema_to_arrow(key_schema)
    deletes: list[DataFile] = []
    deleted = 0
    per = sizes.files_per_month
    for m in range(sizes.months):
        keys: list[pa.Table] = []
        for k in range(m * per, (m + 1) * per):
            first = k * sizes.rows // sizes.files
            pos = deleted_positions(
                data_files[k].record_count, EQUALITY_FRACTION, sizes.seed + 1, k
            )
            idx = pos + first
            keys.append(
                pa.Table.from_arrays(
                    [
                        pa.array(idx // config.LINES_PER_ORDER + 1),
                        pa.array((idx % config.LINES_PER_ORDER + 1).astype("int32")),
                    ],
                    schema=arrow_keys,
                )
            )
        table = pa.concat_tables(keys)
        deleted += table.num_rows
        deletes.append(
            write_equality_deletes(
                f"{eq_dir}/data/deletes/{m:04d}-eq.parquet",
                table,
                key_schema,
                (ORDERKEY_ID, LINENUMBER_ID),
                data_files[m * per].partition,
            )
        )
    return TableLayout(eq_dir, SCHEMA, SPEC, 2, [data_files], deletes, props), deleted


def _many_files_layout(
    root: str, sizes: Sizes, arrow_schema: pa.Schema, props: dict[str, str]
) -> tuple[TableLayout, list[dict[str, Any]]]:
    """``many_files`` small files; manifest ``i`` holds the files of month ``i``."""
    many_dir = _table_dir(root, MANY)
    per_manifest = sizes.many_files // sizes.many_manifests
    n = sizes.many_rows_per_file
    manifests: list[list[DataFile]] = []
    described: list[dict[str, Any]] = []
    for m in range(sizes.many_manifests):
        start = month_start(m)
        chunk = rows(arrow_schema, m * per_manifest * n, per_manifest * n, start, sizes.seed + 2)
        files = []
        for j in range(per_manifest):
            path = f"{many_dir}/data/l_shipdate_month={start:%Y-%m}/{j:05d}.parquet"
            files.append(
                write_data_file(path, chunk.slice(j * n, n), SCHEMA, (epoch_month(start),))
            )
        manifests.append(files)
        described += _describe(files, [m] * len(files))
    return TableLayout(many_dir, SCHEMA, SPEC, 2, manifests, [], props), described
