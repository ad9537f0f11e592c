"""What a student waits for at `attn-tui check code/1 FILE` (a correct solution), from cold,
and after each save under `attn-tui check --watch`.

Side by side, alternating in this one invocation, each a new process as a student's shell
starts it:
- baseline: `python -I -c "import numpy"` (issue 30's yardstick: a check costs <= 2x);
- check: the real entry point `attn-tui check code/1 FILE`, data in a fresh folder.

For each: wall time, and CPU time (user + system of every process it started: each runs
under a small parent that is the child subreaper, so the sandbox's harness, whose own
parent bwrap may end first, is counted too). The check's wall / CPU says how much of it is
waiting rather than work (target <= 1.2); the baseline's is printed beside it, as on a
shared machine neither is 1. The first check in the fresh data folder is shown on its own
line (no remembered sandbox probe or reference results yet).

Then --watch: one `attn-tui check --watch FILE` keeps running; each round the file is
saved again (a new comment line) and the time from the save to the verdict's line is
taken: what the student's loop pays per check.

--busy starts two CPU burners (`python -c 'while 1: pass'`) for the whole run and stops
them at the end, as issue 30 asks for each row.

    python bench/check_start.py [--rounds 11] [--busy]
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SOLUTION = """import numpy as np

def attention_weights(Q, K):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""

# Runs one command as its child subreaper: every process below it that outlives its own
# parent is reaped here, so its CPU time is in this process's RUSAGE_CHILDREN.
MEASURE = """
import ctypes, json, os, resource, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
start = time.perf_counter()
code = subprocess.call(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
wall = time.perf_counter() - start
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps([code, wall, used.ru_utime + used.ru_stime]))
"""


def entry_point() -> list[str]:
    """The installed console script beside this interpreter, else the package's __main__."""
    script = Path(sys.executable).with_name("attn-tui")
    if script.exists():
        return [str(script)]
    found = shutil.which("attn-tui")
    return [found] if found else [sys.executable, "-m", "tui_course"]


def byte_compile() -> None:
    """tui_course's bytecode, as `pip install` leaves it (a checkout run with
    PYTHONDONTWRITEBYTECODE would compile every module at every start, as no install does)."""
    import compileall

    compileall.compile_dir(REPO / "tui_course", quiet=1)


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one command and everything it started."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", MEASURE, *argv],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=True,
    )
    code, wall, cpu = json.loads(done.stdout)
    if code != 0:
        raise SystemExit(f"{' '.join(argv[:4])} exited {code}: {done.stderr.decode()}")
    return wall, cpu


@contextmanager
def burners(count: int) -> Iterator[None]:
    """`count` CPU burners for the duration, always stopped (by their own pids)."""
    started = [
        subprocess.Popen([sys.executable, "-c", "while 1: pass"], stdin=subprocess.DEVNULL)
        for _ in range(count)
    ]
    try:
        yield
    finally:
        for process in started:
            process.kill()
        for process in started:
            process.wait()


def watch_rounds(check: list[str], solution: Path, env: dict[str, str], rounds: int) -> list[float]:
    """Seconds from each save to the verdict's line, under one `check --watch`."""
    child = subprocess.Popen(
        [*check, "--watch"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert child.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(child.stdout, selectors.EVENT_READ)
    pending = b""

    def verdict_line(deadline: float) -> None:
        nonlocal pending
        while time.monotonic() < deadline:
            if b"PASSED" in pending:
                pending = pending[pending.index(b"PASSED") + 6 :]
                return
            if selector.select(deadline - time.monotonic()):
                chunk = os.read(child.stdout.fileno(), 65536)  # type: ignore[union-attr]
                if not chunk:
                    break
                pending += chunk
        raise SystemExit(f"--watch gave no verdict: {pending.decode(errors='replace')}")

    waits = []
    try:
        verdict_line(time.monotonic() + 60)  # its first check, on start
        for number in range(rounds):
            time.sleep(1.0)  # a student's saves are seconds apart: the next worker is up
            start = time.perf_counter()
            solution.write_text(f"{SOLUTION}# save {number}\n", encoding="utf-8")
            verdict_line(time.monotonic() + 60)
            waits.append(time.perf_counter() - start)
    finally:
        child.kill()
        child.wait()
        selector.close()
    return waits


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--busy", action="store_true", help="two CPU burners during the run")
    args = parser.parse_args()
    byte_compile()

    with tempfile.TemporaryDirectory(prefix="attn-tui-bench-") as folder:
        solution = Path(folder, "mine.py")
        solution.write_text(SOLUTION, encoding="utf-8")
        env = dict(os.environ, ATTN_TUI_DATA_DIR=str(Path(folder, "data")))
        check = [*entry_point(), "check", "code/1", str(solution)]
        baseline = [sys.executable, "-I", "-c", "import numpy"]
        samples: dict[str, list[tuple[float, float]]] = {"baseline": [], "check": []}
        with burners(2 if args.busy else 0):
            load = os.getloadavg()[0]
            run_once(baseline, env)  # the interpreter and NumPy's files read once
            first = run_once(check, env)
            for _ in range(args.rounds):
                samples["baseline"].append(run_once(baseline, env))
                samples["check"].append(run_once(check, env))
            waits = watch_rounds(check, solution, env, args.rounds)

    def median(name: str, part: int) -> float:
        return statistics.median(sample[part] for sample in samples[name])

    base_wall, base_cpu = median("baseline", 0), median("baseline", 1)
    wall, cpu = median("check", 0), median("check", 1)
    ratios = [c[0] / b[0] for b, c in zip(samples["baseline"], samples["check"], strict=True)]
    # the load average says how quiet the machine really was: without --busy this run
    # starts no burners, which is not to say nothing else ran
    mode = "busy (two CPU burners of its own)" if args.busy else "no burners of its own"
    print(f"{mode}; load average {load:.1f} at the start; {args.rounds} rounds, medians")
    for name, (shown_wall, shown_cpu) in (
        ("baseline (import numpy)", (base_wall, base_cpu)),
        ("attn-tui check code/1", (wall, cpu)),
        ("first check, fresh data", first),
    ):
        print(f"  {name:<24} wall {shown_wall * 1000:5.0f} ms  CPU {shown_cpu * 1000:5.0f} ms")
    watch = statistics.median(waits)
    print(f"  {'--watch: save -> verdict':<24} wall {watch * 1000:5.0f} ms")
    print(f"check / baseline, wall: {wall / base_wall:.2f}x (target <= 2)")
    print(f"  median of the rounds' own ratios: {statistics.median(ratios):.2f}x")
    print(f"check / baseline, CPU:  {cpu / base_cpu:.2f}x")
    print(f"wall / CPU: check {wall / cpu:.2f} (target <= 1.2),", end=" ")
    print(f"baseline {base_wall / base_cpu:.2f}")
    print(f"--watch save -> verdict / baseline, wall: {watch / base_wall:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
