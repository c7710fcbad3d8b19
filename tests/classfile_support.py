"""Small edits of Java class files in pure Python, for the jars the Spark tests build.

Three edits, each over the constant pool (JVMS §4.4) and nothing else that needs decoding:

* :func:`relocate_class_file` moves every name under one package to a shaded package
  (``com.fasterxml.jackson`` -> ``org.apache.iceberg.shaded.com.fasterxml.jackson``), as
  jarjar's ``rule com.fasterxml.jackson.** org.apache.iceberg.shaded.com.fasterxml.jackson.@1``.
* :func:`interface_class_file` writes an empty public interface.
* :func:`add_return_this_method` adds a public method whose body is ``return this;``.

Pure Python on purpose: the tests then need a Java runtime only (CI installs the JRE), no JDK
to compile a bytecode editor, and the edits are a few dozen lines that a test can check with
``javap``. Example, a relocation::

    >>> relocate_utf8(b"Lorg/apache/hc/core5/http/HttpHost;", "org.apache.hc")
    b'Lorg/apache/iceberg/shaded/org/apache/hc/core5/http/HttpHost;'
"""

from __future__ import annotations

import struct

MAGIC = b"\xca\xfe\xba\xbe"
SHADED_PREFIX = "org.apache.iceberg.shaded."
# Constant-pool tag -> payload size in bytes (JVMS §4.4); Utf8 (1) is length-prefixed.
CONSTANT_SIZES = {
    3: 4,
    4: 4,
    5: 8,
    6: 8,
    7: 2,
    8: 2,
    9: 4,
    10: 4,
    11: 4,
    12: 4,
    15: 3,
    16: 2,
    17: 4,
    18: 4,
    19: 2,
    20: 2,
}
UTF8, CLASS = 1, 7
ACC_PUBLIC, ACC_INTERFACE, ACC_ABSTRACT = 0x0001, 0x0200, 0x0400
ALOAD_0, ARETURN = 0x2A, 0xB0


def constant_pool(data: bytes) -> tuple[list[tuple[int, bytes] | None], int]:
    """The constant pool as ``[None, (tag, payload), ...]`` indexed as the JVM does (a long or
    double takes two slots, the second ``None``; a Utf8 payload is its bytes without the length),
    and the offset of the first byte after the pool (``access_flags``)."""
    if data[:4] != MAGIC:
        raise ValueError("not a class file")
    (count,) = struct.unpack_from(">H", data, 8)
    entries: list[tuple[int, bytes] | None] = [None]
    pos = 10
    while len(entries) < count:
        tag = data[pos]
        if tag == UTF8:
            (length,) = struct.unpack_from(">H", data, pos + 1)
            entries.append((tag, data[pos + 3 : pos + 3 + length]))
            pos += 3 + length
        else:
            size = CONSTANT_SIZES[tag]
            entries.append((tag, data[pos + 1 : pos + 1 + size]))
            pos += 1 + size
            if tag in (5, 6):  # long and double take two slots
                entries.append(None)
    return entries, pos


def _pool_bytes(entries: list[tuple[int, bytes] | None]) -> bytes:
    out = [struct.pack(">H", len(entries))]
    for entry in entries[1:]:
        if entry is None:
            continue
        tag, payload = entry
        if tag == UTF8:
            if len(payload) > 0xFFFF:
                raise ValueError("constant longer than 65535 bytes")
            out.append(struct.pack(">BH", UTF8, len(payload)))
        else:
            out.append(bytes([tag]))
        out.append(payload)
    if len(entries) > 0xFFFF:
        raise ValueError("constant pool over 65535 entries")
    return b"".join(out)


def utf8_constants(data: bytes) -> list[bytes]:
    """Every ``CONSTANT_Utf8`` of a class file: names, descriptors, string literals."""
    return [entry[1] for entry in constant_pool(data)[0] if entry and entry[0] == UTF8]


def class_name(data: bytes) -> str:
    """The binary name of the class a class file defines (``a/b/C``)."""
    entries, end = constant_pool(data)
    (this_class,) = struct.unpack_from(">H", data, end + 2)
    (name_index,) = struct.unpack_from(">H", entries[this_class][1])
    return entries[name_index][1].decode()


# --------------------------------------------------------------------------------------------
# Relocation
# --------------------------------------------------------------------------------------------


def relocate_utf8(value: bytes, package: str, shaded_prefix: str = SHADED_PREFIX) -> bytes:
    """``value`` with ``package`` moved under ``shaded_prefix``, in slashed form (class names,
    descriptors, signatures) and dotted form (string literals naming classes). A name already
    shaded is never shaded twice (the shaded name contains the original as a suffix)."""
    slashed, dotted = (package.replace(".", "/") + "/").encode(), (package + ".").encode()
    shaded_slashed = shaded_prefix.replace(".", "/").encode() + slashed
    shaded_dotted = shaded_prefix.encode() + dotted
    marker = b"\x00SHADED\x00"
    value = value.replace(shaded_slashed, marker + b"/").replace(shaded_dotted, marker + b".")
    value = value.replace(slashed, shaded_slashed).replace(dotted, shaded_dotted)
    return value.replace(marker + b"/", shaded_slashed).replace(marker + b".", shaded_dotted)


