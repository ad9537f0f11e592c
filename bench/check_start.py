"""What a student waits for at `attn-tui check code/1 FILE` (a correct solution), from cold.

Side by side, alternating in this one invocation, each a new process as a student's shell
starts it:
- baseline: `python -I -c "import numpy"` (issue 30's yardstick: a check costs <= 2x);
- check: the real entry point `attn-tui check code/1 FILE`, data in a fresh folder.

For each: wall time, and CPU time (user + system of the process and every process it
reaped: the sandbox's bwrap and harness included). The check's wall / its own CPU says how
much of it is waiting rather than work (target <= 1.2). The first check in the fresh data
folder is shown on its own line (it has no cached sandbox probe or reference results yet).

--busy starts two CPU burners (`python -c 'while 1: pass'`) for the whole run and stops
them at the end, as issue 30 asks for each row.

    python bench/check_start.py [--rounds 11] [--busy]
"""

from __future__ import annotations

import argparse
import os
import resource
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
    """Wall and CPU (user + system of the child and its reaped descendants)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(
        argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = process.communicate()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        shown = (out + err).decode(errors="replace")
        raise SystemExit(f"{' '.join(argv[:4])} exited {process.returncode}:\n{shown}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
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
            run_once(baseline, env)  # the interpreter and NumPy's files read once
            first = run_once(check, env)
            for _ in range(args.rounds):
                samples["baseline"].append(run_once(baseline, env))
                samples["check"].append(run_once(check, env))

    def median(name: str, part: int) -> float:
        return statistics.median(sample[part] for sample in samples[name])

    base_wall, base_cpu = median("baseline", 0), median("baseline", 1)
    wall, cpu = median("check", 0), median("check", 1)
    ratios = [c[0] / b[0] for b, c in zip(samples["baseline"], samples["check"], strict=True)]
    mode = "busy (two CPU burners)" if args.busy else "quiet"
    print(f"{mode}; {args.rounds} rounds, medians; attn-tui check code/1 FILE")
    for name, (shown_wall, shown_cpu) in (
        ("baseline (import numpy)", (base_wall, base_cpu)),
        ("check", (wall, cpu)),
        ("first check, fresh data", first),
    ):
        print(f"  {name:<24} wall {shown_wall * 1000:5.0f} ms  CPU {shown_cpu * 1000:5.0f} ms")
    print(f"check / baseline, wall: {wall / base_wall:.2f}x (target <= 2)")
    print(f"  median of the rounds' own ratios: {statistics.median(ratios):.2f}x")
    print(f"check / baseline, CPU:  {cpu / base_cpu:.2f}x")
    print(f"check's wall / its CPU: {wall / cpu:.2f} (target <= 1.2)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
