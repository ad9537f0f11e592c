"""Run the training child and turn its stdout into events, for the TUI and the CLI.

Cancelling (or leaving the `async with`) terminates the child, waits briefly,
then kills it, and always reaps it: no process is left behind.

On a lab server a run first takes a training slot (tui_course.classroom.slots);
while every slot is taken it reports Waiting events with its place in line, the
moment one is won a SlotTaken event (before the child has loaded TensorFlow), and
a cancel while waiting just leaves the line.

Where the site config says `scheduler = "slurm"`, the child is the Slurm watcher
(tui_course.training.slurm_job) instead, wrapping the same child command in srun: it
reports Slurm's own waiting and start as the same Waiting and SlotTaken events, and
a cancel (SIGTERM) becomes scancel, so it gets SLURM_TERMINATE_GRACE to finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tui_course.content.text import strip_control
from tui_course.extras import TRAIN_EXTRA_MISSING as TRAIN_EXTRA_MISSING
from tui_course.extras import train_extra_installed as train_extra_installed
from tui_course.paths import ensure_private_dir
from tui_course.training.lifeline import PARENT_PID_ENV
from tui_course.training.options import TrainOptions
from tui_course.training.protocol import (
    Done,
    Error,
    Event,
    ProtocolError,
    SlotTaken,
    Waiting,
    decode,
)

if TYPE_CHECKING:
    from tui_course.classroom.config import SlurmSettings
    from tui_course.classroom.slots import Slot, TrainingSlots

SLOT_POLL = 0.25  # seconds between looks at the line while waiting for a slot
# a look costs a directory read whenever the queue folder changed: a student who fills it
# (100,000 names cost 0.6 s a read) and keeps changing it must not make every waiter burn
# a core, so a waiter rests this many times what its last look cost (at most 10% of a CPU)
LOOK_REST = 9.0
LEAVE_GRACE = 1.0  # seconds a cancelled run waits for its ticket to be handed back
TERMINATE_GRACE = 1.0  # seconds between SIGTERM and SIGKILL: cancel completes well within 2 s
SLURM_TERMINATE_GRACE = 10.0  # the watcher's scancel, which asks slurmctld, before SIGKILL
STREAM_LIMIT = 4 * 1024 * 1024  # attention samples make long lines


def log_path_for(data_dir: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return ensure_private_dir(data_dir / "logs") / f"training-{stamp}.log"


def child_command(options: TrainOptions, log: Path) -> list[str]:
    return [sys.executable, "-m", "tui_course.training", *options.to_args(), "--log", str(log)]


def site_slurm() -> SlurmSettings | None:
    """The site's [slurm] settings when jobs go to Slurm; None for local runs (and for a
    broken site config, which the local path reports as it always has)."""
    from tui_course.classroom.config import ConfigError, load_site_config

    try:
        site = load_site_config()
    except (ConfigError, OSError):
        return None
    return site.slurm if site.scheduler == "slurm" else None


def slurm_job_command(
    settings: SlurmSettings, job_name: str, child: Sequence[str], log: Path, text: bool = False
) -> list[str]:
    """The watcher around `srun ... -- child` (see training.slurm_job)."""
    import secrets

    from tui_course.classroom.slurm import srun_command

    token = secrets.token_hex(12)
    command = [sys.executable, "-m", "tui_course.training.slurm_job", "--token", token]
    command += ["--job-name", job_name, "--log", str(log)]
    if text:
        command.append("--text")
    if settings.time_limit:
        command += ["--time-limit", str(settings.time_limit)]
    if settings.mem:
        command += ["--mem", str(settings.mem)]
    return [*command, "--", *srun_command(settings, job_name, token, child)]


def read_tail(log: Path, lines: int = 12) -> list[str]:
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [strip_control(line) for line in text.splitlines() if line.strip()][-lines:]


def site_slots() -> TrainingSlots | None:
    """This server's training slots; None where there is no lock folder or no flock (the
    run goes unthrottled rather than never). Raises ConfigError for a broken site config."""
    try:
        from tui_course.classroom.slots import training_slots  # needs fcntl (POSIX)
    except ImportError:
        return None
    try:
        return training_slots()
    except OSError:
        return None


class TrainingRun:
    """One child process. Iterate `events()`; call `cancel()` from anywhere to stop it."""

    def __init__(
        self,
        command: Sequence[str],
        log: Path,
        slots: TrainingSlots | None = None,
        find_slots: Callable[[], TrainingSlots | None] | None = None,
        terminate_grace: float = TERMINATE_GRACE,
    ) -> None:
        self.command = list(command)
        self.log = log
        self.slots = slots
        self.find_slots = find_slots  # looked up off the event loop: the class folder may be NFS
        self.terminate_grace = terminate_grace
        self.slot: Slot | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.cancelled = False
        self.timed_out = False
        self._stopping: asyncio.Future[None] | None = None
        self._stop_waiting = threading.Event()
        self._handover = threading.Lock()
        self._handed: Slot | None = None  # a slot the line thread took, not yet claimed
        self._slot_count = 0  # of the server the slot was won on
        self._posted: asyncio.Queue[Waiting | Error | None] | None = None

    @classmethod
    def for_options(cls, options: TrainOptions, data_dir: Path) -> TrainingRun:
        """A run that takes one of the server's training slots (see classroom.slots), or
        a Slurm job where the site says so."""
        log = log_path_for(data_dir)
        child = child_command(options, log)
        slurm = site_slurm()
        if slurm is not None:
            from tui_course.classroom.slurm import JOB_TRAIN

            command = slurm_job_command(slurm, JOB_TRAIN, child, log)
            return cls(command, log, terminate_grace=SLURM_TERMINATE_GRACE)
        return cls(child, log, find_slots=site_slots)

    def _wait_in_line(self, post: Callable[[Waiting | Error | None], None]) -> None:
        """In a thread, so a slow network class folder never stalls the screen: post
        Waiting while every slot is taken, then None (a slot is handed over, or the run
        goes on without one); an Error for a broken site config."""
        from tui_course.classroom.config import ConfigError

        try:
            slots = self.slots
            if slots is None and self.find_slots is not None:
                slots = self.find_slots()
            if slots is None or not slots.usable():
                return
            self._slot_count = slots.count
            ticket = slots.join()
        except ConfigError as error:
            post(Error(message=f"{error} (tell your teacher)"))
            return
        except OSError:
            return
        try:
            shown = None
            while not self._stop_waiting.is_set():
                look_started = time.thread_time()
                slot = ticket.try_take()
                if slot is not None:
                    with self._handover:
                        if self._stop_waiting.is_set():
                            slot.release()
                        else:
                            self._handed = slot
                    return
                position = ticket.position()
                if position != shown:
                    shown = position
                    post(Waiting(position=position, slots=slots.count))
                spent = time.thread_time() - look_started
                self._stop_waiting.wait(max(SLOT_POLL, LOOK_REST * spent))
        except OSError:
            return  # the lock folder failed mid-way: go on without a slot
        finally:
            ticket.leave()

    async def _wait_for_slot(self) -> AsyncGenerator[Waiting | SlotTaken | Error, None]:
        """Take a slot, reporting the place in line, then SlotTaken the moment it is won
        (the child still has TensorFlow to load). Ends without a slot when cancelled."""
        loop = asyncio.get_running_loop()
        joined = loop.time()
        posted: asyncio.Queue[Waiting | Error | None] = asyncio.Queue()
        self._posted = posted

        def post(item: Waiting | Error | None) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody is listening
                loop.call_soon_threadsafe(posted.put_nowait, item)

        def run() -> None:
            try:
                self._wait_in_line(post)
            finally:
                post(None)

        thread = threading.Thread(target=run, name="training-slot", daemon=True)
        thread.start()
        try:
            while (item := await posted.get()) is not None:
                yield item
            with self._handover:
                self.slot, self._handed = self._handed, None
            if self.slot is not None and not self.cancelled:
                waited = round(loop.time() - joined, 3)
                yield SlotTaken(self.slot.number, self._slot_count, waited)
        finally:
            with self._handover:
                self._stop_waiting.set()
                left, self._handed = self._handed, None
            if left is not None:  # taken by the thread but never claimed (closed or cancelled)
                left.release()
            # Give the thread a moment to hand its ticket back, so a cancel leaves the line
            # before the caller looks; a hung network folder only costs this bound.
            await asyncio.to_thread(thread.join, LEAVE_GRACE)

    def release_slot(self) -> None:
        if self.slot is not None:
            self.slot.release()
            self.slot = None

    async def events(self) -> AsyncIterator[Event]:
        """Events until the child ends. A child that dies without saying why yields an
        Error carrying the last lines of its log; a line that is not an event is skipped."""
        try:
            if self.slots is not None or self.find_slots is not None:
                async with contextlib.aclosing(self._wait_for_slot()) as line:
                    async for waiting in line:
                        yield waiting
                        if isinstance(waiting, Error):
                            return
            if self.cancelled:
                return
            async with contextlib.aclosing(self._run_child()) as child:
                async for event in child:
                    yield event
        finally:
            await self.stop()  # the child first, then its slot
            self.release_slot()

    async def _run_child(self) -> AsyncGenerator[Event, None]:
        self.process = await asyncio.create_subprocess_exec(
            *self.command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=STREAM_LIMIT,
            start_new_session=True,  # a Ctrl+C in the terminal reaches the app, not the child
            env={**os.environ, PARENT_PID_ENV: str(os.getpid())},  # see training.lifeline
        )
        assert self.process.stdout is not None
        final = False
        limit = self.slot.max_seconds if self.slot is not None else None
        timer = None
        if limit is not None:  # the class's cap on how long one run may hold a slot
            timer = asyncio.get_running_loop().call_later(limit, self._time_is_up)
        try:
            async for raw in self.process.stdout:
                try:
                    event = decode(raw.decode("utf-8", errors="replace"))
                except ProtocolError:
                    continue
                final = final or isinstance(event, Done | Error)
                yield event
            code = await self.process.wait()
            if self.timed_out and limit is not None:
                yield Error(
                    message=f"stopped after {limit / 60:g} minutes: the class's limit for one"
                    " training run (fewer epochs or a smaller model fit in it)",
                    log_tail=read_tail(self.log),
                )
            elif not final and not self.cancelled:
                yield Error(
                    message=f"the training process stopped unexpectedly (exit code {code})",
                    log_tail=read_tail(self.log),
                )
        finally:
            if timer is not None:
                timer.cancel()
            await self.stop()

    def _time_is_up(self) -> None:
        """Terminate, then kill after the grace (stop); the slot goes when events() ends."""
        self.timed_out = True
        self._stopping = asyncio.ensure_future(self.stop())

    async def cancel(self) -> None:
        self.cancelled = True
        self._stop_waiting.set()  # the line thread leaves at its next look (or at once)
        if self._posted is not None:
            self._posted.put_nowait(None)  # and the run stops listening now, not then
        await self.stop()

    async def stop(self) -> None:
        """Terminate, give it its grace (TERMINATE_GRACE), then kill; always reap."""
        process = self.process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        try:
            await asyncio.wait_for(process.wait(), self.terminate_grace)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
