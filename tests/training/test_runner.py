"""The runner against a fake child: progress, errors, crashes, garbage, and a hang on cancel."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from tests.conftest import FIXTURES
from tui_course.training.protocol import (
    AttentionSample,
    AttentionSummary,
    Done,
    EpochEnd,
    Error,
    Started,
)
from tui_course.training.runner import TrainingRun

FAKE = FIXTURES / "fake_child.py"


def fake_run(tmp_path: Path, scenario: str) -> TrainingRun:
    log = tmp_path / "train.log"
    return TrainingRun([sys.executable, str(FAKE), scenario, "--log", str(log)], log)


async def collect(run: TrainingRun) -> list[object]:
    return [event async for event in run.events()]


async def test_ok_stream(tmp_path: Path) -> None:
    events = await collect(fake_run(tmp_path, "ok"))
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "Started" and kinds[-1] == "Done"
    assert sum(isinstance(e, EpochEnd) for e in events) == 3
    assert isinstance(events[-3], AttentionSample)
    assert isinstance(events[-2], AttentionSummary) and events[-2].sequences == 64


async def test_error_event_is_passed_through(tmp_path: Path) -> None:
    events = await collect(fake_run(tmp_path, "error"))
    assert isinstance(events[-1], Error)
    assert events[-1].message == "ResourceExhaustedError: out of memory"


async def test_crash_reports_exit_code_and_log_tail(tmp_path: Path) -> None:
    run = fake_run(tmp_path, "crash")
    events = await collect(run)
    last = events[-1]
    assert isinstance(last, Error)
    assert last.message == "the training process stopped unexpectedly (exit code 139)"
    assert last.log_tail[-1] == "Fatal Python error: Segmentation fault"
    assert run.process is not None and run.process.returncode == 139


async def test_garbage_lines_are_skipped(tmp_path: Path) -> None:
    events = await collect(fake_run(tmp_path, "garbage"))
    assert isinstance(events[0], Started) and isinstance(events[-1], Done)
    assert len(events) == 1 + 3 + 1  # started, 2 batches + 1 epoch, done


async def test_cancel_kills_a_child_that_ignores_sigterm(tmp_path: Path) -> None:
    run = fake_run(tmp_path, "hang")
    events = run.events()
    first = await anext(events)
    assert isinstance(first, Started)
    pid = run.process.pid if run.process else 0
    await run.cancel()  # SIGTERM, TERMINATE_GRACE, then SIGKILL
    assert run.process is not None  # reaped, and it took the SIGKILL: it had to escalate
    assert run.process.returncode == -signal.SIGKILL
    try:
        os.kill(pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive
    rest = [event async for event in events]
    assert rest == []  # a cancelled run does not report a crash


async def test_breaking_out_of_the_loop_stops_the_child(tmp_path: Path) -> None:
    run = fake_run(tmp_path, "slow")
    events = run.events()
    async for _ in events:
        break
    await events.aclose()
    assert run.process is not None
    await asyncio.wait_for(run.process.wait(), 2.0)


async def test_a_slot_won_is_said_before_the_child_starts(tmp_path: Path) -> None:
    """`waiting` was followed by nothing until `started` (TensorFlow loading): now `slot`
    says the run has its slot the moment it is won, and how long it waited."""
    from tui_course.classroom.slots import TrainingSlots
    from tui_course.training.protocol import SlotTaken, Waiting

    folder = tmp_path / "slots"
    folder.mkdir()
    slots = TrainingSlots(folder, folder, 1, create=True)
    held = slots.try_take()  # another student's run
    assert held is not None
    log = tmp_path / "train.log"
    run = TrainingRun([sys.executable, str(FAKE), "ok", "--log", str(log)], log, slots=slots)
    events = run.events()
    assert await anext(events) == Waiting(position=1, slots=1)
    held.release()  # the other run ends
    slot = await anext(events)
    assert isinstance(slot, SlotTaken) and (slot.number, slot.slots) == (1, 1)
    assert slot.waited_seconds > 0 and run.process is None  # said before the child exists
    rest = [event async for event in events]
    assert isinstance(rest[0], Started) and isinstance(rest[-1], Done)
    assert slots.state().in_use == 0  # given back at the end


async def test_a_free_slot_is_said_too(tmp_path: Path) -> None:
    from tui_course.classroom.slots import TrainingSlots
    from tui_course.training.protocol import SlotTaken

    folder = tmp_path / "slots"
    folder.mkdir()
    log = tmp_path / "train.log"
    slots = TrainingSlots(folder, folder, 2, create=True)
    run = TrainingRun([sys.executable, str(FAKE), "ok", "--log", str(log)], log, slots=slots)
    events = await collect(run)
    assert events[0] == SlotTaken(number=1, slots=2, waited_seconds=events[0].waited_seconds)  # type: ignore[attr-defined]
    assert isinstance(events[1], Started)
