"""The harness itself, without starting Spark: normalisation rules, ORDER BY detection, the
pure-Python Jackson relocation and the HttpClient 5 jar's class-file edits (checked with
``javap`` when a JDK is installed; ``test_rest_spark.py`` loads them in Spark's JVM)."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import zipfile
from decimal import Decimal

import classfile_support
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


def test_python_relocation_rewrites_every_jackson_name(tmp_path):
    jar = ss.relocated_jackson_jar(tmp_path, use_jarjar=False)
    with zipfile.ZipFile(jar) as z:
        names = z.namelist()
        assert (
            "org/apache/iceberg/shaded/com/fasterxml/jackson/core/JsonFactoryBuilder.class" in names
        )
        assert all(n.startswith("org/apache/iceberg/shaded/com/fasterxml/jackson/") for n in names)
        data = z.read("org/apache/iceberg/shaded/com/fasterxml/jackson/databind/ObjectMapper.class")
    constants = classfile_support.utf8_constants(data)
    assert b"org/apache/iceberg/shaded/com/fasterxml/jackson/databind/ObjectMapper" in constants
    unshaded = [
        c
        for c in constants
        if b"com/fasterxml" in c.replace(b"org/apache/iceberg/shaded/com/fasterxml", b"")
    ]
    assert not unshaded
    assert not [c for c in constants if b"shaded/org/apache/iceberg/shaded" in c]


def _javap(*args: str) -> str:
    javap = shutil.which("javap")
    if javap is None:
        pytest.skip("javap (a JDK) not installed")
    done = subprocess.run([javap, *args], capture_output=True, text=True, check=True)
    return done.stdout


def test_empty_interface_class_file_is_what_javap_reads(tmp_path):
    name = "org/example/Strategy"
    data = classfile_support.interface_class_file(name)
    assert classfile_support.class_name(data) == name
    (tmp_path / "Strategy.class").write_bytes(data)
    out = _javap("-v", str(tmp_path / "Strategy.class"))
    assert "public interface org.example.Strategy" in out
    assert "major version: 52" in out
    assert "flags: (0x0601) ACC_PUBLIC, ACC_INTERFACE, ACC_ABSTRACT" in out


def test_added_method_returns_this_and_keeps_every_other_member(tmp_path):
    jars = ss.debian_httpclient_jars()
    if jars is None:
        pytest.skip("Debian's libhttpclient5-java / libhttpcore5-java not installed")
    builder = ss._CONNECTION_MANAGER_BUILDER
    with zipfile.ZipFile(jars[0]) as z:
        original = z.read(f"{builder}.class")
    descriptor = f"(L{ss._TLS_SOCKET_STRATEGY};)L{builder};"
    patched = classfile_support.add_return_this_method(original, "setTlsSocketStrategy", descriptor)
    for label, data in (("before", original), ("after", patched)):
        (tmp_path / label).mkdir()
        (tmp_path / label / "B.class").write_bytes(data)
    before = _javap("-p", "-c", str(tmp_path / "before" / "B.class"))
    after = _javap("-p", "-c", str(tmp_path / "after" / "B.class"))
    added = (  # javap puts a blank line between members; the new method comes last
        "\n  public org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder "
        "setTlsSocketStrategy(org.apache.hc.client5.http.ssl.TlsSocketStrategy);\n"
        "    Code:\n       0: aload_0\n       1: areturn\n"
    )
    assert added not in before and added in after
    assert after.replace(added, "") == before  # every other member unchanged
    assert "stack=1, locals=2, args_size=2" in _javap("-v", str(tmp_path / "after" / "B.class"))


def test_httpclient_jar_is_relocated_and_patched(tmp_path):
    if ss.debian_httpclient_jars() is None:
        pytest.skip("Debian's libhttpclient5-java / libhttpcore5-java not installed")
    jar = ss.relocated_httpclient_jar(tmp_path, use_jarjar=False)
    assert ss.relocated_httpclient_jar(tmp_path) == jar  # cached: built once
    shaded = "org/apache/iceberg/shaded/org/apache/hc/"
    with zipfile.ZipFile(jar) as z:
        names = z.namelist()
        assert all(n.startswith(shaded) for n in names)
        assert not [n for n in names if "module-info" in n or n.startswith("META-INF/")]
        for part in (
            "client5/http/impl/classic/HttpClients",
            "core5/http/HttpHost",
            "core5/http2/HttpVersionPolicy",
            "client5/http/ssl/TlsSocketStrategy",
        ):
            assert f"{shaded}{part}.class" in names
        builder = z.read(f"org/apache/iceberg/shaded/{ss._CONNECTION_MANAGER_BUILDER}.class")
    constants = classfile_support.utf8_constants(builder)
    assert b"setTlsSocketStrategy" in constants
    assert f"(L{shaded}client5/http/ssl/TlsSocketStrategy;)".encode() in b"".join(constants)
    assert not [c for c in constants if b"org/apache/hc" in c.replace(shaded.encode(), b"")]
    out = _javap(
        "-p",
        "-cp",
        str(jar),
        (shaded + "client5/http/impl/io/PoolingHttpClientConnectionManagerBuilder").replace(
            "/", "."
        ),
    )
    assert (
        "setTlsSocketStrategy(org.apache.iceberg.shaded.org.apache.hc.client5.http.ssl."
        "TlsSocketStrategy)"
    ) in out
