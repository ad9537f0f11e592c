"""`.npy` arrays as bytes: read, checked and compared without importing NumPy where it can.

A check that passes should cost the student one NumPy start (their code's, in the
sandbox), not two: the trusted process reads the child's arrays, the remembered
reference results and inputs (codecheck.reference_cache) as `Packed` values, and the
judge compares them in plain Python when that is exact (content.code_check). NumPy is
imported only to build an array (`Packed.array`, `as_array`, `pack`) or to read a header
that is not in the one form np.save writes.

Every frame is untrusted (it may come from the sandboxed child): the header is matched
whole against that form, in linear time, or read by NumPy's own header reader (no
pickles, no np.load); either way it must promise exactly the bytes that follow, of a plain
numeric dtype, before anything is built. Whatever fails is a ProtocolError.
"""

from __future__ import annotations

import functools
import io
import math
import re
import struct
import sys
from dataclasses import dataclass
from typing import Any

NPY_MAGIC = b"\x93NUMPY"
NUMERIC_KINDS = "biuf"  # bool, signed, unsigned, float: what the judge compares
MAX_DIMS = 32
_ALIGN = 64  # np.save pads its header so the values start on this boundary
# np.save's header for a plain dtype, as it writes it (format versions 1.0 and 2.0)
_SIZE = r"(?:0|[1-9]\d{0,18})"  # a size as repr() writes it: no leading zeros
_HEADER = re.compile(
    r"\{'descr': '([<>|])([biuf])([1248])', 'fortran_order': (True|False), "
    rf"'shape': \(((?:{_SIZE}, )*{_SIZE},|(?:{_SIZE}, )+{_SIZE}|)\), \}} *\n"
)
# struct's letter for each plain dtype it reads exactly (a long double is NumPy's alone)
_LETTERS = {
    "b1": "?",
    "i1": "b",
    "i2": "h",
    "i4": "i",
    "i8": "q",
    "u1": "B",
    "u2": "H",
    "u4": "I",
    "u8": "Q",
    "f2": "e",
    "f4": "f",
    "f8": "d",
}


class ProtocolError(Exception):
    """The child sent something the protocol does not allow (said in a few words)."""


@dataclass(frozen=True, eq=False)
class Packed:
    """One array as its `.npy` bytes, checked: dtype as NumPy spells it ('<f8', '|b1'),
    shape, storage order, and where its values start in `frame`."""

    dtype: str
    shape: tuple[int, ...]
    fortran: bool
    frame: bytes
    offset: int

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def values(self) -> bytes:
        return self.frame[self.offset :]

    @functools.cached_property
    def numbers(self) -> tuple[Any, ...] | None:
        """The values in storage order as Python numbers (bool, int or float, each the
        exact value NumPy holds), or None for a dtype only NumPy reads (a long double)."""
        letter = _LETTERS.get(self.dtype[1:])
        if letter is None:
            return None
        order = ">" if self.dtype[0] == ">" else "<"
        return struct.unpack(f"{order}{self.size}{letter}", self.values)

    def array(self) -> Any:
        """A fresh, writeable ndarray of these values."""
        import numpy as np

        flat = np.frombuffer(self.frame, dtype=np.dtype(self.dtype), offset=self.offset)
        return flat.reshape(self.shape, order="F" if self.fortran else "C").copy(order="K")


def read_npy(frame: bytes, array_bytes: int) -> Packed:
    """One untrusted `.npy` payload as a Packed array of bool, int, uint or float, at
    most `array_bytes` of values. Raises ProtocolError, and only that."""
    if not frame.startswith(NPY_MAGIC):
        raise ProtocolError("an array frame that is not .npy")
    header = _plain_header(frame)
    if header is None:
        return _read_with_numpy(frame, array_bytes)
    dtype, fortran, shape, offset = header
    _check_size(shape, int(dtype[2:]), len(frame) - offset, array_bytes)
    return Packed(dtype, shape, fortran, frame, offset)


def _plain_header(frame: bytes) -> tuple[str, bool, tuple[int, ...], int] | None:
    """(dtype, fortran order, shape, where the values start) from a header in np.save's
    own form, or None for any other (NumPy's reader then decides)."""
    version = frame[6:8]
    if version == b"\x01\x00":
        length, start = int.from_bytes(frame[8:10], "little"), 10
    elif version == b"\x02\x00":
        length, start = int.from_bytes(frame[8:12], "little"), 12
    else:
        return None
    if len(frame) < start + length or length > 4096:
        return None
    found = _HEADER.fullmatch(frame[start : start + length].decode("latin-1"))
    if found is None:
        return None
    order, kind, size, fortran, dims = found.groups()
    if (order == "|") != (size == "1") or (kind == "b" and size != "1") or kind + size == "f1":
        return None
    shape = checked_shape([int(part) for part in dims.replace(",", " ").split()], 2**63)
    return order + kind + size, fortran == "True", shape, start + length


