"""codecheck.reference_cache keeps a question's inputs beside its results (format 2): read
back as the very arrays and numbers filed, and anything else in the file a recompute."""

from __future__ import annotations

import hashlib
import json
import math
import struct
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tui_course.codecheck import reference_cache
from tui_course.content.code_model import ArgSpec, CodeCase, CodeSpec
from tui_course.sandbox.frames import CaseResult
from tui_course.sandbox.limits import Limits
from tui_course.sandbox.npy import Packed, pack

NAMES = ["weights"]
SPEC = CodeSpec(
    entry="weights",
    starter="def weights(x):\n    raise NotImplementedError\n",
    reference="weights",
    cases=(CodeCase("one", 1, (ArgSpec(name="x", shape=(2, 3)),), line=1),),
)


def inputs() -> list[list[Any]]:
    return [[np.arange(6.0).reshape(2, 3), 4, -0.0, math.inf, math.nan, 2**62]]


def results() -> dict[str, tuple[CaseResult, ...]]:
    return {"weights": (CaseResult("ok", (pack(np.eye(2)),)),)}


def key() -> str:
    return reference_cache.cache_key(SPEC, NAMES, "source", 0, Limits())


def test_inputs_and_results_come_back_as_filed(tmp_path: Path) -> None:
    reference_cache.write_results(tmp_path, key(), NAMES, inputs(), results())
    found = reference_cache.read_results(tmp_path, key(), NAMES, 1)
    assert found is not None
    (case,), remembered = found
    array, *numbers = case
    assert isinstance(array, Packed) and np.array_equal(array.array(), inputs()[0][0])
    assert [type(n) for n in numbers] == [int, float, float, float, int]
    assert numbers[0] == 4 and math.copysign(1, numbers[1]) == -1 and numbers[2] == math.inf
    assert math.isnan(numbers[3]) and numbers[4] == 2**62
    assert np.array_equal(remembered["weights"][0].outputs[0].array(), np.eye(2))
    assert reference_cache.read_results(tmp_path, key(), NAMES, 2) is None  # another count


def test_the_key_follows_what_builds_the_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    before = key()
    other = CodeCase("one", 2, (ArgSpec(name="x", shape=(2, 3)),), line=1)
    reseeded = replace(SPEC, cases=(other,))
    assert reference_cache.cache_key(reseeded, NAMES, "source", 0, Limits()) != before
    assert reference_cache.cache_key(SPEC, NAMES, "source", 1, Limits()) != before
    reference_cache.numpy_version.cache_clear()
    monkeypatch.setattr(reference_cache, "_file_bytes", lambda path: f"another {path}".encode())
    try:
        assert key() != before  # another NumPy, or another code_inputs.py
    finally:
        reference_cache.numpy_version.cache_clear()


def rewrite(folder: Path, change: Any) -> None:
    """The filed header changed by `change`, the arrays kept, and the file's digest made
    again: the fields themselves must be refused, not only a damaged file."""
    (path,) = folder.glob(f"{reference_cache.PREFIX}*")
    body = path.read_bytes()[len(reference_cache.MAGIC) + 32 :]
    (size,) = struct.unpack_from(">I", body)
    header = json.loads(body[4 : 4 + size])
    change(header)
    text = json.dumps(header).encode()
    body = struct.pack(">I", len(text)) + text + body[4 + size :]
    path.write_bytes(reference_cache.MAGIC + hashlib.sha256(body).digest() + body)


def test_a_file_damaged_anywhere_is_never_believed(tmp_path: Path) -> None:
    reference_cache.write_results(tmp_path, key(), NAMES, inputs(), results())
    (path,) = tmp_path.glob(f"{reference_cache.PREFIX}*")
    good = path.read_bytes()
    for position in range(len(reference_cache.MAGIC), len(good), 7):
        flipped = bytearray(good)
        flipped[position] ^= 0x10
        path.write_bytes(bytes(flipped))
        assert reference_cache.read_results(tmp_path, key(), NAMES, 1) is None, position
    path.write_bytes(good[:-1])
    assert reference_cache.read_results(tmp_path, key(), NAMES, 1) is None
    path.write_bytes(good)
    assert reference_cache.read_results(tmp_path, key(), NAMES, 1) is not None


@pytest.mark.parametrize(
    "change",
    [
        lambda h: h["inputs"][0].__setitem__(1, ["int", "9" * 40]),  # a number too long
        lambda h: h["inputs"][0].__setitem__(1, ["int", "9" * 32]),  # beyond int64
        lambda h: h["inputs"][0].__setitem__(1, ["complex", "1j"]),
        lambda h: h["inputs"][0].__setitem__(1, ["int", "four"]),
        lambda h: h["inputs"][0].__setitem__(1, ["int", 4]),  # not text
        lambda h: h["inputs"][0].append(["array"]),  # an array more than filed
        lambda h: h["inputs"][0].__setitem__(0, ["float", "1.5"]),  # the array's frame left over
        lambda h: h.__setitem__("inputs", {}),
        lambda h: h.__setitem__("inputs", [[], []]),
        lambda h: h.pop("inputs"),
    ],
    ids=[
        "long-number",
        "beyond-int64",
        "unknown-kind",
        "not-a-number",
        "not-text",
        "array-missing",
        "frame-left-over",
        "not-a-list",
        "two-cases",
        "no-inputs",
    ],
)
def test_a_damaged_inputs_table_is_never_believed(tmp_path: Path, change: Any) -> None:
    reference_cache.write_results(tmp_path, key(), NAMES, inputs(), results())
    assert reference_cache.read_results(tmp_path, key(), NAMES, 1) is not None
    rewrite(tmp_path, change)
    assert reference_cache.read_results(tmp_path, key(), NAMES, 1) is None


@pytest.mark.parametrize(
    "bad", [np.array([1 + 2j]), np.array(["a"]), True, "text", 10**40, 2**63], ids=str
)
def test_inputs_that_are_not_plain_arrays_or_numbers_are_not_filed(
    tmp_path: Path, bad: Any
) -> None:
    reference_cache.write_results(tmp_path, key(), NAMES, [[bad]], results())
    assert not list(tmp_path.glob(f"{reference_cache.PREFIX}*"))
