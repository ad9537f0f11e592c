"""The sandbox's own walls, attacked by student code at both levels: who it runs as, the
system-call filter, the namespace's pid 1, every writable place, the reference's worker,
the site's rule. Each attack prints what it managed; the test reads that back.

Run as whoever runs the suite (root in CI); test_as_a_plain_user.py runs this file again
as an unprivileged account.
"""

from __future__ import annotations

import os
import platform
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sandbox.conftest import LIMITS_ONLY, REPO, bwrap_report
from tests.sandbox.test_attacks import body
from tui_course.codecheck.service import CodeChecker, refusal, required_level
from tui_course.content.code_check import Outcome
from tui_course.content.models import Question
from tui_course.sandbox.level import Level, find_bwrap
from tui_course.sandbox.limits import TEST_LIMITS

X86_64 = platform.machine() == "x86_64"


def said(checker: CodeChecker, question: Question, lines: str) -> tuple[Outcome, dict[str, str]]:
    """Run `lines` as student code; every `print('key', value)` it made, as a table."""
    verdict = checker.check(question, body(lines))
    found: dict[str, str] = {}
    for line in verdict.stdout.splitlines():
        key, _, value = line.partition(" ")
        found.setdefault(key, value)
    return verdict.outcome, found


def test_student_code_is_never_root_nor_holds_a_capability(
    checker: CodeChecker, attention_question: Question
) -> None:
    burst = Path("/proc/sys/kernel/printk_ratelimit_burst")
    before = burst.read_text() if burst.exists() else None
    outcome, found = said(
        checker,
        attention_question,
        """
print('uid', os.getuid(), os.geteuid())
try:
    with open('/proc/self/status') as status:
        print('caps', [l.split()[1] for l in status if l.startswith('CapEff')][0])
except OSError as error:
    print('caps', 'unreadable')
for name in ('printk_ratelimit_burst', 'core_pattern'):
    try:
        os.close(os.open('/proc/sys/kernel/' + name, os.O_WRONLY))
        print(name, 'writable')
    except OSError as error:
        print(name, type(error).__name__)
try:
    os.setuid(0)
    print('setuid', 'worked')
except OSError as error:
    print('setuid', type(error).__name__)
""",
    )
    assert outcome is Outcome.PASSED, found
    uid, euid = (int(part) for part in found["uid"].split())
    assert uid != 0 and euid != 0
    if checker.level is Level.BWRAP:
        assert uid == 65534  # nobody, inside its own user namespace or for real
    assert found["caps"] in ("0000000000000000", "unreadable")
    assert found["printk_ratelimit_burst"] != "writable"
    assert found["core_pattern"] != "writable"
    assert found["setuid"] != "worked"
    if before is not None:
        assert burst.read_text() == before


def test_the_level_report_says_who_student_code_runs_as() -> None:
    report = bwrap_report()
    if report is None:
        pytest.skip("no bwrap")
    expected = "nobody" if os.geteuid() == 0 else None
    if expected:
        assert report.runs_as.startswith("nobody (uid ")
    else:
        assert f"(uid {os.geteuid()})" in report.runs_as


I386_GETPID = "b'\\xb8\\x14\\x00\\x00\\x00\\xcd\\x80\\xc3'"  # mov eax, 20; int 0x80; ret


@pytest.mark.skipif(not X86_64, reason="i386 and x32 system calls exist on x86_64 only")
@pytest.mark.parametrize(
    "attack",
    [
        pytest.param(
            "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.mmap.restype = ctypes.c_void_p\n"
            "page = libc.mmap(None, 4096, 7, 0x22, -1, 0)\n"
            f"ctypes.memmove(page, {I386_GETPID}, 8)\n"
            "print('i386', ctypes.CFUNCTYPE(ctypes.c_int)(page)())",
            id="i386-int-0x80",
        ),
        pytest.param(
            "import ctypes\nprint('x32', ctypes.CDLL(None).syscall(0x40000000 + 39))",
            id="x32",
        ),
    ],
)
def test_a_foreign_system_call_abi_kills_the_process(
    checker: CodeChecker, attention_question: Question, attack: str
) -> None:
    verdict = checker.check(attention_question, body(attack))
    assert verdict.outcome is Outcome.CRASHED, verdict
    assert "SIGSYS" in verdict.message
    assert "i386" not in verdict.stdout and "x32" not in verdict.stdout  # it never returned


