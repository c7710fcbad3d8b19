"""``read_data_file``: one Parquet file read as batches of the read schema, columns matched by
field id (spec "Column Projection"), names assigned by a name mapping where the file has no
ids, and file errors that name the file."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from icesql.errors import CorruptFileError, NotSupportedError, OperationalError
from icesql.io import FileIO
from icesql.scan.file_formats import open_format_file
from icesql.scan.reader import ROW_COUNT_COLUMN, ReadContext, open_parquet, read_data_file
from icesql.spec.arrow import schema_to_arrow
from icesql.spec.name_mapping import create_mapping_from_schema
from icesql.spec.schema import Schema
from icesql.spec.types import (
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
)

ID = NestedField(1, "id", LongType())
NAME = NestedField(2, "name", StringType())


def _write(path: Path, schema: Schema, columns: dict[str, list]) -> str:
    arrow = schema_to_arrow(schema)
    pq.write_table(pa.table(columns, schema=arrow), path, row_group_size=2)
    return str(path)


def _read(schema: Schema, path: str, rows: int, **kwargs) -> pa.Table:
    ctx_args = {k: kwargs.pop(k) for k in ("name_mapping", "batch_rows") if k in kwargs}
    ctx = ReadContext(schema, FileIO(), **ctx_args)
    batches = list(read_data_file(ctx, path, rows, **kwargs))
    for b in batches:
        assert b.schema == ctx.arrow_schema
    return pa.Table.from_batches(batches, ctx.arrow_schema)


def test_columns_are_matched_by_field_id_not_name_or_order(tmp_path) -> None:
    """A renamed column (same id) reads under its new name; file order does not matter."""
    file_schema = Schema((NestedField(2, "old_name", StringType()), ID))
    path = _write(tmp_path / "f.parquet", file_schema, {"old_name": ["a", "b"], "id": [1, 2]})
    got = _read(Schema((ID, NAME)), path, 2)
    assert got.to_pylist() == [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]


def test_a_column_the_file_lacks_reads_as_its_initial_default_or_null(tmp_path) -> None:
    path = _write(tmp_path / "f.parquet", Schema((ID,)), {"id": [1, 2, 3]})
    added = NestedField(5, "added", StringType())
    with_default = NestedField(6, "d", IntegerType(), initial_default=42)
    got = _read(Schema((ID, added, with_default)), path, 3)
    assert got.column("added").to_pylist() == [None] * 3
    assert got.column("d").to_pylist() == [42] * 3
    assert got.schema.field("d").type == pa.int32()


def test_identity_partition_value_fills_a_column_the_file_lacks(tmp_path) -> None:
    path = _write(tmp_path / "f.parquet", Schema((ID,)), {"id": [1, 2]})
    got = _read(Schema((ID, NAME)), path, 2, identity_partition={2: (NAME, "eu")})
    assert got.column("name").to_pylist() == ["eu", "eu"]


def test_the_file_value_wins_over_the_identity_partition_value(tmp_path) -> None:
    path = _write(tmp_path / "f.parquet", Schema((ID, NAME)), {"id": [1], "name": ["own"]})
    got = _read(Schema((ID, NAME)), path, 1, identity_partition={2: (NAME, "eu")})
    assert got.column("name").to_pylist() == ["own"]


def test_only_missing_columns_still_give_one_row_per_file_row(tmp_path) -> None:
    """No column is read from the file, yet the row count is the file's, in batches."""
    path = _write(tmp_path / "f.parquet", Schema((ID,)), {"id": list(range(5))})
    got = _read(Schema((NAME,)), path, 999, batch_rows=2)  # the footer's count, not 999
    assert got.num_rows == 5 and got.column("name").null_count == 5


@pytest.mark.parametrize(
    ("count", "batch_rows", "sizes"), [(5, 2, [2, 2, 1]), (0, 2, []), (4, 4, [4])]
)
def test_no_columns_give_null_batches_of_the_record_count(count, batch_rows, sizes) -> None:
    """No file is opened at all: the manifest's record count decides (the path is bogus)."""
    ctx = ReadContext(Schema(()), FileIO(), batch_rows=batch_rows)
    batches = list(read_data_file(ctx, "/no/such/file.parquet", count))
    assert [b.num_rows for b in batches] == sizes
    for b in batches:
        assert b.schema.names == [ROW_COUNT_COLUMN] and b.column(0).null_count == b.num_rows


def test_batches_stream_at_most_batch_rows(tmp_path) -> None:
    path = _write(tmp_path / "f.parquet", Schema((ID,)), {"id": list(range(7))})
    ctx = ReadContext(Schema((ID,)), FileIO(), batch_rows=3)
    sizes = [b.num_rows for b in read_data_file(ctx, path, 7)]
    assert sum(sizes) == 7 and max(sizes) <= 3


