"""Instructions a returning student's session runs to its first screen, against a bare Textual app.

Wall-clock ratios on a shared machine move by a tenth from run to run (see
bench/returning_logins.py, which times thirty at once). Counted instructions do
not: valgrind's callgrind counts the same program the same way whatever else the
machine is doing (two counts of one session agree within 0.3%), so a change of a
few milliseconds of start-up work shows here when thirty timed logins cannot tell
it from noise. Instructions are not seconds: the ratio printed here is higher than
the CPU-time one (when this was written, 1.68 counted against 1.5 in CPU time to the
summary, one session at a time), as the bare app spends more of its time in the
kernel. Use it to compare two versions of attn-tui, not against the 1.5x target.

Each kind runs once under callgrind on its own 80x24 pty: the real entry point
(`attn-tui`) with a data folder holding a finished first pass of `checkpoint`,
opened last (as in returning_logins.py), and the bare app (Header, Static,
Footer). When the text is on the terminal, `callgrind_control --dump` writes the
count so far ("to the first screen"); ctrl+q then quits, and the rest is counted
to the exit. A session under valgrind runs 30-50 times slower, so this takes
about half a minute.

Needs valgrind (Debian's package) on PATH.

    python bench/start_instructions.py [--runs 1]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from pty_session import PtySession
from returning_logins import RETURNING_TEXT, SIZE, returning_data
from startup import BARE_APP, BARE_TEXT, byte_compile, entry_point

_TOTALS = re.compile(r"^totals: (\d+)", re.MULTILINE)


def counted(argv: list[str], text: str, env: dict[str, str], folder: Path) -> tuple[int, int]:
    """(instructions to the first screen, instructions from there to the exit)."""
    out = folder / "callgrind.out"
    valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    session = PtySession(valgrind + argv, SIZE, env)
    try:
        session.wait_for(text, timeout=600)
        subprocess.run(
            ["callgrind_control", "--dump", str(session.pid)], check=True, capture_output=True
        )
        session.send("\x11")  # ctrl+q
        session.process.wait(600)
    finally:
        session.close()
    # The dump at the first screen is out.1; what ran after it is in out, written at exit.
    to_screen = int(_TOTALS.findall((folder / "callgrind.out.1").read_text())[0])
    after = int(_TOTALS.findall(out.read_text())[0])
    for part in folder.glob("callgrind.out*"):
        part.unlink()
    return to_screen, after


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="counts of each kind (median kept)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("error: needs valgrind and callgrind_control on PATH (Debian: apt install valgrind)")
        return 2
    byte_compile()
    course = entry_point()
    counts: dict[str, list[tuple[int, int]]] = {"bare": [], "attn-tui": []}
    with tempfile.TemporaryDirectory() as name:
        data = Path(name) / "data"
        returning_data(data)
        env = {**os.environ, "ATTN_TUI_DATA_DIR": str(data)}
        work = Path(name) / "callgrind"
        work.mkdir()
        for _ in range(args.runs):
            counts["bare"].append(counted([sys.executable, "-c", BARE_APP], BARE_TEXT, env, work))
            counts["attn-tui"].append(counted(course, RETURNING_TEXT, env, work))

    def median(kind: str, part: int) -> float:
        return statistics.median(run[part] for run in counts[kind])

    print(f"entry point: {' '.join(course)}   runs: {args.runs}   terminal: 80x24 pty")
    for kind in counts:
        print(
            f"{kind:9} to the first screen {median(kind, 0) / 1e6:8.1f} M instructions"
            f"   then to the exit {median(kind, 1) / 1e6:6.1f} M"
        )
    ratio = median("attn-tui", 0) / median("bare", 0)
    print(f"instructions to the first screen, returning attn-tui / bare: {ratio:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
