"""Deletes applied to a streamed data file equal the brute-force answer, across batch
boundaries, for position delete files, deletion vectors and equality deletes together."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from icesql.io import FileIO
from icesql.metadata.puffin import write_deletion_vector_puffin
from icesql.scan.apply_deletes import DeleteApplier
from icesql.scan.delete_loaders import DeleteLoader
from icesql.scan.reader import ReadContext
from icesql.spec.content_file import EQUALITY_DELETES, POSITION_DELETES, DataFile
from icesql.spec.schema import Schema
from icesql.spec.types import IntegerType, NestedField

ID = NestedField(1, "id", IntegerType())
KEY = NestedField(2, "key", IntegerType())
SCHEMA = Schema((ID, KEY))


def _fid(n: int) -> dict:
    return {b"PARQUET:field_id": str(n).encode()}


def _data_file(path: str, rows: int) -> DataFile:
    keys = [None if i % 7 == 3 else i % 5 for i in range(rows)]
    table = pa.table(
        [pa.array(range(rows), pa.int32()), pa.array(keys, pa.int32())],
        schema=pa.schema(
            [
                pa.field("id", pa.int32(), metadata=_fid(1)),
                pa.field("key", pa.int32(), metadata=_fid(2)),
            ]
        ),
    )
    pq.write_table(table, path, row_group_size=11)
    return DataFile(
        file_path=path, file_format="PARQUET", partition=(), record_count=rows, file_size_in_bytes=1
    )


def _delete(path: str, content: int, rows: int, **kw) -> DataFile:
    return DataFile(
        file_path=path,
        file_format=kw.pop("fmt", "PARQUET"),
        partition=(),
        record_count=rows,
        file_size_in_bytes=1,
        content=content,
        **kw,
    )


@settings(max_examples=40, deadline=None)
@given(
    rows=st.integers(1, 60),
    positions=st.sets(st.integers(0, 70), max_size=25),
    use_dv=st.booleans(),
    keys=st.sets(st.one_of(st.none(), st.integers(0, 5)), max_size=3),
    batch_rows=st.integers(1, 17),
    project=st.sampled_from([(), ("id",), ("id", "key")]),
)
def test_streamed_deletes_equal_brute_force(
    tmp_path_factory, rows, positions, use_dv, keys, batch_rows, project
):
    tmp = tmp_path_factory.mktemp("d")
    io = FileIO()
    data = _data_file(str(tmp / "data.parquet"), rows)
    deletes = []
    if positions and use_dv:
        ((offset, length, card),) = write_deletion_vector_puffin(
            io, str(tmp / "dv.puffin"), [(data.file_path, sorted(positions))]
        )
        deletes.append(
            _delete(
                str(tmp / "dv.puffin"),
                POSITION_DELETES,
                card,
                fmt="PUFFIN",
                referenced_data_file=data.file_path,
                content_offset=offset,
                content_size_in_bytes=length,
            )
        )
    elif positions:
        # a third of the draw dropped; the file also holds a row of another data file
        rows_pos = sorted(p for i, p in enumerate(sorted(positions)) if i % 3)
        positions = set(rows_pos)
        table = pa.table(
            [
                pa.array([data.file_path] * len(rows_pos) + ["other.parquet"]),
                pa.array([*rows_pos, 1], pa.int64()),
            ],
            schema=pa.schema(
                [
                    pa.field("file_path", pa.string(), metadata=_fid(2147483546)),
                    pa.field("pos", pa.int64(), metadata=_fid(2147483545)),
                ]
            ),
        )
        pq.write_table(table, str(tmp / "pos.parquet"))
        deletes.append(_delete(str(tmp / "pos.parquet"), POSITION_DELETES, table.num_rows))
    if keys:
        eq = pa.table(
            [pa.array(sorted(keys, key=lambda k: (k is None, k)), pa.int32())],
            schema=pa.schema([pa.field("key", pa.int32(), metadata=_fid(2))]),
        )
        pq.write_table(eq, str(tmp / "eq.parquet"))
        deletes.append(
            _delete(str(tmp / "eq.parquet"), EQUALITY_DELETES, eq.num_rows, equality_ids=(2,))
        )

    fields = tuple(f for f in SCHEMA.fields if f.name in project)
    ctx = ReadContext(Schema(fields), io, batch_rows=batch_rows)
    applier = DeleteApplier(lambda: DeleteLoader(io), [SCHEMA])
    got_pos = []
    got_rows = 0
    for batch, where, _ in applier.read_positioned(ctx, data, deletes):
        got_pos += where.tolist()
        got_rows += batch.num_rows
        if "id" in project:
            assert batch.column(0).to_pylist() == where.tolist()  # id == position

    def key(i):
        return None if i % 7 == 3 else i % 5

    want = [i for i in range(rows) if i not in positions and not (keys and key(i) in keys)]
    assert got_pos == want
    assert got_rows == len(want)
