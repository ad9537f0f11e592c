"""Run the training child and turn its stdout into events, for the TUI and the CLI.

Cancelling (or leaving the `async with`) terminates the child, waits briefly,
then kills it, and always reaps it: no process is left behind.

On a lab server a run first takes a training slot (tui_course.classroom.slots);
while every slot is taken it reports Waiting events with its place in line, and
a cancel while waiting just leaves the line.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tui_course.content.text import strip_control
from tui_course.paths import ensure_private_dir
from tui_course.training.options import TrainOptions
from tui_course.training.protocol import Done, Error, Event, ProtocolError, Waiting, decode

if TYPE_CHECKING:
    from tui_course.classroom.slots import Slot, TrainingSlots

SLOT_POLL = 0.25  # seconds between looks at the line while waiting for a slot
TERMINATE_GRACE = 1.0  # seconds between SIGTERM and SIGKILL: cancel completes well within 2 s
STREAM_LIMIT = 4 * 1024 * 1024  # attention samples make long lines


TRAIN_EXTRA_MISSING = (
    "needs the 'train' extra (Keras and TensorFlow): pip install 'attn-tui[train]'"
    " (from a checkout: pip install '.[train]')"
)


def train_extra_installed() -> bool:
    """Checked without importing either package: the app's process never loads them."""
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in ("keras", "tensorflow"))


def log_path_for(data_dir: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return ensure_private_dir(data_dir / "logs") / f"training-{stamp}.log"


def child_command(options: TrainOptions, log: Path) -> list[str]:
    return [sys.executable, "-m", "tui_course.training", *options.to_args(), "--log", str(log)]


def read_tail(log: Path, lines: int = 12) -> list[str]:
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [strip_control(line) for line in text.splitlines() if line.strip()][-lines:]


class TrainingRun:
    """One child process. Iterate `events()`; call `cancel()` from anywhere to stop it."""

    def __init__(
        self,
        command: Sequence[str],
        log: Path,
        slots: TrainingSlots | None = None,
        slot_problem: str | None = None,
    ) -> None:
        self.command = list(command)
        self.log = log
        self.slots = slots
        self.slot_problem = slot_problem  # a broken site config: the run cannot be fairly queued
        self.slot: Slot | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.cancelled = False
        self._cancel = asyncio.Event()

    @classmethod
    def for_options(cls, options: TrainOptions, data_dir: Path) -> TrainingRun:
        """A run that takes one of the server's training slots (see classroom.slots)."""
        from tui_course.classroom.config import ConfigError

        log = log_path_for(data_dir)
        command = child_command(options, log)
        try:
            from tui_course.classroom.slots import training_slots  # needs fcntl (POSIX)

            return cls(command, log, slots=training_slots())
        except ConfigError as error:
            return cls(command, log, slot_problem=f"{error} (tell your teacher)")
        except (OSError, ImportError):  # no lock folder (or no flock): unthrottled, not never
            return cls(command, log)

    async def _wait_for_slot(self) -> AsyncGenerator[Waiting, None]:
        """Take a slot, reporting the place in line while all are taken. Ends without a
        slot when cancelled; a lock folder that fails mid-way lets the run go unthrottled."""
        slots = self.slots
        if slots is None:
            return
        try:
            if not slots.usable():
                return
            ticket = slots.join()
        except OSError:
            return
        try:
            shown = None
            while not self.cancelled:
                self.slot = ticket.try_take()
                if self.slot is not None:
                    return
                position = ticket.position()
                if position != shown:
                    shown = position
                    yield Waiting(position=position, slots=slots.count)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._cancel.wait(), SLOT_POLL)
        except OSError:
            return
        finally:
            ticket.leave()

    def release_slot(self) -> None:
        if self.slot is not None:
            self.slot.release()
            self.slot = None

    async def events(self) -> AsyncIterator[Event]:
        """Events until the child ends. A child that dies without saying why yields an
        Error carrying the last lines of its log; a line that is not an event is skipped."""
        if self.slot_problem is not None:
            yield Error(message=self.slot_problem)
            return
        try:
            async with contextlib.aclosing(self._wait_for_slot()) as line:
                async for waiting in line:
                    yield waiting
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
        )
        assert self.process.stdout is not None
        final = False
        try:
            async for raw in self.process.stdout:
                try:
                    event = decode(raw.decode("utf-8", errors="replace"))
                except ProtocolError:
                    continue
                final = final or isinstance(event, Done | Error)
                yield event
            code = await self.process.wait()
            if not final and not self.cancelled:
                yield Error(
                    message=f"the training process stopped unexpectedly (exit code {code})",
                    log_tail=read_tail(self.log),
                )
        finally:
            await self.stop()

    async def cancel(self) -> None:
        self.cancelled = True
        self._cancel.set()
        await self.stop()

    async def stop(self) -> None:
        """Terminate, give it TERMINATE_GRACE seconds, then kill; always reap."""
        process = self.process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        try:
            await asyncio.wait_for(process.wait(), TERMINATE_GRACE)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