def checked_shape(value: Any, largest: int) -> tuple[int, ...]:
    """A shape from untrusted bytes: a list or tuple of at most MAX_DIMS sizes, each an int
    (not a bool) from 0 to `largest`; else ProtocolError."""
    if not isinstance(value, list | tuple) or len(value) > MAX_DIMS:
        raise ProtocolError("a shape that is not a short list")
    if not all(type(size) is int and 0 <= size <= largest for size in value):
        raise ProtocolError("a shape that is not sizes")
    return tuple(value)


def _check_size(shape: tuple[int, ...], itemsize: int, payload: int, array_bytes: int) -> None:
    """Exactly the bytes that follow, at most `array_bytes`; and so for the sizes that are
    not zero too: an empty array of shape (0, 2**40, 2**40) holds no bytes, but no array of
    that shape can be made, so it is refused here, not by a reshape later."""
    nbytes = math.prod(shape) * itemsize
    if nbytes > array_bytes:
        raise ProtocolError(f"an array of {nbytes} bytes (at most {array_bytes})")
    spread = math.prod(size for size in shape if size) * itemsize
    if spread > array_bytes:
        raise ProtocolError(f"an empty array of shape {shape} (at most {array_bytes} bytes)")
    if nbytes != payload:
        raise ProtocolError(f"an array header promising {nbytes} bytes before {payload}")


def _read_with_numpy(frame: bytes, array_bytes: int) -> Packed:
    """A header in another form (another NumPy's writer, or the child's own making):
    read by NumPy's header reader, checked the same way, kept as np.save writes it."""
    import numpy as np
    from numpy.lib import format as npy

    stream = io.BytesIO(frame)
    try:
        version = npy.read_magic(stream)
        if version == (1, 0):
            shape, fortran_order, dtype = npy.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran_order, dtype = npy.read_array_header_2_0(stream)
        else:
            raise ProtocolError(f".npy version {version[0]}.{version[1]}")
    except ProtocolError:
        raise
    except Exception:  # ValueError, SyntaxError, RecursionError from its header
        raise ProtocolError("an array frame with an unreadable header") from None
    if not isinstance(dtype, np.dtype) or dtype.hasobject or dtype.fields is not None:
        raise ProtocolError("an array of records or objects")
    if dtype.kind not in NUMERIC_KINDS or dtype.subdtype is not None or dtype.itemsize == 0:
        raise ProtocolError(f"an array of {dtype.kind!r} values, not numbers")
    shape = checked_shape(shape if isinstance(shape, tuple) else None, 2**63)  # bytes decide
    _check_size(shape, dtype.itemsize, len(frame) - stream.tell(), array_bytes)
    try:
        flat = np.frombuffer(frame, dtype=dtype, count=math.prod(shape), offset=stream.tell())
        return pack(flat.reshape(shape, order="F" if fortran_order else "C"))
    except (ValueError, TypeError, MemoryError):  # what NumPy's own rules refuse still
        raise ProtocolError("an array frame NumPy cannot make") from None


def pack(array: Any) -> Packed:
    """An ndarray (or a NumPy number) of a plain numeric dtype as Packed, via np.save."""
    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array), allow_pickle=False)
    frame = buffer.getvalue()
    header = _plain_header(frame)
    if header is None:  # a dtype the plain form leaves out (a long double): NumPy's own
        value = np.asarray(array)
        offset = len(frame) - value.nbytes
        fortran = value.flags.f_contiguous and not value.flags.c_contiguous
        return Packed(value.dtype.str, value.shape, fortran, frame, offset)
    dtype, fortran, shape, offset = header
    return Packed(dtype, shape, fortran, frame, offset)


def scalar_frame(value: int | float) -> bytes | None:
    """A Python int or float as the `.npy` bytes np.save writes for it (a 0-d int64 or
    float64), or None when NumPy must make them (an int beyond int64, another machine's
    byte order)."""
    if sys.byteorder != "little":
        return None
    if type(value) is int and -(2**63) <= value < 2**63:
        descr, data = "<i8", struct.pack("<q", value)
    elif type(value) is float:
        descr, data = "<f8", struct.pack("<d", value)
    else:
        return None
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': (), }}"
    padding = -(len(NPY_MAGIC) + 4 + len(header) + 1) % _ALIGN
    text = (header + " " * padding + "\n").encode("latin-1")
    return NPY_MAGIC + b"\x01\x00" + len(text).to_bytes(2, "little") + text + data


def is_array(value: Any) -> bool:
    """Packed, or an ndarray (which exists only once NumPy is imported)."""
    if isinstance(value, Packed):
        return True
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.ndarray)


def as_array(value: Any) -> Any:
    """An ndarray for NumPy's side of the judge: Packed made into one, else as it is."""
    return value.array() if isinstance(value, Packed) else value
