"""sandbox.npy: `.npy` bytes read without NumPy give exactly NumPy's arrays, a header in any
other form goes to NumPy's own reader, and numbers are written as np.save writes them."""

from __future__ import annotations

import io
import math
import struct

import numpy as np
import pytest
from numpy.lib import format as npy_format

from tui_course.sandbox import npy
from tui_course.sandbox.npy import Packed, ProtocolError, pack, read_npy, scalar_frame

LIMIT = 1 << 20
PLAIN_DTYPES = ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4"]
PLAIN_DTYPES += ["<f8", ">i2", ">i4", ">i8", ">u8", ">f2", ">f4", ">f8"]
SHAPES = [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 5), (3, 1, 2)]


def saved(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


@pytest.fixture
def no_numpy_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(frame: bytes, array_bytes: int) -> Packed:
        raise AssertionError("NumPy's reader was asked")

    monkeypatch.setattr(npy, "_read_with_numpy", refused)


@pytest.mark.parametrize("dtype", PLAIN_DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fortran", [False, True], ids=["C", "F"])
def test_np_save_bytes_are_read_without_numpy_to_the_same_values(
    dtype: str, shape: tuple[int, ...], fortran: bool, no_numpy_reader: None
) -> None:
    rng = np.random.default_rng(len(shape) * 31 + len(dtype))
    values = rng.standard_normal(shape) * 100
    if dtype[1] == "u":
        values = np.abs(values)
    elif dtype[1] == "b":
        values = values > 0
    array = np.asarray(values.astype(dtype), order="F" if fortran else "C")
    packed = read_npy(saved(array), LIMIT)
    assert packed.dtype == array.dtype.str and packed.shape == array.shape
    back = packed.array()
    assert back.dtype == array.dtype and np.array_equal(back, array, equal_nan=True)
    assert back.flags.writeable and back.flags.f_contiguous == array.flags.f_contiguous
    order = "F" if packed.fortran else "C"
    assert packed.numbers is not None
    expected = array.ravel(order=order).tolist()
    assert [float(n) for n in packed.numbers] == [float(e) for e in expected]


def test_a_long_double_goes_to_numpys_reader_and_has_no_plain_numbers() -> None:
    array = np.arange(4, dtype=np.longdouble) / 3
    packed = read_npy(saved(array), LIMIT)
    assert packed.numbers is None
    assert packed.array().dtype == np.longdouble and np.array_equal(packed.array(), array)


def test_a_header_in_another_form_is_read_by_numpy_and_checked_the_same() -> None:
    # valid .npy, but not np.save's own spelling: keys in another order, no padding rule
    text = "{'shape': (2,), 'fortran_order': False, 'descr': '<f8'}\n"
    data = struct.pack("<2d", 1.5, -2.0)
    frame = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode() + data
    packed = read_npy(frame, LIMIT)
    assert packed.numbers == (1.5, -2.0) and packed.array().tolist() == [1.5, -2.0]
    with pytest.raises(ProtocolError, match="promising 16 bytes before 15"):
        read_npy(frame[:-1], LIMIT)


@pytest.mark.parametrize(
    ("descr", "words"),
    [("<O8", "records or objects"), ("<c16", "not numbers"), ("<U2", "not numbers")],
)
def test_plain_looking_headers_of_other_kinds_are_refused(descr: str, words: str) -> None:
    buffer = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": (1,)}
    npy_format.write_array_header_1_0(buffer, header)
    with pytest.raises(ProtocolError, match=words):
        read_npy(buffer.getvalue() + b"\0" * 16, LIMIT)


def test_a_shape_of_too_many_dimensions_is_refused_before_its_size() -> None:
    shape = "(" + "1, " * 40 + "1,)"
    text = f"{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}"
    text += " " * (-(len(text) + 11) % 64) + "\n"
    frame = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode() + b"\0" * 8
    with pytest.raises(ProtocolError, match="short list"):
        read_npy(frame, LIMIT)


@pytest.mark.parametrize(
    "shape", ["(0, 9999999999999999999)", "(0, 1099511627776, 1099511627776)", "(1048576, 0, 9)"]
)
@pytest.mark.parametrize("plain", [True, False], ids=["np.save-form", "other-form"])
def test_an_empty_array_of_a_shape_no_array_can_have_is_refused_as_it_is_read(
    shape: str, plain: bool
) -> None:
    """No bytes follow an empty shape, but an array of it cannot be made: refused by
    read_npy with a ProtocolError, not by a reshape in the judge later."""
    if plain:
        text = f"{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}"
        text += " " * (-(len(text) + 11) % 64) + "\n"
    else:
        text = f"{{'shape': {shape}, 'fortran_order': False, 'descr': '<f8'}}\n"
    frame = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode()
    with pytest.raises(ProtocolError, match=r"empty array of shape|shape that is not sizes"):
        read_npy(frame, LIMIT)


def test_a_size_with_leading_zeros_is_not_np_saves_form() -> None:
    text = "{'descr': '<f8', 'fortran_order': False, 'shape': (03,), }"
    text += " " * (-(len(text) + 11) % 64) + "\n"
    frame = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode() + b"\0" * 24
    with pytest.raises(ProtocolError, match="unreadable header"):  # NumPy's reader: not Python
        read_npy(frame, LIMIT)


@pytest.mark.parametrize(
    "value", [0, 7, -1, 2**63 - 1, -(2**63), 0.0, -0.0, 1.5, 1e300, math.inf, -math.inf, math.nan]
)
def test_plain_numbers_are_written_as_np_save_writes_them(value: float) -> None:
    frame = scalar_frame(value)
    assert frame == saved(np.asarray(value))
    loaded = np.load(io.BytesIO(frame), allow_pickle=False)
    assert loaded.shape == () and (loaded.item() == value or math.isnan(value))


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, True, np.float64(1.0)])
def test_numbers_only_numpy_can_write_are_left_to_it(value: object) -> None:
    assert scalar_frame(value) is None  # type: ignore[arg-type]


def test_pack_keeps_values_order_and_dtype() -> None:
    array = np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    packed = pack(array)
    assert (packed.dtype, packed.shape, packed.fortran) == ("<i4", (2, 3), True)
    assert packed.numbers == (0, 3, 1, 4, 2, 5)
    assert np.array_equal(packed.array(), array)
