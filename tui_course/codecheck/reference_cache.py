"""The reference's results for a code question, remembered in the student's data folder.

They are deterministic: the same reference module, the same cases and seed, the same
interpreter and NumPy give the same arrays. Remembering them spares every later check
(`attn-tui check` from a shell, its --watch, the app's first check of a question) the
sandboxed child that computes them.

Trust: the file is read and written only by the trusted process (code_check_service),
never by a sandboxed child, and only when checks run under bwrap, whose children cannot
see the data folder (it is hidden like every home). It is believed only as a regular file
of this user that nobody else may write, read without following links, of bounded size,
whose key matches; its arrays go through the same checks as a child's (sandbox.frames:
`.npy` headers read without pickles, plain numeric dtypes, sizes matching the bytes).
Anything else, or any error, and the results are computed again.

The key is a digest of: this file's format, the interpreter and NumPy versions, the
reference module's text (or, for the app's own maths functions, tui_course/maths' source
files), the names asked for, the cases as specified and the seed, the very input arrays
built from them, the limits, and the harness that ran them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import struct
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tui_course.content.code_model import MATHS_PREFIX, CodeSpec
from tui_course.paths import read_private_file
from tui_course.sandbox.frames import CaseResult, ProtocolError, read_array
from tui_course.sandbox.limits import Limits

FORMAT = 1
MAGIC = b"attn-tui reference results\n"
PREFIX = "reference-"
MAX_FILE_BYTES = 8 * 1024 * 1024  # the shipped course's largest is a few KB
MAX_FILES = 64  # the oldest go first
_LENGTH = struct.Struct(">I")
_STATUSES = frozenset({"ok", "exception", "exit", "memory", "not_array", "too_large", "missing"})
_HARNESS = Path(__file__).parent.parent / "sandbox" / "harness.py"
_MATHS = Path(__file__).parent.parent / "maths"


def cache_key(
    spec: CodeSpec,
    names: Sequence[str],
    source: str,
    inputs: Sequence[Sequence[Any]],
    seed_offset: int,
    limits: Limits,
) -> str:
    """The digest the results are filed under (see the module's docstring)."""
    import numpy as np

    digest = hashlib.sha256()

    def add(part: bytes) -> None:
        digest.update(_LENGTH.pack(len(part)) + part)

    add(json.dumps([FORMAT, sys.version, np.__version__, list(names), seed_offset]).encode())
    add(source.encode("utf-8", errors="surrogatepass"))
    add(repr((spec.entry, spec.reference, spec.cases, spec.outputs)).encode())
    add(json.dumps(dataclasses.asdict(limits), sort_keys=True).encode())
    add(_file_bytes(_HARNESS))
    if any(name.startswith(MATHS_PREFIX) for name in names):
        for path in sorted(_MATHS.glob("*.py")):
            add(path.name.encode() + b"\0" + _file_bytes(path))
    for case in inputs:
        add(b"case")
        for arg in case:
            if isinstance(arg, np.ndarray):
                add(f"array {arg.dtype.str} {arg.shape}".encode())
                add(np.ascontiguousarray(arg).tobytes())
            else:
                add(f"{type(arg).__name__} {arg!r}".encode())
    return digest.hexdigest()


def _file_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b"missing"


def read_results(
    folder: Path, key: str, names: Sequence[str], cases: int
) -> dict[str, tuple[CaseResult, ...]] | None:
    """The remembered results for `key`, one per name and case, or None."""
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


def _parse(
    data: bytes, key: str, names: Sequence[str], cases: int
) -> dict[str, tuple[CaseResult, ...]] | None:
    if not data.startswith(MAGIC):
        return None
    frames = _frames(data[len(MAGIC) :])
    header = json.loads(frames[0])
    if header["format"] != FORMAT or header["key"] != key or header["names"] != list(names):
        return None
    arrays = iter(frames[1:])
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
            values = []
            for _ in range(outputs):
                frame = next(arrays, None)
                if frame is None:
                    return None
                values.append(read_array(frame, MAX_FILE_BYTES))
            found.append(CaseResult(status, tuple(values), tuple(mutated), detail))
        results[name] = tuple(found)
    if next(arrays, None) is not None:
        return None
    return results


def write_results(
    folder: Path, key: str, names: Sequence[str], results: dict[str, tuple[CaseResult, ...]]
) -> None:
    """Remember the results (written whole, 0600, never through a link); too large, or any
    failure, and nothing is remembered. The oldest files beyond MAX_FILES are removed."""
    import io

    import numpy as np

    from tui_course.paths import ensure_private_dir, write_file_safely

    described = []
    payloads: list[bytes] = []
    try:
        for name in names:
            entry = []
            for result in results[name]:
                entry.append(
                    [result.status, len(result.outputs), list(result.mutated), result.detail]
                )
                for output in result.outputs:
                    if type(output) is not np.ndarray or output.dtype.kind not in "biuf":
                        return  # kept as it came (a number from the app's maths): not filed
                    buffer = io.BytesIO()
                    np.save(buffer, output, allow_pickle=False)
                    payloads.append(buffer.getvalue())
            described.append(entry)
        header = {"format": FORMAT, "key": key, "names": list(names), "results": described}
        frames = [json.dumps(header).encode(), *payloads]
    except (TypeError, ValueError, KeyError):
        return
    data = MAGIC + b"".join(_LENGTH.pack(len(frame)) + frame for frame in frames)
    if len(data) > MAX_FILE_BYTES:
        return
    try:
        ensure_private_dir(folder)
        write_file_safely(folder / f"{PREFIX}{key}", data, mode=0o600)
    except OSError:
        return
    _prune(folder)


def _prune(folder: Path) -> None:
    with contextlib.suppress(OSError):
        found = []
        for entry in os.scandir(folder):
            if entry.name.startswith(PREFIX) and entry.is_file(follow_symlinks=False):
                found.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.name))
        for _, name in sorted(found)[: max(0, len(found) - MAX_FILES)]:
            with contextlib.suppress(OSError):
                os.unlink(folder / name)
