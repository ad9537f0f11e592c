"""`python -m tui_course.training.slurm_job`: one run as a Slurm job, and its lifeline.

The app starts this in place of the training child (or `class recheck`'s own work); it
starts `srun` with the same child command and relays the child's lines unchanged, so
the JSON-lines protocol is the local runner's. Around that it does what srun alone
does not:

- while the job is pending it reads squeue (every POLL_SECONDS, never faster) and says
  where the job stands: position in its partition and Slurm's reason;
- the job is found by the random token in its comment (see classroom.slurm), so it can
  be cancelled even when srun was killed before it printed an id;
- a cancel (SIGTERM from the app, ctrl+x / Ctrl-C) and the app's death (this process
  holds PR_SET_PDEATHSIG like the training child, see training.lifeline: kill -9,
  SIGHUP and a dropped SSH session all end the app) run `scancel` on the job: srun
  killed with the app would leave a pending job in squeue, and a running job's step
  until slurmctld noticed;
- a job Slurm ends for its time or memory limit, a controller that does not answer
  and a missing srun each become one Error line naming what to fix.

The child's own lifeline variable is not passed on: on the node its parent is slurmstepd.
"""

from __future__ import annotations

# First, before any other import: a parent that dies from here on takes this watcher
# along through SIGTERM, whose handler cancels the job.
from tui_course.training.lifeline import hold_on_to_parent

hold_on_to_parent()

# isort: split
import argparse
import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import IO

from tui_course.classroom.slurm import (
    SlurmError,
    SlurmJob,
    ended_line,
    job_with_token,
    not_installed,
    queue_position,
    scancel,
)
from tui_course.training.lifeline import PARENT_PID_ENV
from tui_course.training.protocol import Error, SlotTaken, Waiting, encode

POLL_SECONDS = 2.0  # squeue is asked at most this often: a class of 200 must not flood slurmctld
FIRST_LOOK = 0.5  # seconds before the first squeue: srun is still submitting before that
CANCEL_SECONDS = 8.0  # how long a cancel keeps looking for a job still being submitted
CANCELLED_EXIT = 130


