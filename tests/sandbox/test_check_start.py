"""How `attn-tui check` starts its sandbox (issue 30): the first worker from the command's
own thread before anything else loads, and root's harness importing ahead only what
`nobody` could not import later. Neither weakens a wall: the same command line, the same
limits, the same account."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from tests.sandbox.conftest import ATTENTION_SOLUTION, bwrap_report
from tui_course.codecheck import service as code_check_service
from tui_course.codecheck.service import CodeChecker
from tui_course.content.code_check import Outcome
from tui_course.content.models import Question
from tui_course.sandbox import command
from tui_course.sandbox.command import Account, harness_args, library_open_to_all
from tui_course.sandbox.level import Level, LevelReport
from tui_course.sandbox.limits import TEST_LIMITS
from tui_course.sandbox.runner import Worker

SOLUTION = ATTENTION_SOLUTION
WORKING = bwrap_report()


class _Started(list[tuple[str, int]]):
    """Each worker made: the name of the thread that made it, and its child's pid."""


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> _Started:
    made = _Started()

    class CountedWorker(Worker):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            pid = self.process.pid if self.process is not None else -1
            made.append((threading.current_thread().name, pid))

    monkeypatch.setattr(code_check_service, "Worker", CountedWorker)
    return made


@pytest.mark.parametrize("report", [WORKING], ids=["bwrap"])
@pytest.mark.skipif(WORKING is None, reason="no working bwrap here")
def test_a_commands_first_worker_is_started_by_its_own_thread_before_the_checker_returns(
    report: LevelReport, started: _Started, attention_question: Question, tmp_path: Path
) -> None:
    """`start_here`: the child is running when the constructor returns, started by the
    caller's thread (no starter thread sharing the interpreter with the caller's imports),
    and the check then uses that very child: one sandbox for one check."""
    me = threading.current_thread().name
    with CodeChecker(
        TEST_LIMITS, report, Level.LIMITS, warm=False, data_dir=tmp_path, start_here=True
    ) as checker:
        assert [name for name, _ in started] == [me]
        pid = started[0][1]
        assert pid > 0 and os.path.exists(f"/proc/{pid}")  # running before any check
        assert not [t for t in threading.enumerate() if t.name == "attn-tui-sandbox-starter"]
        checker.expected(attention_question)  # the reference's own worker, ended already
        assert len(started) == 2
        verdict = checker.check(attention_question, SOLUTION)
    assert verdict.outcome is Outcome.PASSED, verdict
    assert len(started) == 2  # the student's code ran in the first child: none started


@pytest.mark.parametrize("report", [WORKING], ids=["bwrap"])
@pytest.mark.skipif(WORKING is None, reason="no working bwrap here")
def test_without_start_here_the_starter_thread_makes_every_worker(
    report: LevelReport, started: _Started, attention_question: Question
) -> None:
    """The app's checker (made on the UI's thread) keeps starting workers on the thread
    that lives as long as the checker."""
    me = threading.current_thread().name
    with CodeChecker(TEST_LIMITS, report, Level.LIMITS, warm=True) as checker:
        checker.expected(attention_question)  # the reference's worker: made by the caller
        verdict = checker.check(attention_question, SOLUTION)
        assert verdict.outcome is Outcome.PASSED, verdict
    # one reference worker by the caller; the student's, and the spare asked for after
    # the check when it was made before the close, by the starter
    students = [name for name, _ in started if name != me]
    assert len(started) - len(students) == 1
    assert students and set(students) == {"attn-tui-sandbox-starter"}


def test_the_preload_is_asked_only_for_an_account_the_harness_becomes() -> None:
    nobody = Account(65534, 65534, "nobody")
    plain = json.loads(harness_args(3, 4, "/tmp/work", TEST_LIMITS, nobody, preload=True)[3])
    assert "preload" not in plain and "run_as" not in plain
    dropped = json.loads(
        harness_args(3, 4, "/tmp/work", TEST_LIMITS, nobody, nobody, preload=True)[3]
    )
    assert dropped["run_as"] == [65534, 65534] and dropped["preload"] is True
    without = json.loads(harness_args(3, 4, "/tmp/work", TEST_LIMITS, nobody, nobody)[3])
    assert "preload" not in without


