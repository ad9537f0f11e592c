"""The suite on a busy machine: run the test command N times with CPU burners beside it and
count the green runs (issue: 10 of 10 runs green with two burners).

    python bench/loaded_suite.py                  # 10 runs of the test command, 2 burners
    python bench/loaded_suite.py --runs 3 --burners 0 --quiet-first
    python bench/loaded_suite.py -- bash .ci/run  # any command instead

The test command is read the way .ci/run reads it: the fenced block after the
<!-- test-command --> marker (CONTRIBUTING.md). `--quiet-first` runs it once without
burners first and prints each loaded run's time as a ratio against that quiet run (same
invocation, same machine).
"""

from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MARKER = "<!-- test-command -->"
SUMMARY = re.compile(r"^=*\s*(\d.*\b(?:passed|failed|error)\b.*?) in [\d.]+s", re.MULTILINE)


def marked_command(marker: str = MARKER) -> str:
    """The first ```sh block after `marker` in README.md or CONTRIBUTING.md."""
    for name in ("README.md", "CONTRIBUTING.md"):
        path = REPO / name
        if not path.is_file():
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        if marker not in lines:
            continue
        rest = lines[lines.index(marker) + 1 :]
        start = next(i for i, line in enumerate(rest) if line.startswith("```sh"))
        end = next(i for i in range(start + 1, len(rest)) if rest[i].startswith("```"))
        return "\n".join(rest[start + 1 : end])
    raise SystemExit(f"loaded_suite: no {marker} block in README.md or CONTRIBUTING.md")


def default_signals() -> None:
    """In the suite's process, before it starts: Ctrl-C's and Ctrl-\\'s signals at their
    defaults. Started in the background (`cmd &` without job control) this script inherits
    them ignored, and so would every test's child, which a SIGINT test then cannot reach."""
    for signum in (signal.SIGINT, signal.SIGQUIT):
        signal.signal(signum, signal.SIG_DFL)


def run_once(command: list[str], log: Path) -> tuple[int, float, str]:
    started = time.monotonic()
    with log.open("wb") as out:
        code = subprocess.run(
            command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, preexec_fn=default_signals
        ).returncode
    took = time.monotonic() - started
    summaries = [m.group(1) for m in SUMMARY.finditer(log.read_text(errors="replace"))]
    return code, took, " | ".join(summaries) or "(no pytest summary)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--burners", type=int, default=2)
    parser.add_argument("--quiet-first", action="store_true")
    parser.add_argument("--logs", type=Path, default=Path("/tmp"), help="folder for run logs")
    parser.add_argument("command", nargs="*", help="after --: a command (default: the marked one)")
    args = parser.parse_args()
    command = args.command or ["bash", "-c", f"set -euo pipefail; {marked_command()}"]
    print("command:", " ".join(command))
    quiet: float | None = None
    if args.quiet_first:
        code, quiet, summary = run_once(command, args.logs / "loaded-suite-quiet.log")
        print(f"quiet  rc={code} {quiet:7.1f}s  {summary}")
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.burners)
    ]
    green = 0
    try:
        for number in range(1, args.runs + 1):
            log = args.logs / f"loaded-suite-{number}.log"
            code, took, summary = run_once(command, log)
            green += code == 0
            ratio = f" ({took / quiet:.2f}x quiet)" if quiet else ""
            print(f"run {number:2} rc={code} {took:7.1f}s{ratio}  {summary}  log: {log}")
            sys.stdout.flush()
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    print(f"green: {green} of {args.runs} with {args.burners} CPU burner(s)")
    return 0 if green == args.runs else 1


if __name__ == "__main__":
    raise SystemExit(main())
