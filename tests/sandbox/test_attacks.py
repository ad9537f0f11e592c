"""Hostile student code: each attack gets a named outcome and the machine keeps what it had.

Run on the real bwrap and on rlimits alone (bwrap made unavailable), with small limits.
"""

from __future__ import annotations

import os
import socket
import uuid
from pathlib import Path

import pytest

from tests.sandbox.conftest import CODE_QUIZ, level_params
from tui_course.codecheck.service import CodeChecker
from tui_course.content.code_check import Outcome
from tui_course.content.models import Question
from tui_course.render.code import verdict_text
from tui_course.sandbox.level import Level, LevelReport
from tui_course.sandbox.limits import TEST_LIMITS

GOOD = """import numpy as np

def attention_weights(Q, K):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""


def body(lines: str) -> str:
    """A student file whose attention_weights runs `lines` first, then returns the right answer."""
    indented = "\n".join("    " + line for line in lines.strip().splitlines())
    return (
        "import numpy as np\nimport os, sys\n\ndef attention_weights(Q, K):\n"
        f"{indented}\n"
        "    s = Q @ K.T / np.sqrt(Q.shape[-1])\n"
        "    e = np.exp(s - s.max(axis=-1, keepdims=True))\n"
        "    return e / e.sum(axis=-1, keepdims=True)\n"
    )


def test_a_correct_solution_passes(checker: CodeChecker, attention_question: Question) -> None:
    verdict = checker.check(attention_question, GOOD)
    assert verdict.outcome is Outcome.PASSED, verdict.message
    assert verdict.level is checker.level


def test_a_loop_forever_is_stopped_by_the_clock(
    checker: CodeChecker, attention_question: Question
) -> None:
    verdict = checker.check(attention_question, body("while True:\n    pass"))
    assert verdict.outcome is Outcome.TIME_LIMIT
    assert "stopped after" in verdict.message


def test_forking_without_end_is_refused(checker: CodeChecker, attention_question: Question) -> None:
    import platform

    if platform.machine() not in ("x86_64", "aarch64"):  # no seccomp filter: a real fork bomb
        pytest.skip("the seccomp filter covers x86_64 and aarch64 only")
    verdict = checker.check(attention_question, body("while True:\n    os.fork()"))
    assert verdict.outcome is Outcome.ERROR
    assert "PermissionError" in verdict.message


def test_a_setsid_daemon_cannot_outlive_the_check(
    checker: CodeChecker, attention_question: Question
) -> None:
    mark = uuid.uuid4().hex
    code = body(
        f"import subprocess\nsubprocess.Popen(['sleep', '60', '{mark}'], start_new_session=True)"
    )
    verdict = checker.check(attention_question, code)
    assert verdict.outcome is Outcome.ERROR  # spawning is refused
    assert not _processes_with(mark)


def _processes_with(mark: str) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if mark.encode() in Path(f"/proc/{entry.name}/cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_allocating_10_gb_is_a_memory_limit(
    checker: CodeChecker, attention_question: Question
) -> None:
    verdict = checker.check(attention_question, body("big = np.ones(10 * 1024**3 // 8)"))
    assert verdict.outcome is Outcome.MEMORY_LIMIT


def test_writing_a_10_gb_file_is_stopped(
    checker: CodeChecker, attention_question: Question, tmp_path: Path
) -> None:
    code = body(
        "with open('big.bin', 'wb') as f:\n"
        "    for _ in range(10 * 1024):\n"
        "        f.write(b'x' * 1024 * 1024)"
    )
    verdict = checker.check(attention_question, code)
    # the file-size limit: SIGXFSZ, or (with the signal ignored) an OSError the student sees;
    # without bwrap, Landlock refuses to create the file at all
    assert verdict.outcome in (Outcome.CRASHED, Outcome.ERROR)
    assert "file" in verdict.message.lower() or "Permission denied: 'big.bin'" in verdict.message


def test_printing_100_mb_is_capped(checker: CodeChecker, attention_question: Question) -> None:
    code = body("sys.stdout.write('y' * (100 * 1024 * 1024))\nsys.stdout.flush()")
    verdict = checker.check(attention_question, code)
    # passed (all of it drained, the rest cut) or stopped by a limit on a loaded machine
    named = (Outcome.PASSED, Outcome.TIME_LIMIT, Outcome.MEMORY_LIMIT)
    assert verdict.outcome in named, verdict
    assert len(verdict.stdout) <= checker.limits.output_bytes
    assert verdict.output_truncated


def test_escape_codes_in_output_never_reach_the_terminal(
    checker: CodeChecker, attention_question: Question
) -> None:
    code = body(r"print('\x1b]52;c;c2VjcmV0\x07\x1b]0;pwned\x07\x1b[2J visible')")
    verdict = checker.check(attention_question, code)
    assert verdict.outcome is Outcome.PASSED
    text = verdict_text(verdict)
    assert "visible" in text
    assert "\x1b" not in text and "\x07" not in text


def test_sys_exit_before_returning_is_an_error(
    checker: CodeChecker, attention_question: Question
) -> None:
    verdict = checker.check(attention_question, body("sys.exit(0)"))
    assert verdict.outcome is Outcome.ERROR
    assert "sys.exit" in verdict.message
    verdict = checker.check(attention_question, body("os._exit(0)"))
    assert verdict.outcome is Outcome.CRASHED


def test_a_nul_byte_in_the_code_is_a_syntax_error_on_its_line(
    checker: CodeChecker, attention_question: Question
) -> None:
    """Debian's Python 3.11.2 raises ValueError for a NUL in source (3.11.7 a SyntaxError
    with no line): it showed the harness's own traceback as a crash."""
    code = "import numpy as np\nx = 1\0\ndef attention_weights(Q, K):\n    return Q\n"
    verdict = checker.check(attention_question, code)
    assert verdict.outcome is Outcome.ERROR, verdict.message
    assert verdict.stage == "syntax", verdict
    assert "line 2" in verdict.message and "None" not in verdict.message
    assert "harness" not in verdict.message + verdict.stderr


