"""sandbox.frames on plain bytes: every frame a hostile child could send is refused by
name (ProtocolError, never another exception), read in linear time, and cut to size."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from typing import Any

import numpy as np
import pytest
from numpy.lib import format as npy

from tui_course.sandbox.frames import (
    HEADER_BYTES,
    MAX_OUTPUTS,
    FrameReader,
    ProtocolError,
    budget,
    parse,
)
from tui_course.sandbox.npy import read_npy

ARRAY_BYTES = 4 * 1024 * 1024
READY = json.dumps({"status": "ready"}).encode()
LOADED = json.dumps({"status": "loaded"}).encode()
DONE = json.dumps({"status": "done"}).encode()


def frame(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload


def header(**fields: Any) -> bytes:
    return json.dumps(fields).encode()


def ok(case: int = 0, outputs: int = 1, entry: int = 0) -> bytes:
    return header(status="ok", entry=entry, case=case, outputs=outputs, inputs=0)


def saved(array: Any) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def npy_header(shape: Any, descr: str = "<f8", fortran: bool = False) -> bytes:
    buffer = io.BytesIO()
    npy.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": fortran, "shape": shape})
    return buffer.getvalue()


def parsed(*frames: bytes, cases: int = 1, entries: int = 1, inputs: int = 0) -> Any:
    return parse(list(frames), entries, cases, ARRAY_BYTES, inputs)


def refused(*frames: bytes, cases: int = 1) -> str:
    with pytest.raises(ProtocolError) as caught:
        parsed(*frames, cases=cases)
    message = str(caught.value)
    assert len(message) < 200 and "\n" not in message
    return message


def test_an_honest_run_reads_back_as_sent() -> None:
    first = np.arange(6, dtype=np.float64).reshape(2, 3) / 7
    second = np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4))
    status, detail, grouped = parsed(
        LOADED, ok(0, 2), saved(first), saved(second), ok(1, 1), saved(np.bool_(True)), DONE,
        cases=2,
    )  # fmt: skip
    assert status == "done" and detail == {}
    (case0, case1) = grouped[0]
    got0, got1, got2 = (output.array() for output in (*case0.outputs, *case1.outputs))
    assert case0.status == "ok" and np.array_equal(got0, first)
    assert np.array_equal(got1, second) and got1.dtype == np.int32
    assert got1.flags.f_contiguous  # fortran order honoured
    assert got2.shape == () and bool(got2) is True
    assert got0.flags.writeable  # a fresh array, not a view of the frame


def test_inputs_sent_back_are_kept_apart_from_the_results() -> None:
    result, q_after, k_after = np.ones(2), np.zeros((2, 2)), np.arange(4.0)
    raw = header(status="ok", entry=0, case=0, outputs=1, inputs=2)
    _, _, grouped = parsed(
        LOADED, raw, saved(result), saved(q_after), saved(k_after), DONE, inputs=2
    )
    case = grouped[0][0]
    assert len(case.outputs) == 1 and np.array_equal(case.outputs[0].array(), result)
    assert [a.array().tolist() for a in case.inputs] == [q_after.tolist(), k_after.tolist()]
    assert case.mutated == ()  # the runner, not the child, says what changed


def test_a_mutated_key_from_the_child_is_not_believed() -> None:
    raw = header(status="ok", entry=0, case=0, outputs=0, inputs=0, mutated=[0])
    _, _, grouped = parsed(LOADED, raw, DONE)
    assert grouped[0][0].mutated == ()


def test_a_big_endian_array_keeps_its_values() -> None:
    values = np.array([1.5, -2.25], dtype=">f8")
    packed = read_npy(saved(values), ARRAY_BYTES)
    assert packed.array().tolist() == [1.5, -2.25] and packed.numbers == (1.5, -2.25)


def test_cases_the_child_never_reached_are_missing() -> None:
    status, _, grouped = parsed(LOADED, ok(0, 0), cases=3)
    assert status == "loaded"
    assert [case.status for case in grouped[0]] == ["ok", "missing", "missing"]


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (b"", "not .npy"),
        (b"\x93NUMPY", "unreadable header"),
        (b"PK\x03\x04" + b"\0" * 40, "not .npy"),
        (saved(np.zeros(3))[:-1], "promising 24 bytes before 23"),  # truncated
        (saved(np.zeros(3)) + b"\0", "promising 24 bytes before 25"),
        (npy_header((2**42,)) + b"\0" * 8, "35184372088832 bytes"),
        (npy_header((2**20, 2**20, 2**20)) + b"\0" * 8, "bytes (at most"),
        (npy_header((3,), "|O") + b"\0" * 24, "records or objects"),
        (npy_header((1,), "<c16") + b"\0" * 16, "not numbers"),
        (npy_header((1,), "<U3") + b"\0" * 12, "not numbers"),
        (npy_header((1,), "<M8[s]") + b"\0" * 8, "not numbers"),
        (saved(np.zeros(2, dtype=[("a", "<f8")])), "records or objects"),
        (b"\x93NUMPY\x03\x00" + b"\0" * 20, ".npy version 3.0"),
        (b"\x93NUMPY\x01\x00" + struct.pack("<H", 9000) + b"[" * 9000, "unreadable header"),
    ],
    ids=[
        "empty",
        "magic-only",
        "zip",
        "truncated",
        "too-long",
        "shape-2**42",
        "shape-2**60",
        "object",
        "complex",
        "unicode",
        "datetime",
        "structured",
        "version-3",
        "nested-header",
    ],
)
def test_array_frames_that_lie_are_refused_before_any_array(payload: bytes, words: str) -> None:
    assert words in refused(LOADED, ok(), payload)


def test_a_real_zip_payload_never_reaches_np_load() -> None:
    buffer = io.BytesIO()
    np.savez(buffer, a=np.zeros(3))
    assert zipfile.is_zipfile(io.BytesIO(buffer.getvalue()))
    assert "not .npy" in refused(LOADED, ok(), buffer.getvalue())


def test_a_pickled_array_is_refused() -> None:
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    assert "records or objects" in refused(LOADED, ok(), buffer.getvalue())


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (b'{"status": "ok", "entry": Infinity, "case": 0, "outputs": 0}', "Infinity"),
        (b'{"status": "ok", "entry": -Infinity, "case": 0, "outputs": 0}', "-Infinity"),
        (b'{"status": "ok", "entry": NaN, "case": 0, "outputs": 0}', "NaN"),
        (b'{"status": "ok", "entry": 1e400, "case": 0, "outputs": 0}', "too large"),
        (b'{"status": "ok", "entry": 1.0, "case": 0, "outputs": 0}', "'entry'"),
        (b'{"status": "ok", "entry": true, "case": 0, "outputs": 0}', "'entry'"),
        (b'{"status": "ok", "entry": 5, "case": 0, "outputs": 0}', "'entry'"),
        (b'{"status": "ok", "entry": 0, "case": -1, "outputs": 0}', "'case'"),
        (b'{"status": "ok", "entry": 0, "case": 0, "outputs": 99}', "'outputs'"),
        (b'{"status": "ok", "entry": 0, "case": 0, "outputs": 0}', "'inputs'"),
        (b'{"status": "ok", "entry": 0, "case": 0, "outputs": 0, "inputs": 3}', "'inputs'"),
        (b'{"status": "ok", "entry": 0, "case": 0, "outputs": 0, "inputs": [1]}', "'inputs'"),
        (
            b'{"status": "ok", "entry": 0, "case": 0, "outputs": 1, "inputs": 0}',
            "announced but not sent",
        ),
        (b'{"status": "ok", "entry": 0, "case": 1, "outputs": 0}', "'case'"),
        (b'{"status": "pwned", "entry": 0, "case": 0}', "unknown kind"),
        (b'{"status": "pwned"}', "unknown kind"),
        (b'{"status": "exception", "type": "X"}', "load error that does not say so"),
        (b'{"status": "not_array", "entry": 0, "case": 0, "type": 7}', "'type' is not text"),
        (b'{"status": "too_large", "entry": 0, "case": 0, "shape": [-1]}', "not sizes"),
        (b'{"status": "too_large", "entry": 0, "case": 0, "shape": "big"}', "short list"),
        (b'{"status": "syntax_error", "line": "one"}', "'line'"),
        (b'{"status": "ok", "entry": ' + b"9" * 5000 + b"}", "not JSON"),
        (b"[1, 2]", "not a table"),
        (b"\xff\xfe{}", "not JSON"),
        (b"", "not JSON"),
        (b"[" * 200_000, "nested too deeply"),
        (b"[" * 300_000, "a result header of 300000 bytes"),
    ],
    ids=lambda value: value[:40].decode("latin-1") if isinstance(value, bytes) else None,
)
def test_json_headers_that_lie_are_refused(payload: bytes, words: str) -> None:
    assert words in refused(LOADED, payload, cases=1)


def test_results_out_of_order_are_refused() -> None:
    assert "out of order" in refused(LOADED, ok(1, 0), cases=2)
    assert "out of order" in refused(LOADED, ok(0, 0), ok(0, 0), cases=2)


def test_a_huge_type_field_is_refused_or_cut_where_it_is_read() -> None:
    huge = header(status="exception", entry=0, case=0, type="T" * (15 * 1024 * 1024), message="")
    assert "a result header of" in refused(LOADED, huge)
    big = "T" * (HEADER_BYTES // 2)
    within = header(
        status="exception",
        entry=0,
        case=0,
        type=big,
        message="m" * 20_000,
        frames=[[3, "f" * 1000, "x = 1" * 1000]] * 3 + [["no", 1, 2], "junk"],
        extra="ignored" * 1000,
    )
    _, _, grouped = parsed(LOADED, within, DONE)
    detail = grouped[0][0].detail
    assert set(detail) == {"type", "message", "frames"}
    assert detail["type"] == "T" * 80
    assert len(detail["message"]) == 2000
    assert detail["frames"] == [[3, "f" * 80, ("x = 1" * 40)[:200]]] * 3


def test_whole_file_details_keep_only_their_keys() -> None:
    syntax = header(status="syntax_error", line=3, offset=None, message="m" * 999, text="t" * 999)
    status, detail, grouped = parsed(LOADED, syntax, cases=2)
    assert status == "syntax_error" and grouped[0][0].status == "missing"
    assert detail == {
        "status": "syntax_error",
        "line": 3,
        "offset": None,
        "message": "m" * 200,
        "text": "t" * 200,
    }
    load = header(status="exit", code="c" * 5000, where="load", final=True, more="x")
    assert parsed(load)[1] == {"status": "exit", "code": "c" * 200, "where": "load"}
    missing = header(status="missing_entry", entry="e" * 500)
    assert parsed(missing)[1] == {"status": "missing_entry", "entry": "e" * 80}


def test_a_lone_surrogate_cannot_stop_what_prints_it() -> None:
    raw = b'{"status": "not_array", "entry": 0, "case": 0, "type": "\\ud800x"}'
    _, _, grouped = parsed(LOADED, raw, DONE)
    kind = grouped[0][0].detail["type"]
    kind.encode("utf-8")  # would raise on a lone surrogate
    assert kind == "?x"


def test_anything_unforeseen_is_still_a_protocol_error() -> None:
    class Exploding(list[bytes]):
        def __len__(self) -> int:
            raise ZeroDivisionError

    with pytest.raises(ProtocolError, match="ZeroDivisionError"):
        parse(Exploding([LOADED]), 1, 1, ARRAY_BYTES)


# --- the reader: frames off the pipe -------------------------------------------------


def test_frames_split_anywhere_arrive_whole_and_ready_is_not_kept() -> None:
    data = frame(READY) + frame(LOADED) + frame(saved(np.ones(5))) + frame(b"") + frame(DONE)
    reader = FrameReader(budget(1, 1, ARRAY_BYTES))
    for at in range(len(data)):
        reader.add(data[at : at + 1])
        if at < len(frame(READY)) - 1:
            assert not reader.ready
    assert reader.ready
    assert reader.frames == [LOADED, saved(np.ones(5)), b"", DONE]
    assert reader.finished()


def test_finished_looks_at_each_frame_once_and_only_at_headers() -> None:
    reader = FrameReader(budget(1, 1, ARRAY_BYTES))
    reader.add(frame(READY) + frame(LOADED))
    assert not reader.finished()
    reader.add(frame(saved(np.zeros(3))))
    assert not reader.finished()
    load_error = header(status="exception", type="E", message="", frames=[], where="load")
    reader.add(frame(load_error))
    assert reader.finished()


def test_a_frame_larger_than_the_cap_is_refused_by_its_length() -> None:
    reader = FrameReader(budget(1, 1, ARRAY_BYTES))
    with pytest.raises(ProtocolError, match="a result frame of"):
        reader.add(struct.pack(">I", 15 * 1024 * 1024))  # the rest never needs to come


def test_all_frames_together_are_capped() -> None:
    limits = budget(1, 1, 1024)
    reader = FrameReader(limits)
    chunk = frame(b"x" * 1000)
    with pytest.raises(ProtocolError, match="of results"):
        for _ in range(limits.total_bytes // len(chunk) + 2):
            reader.add(chunk)


def test_the_number_of_frames_is_capped_by_entries_and_cases() -> None:
    limits = budget(2, 4, ARRAY_BYTES)
    assert limits.frames == 2 * 4 * (1 + MAX_OUTPUTS) + 8
    assert budget(2, 4, ARRAY_BYTES, most_inputs=3).frames == 2 * 4 * (1 + MAX_OUTPUTS + 3) + 8
    assert budget(2, 4, ARRAY_BYTES, 1000).total_bytes == limits.total_bytes + 2 * 1000
    reader = FrameReader(limits)
    tiny = frame(b"{}")
    million = frame(READY) + tiny * 1_000_000
    with pytest.raises(ProtocolError, match=f"more than {limits.frames} result frames"):
        for start in range(0, len(million), 1 << 16):  # as the pipe gives it
            reader.add(million[start : start + (1 << 16)])
    assert len(reader.frames) == limits.frames  # stopped at the cap, in the first chunk
    assert reader.received == 1 << 16


def test_reading_is_linear_in_what_arrives() -> None:
    """N tiny frames cost the reader O(N) bytes looked at, whatever the chunking."""
    counts = {}
    for n in (10_000, 100_000):
        limits = budget(n, 1, ARRAY_BYTES)
        reader = FrameReader(limits)
        data = frame(READY) + frame(b"{}") * n
        for start in range(0, len(data), 1 << 16):
            reader.add(data[start : start + (1 << 16)])
        assert len(reader.frames) == n
        assert reader.scanned <= 3 * len(data)
        counts[n] = reader.scanned
    assert counts[100_000] <= 11 * counts[10_000]


def test_parsing_looks_at_each_frame_once() -> None:
    """No queue.pop(0): parse reads N frames with N look-ups."""

    class Counting(list[bytes]):
        looked = 0

        def __getitem__(self, index: Any) -> Any:
            Counting.looked += 1
            return super().__getitem__(index)

        def pop(self, *args: Any) -> bytes:
            raise AssertionError("parse must not pop")

    n = 20_000
    frames = Counting([LOADED, *(ok(case, 0) for case in range(n)), DONE])
    status, _, grouped = parse(frames, 1, n, ARRAY_BYTES)
    assert status == "done" and len(grouped[0]) == n
    assert Counting.looked == len(frames)
