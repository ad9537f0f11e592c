"""How long the training child outlives a parent that dies just as the child starts.

A parent process starts `python -m tui_course.training` exactly as the app does, then
kills itself with SIGKILL at once (an SSH session dropped at the wrong moment). This
script is the child's subreaper (PR_SET_CHILD_SUBREAPER), so it can wait for the orphan
and time from the parent's death to the child's exit.

Two children run alternately, in this one invocation:
- baseline: the training entry point as it was at --baseline (default: the commit before
  the die-with-parent setting moved to the child's first instructions), run from a copy;
- current: `python -m tui_course.training` from this tree.
The issue measured the old window at 2.2-2.7 s (the child lived until TensorFlow had
loaded and its first event line met the closed pipe). Prints each window and the ratio
current/baseline (target: well under 0.1).

    python bench/die_with_parent.py [--trials 8] [--baseline REV]

Linux only; needs the train extra for a meaningful baseline (without Keras the old child
exits on its import error, which is quick too).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PR_SET_CHILD_SUBREAPER = 36

PARENT = """
import os, signal, subprocess, sys
command, env = sys.argv[1:-1], dict(os.environ, ATTN_TUI_PARENT_PID=str(os.getpid()))
child = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
print(child.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def window(command: list[str]) -> tuple[float, int]:
    """Seconds from the parent's death to the child's, and the child's wait status."""
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, *command, "end"], stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    child_pid = int(parent.stdout.readline())
    parent.wait()
    parent_died = time.perf_counter()
    _, status = os.waitpid(child_pid, 0)  # ours to reap: we are the subreaper
    return time.perf_counter() - parent_died, status


def describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit {os.WEXITSTATUS(status)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--baseline", default="5224e97", help="git revision of the old child")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        print("Linux only (prctl)", file=sys.stderr)
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("cannot become a subreaper", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        old_main = Path(scratch) / "old_training_main.py"
        old_main.write_text(
            subprocess.run(
                [
                    "git",
                    "-C",
                    str(REPO),
                    "show",
                    f"{args.baseline}:tui_course/training/__main__.py",
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        train = ["--epochs", "50", "--log"]
        commands = {
            "baseline": [sys.executable, str(old_main), *train, str(Path(scratch) / "old.log")],
            "current": [
                sys.executable,
                "-m",
                "tui_course.training",
                *train,
                str(Path(scratch) / "new.log"),
            ],
        }
        results: dict[str, list[float]] = {name: [] for name in commands}
        for trial in range(args.trials):
            for name, command in commands.items():
                seconds, status = window(command)
                results[name].append(seconds)
                print(f"trial {trial + 1} {name:<8} {seconds:6.3f} s  ({describe(status)})")
    for name, values in results.items():
        print(
            f"{name:<8} median {statistics.median(values):.3f} s,"
            f" max {max(values):.3f} s over {len(values)} trials"
        )
    ratio = statistics.median(results["current"]) / statistics.median(results["baseline"])
    print(f"ratio current/baseline (median): {ratio:.3f}")
    return 0


if __name__ == "__main__":
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    raise SystemExit(main())
