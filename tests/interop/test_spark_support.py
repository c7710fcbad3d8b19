"""The harness itself, without starting Spark: normalisation rules, ORDER BY detection and the
pure-Python Jackson relocation."""

from __future__ import annotations

import datetime as dt
import struct
import zipfile
from decimal import Decimal

import pytest
import spark_support as ss
from pyspark.sql import Row


def test_struct_map_bytes_nan_and_timestamps_normalise_alike():
    spark_row = Row(
        id=1,
        st=Row(a=1, b="x"),
        m={"k": 1},
        raw=bytearray(b"\x01"),
        f=float("nan"),
        ts=dt.datetime(1969, 12, 31, 23, 59, 59),
        arr=[Row(x=1)],
    )
    icesql_row = (
        1,
        {"a": 1, "b": "x"},
        [("k", 1)],  # pyarrow's to_pylist() form of a map
        b"\x01",
        float("nan"),
        dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=dt.UTC),
        [{"x": 1}],
    )
    ss.assert_same_rows([spark_row], [icesql_row], ordered=True)


def test_numbers_compare_by_value_but_types_still_matter():
    assert ss.values_equal(Decimal("1.50"), 1.5)
    assert ss.values_equal(0.1 + 0.2, 0.3)
    assert ss.values_equal(float("inf"), float("inf"))
    assert not ss.values_equal(float("inf"), 1e308)
    assert not ss.values_equal(True, 1)
    assert not ss.values_equal(dt.date(2024, 1, 1), dt.datetime(2024, 1, 1))
    assert not ss.values_equal(None, 0)


def test_unordered_comparison_ignores_row_order_only():
    ss.assert_same_rows([(1, "a"), (None, "b")], [(None, "b"), (1, "a")], ordered=False)
    with pytest.raises(AssertionError):
        ss.assert_same_rows([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], ordered=True)
    with pytest.raises(AssertionError):
        ss.assert_same_rows([(1,), (1,)], [(1,)], ordered=False)


@pytest.mark.parametrize(
    ("sql", "ordered"),
    [
        ("SELECT a FROM t ORDER BY a", True),
        ("SELECT a FROM t order by a LIMIT 3", True),
        ("SELECT row_number() OVER (ORDER BY a) FROM t", False),
        ("SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 2) s", False),
        ("SELECT 'ORDER BY' AS s FROM t", False),
    ],
)
def test_top_level_order_by(sql, ordered):
    assert ss.has_top_level_order_by(sql) is ordered


def _class_names(data: bytes) -> list[bytes]:
    (count,) = struct.unpack_from(">H", data, 8)
    pos, index, names = 10, 1, []
    while index < count:
        tag = data[pos]
        if tag == 1:
            (length,) = struct.unpack_from(">H", data, pos + 1)
            names.append(data[pos + 3 : pos + 3 + length])
            pos += 3 + length
        else:
            pos += 1 + ss._CONSTANT_SIZES[tag]
        index += 2 if tag in (5, 6) else 1
    return names


def test_python_relocation_rewrites_every_jackson_name(tmp_path):
    jar = ss.relocated_jackson_jar(tmp_path, use_jarjar=False)
    with zipfile.ZipFile(jar) as z:
        names = z.namelist()
        assert "org/apache/iceberg/shaded/com/fasterxml/jackson/core/JsonFactoryBuilder.class" in names
        assert all(n.startswith("org/apache/iceberg/shaded/com/fasterxml/jackson/") for n in names)
        data = z.read("org/apache/iceberg/shaded/com/fasterxml/jackson/databind/ObjectMapper.class")
    constants = _class_names(data)
    assert b"org/apache/iceberg/shaded/com/fasterxml/jackson/databind/ObjectMapper" in constants
    unshaded = [
        c for c in constants
        if b"com/fasterxml" in c.replace(b"org/apache/iceberg/shaded/com/fasterxml", b"")
    ]
    assert not unshaded
    assert not [c for c in constants if b"shaded/org/apache/iceberg/shaded" in c]
