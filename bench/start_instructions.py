"""Instructions a returning student's session runs, against a bare Textual app's.

Wall-clock ratios on a shared machine move by a tenth from run to run (see
bench/returning_logins.py, which times thirty at once). Counted instructions
move far less: valgrind's callgrind counts what the program runs, not how long
it waited for the CPU. On a quiet machine two counts of one session agree within
0.3%; a busy one lowers them by up to 3% (fewer frames get drawn), so compare
two versions in one invocation (`--also`), under the same load. That shows a
change of a few milliseconds of start-up work that thirty timed logins cannot
tell from noise. Instructions are not seconds: the ratio here is higher than the
CPU-time one (when this was written, 1.6 counted against 1.5 in CPU time), as
the bare app spends more of its time in the kernel. Use it to compare versions
of attn-tui, not against the 1.5x target.

Each kind runs under callgrind on its own 80x24 pty: the real entry point
(`attn-tui`) with a data folder holding a finished first pass of `checkpoint`,
opened last (as in returning_logins.py), and the bare app (Header, Static,
Footer). Once its text is on the terminal, ctrl+q quits it; the count is from
the launch to the exit. (Where the first screen falls in that count depends on
when valgrind, which runs one thread at a time, lets Textual's writer thread
reach the terminal, so the count is not cut there.) `--also DIR` counts the
same session again with DIR first on PYTHONPATH: another checkout's tui_course
(`git worktree add DIR COMMIT`), with the same content and data. A session
under valgrind runs 30-50 times slower: about 15 s a count.

Needs valgrind (Debian's package) on PATH.

    python bench/start_instructions.py [--runs 1] [--also DIR]
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from pty_session import PtySession
from returning_logins import RETURNING_TEXT, SIZE, returning_data
from startup import BARE_APP, BARE_TEXT, byte_compile, entry_point

_TOTALS = re.compile(r"^totals: (\d+)", re.MULTILINE)


def counted(argv: list[str], text: str, env: dict[str, str], folder: Path) -> int:
    """Instructions from the launch to the exit, ctrl+q sent once `text` is on screen."""
    out = folder / "callgrind.out"
    valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    session = PtySession(valgrind + argv, SIZE, env)
    try:
        session.wait_for(text, timeout=600)
        session.send("\x11")  # ctrl+q
        session.process.wait(600)
    finally:
        session.close()
    total = int(_TOTALS.findall(out.read_text())[0])
    out.unlink()
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="counts of each kind (median kept)")
    parser.add_argument(
        "--also", type=Path, help="another checkout: its tui_course counted in the same run"
    )
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("error: needs valgrind on PATH (Debian: apt install valgrind)")
        return 2
    if args.also is not None and not (args.also / "tui_course" / "__init__.py").is_file():
        print(f"error: --also: no tui_course package in {args.also}")
        return 2
    byte_compile()
    if args.also is not None:
        compileall.compile_dir(args.also / "tui_course", quiet=1)
    course = entry_point()
    kinds = ["bare", "attn-tui"] + ([f"--also {args.also}"] if args.also else [])
    counts: dict[str, list[int]] = {kind: [] for kind in kinds}
    with tempfile.TemporaryDirectory() as name:
        data = Path(name) / "data"
        returning_data(data)
        env = {**os.environ, "ATTN_TUI_DATA_DIR": str(data)}
        work = Path(name) / "callgrind"
        work.mkdir()
        for _ in range(args.runs):
            counts["bare"].append(counted([sys.executable, "-c", BARE_APP], BARE_TEXT, env, work))
            counts["attn-tui"].append(counted(course, RETURNING_TEXT, env, work))
            if args.also is not None:
                other = {**env, "PYTHONPATH": str(args.also.resolve())}
                counts[kinds[2]].append(counted(course, RETURNING_TEXT, other, work))

    medians = {kind: statistics.median(runs) for kind, runs in counts.items()}
    print(f"entry point: {' '.join(course)}   runs: {args.runs}   terminal: 80x24 pty")
    for kind, median in medians.items():
        print(f"{kind:9} launch to exit {median / 1e6:8.1f} M instructions")
    for kind in kinds[1:]:
        print(f"instructions, {kind} / bare: {medians[kind] / medians['bare']:.3f}")
    if args.also is not None:
        change = medians["attn-tui"] / medians[kinds[2]] - 1
        print(f"this checkout against {args.also}: {change:+.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