REFUSED_X86_64 = {
    "fork": (57,),
    "clone": (56, 0x11, 0, 0, 0, 0),  # SIGCHLD | CLONE_VM
    "ptrace_attach_pid_1": (101, 16, 1, 0, 0),
    "process_vm_readv": (310, 1, 0, 0, 0, 0, 0),
    "io_uring_setup": (425, 8, 0),
    "unshare": (272, 0x10000000),
    "setns": (308, 0, 0),
    "mount": (165, 0, 0, 0, 0, 0),
    "bpf": (321, 0, 0, 0),
    "perf_event_open": (298, 0, 0, -1, -1, 0),
    "keyctl": (250, 0, 0),
    "personality": (135, 0x0040000),
    "memfd_create": (319, 0, 0),
    "socket": (41, 2, 1, 0),
    "setsid": (112,),
    "prctl_clear_death_signal": (157, 1, 0),
    "prctl_set_dumpable": (157, 4, 1),
    "seccomp": (317, 0, 0, 0),
    "landlock_create_ruleset": (444, 0, 0, 1),
    "kill_every_process": (62, -1, 9),
    # 0 is its process group: without bwrap the waiter, which holds the lifeline, is there
    "kill_own_group": (62, 0, 0),
    "tgkill_another": (234, 2, 2, 0),
    "prlimit64_of_another": (302, 2, 7, 0, 0),
    # SIGIO: the kernel would signal whichever process the owner names
    "fcntl_setown": (72, 1, 8, 1),
    "fcntl_setsig": (72, 1, 10, 9),
    "fcntl_setown_ex": (72, 1, 15, 0),
    "ioctl_fiosetown": (16, 1, 0x8901, 0),
    "ioctl_fioasync": (16, 1, 0x5452, 0),
    "ioctl_tiocsti": (16, 1, 0x5412, 0),
    # a file's mode and times, which Landlock does not govern
    "fchmodat": (268, -100, b"/tmp", 0o777),
    "fchmod": (91, 1, 0o777),
    "utimensat": (280, -100, b"/tmp", 0, 0),
    "fchownat": (260, -100, b"/tmp", 0, 0, 0),
}


@pytest.mark.skipif(not X86_64, reason="the table of system-call numbers is x86_64's")
def test_every_dangerous_system_call_is_refused(
    checker: CodeChecker, attention_question: Question
) -> None:
    calls = "\n".join(
        f"print({name!r}, libc.syscall(*{args!r}), ctypes.get_errno())"
        for name, args in REFUSED_X86_64.items()
    )
    outcome, found = said(
        checker,
        attention_question,
        f"import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n{calls}",
    )
    assert outcome is Outcome.PASSED, found
    for name in REFUSED_X86_64:
        # -1 and EPERM: refused by the filter (kill(-1) included: it would reach every
        # process of the account without bwrap)
        assert found.get(name) == "-1 1", (name, found.get(name))


def test_what_python_and_numpy_need_of_fcntl_and_ioctl_still_works(
    checker: CodeChecker, attention_question: Question
) -> None:
    """The commands left to fcntl and ioctl are enough for everyday code: a file opened,
    written, read back, flags read and set, isatty asked."""
    outcome, found = said(
        checker,
        attention_question,
        """
with open('student.py', 'a+') as handle:  # its own file, writable at both levels
    fd = handle.fileno()
    os.set_blocking(fd, False)  # F_GETFL, F_SETFL
    print('blocking', os.get_blocking(fd))
    print('inheritable', os.get_inheritable(fd))  # F_GETFD
    print('tty', handle.isatty(), os.isatty(1))  # TCGETS
print('dup', os.dup(1) > 2)  # F_DUPFD_CLOEXEC
""",
    )
    assert outcome is Outcome.PASSED, found
    assert found == {
        "blocking": "False",
        "inheritable": "False",
        "tty": "False False",
        "dup": "True",
    }