def test_a_library_folder_others_cannot_read_asks_for_the_preload(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under bwrap root's harness skips the preload only where every folder of the
    interpreter others must pass through is o+rx; one closed folder and it imports ahead
    (else nobody would fail to import `statistics` mid-check)."""
    if not library_open_to_all():
        pytest.skip("this interpreter's own library is not open to all")
    binary_dir = tmp_path / "bin"
    binary_dir.mkdir(mode=0o755)
    binary_dir.chmod(0o755)
    monkeypatch.setattr(command, "python_binary", lambda: str(binary_dir / "python3"))
    assert library_open_to_all()
    binary_dir.chmod(0o750)
    assert not library_open_to_all()
    binary_dir.chmod(0o711)
    assert not library_open_to_all()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root's checks become another account")
@pytest.mark.skipif(WORKING is None, reason="no working bwrap here")
def test_roots_harness_under_bwrap_preloads_only_when_the_library_is_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the harness is told, read from the command line each worker really starts."""
    assert WORKING is not None

    def settings_of_a_worker() -> dict[str, object]:
        worker = Worker(TEST_LIMITS, WORKING)
        try:
            assert worker.process is not None
            argv = worker.process.args
            assert isinstance(argv, list)
            script = len(argv) - 1 - argv[::-1].index("/sandbox/harness.py")
            found: dict[str, object] = json.loads(argv[script + 4])
            return found
        finally:
            worker.close()

    monkeypatch.setattr("tui_course.sandbox.runner.library_open_to_all", lambda: True)
    assert "preload" not in settings_of_a_worker()
    monkeypatch.setattr("tui_course.sandbox.runner.library_open_to_all", lambda: False)
    assert settings_of_a_worker()["preload"] is True


@pytest.mark.parametrize("report", [WORKING], ids=["bwrap"])
@pytest.mark.skipif(WORKING is None, reason="no working bwrap here")
def test_on_wait_is_called_once_after_the_reference_and_before_the_verdict(
    report: LevelReport, attention_question: Question, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command loads what recording needs when the checking thread starts waiting
    for the child: after the trusted results exist (not competing with that work), once,
    on the checking thread, before the verdict."""
    events: list[str] = []
    real_expected = CodeChecker.expected

    def expected(self: CodeChecker, *args: object, **kwargs: object) -> object:
        found = real_expected(self, *args, **kwargs)  # type: ignore[arg-type]
        events.append("expected")
        return found

    monkeypatch.setattr(CodeChecker, "expected", expected)
    me = threading.current_thread()

    def on_wait() -> None:
        assert threading.current_thread() is me
        events.append("wait")

    with CodeChecker(TEST_LIMITS, report, Level.LIMITS, warm=False, start_here=True) as checker:
        verdict = checker.check(attention_question, SOLUTION, on_wait=on_wait)
        events.append("verdict")
    assert verdict.outcome is Outcome.PASSED, verdict
    assert events == ["expected", "wait", "verdict"]


def test_a_check_leaves_collection_on_with_what_it_loaded_frozen(tmp_path: Path) -> None:
    """The command turns the cyclic collector off while it runs and freezes what it
    loaded at the end (the interpreter's last collections at exit skip it): whoever called
    it, a test here, gets collection back on, and a check that fails does too."""
    import gc

    from tui_course.cli import main

    solution = tmp_path / "mine.py"
    solution.write_text(SOLUTION, encoding="utf-8")
    gc.unfreeze()
    data = str(tmp_path / "data")
    assert main(["check", "code/1", str(solution), "--data-dir", data]) == 0
    assert gc.isenabled() and gc.get_freeze_count() > 0
    gc.unfreeze()
    solution.write_text(SOLUTION.replace("/ np.sqrt(Q.shape[-1])", ""), encoding="utf-8")
    assert main(["check", "code/1", str(solution), "--data-dir", data]) == 1
    assert gc.isenabled() and gc.get_freeze_count() > 0
    gc.unfreeze()


# `attn-tui check`, then whether its own process loaded NumPy
CHECK_AND_SAY = """
import sys
from tui_course.cli import main
status = main(sys.argv[1:])
print("numpy" in sys.modules, status)
"""


@pytest.mark.skipif(
    WORKING is None, reason="no working bwrap here (inputs are remembered under it)"
)
def test_a_remembered_check_that_passes_loads_no_numpy_in_the_commands_process(
    tmp_path: Path,
) -> None:
    """The first check builds the inputs (NumPy) and remembers them with the reference's
    results; the next that passes reads both as bytes and is judged in plain Python. One
    that fails loads NumPy for its diff."""
    import subprocess
    import sys

    solution = tmp_path / "mine.py"
    solution.write_text(SOLUTION, encoding="utf-8")
    argv = ["check", "code/1", str(solution), "--data-dir", str(tmp_path / "data")]

    def check() -> str:
        command = [sys.executable, "-c", CHECK_AND_SAY, *argv]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
        return done.stdout.strip().splitlines()[-1]

    assert check() == "True 0"  # the first: inputs built, reference run and remembered
    assert check() == "False 0"
    solution.write_text(SOLUTION.replace("/ np.sqrt(Q.shape[-1])", ""), encoding="utf-8")
    assert check() == "True 1"


@pytest.mark.parametrize("report", [WORKING], ids=["bwrap"])
@pytest.mark.skipif(WORKING is None, reason="no working bwrap here")
def test_student_code_runs_with_collection_on_and_numpy_frozen_out_of_it(
    report: LevelReport, attention_question: Question
) -> None:
    """The harness imports NumPy with the collector off, then freezes it and turns the
    collector on before student code: a cycle student code makes is still collected."""
    code = (
        "import gc\n"
        "print('enabled', gc.isenabled())\n"
        "print('frozen', gc.get_freeze_count() > 0)\n"
        "class Node:\n"
        "    pass\n"
        "a, b = Node(), Node()\n"
        "a.other, b.other = b, a\n"
        "del a, b\n"
        "print('collected', gc.collect() >= 2)\n" + SOLUTION
    )
    with CodeChecker(TEST_LIMITS, report, Level.LIMITS, warm=False) as checker:
        verdict = checker.check(attention_question, code)
    assert verdict.outcome is Outcome.PASSED, verdict
    said = dict(line.split(" ", 1) for line in verdict.stdout.splitlines())
    assert said == {"enabled": "True", "frozen": "True", "collected": "True"}


def test_is_inside_says_what_the_parents_of_a_path_say() -> None:
    """bwrap_command's test of which folders lie under a bind, by parts: the same answers
    as comparing with every parent, for the same and nested folders, look-alike prefixes
    and the root."""
    paths = [
        Path(text)
        for text in (
            "/",
            "/usr",
            "/usr/lib",
            "/usr/lib/python3/dist-packages",
            "/usr/libexec",
            "/root/.pyenv/versions/3.11.7",
            "/root/.pyenv/versions/3.11.7/lib/python3.11",
            "/root/.pyenv/versions/3.11",
            "/home/s1",
            "/home/s10/.local",
            "/tmp/work",
        )
    ]
    for path in paths:
        for root in paths:
            expected = path == root or root in path.parents
            assert command.is_inside(path, [root]) is expected, (path, root)
        assert command.is_inside(path, paths) is True
        assert command.is_inside(path, []) is False