def test_a_segfault_through_ctypes_is_a_crash(
    checker: CodeChecker, attention_question: Question
) -> None:
    verdict = checker.check(attention_question, body("import ctypes\nctypes.string_at(0)"))
    assert verdict.outcome is Outcome.CRASHED
    assert "SIGSEGV" in verdict.message


def test_killing_its_parent_leaves_the_checker_alive(
    checker: CodeChecker, attention_question: Question
) -> None:
    me = os.getpid()
    for target in (str(me), "-1", "-os.getpgid(0)", "os.getppid() or 2"):
        verdict = checker.check(attention_question, body(f"os.kill({target}, 9)"))
        assert os.getpid() == me  # still here to read the verdict
        # signals reach this process only: its parent, our pid, every process (-1) and its
        # own group are all refused by the system-call filter
        assert verdict.outcome is Outcome.ERROR, (target, verdict)
        assert "PermissionError" in verdict.message


def test_a_huge_result_is_refused(checker: CodeChecker, attention_question: Question) -> None:
    code = "import numpy as np\ndef attention_weights(Q, K):\n    return np.zeros((4096, 4096))\n"
    verdict = checker.check(attention_question, code)
    assert verdict.outcome is Outcome.FAILED
    assert "too large" in verdict.message


@pytest.mark.parametrize(
    ("returned", "words"),
    [
        ("[[0.5, 0.5]]", "returned list"),
        ("None", "returns None"),
        ("type('Liar', (), {'__eq__': lambda s, o: True, 'shape': (3, 5)})()", "returned Liar"),
        ("np.array([['a']])", "not a NumPy array"),
    ],
)
def test_what_is_not_an_array_of_numbers_never_passes(
    checker: CodeChecker, attention_question: Question, returned: str, words: str
) -> None:
    code = f"import numpy as np\ndef attention_weights(Q, K):\n    return {returned}\n"
    verdict = checker.check(attention_question, code)
    assert verdict.outcome is Outcome.FAILED
    assert words in verdict.message


def test_nan_fails_the_finite_property(checker: CodeChecker, attention_question: Question) -> None:
    code = (
        "import numpy as np\ndef attention_weights(Q, K):\n"
        "    return np.full((Q.shape[0], K.shape[0]), np.nan)\n"
    )
    verdict = checker.check(attention_question, code)
    assert verdict.outcome is Outcome.FAILED
    assert verdict.stage == "property" and "nan" in verdict.message


def test_changing_the_inputs_in_place_is_named(
    checker: CodeChecker, attention_question: Question
) -> None:
    code = GOOD.replace("    return e /", "    Q[...] = 0.0\n    return e /")
    verdict = checker.check(attention_question, code)
    assert verdict.outcome is Outcome.FAILED
    assert verdict.stage == "mutated" and "Q" in verdict.message


