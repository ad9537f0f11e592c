"""Issue 18: one student cannot jump or hold the training line.

The attacker is a real second account (STUDENTS[1]) whose process holds files and locks;
the honest student is this test's own account. Skipped with the reason when not root.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.classroom.conftest import PUPILS, STUDENTS, TEACHER, TEACHERS, fake_training_command
from tests.conftest import FIXTURES, REPO
from tui_course.classroom import slots as slots_module
from tui_course.classroom.config import DEFAULT_MAX_RUN_MINUTES, ConfigError, SiteConfig
from tui_course.classroom.folder import init_class
from tui_course.classroom.slots import TrainingSlots, class_slots, training_slots
from tui_course.classroom.status import slot_lines
from tui_course.cli import main
from tui_course.training.protocol import Error, SlotTaken, Started
from tui_course.training.runner import TrainingRun

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: a second real account")
ATTACKER = STUDENTS[1]
SYSTEM_PYTHON = "/usr/bin/python3"  # the test accounts cannot run root's own interpreter


class Holder:
    """The attacker's shell: a forked process, become `user`, that creates and flocks
    every path (touching each every 0.2 s if asked) until killed; with `child`, it also
    starts a training child (the fake one, under the real one's command line, run by the
    system's python3) as a real run would. Forked, not exec'ed: the test account cannot
    run this interpreter from root's home."""

    def __init__(
        self, paths: tuple[Path, ...], touch: bool, user: str = ATTACKER, child: bool = False
    ) -> None:
        account = pwd.getpwnam(user)
        read_end, write_end = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                os.close(read_end)
                os.setgroups([])
                os.setgid(account.pw_gid)
                os.setuid(account.pw_uid)
                fds = []
                for path in paths:
                    fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    fds.append(fd)
                started = 0
                if child:
                    log = Path(tempfile.mkdtemp()) / "run.log"
                    command = fake_training_command("hang", log, python=SYSTEM_PYTHON)
                    process = subprocess.Popen(command, stdout=subprocess.PIPE)
                    assert process.stdout is not None
                    assert b'"started"' in process.stdout.readline()
                    started = process.pid
                os.write(write_end, b"held %d" % started)
                while True:
                    if touch:
                        for fd in fds:
                            os.utime(fd)
                    time.sleep(0.2)
            finally:
                os._exit(1)
        os.close(write_end)
        said = os.read(read_end, 64).split()  # one write: "held CHILD-PID"
        os.close(read_end)
        assert said[:1] == [b"held"], said
        self.child = int(said[1])

    def kill(self) -> None:
        if self.child:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.child, signal.SIGKILL)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)


