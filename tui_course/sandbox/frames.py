"""Reading what the sandboxed child sends back, every byte of it untrusted.

The child (harness.py) writes length-prefixed frames on its result fd: a "ready" frame,
then JSON headers, each "ok" header followed by its `.npy` payloads (the results, then
the array inputs as the call left them, for the runner to compare). Student code runs
in that child and can write anything on the same fd, so here every frame is hostile
until checked: a bounded number of frames of bounded size, read in linear time; JSON
without NaN or Infinity and only the keys and types the harness sends, text cut to a
few hundred characters; `.npy` payloads whose header (read without pickles) promises
exactly the bytes that follow, of a plain numeric dtype, before any array is built.
Whatever fails becomes a ProtocolError with a short message of ours, which the runner
turns into the "protocol" outcome: nothing of this module raises anything else.

Pure: the arrays stay `.npy` bytes (sandbox.npy's Packed); NumPy is imported only for a
header in another form than np.save's own.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tui_course.sandbox.npy import ProtocolError as ProtocolError  # its home before npy
from tui_course.sandbox.npy import checked_shape, read_npy

LENGTH = struct.Struct(">I")
HEADER_BYTES = 256 * 1024  # one JSON header: the harness's longest, all \u escapes, fits
MAX_OUTPUTS = 16  # arrays one case may return
FRAMES_PER_CASE = 1 + MAX_OUTPUTS  # its header and its results (and its inputs sent back)
FRAMES_AROUND = 8  # ready, loaded, done and a final load error, with room to spare
MAX_INT = 2**31 - 1  # line numbers, positions, counts: anything larger is a lie
TYPE_CHARS = 80  # an exception's or a returned object's type name
MESSAGE_CHARS = 2000  # an exception's message (the harness sends no more)
SHORT_CHARS = 200  # a traceback's source line, a syntax error's text, an exit code
MAX_TRACEBACK = 20  # frames of the student's own code


@dataclass(frozen=True)
class CaseResult:
    """What the child said about one case. status: ok, exception, exit, memory,
    not_array, too_large, or missing (the child stopped before reaching it)."""

    status: str
    outputs: tuple[Any, ...] = ()  # when ok: Packed arrays (ndarrays from the app's maths)
    mutated: tuple[int, ...] = ()  # positions of inputs changed in place (set by the runner)
    detail: dict[str, Any] = field(default_factory=dict)
    inputs: tuple[Any, ...] = ()  # the array inputs as the call left them (Packed), when ok


@dataclass(frozen=True)
class Budget:
    """How much one job may send back: each frame, all of them together, how many."""

    frame_bytes: int
    total_bytes: int
    frames: int
    array_bytes: int


def budget(
    entries: int, cases: int, array_bytes: int, input_bytes: int = 0, most_inputs: int = 0
) -> Budget:
    """Caps for a job of `entries` functions on `cases` cases, each array at most
    `array_bytes`, the cases' array inputs `input_bytes` as sent and at most
    `most_inputs` in one case: a header, up to MAX_OUTPUTS results and the inputs sent
    back per case, a few frames more."""
    runs = max(1, entries * cases)
    wanted = runs * 2  # an array or two per case, in bytes
    return Budget(
        frame_bytes=max(array_bytes, HEADER_BYTES) + 4096,
        total_bytes=min(wanted * array_bytes + entries * input_bytes, 1 << 28),
        frames=runs * (FRAMES_PER_CASE + most_inputs) + FRAMES_AROUND,
        array_bytes=array_bytes,
    )


class FrameReader:
    """Length-prefixed frames off the result pipe, within a Budget, in linear time.

    The first frame is the child's "ready" and is not kept. `scanned` counts the bytes
    the reader has looked at or copied: it grows with what arrives, never faster."""

    def __init__(self, limits: Budget) -> None:
        self.limits = limits
        self.received = 0
        self.scanned = 0
        self.ready = False
        self.frames: list[bytes] = []
        self._buffer = bytearray()
        self._checked = 0  # frames already looked at by finished()
        self._finished = False

    def add(self, chunk: bytes) -> None:
        """Take what one read gave; ProtocolError once the child sends too much."""
        self.received += len(chunk)
        if self.received > self.limits.total_bytes:
            raise ProtocolError(f"more than {_megabytes(self.limits.total_bytes)} of results")
        buffer = self._buffer
        buffer += chunk
        self.scanned += len(chunk)
        start = 0
        while len(buffer) - start >= LENGTH.size:
            (size,) = LENGTH.unpack_from(buffer, start)
            if size > self.limits.frame_bytes:
                raise ProtocolError(f"a result frame of {size} bytes")
            end = start + LENGTH.size + size
            if len(buffer) < end:
                break
            self._keep(bytes(buffer[start + LENGTH.size : end]))
            self.scanned += LENGTH.size + size
            start = end
        if start:
            self.scanned += len(buffer) - start  # what is left moves to the front once
            del buffer[:start]

    def _keep(self, frame: bytes) -> None:
        if not self.ready:
            self.ready = True  # the child's "ready": its clock starts now
            return
        if len(self.frames) >= self.limits.frames:
            raise ProtocolError(f"more than {self.limits.frames} result frames")
        self.frames.append(frame)

    def finished(self) -> bool:
        """The last frame says the child has nothing more to say (each frame looked at
        once, and only if it is small enough to be a header)."""
        if self._finished or self._checked == len(self.frames):
            return self._finished
        self._checked = len(self.frames)
        last = self.frames[-1]
        if len(last) > HEADER_BYTES or not last.startswith(b"{"):
            return False
        try:
            message = _json(last)
        except ProtocolError:
            return False
        self._finished = message.get("status") in FINAL or message.get("where") == "load"
        return self._finished


# after these the child says nothing more that counts
FINAL = frozenset({"done", "syntax_error", "missing_entry"})
_WHOLE_FILE = frozenset({"syntax_error", "missing_entry", "exception", "exit"})
_CASE_STATUSES = frozenset({"ok", "exception", "exit", "memory", "not_array", "too_large"})

Parsed = tuple[str, dict[str, Any], tuple[tuple[CaseResult, ...], ...]]


def parse(
    frames: Sequence[bytes], entries: int, count: int, array_bytes: int, most_inputs: int = 0
) -> Parsed:
    """(status, the whole file's detail, per entry per case results) from the frames
    after "ready", each ok case with at most `most_inputs` inputs sent back. Raises
    ProtocolError, and only that, for anything else."""
    try:
        return _parse(frames, entries, count, array_bytes, most_inputs)
    except ProtocolError:
        raise
    except RecursionError:
        raise ProtocolError("results nested too deeply") from None
    except MemoryError:
        raise ProtocolError("results too large to read") from None
    except Exception as error:  # a case this module did not foresee: still named
        raise ProtocolError(f"unreadable results ({type(error).__name__})") from None


def _parse(
    frames: Sequence[bytes], entries: int, count: int, array_bytes: int, most_inputs: int
) -> Parsed:
    results: list[CaseResult] = []
    status = "started"
    detail: dict[str, Any] = {}
    total = entries * count
    index = 0
    while index < len(frames):
        message = _json(frames[index])
        index += 1
        kind = message.get("status")
        if kind == "loaded":
            status = "loaded"
            continue
        if kind == "done":
            status = "done"
            break
        if "case" not in message:  # about the whole file: syntax, load error, no entry
            if kind not in _WHOLE_FILE:
                raise ProtocolError("a result header of an unknown kind")
            status, detail = str(kind), _whole_file_detail(str(kind), message)
            break
        if kind not in _CASE_STATUSES:
            raise ProtocolError("a case result of an unknown kind")
        entry = _count(message, "entry", entries - 1)
        case = _count(message, "case", count - 1)
        if entry * count + case != len(results) or len(results) >= total:
            raise ProtocolError("results out of order")
        if kind != "ok":
            results.append(CaseResult(str(kind), detail=_case_detail(str(kind), message)))
            continue
        arrays = []
        announced = _count(message, "outputs", MAX_OUTPUTS) + _count(message, "inputs", most_inputs)
        for _ in range(announced):
            if index >= len(frames):
                raise ProtocolError("an array announced but not sent")
            arrays.append(read_npy(frames[index], array_bytes))
            index += 1
        outputs = len(arrays) - int(message["inputs"])
        results.append(CaseResult("ok", tuple(arrays[:outputs]), inputs=tuple(arrays[outputs:])))
    results.extend(CaseResult("missing") for _ in range(total - len(results)))
    grouped = tuple(tuple(results[i * count : (i + 1) * count]) for i in range(entries))
    return status, detail, grouped


def _refuse_constant(name: str) -> Any:
    raise ProtocolError(f"{name} in a result header")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ProtocolError("a number too large in a result header")
    return value


def _json(frame: bytes) -> dict[str, Any]:
    """One header: small, UTF-8, a JSON object of finite numbers."""
    if len(frame) > HEADER_BYTES:
        raise ProtocolError(f"a result header of {len(frame)} bytes")
    try:
        message = json.loads(
            frame.decode("utf-8"), parse_constant=_refuse_constant, parse_float=_finite_float
        )
    except ProtocolError:
        raise
    except RecursionError:
        raise ProtocolError("a result header nested too deeply") from None
    except Exception:  # UnicodeDecodeError, JSONDecodeError, a 5000-digit int...
        raise ProtocolError("a result header that is not JSON") from None
    if not isinstance(message, dict):
        raise ProtocolError("a result header that is not a table")
    return message


def _is_int(value: Any) -> bool:
    return type(value) is int  # not bool, not float


def _count(message: dict[str, Any], key: str, largest: int) -> int:
    value: Any = message.get(key)
    if not _is_int(value) or not 0 <= value <= largest:
        raise ProtocolError(f"a result header whose '{key}' is not a number from 0 to {largest}")
    return int(value)


def _text(message: dict[str, Any], key: str, cap: int, default: str = "") -> str:
    value = message.get(key, default)
    if not isinstance(value, str):
        raise ProtocolError(f"a result header whose '{key}' is not text")
    return _printable(value[:cap])


def _printable(text: str) -> str:
    """A lone surrogate (JSON allows "\\ud800") would stop whatever prints it."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _line(message: dict[str, Any], key: str) -> int | None:
    value = message.get(key)
    if value is None:
        return None
    if not _is_int(value) or not 0 <= value <= MAX_INT:
        raise ProtocolError(f"a result header whose '{key}' is not a line number")
    return int(value)


def _traceback(value: Any) -> list[list[Any]]:
    """The student's frames as [line, function, source]; malformed ones left out."""
    if not isinstance(value, list):
        raise ProtocolError("a result header whose 'frames' is not a list")
    frames = []
    for frame in value[-MAX_TRACEBACK:]:
        if (
            isinstance(frame, list)
            and len(frame) == 3
            and _is_int(frame[0])
            and 0 <= frame[0] <= MAX_INT
            and isinstance(frame[1], str)
            and isinstance(frame[2], str)
        ):
            frames.append(
                [frame[0], _printable(frame[1][:TYPE_CHARS]), _printable(frame[2][:SHORT_CHARS])]
            )
    return frames


def _exception(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": _text(message, "type", TYPE_CHARS, "Exception"),
        "message": _text(message, "message", MESSAGE_CHARS),
        "frames": _traceback(message.get("frames", [])),
    }


def _case_detail(kind: str, message: dict[str, Any]) -> dict[str, Any]:
    """Only the keys the judge reads, each of its type and capped."""
    if kind == "exception":
        return _exception(message)
    if kind == "exit":
        return {"code": _text(message, "code", SHORT_CHARS)}
    if kind == "not_array":
        return {"type": _text(message, "type", TYPE_CHARS, "something else")}
    if kind == "too_large":
        return {"shape": list(checked_shape(message.get("shape", []), MAX_INT))}
    return {}  # memory


def _whole_file_detail(kind: str, message: dict[str, Any]) -> dict[str, Any]:
    if kind == "syntax_error":
        return {
            "status": kind,
            "line": _line(message, "line"),
            "offset": _line(message, "offset"),
            "message": _text(message, "message", SHORT_CHARS),
            "text": _text(message, "text", SHORT_CHARS),
        }
    if kind == "missing_entry":
        return {"status": kind, "entry": _text(message, "entry", TYPE_CHARS)}
    if message.get("where") != "load":
        raise ProtocolError("a load error that does not say so")
    if kind == "exit":
        return {"status": kind, "code": _text(message, "code", SHORT_CHARS), "where": "load"}
    return {"status": kind, **_exception(message), "where": "load"}


def _megabytes(size: int) -> str:
    return f"{size // (1024 * 1024)} MB"
