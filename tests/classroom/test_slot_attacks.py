"""Issue 18: one student cannot jump or hold the training line.

The attacker is a real second account (STUDENTS[1]) whose process holds files and locks;
the honest student is this test's own account. Skipped with the reason when not root.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.classroom.conftest import STUDENTS, TEACHER, TEACHERS
from tests.conftest import FIXTURES, REPO
from tui_course.classroom import slots as slots_module
from tui_course.classroom.config import ConfigError, SiteConfig
from tui_course.classroom.folder import init_class
from tui_course.classroom.slots import TrainingSlots, training_slots
from tui_course.training.protocol import Error, SlotTaken, Started
from tui_course.training.runner import TrainingRun

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: a second real account")
ATTACKER = STUDENTS[1]


class Holder:
    """The attacker's shell: a forked process, become ATTACKER, that creates and flocks
    every path (touching each every 0.2 s if asked) until killed. Forked, not exec'ed:
    the test account cannot run this interpreter from root's home."""

    def __init__(self, paths: tuple[Path, ...], touch: bool) -> None:
        account = pwd.getpwnam(ATTACKER)
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
                os.write(write_end, b"held")
                while True:
                    if touch:
                        for fd in fds:
                            os.utime(fd)
                    time.sleep(0.2)
            finally:
                os._exit(1)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            assert pipe.read(4) == b"held"

    def kill(self) -> None:
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


def hold(held: list[Holder], *paths: Path, touch: bool = False) -> None:
    held.append(Holder(paths, touch))


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
    hold(attacker, lab / "slots" / "slot-1", lab / "slots" / "slot-2")
    slots = slots_of(lab)
    assert slots.state().in_use == 0
    slot = slots.try_take()
    assert slot is not None
    slot.release()


def test_one_account_holds_one_running_slot(lab: Path, attacker: list[Holder]) -> None:
    queue = lab / "queue"
    hold(attacker, queue / f"run-{'a' * 24}", queue / f"run-{'b' * 24}")
    slots = slots_of(lab)
    assert slots.state().in_use == 1  # two run files, one account: one slot
    mine = slots.try_take()
    assert mine is not None
    assert slots.try_take() is None  # and this account too gets one
    mine.release()
    assert slots_of(lab, runs_per_user=2).state().in_use == 2  # a class may allow two


def test_a_run_past_the_class_time_cap_no_longer_holds_its_slot(
    lab: Path, attacker: list[Holder]
) -> None:
    queue = lab / "queue"
    hold(attacker, queue / f"run-{'c' * 24}", queue / f"run-{'d' * 24}")
    slots = slots_of(lab, max_run_seconds=0.5)
    assert slots.state().in_use == 1
    wait_for(lambda: slots.state().in_use == 0)


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