@pytest.mark.parametrize(
    "reach",
    [
        # the judge's copies, if it kept any in the child, are its caller's locals
        'sys._getframe(1).f_locals.get("copies", [Q])[0][...] = 0.0',
        # every list and ndarray the harness holds, found through the collector
        "[o.__setitem__(Ellipsis, 0.0) for o in gc.get_objects()"
        " if type(o) is np.ndarray and o is not Q and o.shape == Q.shape]",
        # the caller's argument list: swap Q for an untouched copy after changing it
        'args = sys._getframe(1).f_locals.get("args")\n'
        "    if isinstance(args, list): args[0] = Q.copy()",
    ],
    ids=["caller's copies", "every array in the process", "caller's arguments"],
)
def test_a_mutation_is_caught_whatever_the_code_reaches_in_its_own_process(
    checker: CodeChecker, attention_question: Question, reach: str
) -> None:
    """The inputs as sent are kept by the parent: what student code finds in the child
    (frames, the collector, the caller's locals) cannot make a changed input look
    unchanged."""
    code = "import gc, sys\n" + GOOD.replace(
        "    return e /", f"    {reach}\n    Q[...] = 0.0\n    return e /"
    )
    verdict = checker.check(attention_question, code)
    assert verdict.outcome is Outcome.FAILED, verdict.message
    assert verdict.stage == "mutated" and "Q" in verdict.message


@pytest.mark.parametrize("report", level_params())
def test_each_entry_gets_the_inputs_as_sent(report: LevelReport) -> None:
    """Several entries in one job (validate's library of mistakes): one that changes
    its inputs in place does not hand the change to the next."""
    import numpy as np

    from tui_course.sandbox.runner import run_code

    code = (
        "def spoil(Q):\n    Q[...] = 7.0\n    return Q.sum()\ndef total(Q):\n    return Q.sum()\n"
    )
    result = run_code(code, ["spoil", "total"], [[np.ones(3)]], TEST_LIMITS, report)
    assert result.status == "ok", result.detail
    spoiled, total = result.entries
    assert float(spoiled[0].outputs[0].array()) == 21.0 and spoiled[0].mutated == (0,)
    assert float(total[0].outputs[0].array()) == 3.0 and total[0].mutated == ()


def test_tui_course_cannot_be_imported(checker: CodeChecker, attention_question: Question) -> None:
    verdict = checker.check(attention_question, "import tui_course\n" + GOOD)
    assert verdict.outcome is Outcome.ERROR
    assert "Only NumPy" in verdict.message


def test_bwrap_hides_files_home_and_network(
    attention_question: Question, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.sandbox.conftest import bwrap_report
    from tui_course.sandbox.limits import TEST_LIMITS

    report = bwrap_report()
    if report is None:
        pytest.skip("no bwrap")
    home = tmp_path / "home"
    home.mkdir()
    secret = home / "progress.db"
    secret.write_bytes(b"SQLite format 3\0 saved answers")
    monkeypatch.setenv("HOME", str(home))
    with CodeChecker(TEST_LIMITS, report, minimum=Level.BWRAP, warm=False) as checker:
        for attack in (
            f"open({str(secret)!r}, 'rb').read()",
            f"open({str(secret)!r}, 'wb').write(b'')",
            f"os.remove({str(secret)!r})",
            "open('/etc/passwd').read()",
            f"open({str(CODE_QUIZ.with_name('code_exercises.py'))!r}).read()",  # the references
            "os.listdir('/home')",
            f"os.listdir({str(Path.home())!r})",
        ):
            verdict = checker.check(attention_question, body(attack))
            assert verdict.outcome is Outcome.ERROR, attack
            assert "FileNotFoundError" in verdict.message or "Error" in verdict.message
        connect = "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=1)"
        verdict = checker.check(attention_question, body(connect))
        assert verdict.outcome is Outcome.ERROR
        assert "PermissionError" in verdict.message  # no socket can even be made
    assert secret.read_bytes() == b"SQLite format 3\0 saved answers"


def test_an_unusable_bwrap_falls_back_to_limits_with_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tui_course.sandbox.level import BWRAP_ENV, forget_probe, sandbox_level

    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv(BWRAP_ENV, str(fake))
    forget_probe()
    try:
        report = sandbox_level()
        assert report.level is Level.LIMITS
        assert "Permission denied" in report.detail
        assert report.warning is not None and "\n" not in report.warning
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))
        monkeypatch.delenv(BWRAP_ENV)
        forget_probe()
        report = sandbox_level()
        assert report.level is Level.LIMITS and "not installed" in report.detail
        assert "apt-get install bubblewrap" in report.fix
    finally:
        forget_probe()


