"""The reference's results for a code question, remembered in the student's data folder.

They are deterministic: the same reference module, the same cases and seed, the same
interpreter and NumPy give the same arrays. Remembering them spares every later check
(`attn-tui check` from a shell, its --watch, the app's first check of a question) the
sandboxed child that computes them. The cases' inputs are remembered beside them, so a
later check neither builds them nor loads NumPy to do so: with the student's arrays read
as bytes (sandbox.npy), a check that passes is judged without NumPy in this process.

Trust: the file is read and written only by the trusted process (code_check_service),
never by a sandboxed child, and only when checks run under bwrap, whose children cannot
see the data folder (it is hidden like every home). It is believed only as a regular file
of this user that nobody else may write, read without following links, of bounded size,
whose sha256 of its own body still matches (a cut or a flipped bit is not believed) and
whose key matches; its arrays go through the same checks as a child's (sandbox.npy:
headers matched or read without pickles, plain numeric dtypes, sizes matching the bytes),
its numbers must be int64s or floats. Anything else, or any error, and the results are
computed again. What it cannot stop is its own user writing a consistent file: a
student's verdicts in their own data folder are theirs to forge (as their progress store
is); what a teacher counts is class recheck's, computed on the teacher's side.

The key is a digest of: this file's format, the interpreter, NumPy's version file (its
random generators make the inputs), the reference module's text (or, for the app's own
maths functions, tui_course/maths' source files), the names asked for, the cases as
specified and the seed, the source that builds inputs from them (content.code_inputs and
the sizes' rules in content.code_model), the limits, and the harness that ran them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib.util
import json
import os
import struct
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tui_course.content.code_model import MATHS_PREFIX, CodeSpec
from tui_course.paths import read_private_file
from tui_course.sandbox.frames import CaseResult, ProtocolError
from tui_course.sandbox.limits import Limits
from tui_course.sandbox.npy import Packed, is_array, pack, read_npy

FORMAT = 3
MAGIC = b"attn-tui reference results\n"
PREFIX = "reference-"
MAX_FILE_BYTES = 8 * 1024 * 1024  # the shipped course's largest is a few KB
MAX_FILES = 64  # the oldest go first
MAX_NUMBER_CHARS = 32  # a remembered plain-number input, as repr() writes it
_LENGTH = struct.Struct(">I")
_DIGEST_BYTES = 32  # the sha256 of the rest of the file, after MAGIC
_STATUSES = frozenset({"ok", "exception", "exit", "memory", "not_array", "too_large", "missing"})
_PACKAGE = Path(__file__).parent.parent
_HARNESS = _PACKAGE / "sandbox" / "harness.py"
_INPUT_SOURCES = (_PACKAGE / "content" / "code_inputs.py", _PACKAGE / "content" / "code_model.py")
_MATHS = _PACKAGE / "maths"

Inputs = list[list[Any]]  # per case, its arguments: arrays (Packed) and plain numbers
Remembered = tuple[Inputs, dict[str, tuple[CaseResult, ...]]]


def cache_key(
    spec: CodeSpec, names: Sequence[str], source: str, seed_offset: int, limits: Limits
) -> str:
    """The digest the inputs and results are filed under (see the module's docstring)."""
    digest = hashlib.sha256()

    def add(part: bytes) -> None:
        digest.update(_LENGTH.pack(len(part)) + part)

    add(json.dumps([FORMAT, sys.version, list(names), seed_offset]).encode())
    add(numpy_version())
    add(source.encode("utf-8", errors="surrogatepass"))
    add(repr((spec.entry, spec.reference, spec.cases, spec.outputs)).encode())
    add(json.dumps(dataclasses.asdict(limits), sort_keys=True).encode())
    add(_file_bytes(_HARNESS))
    for path in _INPUT_SOURCES:
        add(_file_bytes(path))
    if any(name.startswith(MATHS_PREFIX) for name in names):
        for path in sorted(_MATHS.glob("*.py")):
            add(path.name.encode() + b"\0" + _file_bytes(path))
    return digest.hexdigest()


@functools.cache
def numpy_version() -> bytes:
    """The text of the NumPy this interpreter would import (its version.py, which names
    the release and its commit), found without importing it."""
    found = importlib.util.find_spec("numpy")
    if found is None or found.origin is None:
        return b"no numpy"
    return _file_bytes(Path(found.origin).with_name("version.py"))


def _file_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b"missing"


def read_results(folder: Path, key: str, names: Sequence[str], cases: int) -> Remembered | None:
    """The remembered inputs of the `cases` cases and the results for `key`, one per name
    and case, or None."""
    data = read_private_file(folder / f"{PREFIX}{key}", MAX_FILE_BYTES)
    if data is None:
        return None
    try:
        return _parse(data, key, names, cases)
    except (ProtocolError, ValueError, KeyError, TypeError, IndexError, RecursionError):
        return None
    except struct.error:
        return None


def _frames(data: bytes) -> list[bytes]:
    frames = []
    offset = 0
    while offset < len(data):
        (size,) = _LENGTH.unpack_from(data, offset)
        offset += _LENGTH.size
        if offset + size > len(data):
            raise ValueError("a cut frame")
        frames.append(data[offset : offset + size])
        offset += size
    return frames


def _parse(data: bytes, key: str, names: Sequence[str], cases: int) -> Remembered | None:
    if not data.startswith(MAGIC):
        return None
    body = data[len(MAGIC) + _DIGEST_BYTES :]
    if data[len(MAGIC) : len(MAGIC) + _DIGEST_BYTES] != hashlib.sha256(body).digest():
        return None  # damaged (a cut, a flipped bit) since it was written
    frames = _frames(body)
    header = json.loads(frames[0])
    if header["format"] != FORMAT or header["key"] != key or header["names"] != list(names):
        return None
    arrays = iter(frames[1:])
    described_inputs = header["inputs"]
    if not isinstance(described_inputs, list) or len(described_inputs) != cases:
        return None
    inputs = [_case_inputs(case, arrays) for case in described_inputs]
    results: dict[str, tuple[CaseResult, ...]] = {}
    described = header["results"]
    if len(described) != len(names):
        return None
    for name, entry in zip(names, described, strict=True):
        if not isinstance(entry, list) or len(entry) != cases:
            return None
        found = []
        for case in entry:
            status, outputs, mutated, detail = case
            if status not in _STATUSES or type(outputs) is not int or not 0 <= outputs <= 16:
                return None
            if not isinstance(detail, dict) or not all(type(p) is int for p in mutated):
                return None
            values = [_next_array(arrays) for _ in range(outputs)]
            found.append(CaseResult(status, tuple(values), tuple(mutated), detail))
        results[name] = tuple(found)
    if next(arrays, None) is not None:
        return None
    return inputs, results


def _next_array(arrays: Any) -> Packed:
    frame = next(arrays, None)
    if frame is None:
        raise ValueError("an array described but not filed")
    return read_npy(frame, MAX_FILE_BYTES)


def _case_inputs(described: Any, arrays: Any) -> list[Any]:
    """One case's arguments: ["array"] is the next array frame, [kind, text] a number."""
    if not isinstance(described, list):
        raise ValueError("a case's inputs that are not a list")
    found: list[Any] = []
    for arg in described:
        if arg == ["array"]:
            found.append(_next_array(arrays))
            continue
        kind, text = arg
        if not isinstance(text, str) or len(text) > MAX_NUMBER_CHARS:
            raise ValueError("a number that is not short text")
        number = int(text) if kind == "int" else float(text) if kind == "float" else None
        if number is None or not _plain_number(number):
            raise ValueError("an input that is not a plain number")
        found.append(number)
    return found


def write_results(
    folder: Path,
    key: str,
    names: Sequence[str],
    inputs: Sequence[Sequence[Any]],
    results: dict[str, tuple[CaseResult, ...]],
) -> None:
    """Remember the inputs and results (written whole, 0600, never through a link); too
    large, or any failure, and nothing is remembered. The oldest files beyond MAX_FILES
    are removed."""
    from tui_course.paths import ensure_private_dir, write_file_safely

    payloads: list[bytes] = []
    try:
        described_inputs = [_describe_inputs(case, payloads) for case in inputs]
        described = []
        for name in names:
            entry = []
            for result in results[name]:
                entry.append(
                    [result.status, len(result.outputs), list(result.mutated), result.detail]
                )
                for output in result.outputs:
                    if not is_array(output):
                        return  # kept as it came (a number from the app's maths): not filed
                    payloads.append(_frame_of(output))
            described.append(entry)
        header = {
            "format": FORMAT,
            "key": key,
            "names": list(names),
            "inputs": described_inputs,
            "results": described,
        }
        frames = [json.dumps(header).encode(), *payloads]
    except (TypeError, ValueError, KeyError, ProtocolError):
        return
    body = b"".join(_LENGTH.pack(len(frame)) + frame for frame in frames)
    data = MAGIC + hashlib.sha256(body).digest() + body
    if len(data) > MAX_FILE_BYTES:
        return
    try:
        ensure_private_dir(folder)
        write_file_safely(folder / f"{PREFIX}{key}", data, mode=0o600)
    except OSError:
        return
    _prune(folder)


def _describe_inputs(case: Sequence[Any], payloads: list[bytes]) -> list[list[str]]:
    described = []
    for arg in case:
        if is_array(arg):
            described.append(["array"])
            payloads.append(_frame_of(arg))
        elif _plain_number(arg) and len(repr(arg)) <= MAX_NUMBER_CHARS:
            described.append([type(arg).__name__, repr(arg)])
        else:
            raise ValueError("an input neither an array nor a plain number")
    return described


def _plain_number(value: Any) -> bool:
    """A float, or an int NumPy holds as an int64 (what a case's sizes and values are)."""
    return type(value) is float or (type(value) is int and -(2**63) <= value < 2**63)


def _frame_of(array: Any) -> bytes:
    """The array's `.npy` bytes, of a plain numeric dtype (else ValueError: not filed)."""
    packed = array if isinstance(array, Packed) else pack(array)
    read_npy(packed.frame, MAX_FILE_BYTES)  # what could not be read back is not filed
    return packed.frame


def _prune(folder: Path) -> None:
    with contextlib.suppress(OSError):
        found = []
        for entry in os.scandir(folder):
            if entry.name.startswith(PREFIX) and entry.is_file(follow_symlinks=False):
                found.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.name))
        for _, name in sorted(found)[: max(0, len(found) - MAX_FILES)]:
            with contextlib.suppress(OSError):
                os.unlink(folder / name)