def test_decoding_on_one_thread_reads_what_the_pool_reads(tmp_path, monkeypatch) -> None:
    """``threads=False`` asks pyarrow for no thread pool (copy-on-write's reads) and gives
    the same batches."""
    path = _write(
        tmp_path / "f.parquet", Schema((ID, NAME)), {"id": list(range(5)), "name": list("abcde")}
    )
    asked = []
    iter_batches = pq.ParquetFile.iter_batches

    def recording(self, *args, **kwargs):
        asked.append(kwargs.get("use_threads"))
        return iter_batches(self, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", recording)
    pooled = list(read_data_file(ReadContext(Schema((ID, NAME)), FileIO()), path, 5))
    alone = list(read_data_file(ReadContext(Schema((ID, NAME)), FileIO(), threads=False), path, 5))
    assert asked == [True, False]
    assert pa.Table.from_batches(alone).equals(pa.Table.from_batches(pooled))


def test_int_file_column_is_promoted_to_long(tmp_path) -> None:
    path = _write(
        tmp_path / "f.parquet", Schema((NestedField(1, "id", IntegerType()),)), {"id": [1, None]}
    )
    got = _read(Schema((ID,)), path, 2)
    assert got.schema.field("id").type == pa.int64() and got.column("id").to_pylist() == [1, None]


NESTED = Schema(
    (
        ID,
        NestedField(3, "s", StructType((NestedField(4, "x", IntegerType()),))),
        NestedField(5, "l", ListType(6, StringType(), False)),
        NestedField(7, "m", MapType(8, StringType(), 9, LongType(), False)),
    )
)


def _write_without_ids(path: Path, columns: dict[str, pa.Array]) -> str:
    pq.write_table(pa.table(columns), path)
    assert not any(f.metadata for f in pq.read_schema(path))
    return str(path)


def _nested_columns() -> dict[str, pa.Array]:
    return {
        "m": pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int64())),
        "l": pa.array([["a", "b"]], pa.list_(pa.string())),
        "s": pa.array([{"x": 3}], pa.struct([("x", pa.int32())])),
        "id": pa.array([10], pa.int64()),
    }


def test_a_name_mapping_gives_ids_to_a_file_without_them(tmp_path) -> None:
    """Nested fields too: struct children, list ``element``, map ``key`` and ``value``."""
    path = _write_without_ids(tmp_path / "f.parquet", _nested_columns())
    mapping = create_mapping_from_schema(NESTED)
    got = _read(NESTED, path, 1, name_mapping=mapping)
    assert got.to_pylist() == [{"id": 10, "s": {"x": 3}, "l": ["a", "b"], "m": [("k", 1)]}]


def test_a_name_the_mapping_lacks_reads_as_missing(tmp_path) -> None:
    path = _write_without_ids(
        tmp_path / "f.parquet", {"id": pa.array([1], pa.int64()), "other": pa.array(["z"])}
    )
    mapping = create_mapping_from_schema(Schema((ID,)))
    got = _read(Schema((ID, NAME)), path, 1, name_mapping=mapping)
    assert got.to_pylist() == [{"id": 1, "name": None}]


def test_a_file_without_ids_or_mapping_is_refused_by_name(tmp_path) -> None:
    path = _write_without_ids(tmp_path / "f.parquet", {"id": pa.array([1], pa.int64())})
    with pytest.raises(NotSupportedError, match="schema.name-mapping.default") as info:
        _read(Schema((ID,)), path, 1)
    assert path in str(info.value)


def test_missing_file_is_an_operational_error_naming_it(tmp_path) -> None:
    path = str(tmp_path / "gone.parquet")
    with pytest.raises(OperationalError, match="data file not found") as info:
        open_parquet(FileIO(), path)
    assert not isinstance(info.value, CorruptFileError) and path in str(info.value)


@pytest.mark.parametrize("content", [b"", b"PAR1 not really parquet", b"x" * 100])
def test_corrupt_file_is_a_corrupt_file_error_naming_it(tmp_path, content) -> None:
    path = tmp_path / "bad.parquet"
    path.write_bytes(content)
    with pytest.raises(CorruptFileError) as info:
        _read(Schema((ID,)), str(path), 1)
    assert info.value.path == str(path) and str(path) in str(info.value)


def test_open_parquet_reads_the_footer(tmp_path) -> None:
    path = _write(tmp_path / "f.parquet", Schema((ID,)), {"id": [1, 2, 3]})
    pf = open_parquet(FileIO(), path)
    assert pf.metadata.num_rows == 3 and pf.metadata.num_row_groups == 2


