"""Student code that writes its own result frames: each crafted frame is read by the
parent for real, at both sandbox levels, and gives a named, short verdict (never an
exception, never a long message). The child writes on its result fd and leaves."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import pytest

from tui_course.codecheck.service import CodeChecker
from tui_course.content.code_check import Outcome
from tui_course.content.models import Course, Question, Quiz
from tui_course.render.code import verdict_text
from tui_course.sandbox.frames import budget

SENDER = '''import numpy as np
import io, json, os, struct, sys


def _result_fd():
    """The harness's result pipe: the one fd above 2 a write of nothing succeeds on (or,
    where /proc is closed to it, the harness's own argument)."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        names = []
    for name in sorted(names, key=int):
        fd = int(name)
        if fd > 2:
            try:
                if os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                    os.write(fd, b"")
                    return fd
            except OSError:
                continue
    return int(sys.argv[2])


def _npy(descr, shape, payload):
    header = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode()
    header += b" " * (63 - (len(header) + 10) % 64) + b"\\n"
    return b"\\x93NUMPY\\x01\\x00" + struct.pack("<H", len(header)) + header + payload


def _ok(outputs=1):
    header = {"status": "ok", "entry": 0, "case": 0, "outputs": outputs, "inputs": 0}
    return json.dumps(header).encode()


def _send(frames):
    fd = _result_fd()
    for frame in frames:
        data = memoryview(struct.pack(">I", len(frame)) + frame)
        while data:
            data = data[os.write(fd, data):]
    os._exit(0)


def attention_weights(Q, K):
    _send(FRAMES)
