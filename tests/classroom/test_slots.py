"""Training slots with N = 1: one run at a time, the line in order, a slot freed by kill -9."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.classroom.conftest import own_group
from tests.conftest import FIXTURES, REPO
from tui_course.classroom.config import load_site_config
from tui_course.classroom.folder import init_class
from tui_course.classroom.slots import STALE_SECONDS, TrainingSlots, training_slots
from tui_course.training.protocol import Error, Started, Waiting, decode, encode, waiting_text
from tui_course.training.runner import TrainingRun

DRIVER = FIXTURES / "slot_driver.py"
# The students of these tests are processes of one account: let it hold many runs (the
# one-run-per-account rule has its own tests, with real users, in test_slot_attacks.py).
SAME_ACCOUNT = 99
FAKE = FIXTURES / "fake_child.py"


class Student:
    """A driver process whose JSON lines are collected by a thread as they come."""

    def __init__(
        self,
        name: str,
        class_dir: Path,
        scenario: str,
        tmp: Path,
        runs_per_user: int = SAME_ACCOUNT,
        user: str | None = None,
        max_seconds: float | None = None,
        gate: Path | None = None,
    ) -> None:
        self.name = name
        self.gate = gate  # a "held" run finishes once this file exists
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.process = subprocess.Popen(
            [
                sys.executable,
                str(DRIVER),
                str(class_dir / "slots"),
                str(class_dir / "queue"),
                "1",
                scenario,
                str(tmp / f"{name}.log"),
                str(runs_per_user),
                *([] if max_seconds is None else [str(max_seconds)]),
                *([] if gate is None else ["--gate", str(gate)]),
            ],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            user=user,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(json.loads(line))

    def until(
        self, kind: str, timeout: float = 20.0, count: int = 1, **fields: object
    ) -> dict[str, Any]:
        """Wait for the `count`th event of `kind` (with these field values); keep everything
        seen. Returns that event."""

        def matches() -> list[dict[str, Any]]:
            return [
                line
                for line in self.seen
                if line["event"] == kind and all(line.get(k) == v for k, v in fields.items())
            ]

        deadline = time.monotonic() + timeout
        while len(matches()) < count:
            if time.monotonic() > deadline:
                said = [line for line in self.seen if line["event"] != "look"]
                raise AssertionError(
                    f"{self.name}: no {kind} {fields} x{count} within {timeout} s: {said}"
                )
            with contextlib.suppress(queue.Empty):
                self.seen.append(self.lines.get(timeout=0.1))
        return matches()[count - 1]

    def release(self) -> None:
        """Let a "held" run finish."""
        assert self.gate is not None
        self.gate.touch()

    def kinds(self) -> list[str]:
        return [line["event"] for line in self.seen]


@pytest.fixture
def one_slot_class(tmp_path: Path) -> Path:
    directory = tmp_path / "class"
    init_class(directory, own_group(), 1, "Slots")
    return directory


@pytest.fixture
def students() -> Iterator[list[Student]]:
    made: list[Student] = []
    yield made
    for student in made:
        if student.process.poll() is None:
            student.process.kill()
        student.process.wait()
        for line in student.seen:
            if line["event"] == "child":
                with contextlib.suppress(ProcessLookupError):
                    os.kill(line["pid"], signal.SIGKILL)  # an orphaned "hang" child


def test_one_at_a_time_in_the_order_they_came(
    one_slot_class: Path, tmp_path: Path, students: list[Student]
) -> None:
    """Each run holds its slot until the test lets it finish, so who waits where does not
    depend on how fast the machine is."""

    def held(name: str) -> Student:
        student = Student(name, one_slot_class, "held", tmp_path, gate=tmp_path / f"{name}.go")
        students.append(student)
        return student

    ann = held("ann")
    ann.until("started")
    bob = held("bob")
    bob.until("waiting", position=1)
    cat = held("cat")
    cat.until("waiting", position=2)
    ann.release()
    bob.until("started")
    cat.until("waiting", position=1)  # bob's ticket left the line when his run began
    bob.release()
    cat.until("started")
    cat.release()
    for student in (ann, bob, cat):
        student.until("end")
        assert student.process.wait(10) == 0
    runs = [(s.until("started")["t"], s.until("done")["t"], s.name) for s in (ann, bob, cat)]
    assert [name for _, _, name in sorted(runs)] == ["ann", "bob", "cat"]  # the queue order
    for (_, done, _), (start, _, _) in zip(sorted(runs), sorted(runs)[1:], strict=False):
        assert start > done  # never two runs at once
    assert [line["position"] for line in cat.seen if line["event"] == "waiting"] == [2, 1]
    assert "waiting" not in ann.kinds()
    assert list((one_slot_class / "queue").iterdir()) == []  # every ticket was taken back


def test_kill_9_frees_the_slot_at_once(
    one_slot_class: Path, tmp_path: Path, students: list[Student]
) -> None:
    ann = Student("ann", one_slot_class, "hang", tmp_path)  # holds the slot for ever
    students.append(ann)
    ann.until("child")
    bob = Student("bob", one_slot_class, "ok", tmp_path)
    students.append(bob)
    bob.until("waiting", position=1)
    bob.until("look", count=3, taken=False)  # bob looked at the line three times, refused
    assert "started" not in bob.kinds()
    ann.process.kill()  # SIGKILL: no cleanup code runs in ann's process
    ann.process.wait()  # gone, and the kernel has dropped its locks
    dead = time.monotonic()
    bob.until("started")
    looks = [line for line in bob.seen if line["event"] == "look"]
    assert [line["taken"] for line in looks].count(True) == 1
    # bob's first look after ann's death took the slot: no timeout, no stale-run wait
    assert [line for line in looks if line["began"] > dead and not line["taken"]] == []
    bob.until("done")


def test_a_dead_waiter_leaves_the_line(
    one_slot_class: Path, tmp_path: Path, students: list[Student]
) -> None:
    ann = Student("ann", one_slot_class, "hang", tmp_path)
    students.append(ann)
    ann.until("child")
    bob = Student("bob", one_slot_class, "ok", tmp_path)
    students.append(bob)
    bob.until("waiting", position=1)
    cat = Student("cat", one_slot_class, "ok", tmp_path)
    students.append(cat)
    cat.until("waiting", position=2)
    bob.process.kill()
    cat.until("waiting", position=1, timeout=5)  # bob's ticket no longer counts


def test_a_stopped_waiter_is_passed_over(
    one_slot_class: Path, tmp_path: Path, students: list[Student]
) -> None:
    ann = Student("ann", one_slot_class, "hang", tmp_path)
    students.append(ann)
    ann.until("child")
    bob = Student("bob", one_slot_class, "ok", tmp_path)
    students.append(bob)
    bob.until("waiting", position=1)
    cat = Student("cat", one_slot_class, "ok", tmp_path)
    students.append(cat)
    cat.until("waiting", position=2)
    bob.process.send_signal(signal.SIGSTOP)  # ctrl+z while in line
    try:
        cat.until("waiting", position=1, timeout=STALE_SECONDS + 5)
        ann.process.kill()
        cat.until("started", timeout=10)
    finally:
        bob.process.send_signal(signal.SIGCONT)
    cat.until("done")
    bob.until("started", timeout=10)  # awake again, and the slot is free


def line_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == "training-slot"}


async def test_cancel_while_waiting_leaves_the_line(
    one_slot_class: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tui_course.training.runner as runner

    # A look every ten minutes: only the cancel itself can wake the waiting thread in time.
    monkeypatch.setattr(runner, "SLOT_POLL", 600.0)
    slots = TrainingSlots(
        one_slot_class / "slots", one_slot_class / "queue", 1, runs_per_user=SAME_ACCOUNT
    )
    held = slots.try_take()  # another student is training
    assert held is not None
    log = tmp_path / "run.log"
    earlier = line_threads()
    run = TrainingRun([sys.executable, str(FAKE), "ok", "--log", str(log)], log, slots=slots)
    events = run.events()
    first = await anext(events)
    assert first == Waiting(position=1, slots=1)
    assert slots.state().waiting == 1 and slots.state().in_use == 1
    await run.cancel()
    rest = [event async for event in events]
    assert rest == [] and run.process is None  # no child was ever started
    # the line thread woke at the cancel and ended within the run's grace, not at its next look
    assert line_threads() - earlier == set()
    assert slots.state().waiting == 0
    assert [p.name[:4] for p in (one_slot_class / "queue").iterdir()] == ["run-"]  # held's
    held.release()
    assert slots.state().in_use == 0
    assert list((one_slot_class / "queue").iterdir()) == []


async def test_a_slow_class_folder_never_blocks_the_loop(tmp_path: Path) -> None:
    """An NFS class folder that hangs: the screen keeps drawing meanwhile, and a cancel
    does not wait for the folder to answer."""
    looking = threading.Event()
    loop_ran = threading.Event()  # the event loop ticked while the lookup was stuck
    answered: list[bool] = []

    def slow_lookup() -> None:
        looking.set()
        answered.append(loop_ran.wait(30))  # stuck until the loop has ticked meanwhile

    log = tmp_path / "run.log"
    command = [sys.executable, str(FAKE), "ok", "--log", str(log)]

    async def tick() -> None:
        ticks = 0
        while ticks < 15:
            await asyncio.sleep(0.01)
            ticks += looking.is_set()
        loop_ran.set()

    ticker = asyncio.create_task(tick())
    events = [event async for event in TrainingRun(command, log, find_slots=slow_lookup).events()]
    ticker.cancel()
    assert answered == [True]  # the loop ticked 15 times while the lookup was stuck
    assert type(events[0]).__name__ == "Started" and type(events[-1]).__name__ == "Done"

    stuck, answer, returned = threading.Event(), threading.Event(), threading.Event()

    def hung_lookup() -> None:
        stuck.set()
        answer.wait(60)
        returned.set()

    run = TrainingRun(command, log, find_slots=hung_lookup)
    events_of_cancelled = run.events()
    waiting = asyncio.create_task(anext(events_of_cancelled, None))
    try:
        assert await asyncio.to_thread(stuck.wait, 20)
        await run.cancel()
        assert await waiting is None  # the run ends without starting a child...
        assert not returned.is_set()  # ...while the lookup still hangs
        assert run.process is None
    finally:
        answer.set()  # the folder answers at last: the line thread ends


async def test_run_takes_and_gives_back_its_slot(one_slot_class: Path, tmp_path: Path) -> None:
    slots = TrainingSlots(
        one_slot_class / "slots", one_slot_class / "queue", 1, runs_per_user=SAME_ACCOUNT
    )
    log = tmp_path / "run.log"
    run = TrainingRun([sys.executable, str(FAKE), "ok", "--log", str(log)], log, slots=slots)
    in_use = []
    async for event in run.events():
        if isinstance(event, Started):
            in_use.append(slots.state().in_use)
    assert in_use == [1]
    assert slots.state().in_use == 0


async def test_broken_site_config_stops_the_run_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site.toml"
    site.write_text("training_slots = -1\n", encoding="utf-8")
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(site))
    from tui_course.training.options import TrainOptions

    run = TrainingRun.for_options(TrainOptions(), tmp_path / "data")
    events = [event async for event in run.events()]
    assert len(events) == 1 and isinstance(events[0], Error)
    assert events[0].message.startswith(f"{site}:1: 'training_slots' must be from 1 to 1024")


def test_slot_count_comes_from_the_class_then_the_site(
    one_slot_class: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site.toml"
    site.write_text(f'class_dir = "{one_slot_class}"\ntraining_slots = 5\n', encoding="utf-8")
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(site))
    slots = training_slots()
    assert (slots.count, slots.slots_dir, slots.create) == (1, one_slot_class / "slots", False)
    if os.geteuid() != 0:
        return  # only root may make the machine-wide folder (test_slot_attacks.py)
    site.write_text(
        f'slots_dir = "{tmp_path / "sys"}"\ntraining_slots = 3\nruns_per_user = 3\n',
        encoding="utf-8",
    )
    slots = training_slots(load_site_config())
    assert (slots.count, slots.slots_dir, slots.create) == (3, tmp_path / "sys", True)
    assert (tmp_path / "sys").stat().st_mode & 0o7777 == 0o1777
    taken = [slots.try_take() for _ in range(4)]
    assert [slot.number if slot else None for slot in taken] == [1, 2, 3, None]


def test_waiting_event_text_and_wire_form() -> None:
    event = Waiting(position=3, slots=2)
    assert decode(encode(event)) == event
    assert waiting_text(event) == ("waiting for a training slot: 3rd in line (2 runs at a time)")
    words = [waiting_text(Waiting(n, 1)).split(": ")[1].split()[0] for n in (1, 2, 11, 12, 22)]
    assert words == ["1st", "2nd", "11th", "12th", "22nd"]


def test_waiting_shows_in_the_training_panel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tui_course.training.runner as runner

    monkeypatch.setattr(runner, "train_extra_installed", lambda: True)  # the fake child needs none
    asyncio.run(_panel_waits(tmp_path))


async def _panel_waits(tmp_path: Path) -> None:
    from tui_course.ui.app import Settings, make_app

    directory = tmp_path / "class"
    init_class(directory, own_group(), 1, "Slots")
    slots = TrainingSlots(directory / "slots", directory / "queue", 1, runs_per_user=SAME_ACCOUNT)
    held = slots.try_take()
    app = make_app(Settings(REPO, tmp_path / "data", "training-lab"))
    log = tmp_path / "run.log"
    app.training_runs = lambda options: TrainingRun(
        [sys.executable, str(FAKE), "ok", "--log", str(log)], log, slots=slots
    )
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(100):
            if app.current is not None:
                break
            await pilot.pause(0.02)
        await pilot.press("ctrl+t")
        status = app.query_one("#train-status")
        for _ in range(100):
            if "in line" in str(status.render()):
                break
            await pilot.pause(0.05)
        assert str(status.render()) == (
            "Waiting for a training slot: 1st in line (1 run at a time). ctrl+x cancels."
        )
        await pilot.press("ctrl+x")
        for _ in range(100):
            if "Cancelled" in str(status.render()) and slots.state().waiting == 0:
                break
            await pilot.pause(0.05)
        assert str(status.render()) == "Cancelled. You left the line for a training slot."
        assert slots.state().waiting == 0
    assert held is not None
    held.release()


def test_a_waiter_rests_in_proportion_to_what_a_look_costs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A student fills queue/ (100,000 names: 0.6 s a directory read) and keeps changing
    it, so every look of every waiter reads it all again: four looks a second made each
    waiter burn a whole CPU. A waiter now rests nine times its last look's CPU time."""
    import tui_course.training.runner as runner

    cpu = [0.0]
    monkeypatch.setattr(runner.time, "thread_time", lambda: cpu[0])
    rests: list[float] = []

    class Ticket:
        looks = 0

        def try_take(self) -> object:
            cpu[0] += 1.5  # the flooded folder read again
            self.looks += 1
            return object() if self.looks == 3 else None

        def position(self) -> int:
            cpu[0] += 0.5
            return 1

        def leave(self) -> None:
            pass

    class Slots:
        count = 1

        def usable(self) -> bool:
            return True

        def join(self) -> Ticket:
            return Ticket()

    log = tmp_path / "run.log"
    run = TrainingRun([sys.executable, "-c", "pass"], log, slots=Slots())  # type: ignore[arg-type]
    monkeypatch.setattr(run._stop_waiting, "wait", lambda seconds: rests.append(seconds))
    run._wait_in_line(lambda event: None)
    assert rests == [runner.LOOK_REST * 2.0] * 2
    cheap = [0.0]
    monkeypatch.setattr(runner.time, "thread_time", lambda: cheap[0])
    rests.clear()
    run._wait_in_line(lambda event: None)
    assert rests == [runner.SLOT_POLL] * 2  # an ordinary folder: four looks a second