def test_pid_1_is_the_harness_itself_under_bwrap(attention_question: Question) -> None:
    report = bwrap_report()
    if report is None:
        pytest.skip("no bwrap")
    with CodeChecker(TEST_LIMITS, report, minimum=Level.BWRAP, warm=False) as checker:
        outcome, found = said(
            checker,
            attention_question,
            "print('pid', os.getpid())\n"
            "print('processes', sorted(n for n in os.listdir('/proc') if n.isdigit()))",
        )
    assert outcome is Outcome.PASSED, found
    # no init of bwrap's to take over with ptrace: the only process there is the student's
    assert found["pid"] == "1"
    assert found["processes"] == "['1']"


def _descendants(root: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(f"/proc/{entry.name}/stat").read_bytes()
                parents[int(entry.name)] = int(stat[stat.rindex(b")") + 2 :].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return state[state.rindex(b")") + 2 :][:1] != b"Z"


DRIVER = """
import sys
from pathlib import Path
from tests.sandbox.conftest import CODE_QUIZ, REPO, LIMITS_ONLY, bwrap_report
from tests.sandbox.test_attacks import body
from tui_course.codecheck.service import CodeChecker
from tui_course.content.quizzes import load_quiz
from tui_course.sandbox.level import Level
from tui_course.sandbox.limits import TEST_LIMITS
import dataclasses
question = load_quiz(CODE_QUIZ, REPO).questions[0]
report = bwrap_report() if sys.argv[1] == "bwrap" else LIMITS_ONLY
limits = dataclasses.replace(TEST_LIMITS, wall_seconds=120.0, cpu_seconds=120)
with CodeChecker(limits, report, minimum=Level.LIMITS, warm=False) as checker:
    print("checking", flush=True)
    checker.check(question, body("import time\\ntime.sleep(600)"))
"""


@pytest.fixture(params=["bwrap", "limits-only"])
def level_name(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "bwrap" and bwrap_report() is None:
        pytest.skip("no bwrap")
    yield request.param


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGHUP])
def test_the_check_ends_with_the_app_that_started_it(
    level_name: str, how: signal.Signals, tmp_path: Path
) -> None:
    """kill -9 or a hangup of the app mid-check: nothing it started outlives it (bwrap's
    namespace dies with its pid 1; without bwrap the waiter's lifeline ends the harness)."""
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER, level_name],
        cwd=REPO,
        stdout=subprocess.PIPE,
        env=dict(os.environ, ATTN_TUI_DATA_DIR=str(tmp_path)),
    )
    try:
        assert driver.stdout is not None
        assert driver.stdout.readline() == b"checking\n"
        started = _wait_for(lambda: len(_descendants(driver.pid)) >= 2 or None, 60)
        assert started, "the sandbox never started"
        tree = _descendants(driver.pid)
        driver.send_signal(how)
        driver.wait()
        left = _wait_for(lambda: not any(_alive(pid) for pid in tree) or None, 10)
        assert left, [pid for pid in tree if _alive(pid)]
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()


