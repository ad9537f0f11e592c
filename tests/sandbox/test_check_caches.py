"""What a check remembers between runs (issue 30), and that remembering weakens nothing.

The sandbox probe is remembered only while everything it depends on is unchanged, and
only from a private file of this user; the reference's results only under bwrap, read and
written by the trusted process, identical to computing them again.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.sandbox.conftest import ATTENTION_SOLUTION, CODE_QUIZ, LIMITS_ONLY, REPO, bwrap_report
from tui_course.codecheck import reference_cache
from tui_course.codecheck import service as code_check_service
from tui_course.codecheck.file_watch import FileWatch
from tui_course.codecheck.service import CodeChecker, compute_expected
from tui_course.content.code_check import Outcome
from tui_course.content.models import Question
from tui_course.content.quizzes import load_quiz
from tui_course.sandbox import level
from tui_course.sandbox.frames import CaseResult
from tui_course.sandbox.level import (
    LEVEL_CACHE_NAME,
    Level,
    LevelReport,
    forget_probe,
    probe_key,
    sandbox_level,
)
from tui_course.sandbox.limits import TEST_LIMITS
from tui_course.sandbox.npy import Packed, as_array

SOLUTION = ATTENTION_SOLUTION
WORKING = bwrap_report()
needs_bwrap = pytest.mark.skipif(WORKING is None, reason="no working bwrap here")


@pytest.fixture
def probes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every real probe started, by the bwrap it ran; nothing remembered in this process
    before or after."""
    started: list[str] = []
    real = level._run_probe

    def counted(bwrap: str, runs_as: str) -> LevelReport:
        started.append(bwrap)
        return real(bwrap, runs_as)

    monkeypatch.setattr(level, "_run_probe", counted)
    forget_probe()
    yield started
    forget_probe()


def fresh_level(cache: Path) -> LevelReport:
    """A new process's question: nothing in memory, only what the folder holds."""
    forget_probe()
    return sandbox_level(cache)


