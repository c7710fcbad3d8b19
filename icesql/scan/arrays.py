"""Arrow arrays to numpy and back by their buffers, for the delete paths of a scan.

pyarrow's own conversions (``Array.to_numpy``, ``pa.array`` of a numpy array or a list) import
pandas when it is installed, to test for its types: 0.2 s of CPU (0.9 s of wall time on a
loaded machine) the first time in a process. A query over a table with position deletes paid
it on every fresh connection while the same query without deletes imported nothing, most of
the 1.5x its full aggregate cost over the table without deletes. These helpers touch only the
buffers, which is also faster for bit-packed booleans.

>>> ints(int_array(np.array([3, 1, 2]))[1:]).tolist()
[1, 2]
>>> bools(bool_array(np.array([True, False, True]))).tolist()
[True, False, True]
>>> repeat_string("a/b", 2).to_pylist(), repeat_int(7, pa.int32(), 2).to_pylist()
(['a/b', 'a/b'], [7, 7])
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["bool_array", "bools", "int_array", "ints", "repeat_int", "repeat_string"]


def ints(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The values of a null-free integer array as numpy, sharing its buffer (read-only)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not pa.types.is_integer(array.type):
        raise TypeError(f"expected an integer array, got {array.type}")
    if array.null_count:
        raise ValueError("integer array has NULLs")
    kind = "u" if pa.types.is_unsigned_integer(array.type) else "i"
    dtype = np.dtype(f"{kind}{array.type.bit_width // 8}")
    data = array.buffers()[1]
    if data is None or len(array) == 0:
        return np.empty(0, dtype=dtype)
    out = np.frombuffer(data, dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)
    out.flags.writeable = False  # the buffer is Arrow's, maybe shared by other arrays
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
    values = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)])


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


def repeat_int(value: int, arrow_type: pa.DataType, n: int) -> pa.Array:
    """``value`` ``n`` times as an Arrow integer array of ``arrow_type``."""
    dtype = np.dtype(f"i{arrow_type.bit_width // 8}")
    one = pa.Array.from_buffers(arrow_type, 1, [None, pa.py_buffer(np.array([value], dtype))])
    return pa.repeat(one[0], n)