class Watch:
    def __init__(
        self,
        command: Sequence[str],
        token: str,
        job_name: str,
        log: Path,
        text_mode: bool,
        time_limit: int | None,
        mem: int | None,
    ) -> None:
        self.command = list(command)
        self.token = token
        self.job_name = job_name
        self.log = log
        self.text_mode = text_mode
        self.time_limit = time_limit
        self.mem = mem
        self.out_lock = threading.Lock()
        self.stop = threading.Event()  # set by run(), never by a signal handler (see listen)
        self.signalled: int | None = None
        self.wake: int | None = None
        self.first_line = threading.Event()  # the child is running: no more squeue
        self.stderr_lines: list[str] = []
        self.final_seen = False
        self.job: SlurmJob | None = None
        self.process: subprocess.Popen[bytes] | None = None

    # what is said

    def say(self, event: Waiting | SlotTaken | Error) -> None:
        with self.out_lock:
            if not isinstance(event, Error) and self.first_line.is_set():
                return  # the child speaks for itself now: never a late "waiting" after it
            if self.text_mode:
                print(f"attn-tui: {_text(event)}", file=sys.stderr, flush=True)
            else:
                sys.stdout.write(encode(event) + "\n")
                sys.stdout.flush()

    def relay(self, stream: IO[bytes]) -> None:
        out = sys.stdout.buffer
        for raw in stream:
            self.first_line.set()
            if not self.text_mode and (b'"event":"done"' in raw or b'"event":"error"' in raw):
                self.final_seen = True
            with self.out_lock:
                out.write(raw)
                out.flush()

    def keep_stderr(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError), self.log.open("ab") as log:
            for raw in stream:
                log.write(raw)
                log.flush()
                line = raw.decode("utf-8", errors="replace").rstrip()
                self.stderr_lines.append(line)
                del self.stderr_lines[:-200]
                if self.text_mode and not line.startswith("srun: job "):
                    with self.out_lock:
                        print(line, file=sys.stderr, flush=True)

    # the job

    def watch_queue(self) -> None:
        """Until the child speaks: Waiting while pending, SlotTaken once running."""
        shown: tuple[int, str] | None = None
        if self.stop.wait(FIRST_LOOK):  # srun has not submitted yet at once
            return
        while not self.stop.is_set() and not self.first_line.is_set():
            try:
                job = job_with_token(self.job_name, self.token)
                if job is not None:
                    self.job = job
                    if job.state == "PENDING":
                        where = (queue_position(job), job.reason)
                        if where != shown:
                            shown = where
                            self.say(
                                Waiting(
                                    where[0],
                                    0,
                                    scheduler="slurm",
                                    reason=job.reason,
                                    job=job.job_id,
                                )
                            )
                    elif job.state in ("RUNNING", "CONFIGURING"):
                        waited = round(job.waited_seconds(), 3)
                        self.say(SlotTaken(0, 0, waited, job=job.job_id, node=job.nodes))
                        return
            except SlurmError:
                pass  # srun says so too, and its words are the ones reported
            if self.stop.wait(POLL_SECONDS) or self.process is None:
                return
            if self.process.poll() is not None:
                return

    def cancel_job(self) -> None:
        """scancel every job of this run's token, until srun is gone and none is left."""
        deadline = time.monotonic() + CANCEL_SECONDS
        while True:
            with contextlib.suppress(SlurmError):
                job = job_with_token(self.job_name, self.token)
                if job is not None:
                    scancel([job.job_id])
                elif self.process is None or self.process.poll() is not None:
                    return
            if self.process is not None and self.process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    self.process.send_signal(signal.SIGTERM)
            if time.monotonic() > deadline:
                break
            time.sleep(0.25)
        if self.process is not None and self.process.poll() is None:
            self.process.kill()

    # the app's end

    def listen(self, signums: Sequence[signal.Signals]) -> None:
        """Take these signals as a cancel. The handler only stores the number: it runs
        in the main thread between any two bytecodes, also while run() holds the stop
        Event's lock inside Event.wait, and Event.set() there would wait for that lock
        forever; a loaded machine made that window wide enough to leave a job behind.
        The wakeup fd's byte ends rest() at once."""
        read, write = os.pipe()
        os.set_blocking(write, False)
        signal.set_wakeup_fd(write)
        self.wake = read

        def note(signum: int, frame: FrameType | None) -> None:
            self.signalled = signum

        for signum in signums:
            signal.signal(signum, note)

    def rest(self, seconds: float) -> None:
        """Up to `seconds`, or until a signal comes (after listen())."""
        assert self.wake is not None, "listen() first"
        ready, _, _ = select.select([self.wake], [], [], seconds)
        if ready:
            os.read(self.wake, 64)

    def run(self) -> int:
        env = {key: value for key, value in os.environ.items() if key != PARENT_PID_ENV}
        try:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
            )
        except FileNotFoundError:
            self.say(Error(message=not_installed(self.command[0])))
            return 3
        assert self.process.stdout is not None and self.process.stderr is not None
        readers = [
            threading.Thread(target=self.relay, args=(self.process.stdout,), daemon=True),
            threading.Thread(target=self.keep_stderr, args=(self.process.stderr,), daemon=True),
        ]
        for reader in readers:
            reader.start()
        queue = threading.Thread(target=self.watch_queue, daemon=True)
        queue.start()
        while self.process.poll() is None and self.signalled is None:
            self.rest(0.2)
        if self.signalled is not None:
            self.stop.set()
            self.cancel_job()
            return CANCELLED_EXIT
        code = self.process.wait()
        for reader in readers:
            reader.join(5.0)
        self.stop.set()
        if code != 0 and not self.final_seen:
            job_id = None if self.job is None else self.job.job_id
            message, known = ended_line(self.stderr_lines, code, job_id, self.mem, self.time_limit)
            # a named cause is the one line; an unknown one brings srun's last words
            self.say(Error(message=message, log_tail=[] if known else self.stderr_lines[-8:]))
        return code


def _text(event: Waiting | SlotTaken | Error) -> str:
    from tui_course.training.protocol import slot_text, waiting_text

    if isinstance(event, Waiting):
        return waiting_text(event)
    if isinstance(event, SlotTaken):
        return slot_text(event)
    return event.message


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tui_course.training.slurm_job")
    parser.add_argument("--token", required=True)
    parser.add_argument("--job-name", required=True)
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--text", action="store_true", help="plain lines, not JSON events")
    parser.add_argument("--time-limit", type=int)
    parser.add_argument("--mem", type=int)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    watch = Watch(
        command, args.token, args.job_name, args.log, args.text, args.time_limit, args.mem
    )
    watch.listen((signal.SIGTERM, signal.SIGHUP, signal.SIGINT))
    return watch.run()


if __name__ == "__main__":
    raise SystemExit(main())
