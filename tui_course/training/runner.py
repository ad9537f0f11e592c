"""Run the training child and turn its stdout into events, for the TUI and the CLI.

Cancelling (or leaving the `async with`) terminates the child, waits briefly,
then kills it, and always reaps it: no process is left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from tui_course.content.text import strip_control
from tui_course.paths import ensure_private_dir
from tui_course.training.lifeline import PARENT_PID_ENV
from tui_course.training.options import TrainOptions
from tui_course.training.protocol import Done, Error, Event, ProtocolError, decode

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

    def __init__(self, command: Sequence[str], log: Path) -> None:
        self.command = list(command)
        self.log = log
        self.process: asyncio.subprocess.Process | None = None
        self.cancelled = False

    @classmethod
    def for_options(cls, options: TrainOptions, data_dir: Path) -> TrainingRun:
        log = log_path_for(data_dir)
        return cls(child_command(options, log), log)

    async def events(self) -> AsyncIterator[Event]:
        """Events until the child ends. A child that dies without saying why yields an
        Error carrying the last lines of its log; a line that is not an event is skipped."""
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