def test_footer_names_that_are_not_utf8_are_a_corrupt_file_error(tmp_path) -> None:
    """Found by the corruption fuzz: pyarrow raised a raw UnicodeDecodeError."""
    path = _write(tmp_path / "f.parquet", Schema((ID,)), {"id": [1, 2, 3]})
    raw = bytearray(Path(path).read_bytes())
    footer = len(raw) - 8 - int.from_bytes(raw[-8:-4], "little")
    for at in range(footer, len(raw) - 1):
        if raw[at : at + 2] == b"id":
            raw[at] ^= 0xFF
    Path(path).write_bytes(bytes(raw))
    with pytest.raises(CorruptFileError) as info:
        open_parquet(FileIO(), path)
    assert info.value.path == path


def _retype_as_unknown(table_dir: Path, names: set[str]) -> None:
    """What another engine's commit leaves: a new metadata version (the hadoop layout) whose
    current schema types the fields ``names`` (dotted for nested ones) as v3 ``unknown``."""
    import json

    meta = table_dir / "metadata"
    version = int((meta / "version-hint.text").read_text())
    md = json.loads((meta / f"v{version}.metadata.json").read_text())
    schema = json.loads(json.dumps(md["schemas"][-1]))
    schema["schema-id"] = max(s["schema-id"] for s in md["schemas"]) + 1

    def retype(fields: list, prefix: str) -> None:
        for f in fields:
            name = prefix + f["name"]
            if name in names:
                f["type"] = "unknown"
            elif isinstance(f["type"], dict) and f["type"].get("type") == "struct":
                retype(f["type"]["fields"], name + ".")

    retype(schema["fields"], "")
    md["schemas"].append(schema)
    md["current-schema-id"] = schema["schema-id"]
    (meta / f"v{version + 1}.metadata.json").write_text(json.dumps(md))
    (meta / "version-hint.text").write_text(str(version + 1))


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
def test_unknown_columns_read_as_null_and_rows_written_leave_them_out(tmp_path, fmt):
    """A v3 table whose columns another engine typed ``unknown`` while old files still hold
    values for their ids: every read gives NULL (the file's column ignored, as the spec says),
    new rows take NULL only and their files leave the fields out, and promoting the column to
    a type again reads NULL for the rows written while it was unknown."""
    import icesql

    con = icesql.connect(str(tmp_path))
    con.execute(
        f"CREATE TABLE db.u (id INT, n STRING, s STRUCT<a: INT, b: STRING>) USING iceberg"
        f" TBLPROPERTIES ('format-version'='3', 'write.format.default'='{fmt}')"
    )
    con.execute("INSERT INTO db.u VALUES (1, 'x', named_struct('a', 1, 'b', 'y')), (2, NULL, NULL)")
    _retype_as_unknown(tmp_path / "db" / "u", {"n", "s.b"})
    expected = [(1, None, {"a": 1, "b": None}), (2, None, None)]
    assert con.execute("SELECT * FROM db.u ORDER BY id").fetchall() == expected
    assert con.execute(
        "SELECT count(*) FROM db.u WHERE n IS NOT NULL OR s.b IS NOT NULL"
    ).fetchall() == [(0,)]
    assert con.execute("SELECT typeof(n), typeof(s) FROM db.u LIMIT 1").fetchall() == [
        ("void", "struct<a:int,b:void>")
    ]
    before = {r[0] for r in con.execute("SELECT file_path FROM db.u.files").fetchall()}
    with pytest.raises(icesql.ProgrammingError, match="cannot safely cast `n` STRING to VOID"):
        con.execute("INSERT INTO db.u VALUES (3, 'z', NULL)")
    con.execute("INSERT INTO db.u VALUES (3, NULL, named_struct('a', 3, 'b', NULL))")
    con.execute("UPDATE db.u SET id = 10 WHERE id = 1")
    assert con.execute("SELECT * FROM db.u ORDER BY id").fetchall() == [
        (2, None, None),
        (3, None, {"a": 3, "b": None}),
        (10, None, {"a": 1, "b": None}),
    ]
    written = {r[0] for r in con.execute("SELECT file_path FROM db.u.files").fetchall()} - before
    assert written
    for path in written:
        fields = (
            pq.read_schema(path)
            if fmt == "parquet"
            else open_format_file(FileIO(), path, fmt).schema_arrow
        )
        assert [f.name for f in fields][:2] == ["id", "s"]
        assert "n" not in fields.names and [c.name for c in fields.field("s").type] == ["a"]
    con.execute("ALTER TABLE db.u ALTER COLUMN n TYPE STRING")
    con.execute("INSERT INTO db.u VALUES (4, 'w', NULL)")
    assert con.execute("SELECT id, n FROM db.u ORDER BY id").fetchall() == [
        (2, None),
        (3, None),
        (4, "w"),
        (10, None),
    ]


