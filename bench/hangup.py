"""How long the full-screen app lives on after its terminal goes away, or after SIGTERM.

Each trial starts `python -m tui_course` on a pseudo-terminal of its own (its controlling
terminal, as under sshd), waits for the first lesson on screen, then either closes the
terminal's other end (an SSH connection dropped: "closed", or the pty left open but not
controlling: "orphan") or sends SIGTERM ("sigterm"), and times until the process is gone.

Two trees run alternately in this one invocation:
- baseline: the app as it was at --baseline (default: the commit before this work), from
  a copy made with `git archive`;
- current: this tree.
Prints each case's median seconds (or "still running" after --patience seconds), the
exit status, and the ratio current/baseline (target: under 1 s, whatever the baseline).

    python bench/hangup.py [--trials 3] [--baseline REV] [--patience 5]

Linux only.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import select
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import termios
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CASES = ("closed", "orphan", "sigterm")


def trial(tree: Path, case: str, patience: float) -> tuple[float | None, int | None]:
    """Seconds from the event to the exit (None: still running), and the exit status."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, b"\x18\x00\x50\x00\x00\x00\x00\x00")
    with tempfile.TemporaryDirectory() as data:
        env = {
            **os.environ,
            "TERM": "xterm-256color",
            "ATTN_TUI_DATA_DIR": data,
            "ATTN_TUI_CONFIG": os.devnull,
            "PYTHONPATH": str(tree),
        }

        def controlling() -> None:
            if case != "orphan":
                fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        process = subprocess.Popen(
            [sys.executable, "-m", "tui_course"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=tree,
            start_new_session=True,
            preexec_fn=controlling,
        )
        os.close(slave)
        seen = b""
        deadline = time.monotonic() + 60
        while b"Why a new design" not in seen and time.monotonic() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                seen += os.read(master, 65536)
        start = time.monotonic()
        if case == "sigterm":
            process.send_signal(signal.SIGTERM)
        else:
            os.close(master)
        end = start + patience
        while process.poll() is None and time.monotonic() < end:
            if case == "sigterm" and select.select([master], [], [], 0.02)[0]:
                with contextlib.suppress(OSError):
                    os.read(master, 65536)
            else:
                time.sleep(0.01)
        elapsed = time.monotonic() - start
        code = process.poll()
        if code is None:
            process.kill()
            process.wait()
        if case == "sigterm":
            os.close(master)
    return (elapsed if code is not None else None), code


def baseline_tree(revision: str, into: Path) -> Path:
    archive = into / "baseline.tar"
    with archive.open("wb") as handle:
        subprocess.run(["git", "archive", revision], cwd=REPO, stdout=handle, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--baseline", default="440d2b4", help="git revision (default: 440d2b4)")
    parser.add_argument("--patience", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        trees = {"baseline": baseline_tree(args.baseline, Path(scratch)), "current": REPO}
        results: dict[tuple[str, str], list[tuple[float | None, int | None]]] = {}
        for _ in range(args.trials):
            for case in CASES:
                for name, tree in trees.items():
                    results.setdefault((name, case), []).append(trial(tree, case, args.patience))
    for case in CASES:
        medians: dict[str, float | None] = {}
        for name in trees:
            runs = results[(name, case)]
            times = [t for t, _ in runs if t is not None]
            codes = sorted({code for _, code in runs}, key=str)
            if len(times) < len(runs):
                medians[name] = None
                shown = f"still running after {args.patience:g} s in {len(runs) - len(times)}"
            else:
                medians[name] = statistics.median(times)
                shown = f"{medians[name]:.3f} s"
            print(f"{case:8} {name:9} {shown}  (exit {', '.join(map(str, codes))})")
        current, base = medians["current"], medians["baseline"]
        if current is not None and base:
            print(f"{case:8} ratio current/baseline {current / base:.2f}")
        elif current is not None:
            print(f"{case:8} current ends in {current:.3f} s; the baseline did not end")
    print(
        "(an exit below 0 is death by that signal: nothing saved; 129 and 143 are the app"
        " ending itself after saving, as q does)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