def test_a_class_server_refuses_to_run_code_without_bwrap(
    attention_question: Question,
) -> None:
    from tests.sandbox.conftest import LIMITS_ONLY
    from tui_course.sandbox.limits import TEST_LIMITS

    with CodeChecker(TEST_LIMITS, LIMITS_ONLY, minimum=Level.BWRAP, warm=False) as checker:
        verdict = checker.check(attention_question, GOOD)
    assert verdict.outcome is Outcome.UNAVAILABLE
    assert "bubblewrap" in verdict.message


def test_sockets_are_not_reachable_even_locally(
    checker: CodeChecker, attention_question: Question
) -> None:
    """bwrap has no network namespace to reach; without bwrap the filter refuses the socket
    itself, so a local service (a lab server's database, another student's notebook) is out
    of reach at both levels."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    try:
        code = body(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1)")
        verdict = checker.check(attention_question, code)
        assert verdict.outcome is Outcome.ERROR
        # refused by the filter; or, for root's checks without bwrap under an interpreter
        # in root's home, not even importable by nobody
        assert "PermissionError" in verdict.message or "No module named 'socket'" in verdict.message
        server.settimeout(0)
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing ever connected
    finally:
        server.close()


def test_nothing_is_left_running_after_a_check(
    checker: CodeChecker, attention_question: Question
) -> None:
    children_before = _children()
    checker.check(attention_question, GOOD)
    assert _children() <= children_before


def _children() -> set[int]:
    me = str(os.getpid())
    found = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                fields = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me:
                found.add(int(entry.name))
    return found


def test_flooding_the_result_channel_is_cut_off(
    checker: CodeChecker, attention_question: Question
) -> None:
    code = body(
        "import struct\nframe = struct.pack('>I', 1 << 20) + b'x' * (1 << 20)\n"
        "while True:\n    os.write(int(sys.argv[2]), frame)"
    )
    verdict = checker.check(attention_question, code)
    assert verdict.outcome is Outcome.CRASHED
    assert "could not read what your code sent back" in verdict.message


def test_a_sandbox_that_cannot_start_is_named(attention_question: Question) -> None:
    from tui_course.sandbox.level import LevelReport
    from tui_course.sandbox.limits import TEST_LIMITS

    broken = LevelReport(Level.BWRAP, "a bwrap that fails", bwrap="/bin/false")
    with CodeChecker(TEST_LIMITS, broken, minimum=Level.BWRAP, warm=False) as checker:
        verdict = checker.check(attention_question, GOOD)
    assert verdict.outcome is Outcome.UNAVAILABLE
    assert "the sandbox did not start" in verdict.message


def test_the_data_folder_is_hidden_even_under_a_system_bind(tmp_path: Path) -> None:
    """A data folder that happens to sit inside a bound tree (here the interpreter's own
    prefix, which the sandbox must bind) is covered by an empty tmpfs."""
    import sys

    from tests.sandbox.conftest import bwrap_report
    from tui_course.sandbox.command import bwrap_command
    from tui_course.sandbox.limits import Limits

    report = bwrap_report()
    if report is None or report.bwrap is None:
        pytest.skip("no bwrap")
    inside = Path(sys.base_prefix).resolve() / "include"  # stands in for a data folder there
    if not inside.is_dir():
        pytest.skip("no include folder to stand in")
    argv = bwrap_command(report.bwrap, [], Limits(), hidden=[inside, Path("/usr")]).argv
    at = argv.index(str(inside))
    assert argv[at - 1 : at + 1] == ["--tmpfs", str(inside)]
    assert "/usr" not in [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs"]


def test_closing_every_pipe_then_looping_is_still_a_time_limit(
    checker: CodeChecker, attention_question: Question
) -> None:
    code = body("for fd in (0, 1, 2, int(sys.argv[2])):\n    os.close(fd)\nwhile True:\n    pass")
    verdict = checker.check(attention_question, code)
    assert verdict.outcome is Outcome.TIME_LIMIT