'''


def sender(frames: str) -> str:
    """A student file whose function sends `frames` (a Python expression) and exits."""
    return SENDER.replace("FRAMES", frames)


def _zip_payload() -> bytes:
    """A real np.savez archive, made here: the child may have no zipfile module to make one
    (root's checks without bwrap run as nobody, who may not read the interpreter's library)."""
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.savez(buffer, a=np.zeros(3))
    return buffer.getvalue()


ZIP = repr(_zip_payload())
DONE = 'json.dumps({"status": "done"}).encode()'

ATTACKS = {
    "empty .npy frame": (f"[_ok(), b'', {DONE}]", "not .npy"),
    "entry Infinity": (
        '[b\'{"status": "ok", "entry": Infinity, "case": 0, "outputs": 0, "inputs": 0}\']',
        "Infinity in a result header",
    ),
    "zip payload": (f"[_ok(), {ZIP}, {DONE}]", "not .npy"),
    "nested 200000 deep": ("[b'[' * 200000]", "nested too deeply"),
    "shape (2**42,)": (
        f"[_ok(), _npy('<f8', (2**42,), b'\\0' * 8), {DONE}]",
        "an array of 35184372088832 bytes",
    ),
    "truncated array": (
        f"[_ok(), _npy('<f8', (4,), b'\\0' * 31), {DONE}]",
        "promising 32 bytes before 31",
    ),
    "object array": (f"[_ok(), _npy('|O', (1,), b'\\0' * 8), {DONE}]", "records or objects"),
    "a million tiny frames": ("[b'{}'] * 1_000_000", "result frames"),
    "15 MB type field": (
        "[json.dumps({'status': 'exception', 'entry': 0, 'case': 0, "
        "'type': 'T' * (15 * 1024 * 1024), 'message': '', 'frames': []}).encode()]",
        "bytes",
    ),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_crafted_frames_give_a_short_named_verdict(
    checker: CodeChecker, attention_question: Question, attack: str
) -> None:
    frames, words = ATTACKS[attack]
    verdict = checker.check(attention_question, sender(frames))
    assert verdict.outcome is Outcome.CRASHED, verdict.message
    assert verdict.message.startswith("The check could not read what your code sent back: ")
    assert words in verdict.message
    assert len(verdict.message) < 300
    assert len(verdict_text(verdict)) < 2000


def test_a_million_frames_are_stopped_by_the_frame_cap(
    checker: CodeChecker, attention_question: Question
) -> None:
    """The cap follows the job (one entry, its cases), far below a million."""
    assert attention_question.code is not None
    cases = len(attention_question.code.cases)
    arrays = len(attention_question.code.cases[0].args)  # Q and K, sent back after the call
    cap = budget(1, cases, checker.limits.result_bytes, most_inputs=arrays).frames
    assert cap < 200
    verdict = checker.check(attention_question, sender("[b'{}'] * 1_000_000"))
    assert f"more than {cap} result frames" in verdict.message


def test_a_long_type_field_within_the_header_cap_is_cut_where_it_is_read(
    checker: CodeChecker, attention_question: Question
) -> None:
    """200 KB of type name fits a header; the verdict shows 80 characters of it."""
    frames = (
        "[json.dumps({'status': 'not_array', 'entry': 0, 'case': 0, 'type': 'T' * 200_000,"
        f" 'inputs': 0}}).encode(), {DONE}]"
    )
    verdict = checker.check(attention_question, sender(frames))
    assert verdict.outcome is Outcome.FAILED
    assert "returned " + "T" * 80 + "," in verdict.message
    assert "T" * 81 not in verdict.message
    assert len(verdict_text(verdict)) < 2000


def test_a_long_exception_is_cut_where_it_is_read(
    checker: CodeChecker, attention_question: Question
) -> None:
    frames = (
        "[json.dumps({'status': 'exception', 'entry': 0, 'case': 0, 'type': 'E' * 20_000,"
        " 'message': 'm' * 50_000, 'frames': [[1, 'f' * 300, 'x' * 300]] * 150}).encode(),"
        f" {DONE}]"
    )
    verdict = checker.check(attention_question, sender(frames))
    assert verdict.outcome is Outcome.ERROR
    assert len(verdict.message) < 500
    assert len(verdict.traceback) == 20
    assert all(len(name) <= 80 and len(line) <= 200 for _, name, line in verdict.traceback)
    assert len(verdict_text(verdict)) < 10_000


def test_an_honest_solution_still_passes_beside_the_attacks(
    checker: CodeChecker, attention_question: Question
) -> None:
    from tests.sandbox.test_attacks import GOOD

    assert checker.check(attention_question, GOOD).outcome is Outcome.PASSED


def test_recheck_gives_each_hostile_student_a_row_and_the_rest_their_verdicts(
    checker: CodeChecker, code_quiz: Quiz
) -> None:
    """class recheck over a class where most students send crafted frames: each of them
    gets a named outcome, the honest student passes, nothing raises."""
    import datetime as dt
    import hashlib

    from tests.sandbox.test_attacks import GOOD
    from tui_course.classroom.recheck import recheck, recheck_csv, recheck_table
    from tui_course.classroom.submission import CodeSubmitted, Submission

    def submission(user: str, code: str) -> Submission:
        digest = hashlib.sha256(code.encode()).hexdigest()
        entry = CodeSubmitted(code_quiz.id, 1, code, digest, "passed", "bwrap")
        when = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
        return Submission(user, when, "0.1.0", (), frozenset(), 0, None, (entry,))

    hostile = {f"mallory{i}": sender(ATTACKS[name][0]) for i, name in enumerate(ATTACKS)}
    submissions = {user: submission(user, code) for user, code in hostile.items()}
    submissions["alice"] = submission("alice", GOOD)
    course = cast(Course, SimpleNamespace(quizzes=[code_quiz]))
    rows = recheck(submissions, course, checker, seed_offset=7)
    outcomes = {row.user: row.rechecked for row in rows}
    assert outcomes.pop("alice") == "passed"
    assert outcomes == dict.fromkeys(hostile, "crashed")
    assert all(len(row.message) < 300 for row in rows)
    assert len(recheck_csv(rows).splitlines()) == len(submissions) + 1
    assert recheck_table(rows).endswith(
        f"{len(submissions)} solution(s) rechecked, {len(hostile)} disagree with their claim"
    )