def wait_for(condition: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


@pytest.fixture
def lab(shared: Path) -> Iterator[Path]:
    class_dir = shared / "class"
    init_class(class_dir, TEACHERS, 2, "Slots", owner=TEACHER)
    yield class_dir


@pytest.fixture
def attacker() -> Iterator[list[Holder]]:
    held: list[Holder] = []
    yield held
    for process in held:
        process.kill()


def hold(
    held: list[Holder], *paths: Path, touch: bool = False, user: str = ATTACKER, child: bool = False
) -> Holder:
    holder = Holder(paths, touch, user, child)
    held.append(holder)
    return holder


def slots_of(class_dir: Path, **settings: object) -> TrainingSlots:
    return TrainingSlots(class_dir / "slots", class_dir / "queue", 2, **settings)  # type: ignore[arg-type]


def test_early_names_touched_every_second_do_not_jump_the_line(
    lab: Path, attacker: list[Holder]
) -> None:
    queue = lab / "queue"
    hold(attacker, queue / f"ticket-{'0' * 24}", queue / f"ticket-{'0' * 23}1", touch=True)
    slots = slots_of(lab)
    ticket = slots.join()
    try:
        # Of the attacker's two tickets one counts at most, and touching them (which moves
        # their ctime) can only put them behind this one: with two slots free, this run goes.
        assert ticket.position() <= 2
        slot = ticket.try_take()
        assert slot is not None
        slot.release()
    finally:
        ticket.leave()


def test_locking_the_slot_files_holds_nothing(lab: Path, attacker: list[Holder]) -> None:
    old = lab / "slots"  # what older versions of `class init` made, and locked
    old.mkdir(exist_ok=True)
    for name in ("slot-1", "slot-2"):
        (old / name).touch(mode=0o444)
    hold(attacker, old / "slot-1", old / "slot-2")
    slots = slots_of(lab)
    assert slots.state().in_use == 0
    slot = slots.try_take()
    assert slot is not None
    slot.release()


def test_one_account_holds_one_running_slot(lab: Path, attacker: list[Holder]) -> None:
    queue = lab / "queue"
    hold(attacker, queue / f"run-{'a' * 24}", queue / f"run-{'b' * 24}", child=True)
    slots = slots_of(lab)
    assert slots.state().in_use == 1  # two run files, one account, one training child
    mine = slots.try_take()
    assert mine is not None
    assert slots.try_take() is None  # and this account too gets one
    mine.release()
    assert slots_of(lab, runs_per_user=2).state().in_use == 2  # a class may allow two


def test_a_run_past_the_class_time_cap_no_longer_holds_its_slot(
    lab: Path, attacker: list[Holder]
) -> None:
    """Touching the run file (which moves its ctime) does not make the run younger: its
    age is its training child's."""
    queue = lab / "queue"
    hold(attacker, queue / f"run-{'c' * 24}", queue / f"run-{'d' * 24}", touch=True, child=True)
    slots = slots_of(lab, max_run_seconds=1.5)
    assert slots.state().in_use == 1
    wait_for(lambda: slots.state().in_use == 0)


def test_the_class_time_cap_is_on_by_default(lab: Path) -> None:
    site = SiteConfig(lab.parent / "site.toml", class_dir=lab)
    assert class_slots(lab, site).max_run_seconds == DEFAULT_MAX_RUN_MINUTES * 60 == 30 * 60
    assert "# max_run_minutes = 30" in (lab / "class.toml").read_text()


def test_flocked_run_files_hold_no_slot(
    lab: Path,
    attacker: list[Holder],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 29: every student flocks a run file from a shell and every slot was held for
    ever, using no CPU ("5 of 4 in use"). A run counts only while a training child of the
    file's account holds it; a run just won counts for STARTING_SECONDS before its child
    is there."""
    monkeypatch.setattr(slots_module, "STARTING_SECONDS", 0.5)
    queue = lab / "queue"
    for user, letter in zip(STUDENTS, "ef", strict=True):
        hold(attacker, queue / f"run-{letter * 24}", user=user)
    slots = slots_of(lab, runs_per_user=2)
    wait_for(lambda: slots.state().in_use == 0)
    status = "\n".join(slot_lines(slots))
    assert status.startswith("Training slots: 0 of 2 in use")
    assert "2 other file(s) in the queue not counted" in status
    # a look that has never seen them (the teacher's `class status`) does not count them
    # either: a run without its training child counts only while its file is new
    assert slots_of(lab).state().in_use == 0
    assert main(["class", "status", str(lab)]) == 0
    assert "Training slots: 0 of 2 in use" in capsys.readouterr().out
    taken = [slots.try_take() for _ in range(2)]
    assert all(slot is not None for slot in taken)  # both slots go to a real run
    for slot in taken:
        assert slot is not None
        slot.release()


def test_new_run_files_over_and_over_hold_no_slot(lab: Path, attacker: list[Holder]) -> None:
    """A run with no training child yet counts for a few seconds, for the first few runs of
    an account a looker sees: making a fresh file each time stops counting."""
    queue = lab / "queue"
    slots = slots_of(lab)
    counted = []
    for number in range(slots_module.STARTING_PER_ACCOUNT + 2):
        holder = hold(attacker, queue / f"run-{number:024x}")
        counted.append(slots.state().in_use)
        holder.kill()
        attacker.remove(holder)
        os.unlink(queue / f"run-{number:024x}")
    per_account = slots_module.STARTING_PER_ACCOUNT
    assert counted == [1] * per_account + [0, 0]


def test_a_stopped_or_dead_training_child_holds_no_slot(
    lab: Path, attacker: list[Holder], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(slots_module, "STARTING_SECONDS", 0.0)
    holder = hold(attacker, lab / "queue" / f"run-{'7' * 24}", child=True)
    slots = slots_of(lab)
    assert slots.state().in_use == 1
    os.kill(holder.child, signal.SIGSTOP)  # ctrl+z: frozen, holding memory, no CPU
    try:
        wait_for(lambda: slots.state().in_use == 0)
    finally:
        os.kill(holder.child, signal.SIGCONT)
    wait_for(lambda: slots.state().in_use == 1)
    os.kill(holder.child, signal.SIGKILL)  # the holder keeps its lock, the child is gone
    wait_for(lambda: slots.state().in_use == 0)


def test_only_the_students_group_takes_class_slots(
    shared: Path, attacker: list[Holder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The site config is machine-wide: root's and a teacher's runs took a class slot."""
    monkeypatch.setattr(slots_module, "STARTING_SECONDS", 0.0)
    class_dir = shared / "class"
    init_class(class_dir, TEACHERS, 1, "Slots", owner=TEACHER, students_group=PUPILS)
    site = SiteConfig(shared / "site.toml", class_dir=class_dir, slots_dir=shared / "sys")
    slots = class_slots(class_dir, site)
    queue = class_dir / "queue"
    hold(attacker, queue / f"run-{'8' * 24}", user=TEACHER, child=True)
    assert slots.state().in_use == 0  # the teacher is not a student of the class
    hold(attacker, queue / f"run-{'9' * 24}", user=STUDENTS[0], child=True)
    assert slots.state().in_use == 1
    mine = training_slots(site)  # root: not in the students' group
    assert mine.queue_dir == shared / "sys" and mine.queue_dir != queue
    from tui_course.classroom.doctor import slot_check

    check = slot_check(site)  # doctor says so, rather than "no lock folder yet"
    assert check.status == "ok" and check.found == (
        "the class's: 1 of 1 in use, 0 waiting; not in its students' group, your own runs"
        " take none of them"
    )


def test_status_never_shows_more_in_use_than_the_slots(
    lab: Path, attacker: list[Holder], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(slots_module, "STARTING_SECONDS", 0.0)
    queue = lab / "queue"
    for user, digit in zip(STUDENTS, "56", strict=True):
        hold(attacker, queue / f"run-{digit * 24}", user=user, child=True)
    slots = TrainingSlots(lab / "slots", queue, 1)
    lines = slot_lines(slots)
    assert lines[0].startswith("Training slots: 1 of 1 in use")
    assert sum(line.startswith("  slot ") for line in lines) == 1


async def test_the_runner_stops_its_own_run_at_the_cap(lab: Path, tmp_path: Path) -> None:
    slots = slots_of(lab, max_run_seconds=0.5)
    log = tmp_path / "run.log"
    fake = FIXTURES / "fake_child.py"
    run = TrainingRun([sys.executable, str(fake), "hang", "--log", str(log)], log, slots=slots)
    events = [event async for event in run.events()]
    assert isinstance(events[0], SlotTaken) and isinstance(events[1], Started)
    assert isinstance(events[-1], Error) and "the class's limit" in events[-1].message
    assert slots.state().in_use == 0


def test_junk_files_cost_no_probe_per_look(lab: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    queue = lab / "queue"
    uid = pwd.getpwnam(ATTACKER).pw_uid
    for number in range(500):  # bench/slots.py --junk 50000 measures the CPU per look
        name = f"ticket-{number:024x}" if number % 2 else f"junk-{number}"
        path = queue / name
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
        os.chown(path, uid, -1)
    probes: list[Path] = []
    rescans: list[int] = []
    real_probe = slots_module._locked_by_someone
    real_rescan = TrainingSlots._rescan

    def probe(path: Path) -> bool | None:
        probes.append(path)
        return real_probe(path)

    def rescan(self: TrainingSlots, listing: Any) -> None:
        rescans.append(1)
        real_rescan(self, listing)

    monkeypatch.setattr(slots_module, "_locked_by_someone", probe)
    monkeypatch.setattr(TrainingSlots, "_rescan", rescan)
    slots = slots_of(lab)
    assert slots.state().waiting == 0  # none of it is locked
    assert probes == []  # /proc/locks said so in one read
    wait_for(lambda: time.time_ns() - queue.stat().st_mtime_ns > 200_000_000)
    slots.state()  # the listing is now trusted
    before = len(rescans)
    for _ in range(5):
        slots.state()
    assert len(rescans) == before  # an unchanged folder is not read again


def test_a_machine_wide_slot_folder_made_by_a_student_is_refused(
    shared: Path, tmp_path: Path
) -> None:
    folder = shared / "attn-tui-slots"
    folder.mkdir(mode=0o1777)
    os.chown(folder, pwd.getpwnam(ATTACKER).pw_uid, -1)
    site = SiteConfig(None, slots_dir=folder)
    with pytest.raises(ConfigError, match=f"belongs to {ATTACKER}, not root"):
        training_slots(site)
    from tui_course.classroom.doctor import slot_check

    check = slot_check(site)
    assert check.status == "warn" and f"belongs to {ATTACKER}" in check.found


async def test_train_refuses_a_student_made_slot_folder(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = shared / "slots-by-bob"
    folder.mkdir(mode=0o1777)
    os.chown(folder, pwd.getpwnam(ATTACKER).pw_uid, -1)
    site = tmp_path / "site.toml"
    site.write_text(f'slots_dir = "{folder}"\n', encoding="utf-8")
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(site))
    from tui_course.training.options import TrainOptions

    run = TrainingRun.for_options(TrainOptions(), tmp_path / "data")
    events = [event async for event in run.events()]
    assert len(events) == 1 and isinstance(events[0], Error)
    assert f"belongs to {ATTACKER}, not root" in events[0].message
    assert REPO.exists()
