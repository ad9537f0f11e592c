"""How fast a freed training slot reaches the next student, as a ratio to a plain start.

Baseline: a training run (the fake child of the tests) with no slots, from
`events()` to its Started event. Handoff: a second process holds the only slot,
a run waits in line, the holder is killed with SIGKILL, and the time from the
kill to the waiting run's Started event is taken. Both in this invocation, so
the ratio does not depend on the machine; the handoff adds at most one look at
the line (SLOT_POLL) to a plain start.

    python bench/slots.py [--repeat 5] [--junk 50000]
"""

from __future__ import annotations

import argparse
import asyncio
import grp
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tui_course.classroom.folder import init_class
from tui_course.classroom.slots import TrainingSlots
from tui_course.training.protocol import Started, Waiting
from tui_course.training.runner import SLOT_POLL, TrainingRun

FAKE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "fake_child.py"
HOLD = (
    "import sys, time\nfrom pathlib import Path\n"
    "from tui_course.classroom.slots import TrainingSlots\n"
    "slot = TrainingSlots(Path(sys.argv[1]), Path(sys.argv[2]), 1).try_take()\n"
    "assert slot is not None\nprint('held', flush=True)\ntime.sleep(600)\n"
)


def run_for(tmp: Path, slots: TrainingSlots | None) -> TrainingRun:
    log = tmp / "run.log"
    return TrainingRun([sys.executable, str(FAKE), "ok", "--log", str(log)], log, slots=slots)


async def plain_start(tmp: Path) -> float:
    run = run_for(tmp, None)
    start = time.perf_counter()
    async for event in run.events():
        if isinstance(event, Started):
            elapsed = time.perf_counter() - start
            await run.cancel()
            return elapsed
    raise RuntimeError("no Started event")


async def handoff(tmp: Path, slots: TrainingSlots) -> float:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(slots.slots_dir), str(slots.queue_dir)],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
    run = run_for(tmp, slots)
    killed = 0.0
    try:
        async for event in run.events():
            if isinstance(event, Waiting):
                await asyncio.sleep(SLOT_POLL * 2)  # settle in line
                os.kill(holder.pid, signal.SIGKILL)
                killed = time.perf_counter()
            elif isinstance(event, Started):
                elapsed = time.perf_counter() - killed
                await run.cancel()
                return elapsed
    finally:
        holder.kill()
        holder.wait()
    raise RuntimeError("no Started event")


def look_cost(tmp: Path, junk: int, looks: int = 20) -> tuple[float, float]:
    """CPU seconds per look at the line (what each waiting run does every SLOT_POLL):
    an empty queue folder, then one holding `junk` files (half named like tickets) of
    another account (nobody's, when run as root)."""
    queue = tmp / "junk-queue"
    queue.mkdir()
    slots = TrainingSlots(queue, queue, 1)

    def per_look() -> float:
        slots.state()  # the first look reads the folder
        time.sleep(0.2)  # let its mtime age past one clock tick
        slots.state()
        start = time.process_time()
        for _ in range(looks):
            slots.state()
        return (time.process_time() - start) / looks

    empty = per_look()
    for number in range(junk):
        name = f"ticket-{number:024x}" if number % 2 else f"junk-{number}"
        os.close(os.open(queue / name, os.O_CREAT | os.O_WRONLY, 0o644))
        if os.geteuid() == 0:  # another account's junk (one's own dead files are removed)
            os.chown(queue / name, 65534, -1)
    full = per_look()
    start = time.process_time()
    os.close(os.open(queue / "one-more", os.O_CREAT | os.O_WRONLY, 0o644))
    slots.state()  # the folder changed: one read of it
    changed = time.process_time() - start
    print(f"CPU per look, empty queue folder:          {empty * 1000:7.2f} ms")
    print(f"CPU per look, {junk:,} junk files:        {full * 1000:7.2f} ms (unchanged folder)")
    print(f"CPU for the look after the folder changed: {changed * 1000:7.2f} ms")
    return empty, full


async def main(repeat: int, junk: int) -> None:
    if junk:
        with tempfile.TemporaryDirectory() as name:
            look_cost(Path(name), junk)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        init_class(tmp / "class", grp.getgrgid(os.getgid()).gr_name, 1, "bench")
        # one account plays both students here: let it hold two places
        slots = TrainingSlots(tmp / "class" / "slots", tmp / "class" / "queue", 1, runs_per_user=2)
        plain, handed = [], []
        for _ in range(repeat):  # alternate, so load changes hit both alike
            plain.append(await plain_start(tmp))
            handed.append(await handoff(tmp, slots))
    base, hand = statistics.median(plain), statistics.median(handed)
    print(f"plain start to Started:        median {base * 1000:7.1f} ms over {repeat}")
    print(f"kill -9 of holder to Started:  median {hand * 1000:7.1f} ms over {repeat}")
    print(
        f"ratio handoff / plain start:   {hand / base:.2f}"
        f"  (bound: 1 + SLOT_POLL / plain = {1 + SLOT_POLL / base:.2f})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--junk", type=int, default=0, help="also time a look at a queue folder with N junk files"
    )
    arguments = parser.parse_args()
    asyncio.run(main(arguments.repeat, arguments.junk))