def relocate_class_file(data: bytes, package: str, shaded_prefix: str = SHADED_PREFIX) -> bytes:
    """One class file with every name under ``package`` moved under ``shaded_prefix``.

    Only ``CONSTANT_Utf8`` entries change; every other constant keeps its size and index, so
    the rest of the class file is copied byte for byte."""
    entries, end = constant_pool(data)
    relocated = [
        (UTF8, relocate_utf8(entry[1], package, shaded_prefix))
        if entry and entry[0] == UTF8
        else entry
        for entry in entries
    ]
    return data[:8] + _pool_bytes(relocated) + data[end:]


def relocate_path(name: str, package: str, shaded_prefix: str = SHADED_PREFIX) -> str:
    """A jar entry's path moved the same way (``org/apache/hc/x.class`` -> ``.../shaded/...``)."""
    slashed = package.replace(".", "/") + "/"
    if name.startswith(slashed):
        return shaded_prefix.replace(".", "/") + name
    return name


# --------------------------------------------------------------------------------------------
# New classes and methods
# --------------------------------------------------------------------------------------------


def interface_class_file(name: str, major_version: int = 52) -> bytes:
    """An empty ``public interface`` named ``name`` (binary form, ``a/b/I``) extending nothing;
    version 52 is Java 8, what the jars it joins are compiled for."""
    entries = [
        None,
        (UTF8, name.encode()),
        (CLASS, struct.pack(">H", 1)),
        (UTF8, b"java/lang/Object"),
        (CLASS, struct.pack(">H", 3)),
    ]
    flags = ACC_PUBLIC | ACC_INTERFACE | ACC_ABSTRACT
    head = MAGIC + struct.pack(">HH", 0, major_version)
    # access, this_class, super_class, then no interfaces, fields, methods or attributes
    return head + _pool_bytes(entries) + struct.pack(">HHHHHHH", flags, 2, 4, 0, 0, 0, 0)


def _skip_members(data: bytes, pos: int) -> int:
    """The offset after a ``fields`` or ``methods`` table starting at ``pos``."""
    (count,) = struct.unpack_from(">H", data, pos)
    pos += 2
    for _ in range(count):
        pos += 6  # access_flags, name_index, descriptor_index
        pos = _skip_attributes(data, pos)
    return pos


def _skip_attributes(data: bytes, pos: int) -> int:
    (count,) = struct.unpack_from(">H", data, pos)
    pos += 2
    for _ in range(count):
        (length,) = struct.unpack_from(">I", data, pos + 2)
        pos += 6 + length
    return pos


def add_return_this_method(data: bytes, name: str, descriptor: str) -> bytes:
    """The class file with one more ``public`` instance method ``name`` of one reference
    parameter whose body is ``return this;`` (``aload_0; areturn``: max_stack 1, max_locals 2
    for ``this`` and the parameter). Straight-line code needs no ``StackMapTable``.

    Only ``Utf8`` constants are appended (the name, the descriptor and ``Code`` when absent): a
    method declaration refers to nothing else, and the body touches no other constant."""
    entries, end = constant_pool(data)

    def utf8(text: str) -> int:
        raw = text.encode()
        for index, entry in enumerate(entries):
            if entry == (UTF8, raw):
                return index
        entries.append((UTF8, raw))
        return len(entries) - 1

    name_index, descriptor_index, code_index = utf8(name), utf8(descriptor), utf8("Code")
    interfaces = end + 6  # after access_flags, this_class, super_class
    (interface_count,) = struct.unpack_from(">H", data, interfaces)
    methods = _skip_members(data, interfaces + 2 + 2 * interface_count)
    after_methods = _skip_members(data, methods)
    (method_count,) = struct.unpack_from(">H", data, methods)
    code = bytes([ALOAD_0, ARETURN])
    # Code: max_stack, max_locals, code_length, code, no exception table, no attributes
    code_attribute = struct.pack(">HHI", 1, 2, len(code)) + code + struct.pack(">HH", 0, 0)
    method = struct.pack(">HHHH", ACC_PUBLIC, name_index, descriptor_index, 1)
    method += struct.pack(">HI", code_index, len(code_attribute)) + code_attribute
    return b"".join(
        [
            data[:8],
            _pool_bytes(entries),
            data[end:methods],
            struct.pack(">H", method_count + 1),
            data[methods + 2 : after_methods],
            method,
            data[after_methods:],
        ]
    )