SURVIVORS = """
import ctypes, dataclasses, os, sys, time
from tests.sandbox.conftest import CODE_QUIZ, REPO, LIMITS_ONLY, bwrap_report
from tests.sandbox.test_walls import _descendants, _alive
from tui_course.codecheck.service import CodeChecker
from tui_course.content.quizzes import load_quiz
from tui_course.sandbox.level import Level
from tui_course.sandbox.limits import TEST_LIMITS
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans come back here
question = load_quiz(CODE_QUIZ, REPO).questions[0]
report = bwrap_report() if sys.argv[1] == "bwrap" else LIMITS_ONLY
limits = dataclasses.replace(TEST_LIMITS, wall_seconds=3.0, cpu_seconds=3)
with CodeChecker(limits, report, minimum=Level.LIMITS, warm=False) as checker:
    verdict = checker.check(question, sys.stdin.read())
deadline = time.monotonic() + 10
while time.monotonic() < deadline and any(_alive(p) for p in _descendants(os.getpid())):
    time.sleep(0.05)
left = [p for p in _descendants(os.getpid()) if _alive(p)]
for pid in left:
    os.kill(pid, 9)
print(verdict.outcome.name, len(left))
"""


def test_signalling_its_own_group_cannot_kill_the_waiter_and_outlive_the_check(
    level_name: str,
) -> None:
    """The attack that left harnesses running after the check without bwrap: ignore
    SIGTERM, send it to the process group (where the waiter holding the lifeline is),
    then sleep. Refused by the filter, so the clock stops it and nothing is left (what the
    check started is collected by a subreaper, so an orphan cannot hide as init's)."""
    code = (
        "import os, signal, time\nimport numpy as np\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "try:\n    os.kill(0, signal.SIGTERM)\nexcept OSError:\n    pass\n"
        "def attention_weights(Q, K):\n    time.sleep(10 ** 6)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", SURVIVORS, level_name],
        input=code,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.stdout.split() == ["TIME_LIMIT", "0"], result.stdout + result.stderr


def test_no_signal_reaches_another_process_through_sigio(
    checker: CodeChecker, attention_question: Question
) -> None:
    """F_SETOWN and F_SETSIG on its own pipe, then a write: the kernel would send SIGKILL
    to the owner named, any process of the account (or of nobody's, for root's checks)."""
    owner = {"user": 65534, "group": 65534} if os.geteuid() == 0 else {}
    victim = subprocess.Popen(["sleep", "120"], **owner)  # type: ignore[call-overload]
    try:
        outcome, found = said(
            checker,
            attention_question,
            f"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
read_end, write_end = os.pipe()
for name, command, value in (('owner', 8, {victim.pid}), ('signal', 10, 9)):
    print(name, libc.fcntl(read_end, command, value), ctypes.get_errno())
libc.fcntl(read_end, 4, os.O_ASYNC)
os.write(write_end, b'x')
""",
        )
        assert outcome is Outcome.PASSED, found
        assert found["owner"] == found["signal"] == "-1 1", found  # refused: EPERM
        assert victim.poll() is None, "the other process was killed"
    finally:
        victim.kill()
        victim.wait()


def test_a_files_mode_and_times_cannot_be_changed(
    checker: CodeChecker, attention_question: Question, tmp_path: Path
) -> None:
    """Landlock does not govern chmod or utime: without bwrap they reached the student's own
    files (their .bashrc made writable by all). The filter refuses the calls."""
    target = tmp_path / "mine.txt"
    target.write_text("kept")
    target.chmod(0o600)
    if os.geteuid() == 0:  # root's checks run as nobody: give nobody the file to change
        os.chown(tmp_path, 65534, 65534)
        os.chown(target, 65534, 65534)
    before = target.stat()
    outcome, found = said(
        checker,
        attention_question,
        f"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
path = {str(target).encode()!r}
print('chmod', libc.syscall(268, -100, path, 0o666), ctypes.get_errno())
print('utime', libc.syscall(280, -100, path, 0, 0), ctypes.get_errno())
""",
    )
    assert outcome is Outcome.PASSED, found
    after = target.stat()
    assert (after.st_mode, after.st_mtime_ns) == (before.st_mode, before.st_mtime_ns)
    assert found["chmod"].startswith("-1") and found["utime"].startswith("-1")