@pytest.fixture
def own_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the working bwrap, ours to change (named as a student's own would be)."""
    assert WORKING is not None and WORKING.bwrap is not None
    folder = tmp_path / "bin"
    folder.mkdir(mode=0o755)
    copy = folder / "bwrap"
    shutil.copy2(os.path.realpath(WORKING.bwrap), copy)
    copy.chmod(0o755)
    monkeypatch.setenv(level.BWRAP_ENV, str(copy))
    return copy


@needs_bwrap
def test_a_working_probe_is_remembered_and_reused(tmp_path: Path, probes: list[str]) -> None:
    cache = tmp_path / "cache"
    first = fresh_level(cache)
    assert first.level is Level.BWRAP and len(probes) == 1
    saved = cache / LEVEL_CACHE_NAME
    assert saved.stat().st_mode & 0o777 == 0o600
    again = fresh_level(cache)
    assert again == first  # the same report, and no sandbox started for it
    assert len(probes) == 1
    assert fresh_level(tmp_path / "elsewhere") == first and len(probes) == 2


@needs_bwrap
def test_a_changed_bwrap_is_probed_again(
    tmp_path: Path, probes: list[str], own_bwrap: Path
) -> None:
    cache = tmp_path / "cache"
    assert fresh_level(cache).bwrap == str(own_bwrap)
    assert fresh_level(cache).level is Level.BWRAP and len(probes) == 1
    stamp = own_bwrap.stat()
    os.utime(own_bwrap, ns=(stamp.st_atime_ns, stamp.st_mtime_ns - 10**9))  # mtime
    assert fresh_level(cache).level is Level.BWRAP and len(probes) == 2
    assert fresh_level(cache).level is Level.BWRAP and len(probes) == 2
    replaced = own_bwrap.with_name("bwrap.new")  # a new binary: another inode
    shutil.copy2(own_bwrap, replaced)
    replaced.replace(own_bwrap)
    assert fresh_level(cache).level is Level.BWRAP and len(probes) == 3
    with own_bwrap.open("ab") as binary:  # the same inode, a byte longer
        binary.write(b"\0")
    assert fresh_level(cache).level is Level.BWRAP and len(probes) == 4


@needs_bwrap
def test_a_changed_site_config_or_kernel_switch_is_probed_again(
    tmp_path: Path,
    probes: list[str],
    sealed_site_config: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache = tmp_path / "cache"
    fresh_level(cache)
    fresh_level(cache)
    assert len(probes) == 1
    sealed_site_config.write_text(sealed_site_config.read_text() + "# changed\n")
    fresh_level(cache)
    assert len(probes) == 2
    other = tmp_path / "other.toml"
    other.write_text(sealed_site_config.read_text())
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(other))  # another config named
    fresh_level(cache)
    assert len(probes) == 3
    switch = tmp_path / "max_user_namespaces"
    switch.write_text("0\n")
    monkeypatch.setattr(level, "KERNEL_SWITCHES", (str(switch),))
    fresh_level(cache)
    fresh_level(cache)
    assert len(probes) == 4
    switch.write_text("63000\n")  # an admin allows user namespaces
    fresh_level(cache)
    assert len(probes) == 5


def test_the_key_follows_the_account_the_interpreter_and_numpy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui_course.sandbox import command

    bwrap = shutil.which("bwrap") or "/bin/sh"
    key = probe_key(bwrap)
    assert key is not None and probe_key(bwrap) == key
    with monkeypatch.context() as patched:
        patched.setattr(os, "geteuid", lambda: 4242)
        assert probe_key(bwrap) != key
    with monkeypatch.context() as patched:
        patched.setattr("sys.version", "3.99.0 (another interpreter)")
        assert probe_key(bwrap) != key
    with monkeypatch.context() as patched:
        other_numpy = tmp_path / "numpy"
        other_numpy.mkdir()
        patched.setattr(command, "numpy_dirs", lambda: [other_numpy])
        assert probe_key(bwrap) != key
    assert probe_key(bwrap) == key


@needs_bwrap
def test_a_damaged_or_foreign_cache_file_is_ignored(tmp_path: Path, probes: list[str]) -> None:
    cache = tmp_path / "cache"
    fresh_level(cache)
    saved = cache / LEVEL_CACHE_NAME
    good = saved.read_bytes()
    count = 1

    def probed_again() -> bool:
        nonlocal count
        report = fresh_level(cache)
        assert report.level is Level.BWRAP
        again, count = len(probes) > count, len(probes)
        return again

    saved.write_bytes(b'{"format": 1, "key": ')  # damaged
    assert probed_again()
    assert saved.read_bytes() == good  # written again, whole
    document = json.loads(good)
    document["key"] = "0" * 64
    saved.write_text(json.dumps(document))  # another machine's, or a guess
    assert probed_again()
    saved.write_bytes(good)
    saved.chmod(0o644)  # others may read it: not ours alone
    assert probed_again()
    saved.write_bytes(good)
    saved.chmod(0o600)
    assert not probed_again()
    saved.write_bytes(good + b" " * 5000)  # larger than any we write
    assert probed_again()
    saved.unlink()
    target = tmp_path / "planted.json"
    target.write_bytes(good)
    target.chmod(0o600)
    saved.symlink_to(target)  # never followed, nor written through
    assert probed_again()
    assert not saved.is_symlink() and target.read_bytes() == good
    saved.unlink()
    os.mkfifo(saved, 0o600)  # a FIFO does not block the check
    assert probed_again()
    saved.unlink()
    if os.geteuid() == 0:
        saved.write_bytes(good)
        saved.chmod(0o600)
        os.chown(saved, 65534, 65534)  # another user's file
        assert probed_again()


@needs_bwrap
def test_a_failed_probe_is_not_remembered(
    tmp_path: Path, probes: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "bin" / "bwrap"
    broken.parent.mkdir(mode=0o755)
    broken.write_text("#!/bin/sh\necho 'no user namespaces here' >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setenv(level.BWRAP_ENV, str(broken))
    cache = tmp_path / "cache"
    report = fresh_level(cache)
    assert report.level is Level.LIMITS and "no user namespaces here" in report.detail
    assert not (cache / LEVEL_CACHE_NAME).exists()
    assert fresh_level(cache).level is Level.LIMITS and len(probes) == 2


def test_a_sandbox_that_did_not_start_forgets_the_remembered_probe(
    tmp_path: Path, attention_question: Question
) -> None:
    cache = tmp_path / "data" / code_check_service.CACHE_FOLDER
    cache.mkdir(parents=True)
    (cache / LEVEL_CACHE_NAME).write_text("{}")
    gone = LevelReport(Level.BWRAP, "bubblewrap (/bin/false)", bwrap="/bin/false")
    with CodeChecker(
        TEST_LIMITS, gone, Level.LIMITS, warm=False, data_dir=tmp_path / "data"
    ) as checker:
        verdict = checker.check(attention_question, SOLUTION)
    assert verdict.outcome is Outcome.UNAVAILABLE
    assert not (cache / LEVEL_CACHE_NAME).exists()


def _same(
    first: dict[str, tuple[CaseResult, ...]], second: dict[str, tuple[CaseResult, ...]]
) -> None:
    assert first.keys() == second.keys()
    for name in first:
        for one, other in zip(first[name], second[name], strict=True):
            assert (one.status, one.mutated, one.detail) == (
                other.status,
                other.mutated,
                other.detail,
            )
            assert len(one.outputs) == len(other.outputs)
            for a, b in zip(one.outputs, other.outputs, strict=True):
                assert type(b) is Packed and a.dtype == b.dtype and a.shape == b.shape
                assert a.values == b.values


def _all_results(expected: code_check_service.Expected) -> dict[str, tuple[CaseResult, ...]]:
    found = {"reference": expected.reference}
    found.update({str(index): results for index, results in expected.variants.items()})
    return found


@pytest.fixture
def no_worker(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts the reference's computations (a sandboxed child each, for module code)."""
    started: list[int] = []
    real = code_check_service._results

    def counted(*args: object, **kwargs: object) -> object:
        started.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(code_check_service, "_results", counted)
    yield started


@needs_bwrap
@pytest.mark.parametrize("seed", [0, 7])
def test_reference_results_are_identical_remembered_or_not(
    tmp_path: Path, attention_question: Question, no_worker: list[int], seed: int
) -> None:
    report = bwrap_report()
    assert report is not None and attention_question.code is not None
    spec = attention_question.code
    computed = compute_expected(spec, seed, TEST_LIMITS, report)
    first = compute_expected(spec, seed, TEST_LIMITS, report, tmp_path)
    remembered = compute_expected(spec, seed, TEST_LIMITS, report, tmp_path)
    assert len(no_worker) == 2  # the third came from the file
    files = list(tmp_path.glob(f"{reference_cache.PREFIX}*"))
    assert len(files) == 1 and files[0].stat().st_mode & 0o777 == 0o600
    for other in (first, remembered):
        _same(_all_results(computed), _all_results(other))
        for case, again in zip(computed.inputs, other.inputs, strict=True):
            for arg, same in zip(case, again, strict=True):
                assert np.array_equal(as_array(arg), as_array(same))
    with CodeChecker(TEST_LIMITS, report, Level.LIMITS, warm=False) as checker:
        fresh = checker.check(attention_question, SOLUTION, seed)
    with CodeChecker(
        TEST_LIMITS, report, Level.LIMITS, warm=False, data_dir=tmp_path / "d"
    ) as checker:
        checker.check(attention_question, SOLUTION, seed)  # files them
    with CodeChecker(
        TEST_LIMITS, report, Level.LIMITS, warm=False, data_dir=tmp_path / "d"
    ) as checker:
        cached = checker.check(attention_question, SOLUTION, seed)
    assert fresh.outcome is cached.outcome is Outcome.PASSED
    assert (fresh.message, fresh.cases_failed) == (cached.message, cached.cases_failed)


@needs_bwrap
def test_a_damaged_reference_file_is_computed_again(
    tmp_path: Path, attention_question: Question, no_worker: list[int]
) -> None:
    report = bwrap_report()
    assert report is not None and attention_question.code is not None
    spec = attention_question.code
    computed = compute_expected(spec, 0, TEST_LIMITS, report, tmp_path)
    (saved,) = tmp_path.glob(f"{reference_cache.PREFIX}*")
    good = saved.read_bytes()
    damages = [
        good[: len(good) // 2],  # cut
        good + b"\x00\x00\x00\x01x",  # a frame more than the results
        good.replace(b"<f8", b"|O8", 1),  # an array of objects
        good.replace(b"<f8", b"<f4", 1),  # a header promising other bytes than follow
        b"not ours at all",
    ]
    count = 1
    for damaged in damages:
        saved.write_bytes(damaged)
        again = compute_expected(spec, 0, TEST_LIMITS, report, tmp_path)
        _same(_all_results(computed), _all_results(again))
        assert len(no_worker) == count + 1, damaged[:40]
        count += 1
        saved.write_bytes(good)
    saved.chmod(0o640)  # others may read it
    compute_expected(spec, 0, TEST_LIMITS, report, tmp_path)
    assert len(no_worker) == count + 1


@needs_bwrap
def test_a_changed_reference_module_is_computed_again(tmp_path: Path, no_worker: list[int]) -> None:
    course = tmp_path / "course"
    (course / "quizzes").mkdir(parents=True)
    shutil.copy(CODE_QUIZ, course / "quizzes" / CODE_QUIZ.name)
    module = REPO / "quizzes" / "code_exercises.py"
    shutil.copy(module, course / "quizzes" / module.name)
    report = bwrap_report()
    question = load_quiz(course / "quizzes" / CODE_QUIZ.name, course).questions[0]
    assert question.code is not None
    compute_expected(question.code, 0, TEST_LIMITS, report, tmp_path / "cache")
    compute_expected(question.code, 0, TEST_LIMITS, report, tmp_path / "cache")
    assert len(no_worker) == 1
    copied = course / "quizzes" / module.name
    copied.write_text(copied.read_text() + "\n# edited by the teacher\n")
    compute_expected(question.code, 0, TEST_LIMITS, report, tmp_path / "cache")
    assert len(no_worker) == 2


def test_without_bwrap_no_reference_results_are_filed(
    tmp_path: Path, attention_question: Question
) -> None:
    """Without namespaces student code runs as this user: a file it could write is never
    believed, so none is written."""
    data = tmp_path / "data"
    with CodeChecker(TEST_LIMITS, LIMITS_ONLY, Level.LIMITS, warm=False, data_dir=data) as checker:
        assert checker.check(attention_question, SOLUTION).passed
        assert data in checker.hidden
    assert not list(data.glob(f"**/{reference_cache.PREFIX}*"))


def test_a_save_wakes_the_watch_at_once(tmp_path: Path) -> None:
    mine = tmp_path / "mine.py"
    mine.write_text("x = 1\n")
    with FileWatch(mine) as watch:
        if not watch.woken_by_kernel:
            pytest.skip("no inotify here: --watch polls")
        assert not watch.wait(0)  # nothing yet
        saved = tmp_path / ".mine.py.swp"
        saved.write_text("x = 2\n")
        saved.replace(mine)  # an editor's save: a new file renamed over the old
        assert watch.wait(60)
        mine.write_text("x = 3\n")  # written in place
        assert watch.wait(60)


def _ready_or_gone(worker: object) -> bool:
    """Whether a worker's child has said it is ready and still runs (True), or ended first
    (False); its ready frame is left in the pipe for the check that takes it."""
    import fcntl
    import select
    import struct
    import termios

    result_fd = worker._result  # type: ignore[attr-defined]
    readable, _, _ = select.select([result_fd], [], [], 60)
    waiting = fcntl.ioctl(result_fd, termios.FIONREAD, struct.pack("i", 0))
    sent = struct.unpack("i", waiting)[0] > 0  # readable with nothing to read: the end
    return bool(readable) and sent and worker.process.poll() is None  # type: ignore[attr-defined]


@needs_bwrap
def test_the_next_checks_worker_outlives_the_thread_that_checked(
    tmp_path: Path, attention_question: Question
) -> None:
    """The app checks from short-lived threads; bwrap's --die-with-parent follows the thread
    that started it, so a spare started by such a thread was killed as it ended and every
    check after the first paid a whole sandbox start."""
    import threading

    verdicts: list[object] = []
    with CodeChecker(TEST_LIMITS, WORKING, Level.LIMITS, warm=True) as checker:
        for _ in range(2):
            thread = threading.Thread(
                target=lambda: verdicts.append(checker.check(attention_question, SOLUTION))
            )
            thread.start()
            thread.join()
            assert getattr(verdicts[-1], "passed", False), verdicts
            with checker._lock:
                checker._spare_changed.wait_for(lambda: checker._spare is not None, 60)
                spare = checker._spare
            assert spare is not None and _ready_or_gone(spare)