def test_struct_defaults_are_each_fields_own_default(tmp_path):
    """Spec: a struct's non-null default is stored as ``{}`` and stands for a struct of each
    field's own default (a table another engine evolved so): old rows read it, and an INSERT
    that omits the column, or names DEFAULT, or MERGE's INSERT writes its write-defaults."""
    import json

    import icesql

    con = icesql.connect(str(tmp_path))
    con.execute("CREATE TABLE db.s (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')")
    con.execute("INSERT INTO db.s VALUES (1)")
    meta = tmp_path / "db" / "s" / "metadata"
    version = int((meta / "version-hint.text").read_text())
    md = json.loads((meta / f"v{version}.metadata.json").read_text())
    schema = json.loads(json.dumps(md["schemas"][-1]))
    schema["schema-id"] += 1
    schema["fields"].append(
        {
            "id": 2,
            "name": "p",
            "required": False,
            "initial-default": {},
            "write-default": {},
            "type": {
                "type": "struct",
                "fields": [
                    {
                        "id": 3,
                        "name": "x",
                        "required": False,
                        "type": "int",
                        "initial-default": 0,
                        "write-default": 5,
                    },
                    {
                        "id": 4,
                        "name": "y",
                        "required": False,
                        "type": "string",
                        "initial-default": "a",
                    },
                ],
            },
        }
    )
    md["schemas"].append(schema)
    md["current-schema-id"], md["last-column-id"] = schema["schema-id"], 4
    (meta / f"v{version + 1}.metadata.json").write_text(json.dumps(md))
    (meta / "version-hint.text").write_text(str(version + 1))
    con.execute("INSERT INTO db.s (id) VALUES (2)")
    con.execute("INSERT INTO db.s VALUES (3, DEFAULT)")
    con.execute(
        "MERGE INTO db.s t USING (SELECT 4 AS id) u ON t.id = u.id"
        " WHEN NOT MATCHED THEN INSERT (id) VALUES (u.id)"
    )
    assert con.execute("SELECT id, p FROM db.s ORDER BY id").fetchall() == [
        (1, {"x": 0, "y": "a"}),
        (2, {"x": 5, "y": None}),
        (3, {"x": 5, "y": None}),
        (4, {"x": 5, "y": None}),
    ]


# -- read_as_stored: a rewrite's rows as the file stores them --------------------------------


def test_read_as_stored_keeps_strings_of_few_values_dictionary_encoded(tmp_path) -> None:
    from icesql.scan.reader import read_as_stored

    many = NestedField(3, "many", StringType())
    schema = Schema((ID, NAME, many))
    rows = 50_000
    path = tmp_path / "f.parquet"
    table = pa.table(
        {
            "id": list(range(rows)),
            "name": [f"n{i % 3}" for i in range(rows)],
            "many": [f"value {i:08d} of many" for i in range(rows)],
        },
        schema=schema_to_arrow(schema),
    )
    pq.write_table(table, path)
    batches = list(read_as_stored(FileIO(), str(path), schema, rows))
    assert pa.types.is_dictionary(batches[0].schema.field("name").type)
    assert batches[0].schema.field("many").type == pa.string()  # its dictionary spilled
    got = pa.Table.from_batches(batches)
    assert got.column_names == ["id", "name", "many"]
    assert got.cast(table.schema).equals(table)


@pytest.mark.parametrize(
    "stored",
    [
        Schema((NestedField(1, "id", IntegerType()), NAME)),  # int promoted to long: conformed
        Schema((NAME,)),  # id missing: read as its default
    ],
)
def test_read_as_stored_leaves_files_that_need_conforming_to_the_scan(tmp_path, stored) -> None:
    from icesql.scan.reader import read_as_stored

    columns = {f.name: ([1, 2] if f.field_id == 1 else ["a", "b"]) for f in stored.fields}
    path = _write(tmp_path / "f.parquet", stored, columns)
    assert read_as_stored(FileIO(), path, Schema((ID, NAME)), 2) is None


def test_read_as_stored_refuses_a_file_of_other_row_count(tmp_path) -> None:
    from icesql.scan.reader import read_as_stored

    path = _write(tmp_path / "f.parquet", Schema((ID,)), {"id": [1, 2, 3]})
    with pytest.raises(CorruptFileError, match="holds 3 rows, its manifest entry says 4"):
        list(read_as_stored(FileIO(), path, Schema((ID,)), 4))