def _wait_for(condition, seconds: float):  # type: ignore[no-untyped-def]
    """Poll a condition until it holds or the deadline passes (a deadline, not a sleep)."""
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        os.sched_yield()
        time.sleep(0.02)
    return condition()


def test_every_writable_place_is_bounded(
    checker: CodeChecker, attention_question: Question
) -> None:
    budget = TEST_LIMITS.tmpfs_bytes
    outcome, found = said(
        checker,
        attention_question,
        """
for place in ('/dev/shm/fill', '/fill', '/var/tmp/fill', os.path.expanduser('~/fill')):
    try:
        with open(place, 'wb') as f:
            f.write(b'x' * 1024)
        print(place, 'written')
    except OSError as error:
        print(place, type(error).__name__)
total = 0
try:
    for n in range(64):
        with open(f'/tmp/fill-{n}', 'wb') as f:
            for _ in range(16):
                f.write(b'x' * 65536)
                f.flush()
                total += 65536
except OSError as error:
    pass
print('tmp', total)
""",
    )
    assert outcome is Outcome.PASSED, found
    for place in ("/dev/shm/fill", "/fill", "/var/tmp/fill"):
        assert found[place] != "written", (place, found)
    # /tmp: the one writable place under bwrap, with its size; none at all without it
    assert int(found["tmp"]) <= budget


def test_the_reference_worker_cannot_be_reached_or_forged(attention_question: Question) -> None:
    """The attack that passed 3 of 4 times without bwrap: find another harness in /proc,
    stop it, write a result on its pipe. Its reference has ended before student code
    starts, and the spare worker kept warm for the next check cannot be touched."""
    wrong = (
        "import numpy as np, os\n"
        "def attention_weights(Q, K):\n"
        "    me, hits = os.getpid(), []\n"
        "    try:\n"
        "        names = [n for n in os.listdir('/proc') if n.isdigit()]\n"
        "    except OSError:  # unreadable: guess the pids around its own\n"
        "        names = [str(pid) for pid in range(max(2, me - 64), me + 64)]\n"
        "    for name in names:\n"
        "        if int(name) == me:\n"
        "            continue\n"
        "        try:\n"
        "            os.kill(int(name), 19)  # SIGSTOP\n"
        "            hits.append('stopped ' + name)\n"
        "        except OSError:\n"
        "            pass\n"
        "        try:\n"
        "            for fd in os.listdir(f'/proc/{name}/fd'):\n"
        "                os.close(os.open(f'/proc/{name}/fd/{fd}', os.O_WRONLY))\n"
        "                hits.append('opened ' + name)\n"
        "        except OSError:\n"
        "            pass\n"
        "    print('hits', len(hits))\n"
        "    return np.zeros((Q.shape[0], K.shape[0]))\n"
    )
    reports = [LIMITS_ONLY] + ([bwrap_report()] if bwrap_report() is not None else [])
    for report in reports:
        with CodeChecker(TEST_LIMITS, report, minimum=Level.LIMITS, warm=True) as checker:
            for _ in range(4):
                verdict = checker.check(attention_question, wrong)
                assert verdict.outcome is Outcome.FAILED, verdict
                assert "hits 0" in verdict.stdout, verdict.stdout


def test_only_numpy_can_be_imported_even_from_system_package_folders(
    checker: CodeChecker, attention_question: Question
) -> None:
    from tui_course.sandbox.command import system_package_dirs

    folders = [str(path) for path in system_package_dirs()] + ["/usr/lib/python3/dist-packages"]
    outcome, found = said(
        checker,
        attention_question,
        f"""
seen = 0
for folder in {folders!r}:
    try:
        seen += len(os.listdir(folder))
    except OSError:
        pass
sys.path.extend({folders!r})
try:
    import yaml
    print('yaml', 'imported')
except ImportError:
    print('yaml', 'refused')
print('seen', seen)
""",
    )
    assert outcome is Outcome.PASSED, found
    assert found["seen"] == "0"
    assert found["yaml"] == "refused"


