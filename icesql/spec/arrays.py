"""Arrow arrays to numpy and back by their buffers, and scalars without conversion.

pyarrow's own conversions (``Array.to_numpy``, ``pa.array`` of a numpy array or a list,
``pa.scalar``, a Python number handed to a compute function) import pandas when it is
installed, to test for its types, and that import is slow the first time in a process (more
than a small query takes). A query over a table with position deletes paid it on every fresh
connection, and so did every write of a float column (its NaN count) or through a day /
month / hour partition transform. These helpers touch only the buffers, which is also faster
for bit-packed booleans.

>>> ints(int_array(np.array([3, 1, 2]))[1:]).tolist()
[1, 2]
>>> bools(bool_array(np.array([True, False, True]))).tolist()
[True, False, True]
>>> repeat_string("a/b", 2).to_pylist(), repeat_int(7, pa.int32(), 2).to_pylist()
(['a/b', 'a/b'], [7, 7])
>>> floats(pa.chunked_array([[1.5, None], [float("nan")]])).tolist()
[1.5, nan]
>>> int_scalar(-3, pa.int32()), int_values([1, None, 2], pa.int8()).to_pylist()
(<pyarrow.Int32Scalar: -3>, [1, None, 2])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

__all__ = [
    "bool_array",
    "bool_scalar",
    "bools",
    "floats",
    "int_array",
    "int_scalar",
    "int_values",
    "ints",
    "repeat_int",
    "repeat_string",
]


def ints(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The values of a null-free integer array as numpy, sharing its buffer (read-only)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not pa.types.is_integer(array.type):
        raise TypeError(f"expected an integer array, got {array.type}")
    if array.null_count:
        raise ValueError("integer array has NULLs")
    kind = "u" if pa.types.is_unsigned_integer(array.type) else "i"
    return _values(array, np.dtype(f"{kind}{array.type.bit_width // 8}"))


def floats(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The non-null values of a float or double array as numpy (NaN kept), in order."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not pa.types.is_floating(array.type) or pa.types.is_float16(array.type):
        raise TypeError(f"expected a float or double array, got {array.type}")
    if array.null_count:
        array = array.drop_null()
    return _values(array, np.dtype(f"f{array.type.bit_width // 8}"))


def _values(array: pa.Array, dtype: np.dtype) -> np.ndarray:
    """The data buffer of a null-free fixed-width array as numpy (read-only: the buffer is
    Arrow's, maybe shared by other arrays)."""
    data = array.buffers()[1]
    if data is None or len(array) == 0:
        return np.empty(0, dtype=dtype)
    out = np.frombuffer(data, dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)
    out.flags.writeable = False
    return out


def bools(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A boolean array as a numpy bool array, NULL as False."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if array.type != pa.bool_():
        raise TypeError(f"expected a boolean array, got {array.type}")
    rows, offset = len(array), array.offset
    _, data = array.buffers()[:2]
    if rows == 0 or data is None:
        return np.zeros(rows, dtype=bool)
    bits = np.frombuffer(data, dtype=np.uint8, count=(offset + rows + 7) // 8)
    out = np.unpackbits(bits, count=offset + rows, bitorder="little")[offset:].view(bool)
    if array.null_count:
        valid = np.frombuffer(array.buffers()[0], dtype=np.uint8, count=(offset + rows + 7) // 8)
        out = out & np.unpackbits(valid, count=offset + rows, bitorder="little")[offset:].view(bool)
    return out


def int_array(values: np.ndarray) -> pa.Array:
    """A numpy int64 array as an Arrow int64 array (no NULLs), sharing its memory."""
    return int_values(values, pa.int64())


def bool_array(flags: np.ndarray) -> pa.Array:
    """A numpy bool array as an Arrow boolean array (no NULLs), bit-packed."""
    bits = np.packbits(np.asarray(flags, dtype=bool), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(flags), [None, pa.py_buffer(bits)])


def repeat_string(text: str, n: int) -> pa.Array:
    """``text`` ``n`` times as an Arrow string array (``pa.scalar`` imports pandas too)."""
    data = text.encode("utf-8")
    offsets = pa.py_buffer(np.array([0, len(data)], dtype=np.int32))
    one = pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(data)])
    return pa.repeat(one[0], n)


def int_values(values: Sequence[int | None] | np.ndarray, arrow_type: pa.DataType) -> pa.Array:
    """Integers (None for NULL) as an Arrow array of the integer type ``arrow_type``."""
    kind = "u" if pa.types.is_unsigned_integer(arrow_type) else "i"
    dtype = np.dtype(f"{kind}{arrow_type.bit_width // 8}")
    if isinstance(values, np.ndarray):
        data, valid = np.ascontiguousarray(values, dtype=dtype), None
    else:
        data = np.fromiter((0 if v is None else v for v in values), dtype, len(values))
        present = np.fromiter((v is not None for v in values), bool, len(values))
        valid = None if present.all() else pa.py_buffer(np.packbits(present, bitorder="little"))
    return pa.Array.from_buffers(arrow_type, len(data), [valid, pa.py_buffer(data)])


def int_scalar(value: int, arrow_type: pa.DataType) -> pa.Scalar:
    """``value`` as an Arrow scalar of the integer type ``arrow_type`` (for compute kernels,
    which convert a Python number through ``pa.scalar``)."""
    return int_values([value], arrow_type)[0]


def bool_scalar(value: bool) -> pa.Scalar:
    """``value`` as an Arrow boolean scalar (``fill_null(x, False)`` converts through pandas)."""
    return bool_array(np.array([value]))[0]


def repeat_int(value: int, arrow_type: pa.DataType, n: int) -> pa.Array:
    """``value`` ``n`` times as an Arrow integer array of ``arrow_type``."""
    return pa.repeat(int_scalar(value, arrow_type), n)