@pytest.fixture
def managed_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine-wide site config naming a class folder (the module constant moved into
    tmp_path: the real /etc is never read or written)."""
    from tui_course import paths

    class_dir = tmp_path / "class"
    class_dir.mkdir()
    site = tmp_path / "etc-config.toml"
    site.write_text(f'class_dir = "{class_dir}"\n')
    monkeypatch.setattr(paths, "SITE_CONFIG_PATH", site)
    return site


def test_the_site_rule_cannot_be_undone_from_the_students_environment(
    managed_server: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATTN_TUI_CONFIG", "/dev/null")
    monkeypatch.setenv("ATTN_TUI_BWRAP", "")
    assert required_level() is Level.BWRAP
    assert refusal(LIMITS_ONLY) is not None  # without bwrap, nothing runs
    loose = tmp_path / "loose.toml"
    loose.write_text("allow_code_without_bwrap = true\n")
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(loose))
    assert required_level() is Level.BWRAP


def test_a_fake_bwrap_is_never_used_on_a_managed_server(
    managed_server: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text('#!/bin/sh\nshift $(($# - 0))\nexec "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("ATTN_TUI_BWRAP", str(fake))
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ.get('PATH', '')}")
    chosen = find_bwrap(managed=True)
    assert chosen is None or chosen.startswith(("/usr/bin/", "/bin/", "/usr/local/bin/"))
    assert chosen != str(fake)


def test_a_bwrap_others_can_write_is_refused_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o777)
    monkeypatch.setenv("ATTN_TUI_BWRAP", str(fake))
    assert find_bwrap(managed=False) is None
    fake.chmod(0o755)
    assert find_bwrap(managed=False) == str(fake)  # the caller's own, off a managed server


def _others_can_reach(path: Path) -> bool:
    return all(os.stat(folder).st_mode & 0o001 for folder in [path, *path.parents])


def _skip_where_nobody_cannot_reach_numpy(checker: CodeChecker) -> None:
    from tui_course.sandbox.command import numpy_dirs

    as_root_without_bwrap = checker.level is Level.LIMITS and os.geteuid() == 0
    if as_root_without_bwrap and not _others_can_reach(numpy_dirs()[0]):
        pytest.skip("nobody cannot reach NumPy here without bwrap's binds")


def test_numpy_modules_imported_late_still_load(
    checker: CodeChecker, attention_question: Question
) -> None:
    """After the harness becomes nobody (or is confined), NumPy's own lazy imports work."""
    _skip_where_nobody_cannot_reach_numpy(checker)
    outcome, found = said(
        checker,
        attention_question,
        "import numpy.lib.recfunctions as rf\nprint('lazy', rf.__name__)",
    )
    assert outcome is Outcome.PASSED, found
    assert found["lazy"] == "numpy.lib.recfunctions"


def test_the_standard_library_and_numpy_load_when_student_code_asks(
    checker: CodeChecker, attention_question: Question
) -> None:
    """Root's harness under bwrap imports nothing ahead of student code where the library
    is open to all (command.library_open_to_all): as nobody, the modules exercises use
    still load at the moment they are asked for, at both levels."""
    _skip_where_nobody_cannot_reach_numpy(checker)
    outcome, found = said(
        checker,
        attention_question,
        "import statistics, decimal, fractions, textwrap, numpy.random, numpy.fft\n"
        "print('mean', statistics.mean([1, 2, 3]))\n"
        "print('decimal', decimal.Decimal('0.1') + decimal.Decimal('0.2'))\n"
        "print('random', numpy.random.default_rng(0).integers(0, 10, 3).shape)\n"
        "print('fft', numpy.fft.fft([1.0, 0.0]).real.tolist())",
    )
    assert outcome is Outcome.PASSED, found
    assert found["mean"] == "2"
    assert found["decimal"] == "0.3"
    assert found["random"] == "(3,)"
    assert found["fft"] == "[1.0, 1.0]"
