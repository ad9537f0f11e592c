"""Bytes written to the terminal and CPU used while nobody touches attn-tui, per screen.

Each screen is opened with the real `attn-tui --open ID` on its own
pseudo-terminal (80x24), left to settle, then watched for `--seconds`
(default 10): every byte the app writes to the pty is counted, and the CPU
time comes from /proc. A bare Textual app (Header, Static, Footer) is
watched the same way in the same run, as the baseline. Idle should be
idle: no bytes and next to no CPU, so thirty idle students cost nothing.

    python bench/idle.py [--seconds 10] [--screens self-attention,training-lab]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from pty_session import PtySession
from startup import BARE_APP, BARE_TEXT, byte_compile, entry_point

# (label, attn-tui arguments, keys pressed once it is up)
SCREENS = (
    ("lesson (prose)", ["--open", "why-transformers"], ""),
    ("lesson (live figures)", ["--open", "self-attention"], ""),
    ("lesson, figure focused", ["--open", "self-attention"], "\t"),
    ("outline overlay", ["--open", "self-attention"], "o"),
    ("quiz", ["--open", "checkpoint"], ""),
    ("quiz, number box", ["--open", "exercises"], ""),
    ("attention lab", ["--open", "attention-lab"], ""),
    ("PE lab", ["--open", "pe-lab"], ""),
    ("training lab", ["--open", "training-lab"], ""),
    ("help", ["--open", "why-transformers"], "\x1bOP"),  # F1
)
SETTLE = 2.0


def title_of(item_id: str) -> str:
    """What the header shows once the item is open (the start of its title)."""
    from tui_course.content.course import load_course
    from tui_course.paths import default_content_dir

    item = load_course(default_content_dir()).find(item_id)
    if item is None:
        raise SystemExit(f"idle: no item {item_id!r} in the shipped course")
    return item.title[:14]


def watch(argv: list[str], ready: str, keys: str, seconds: float, env: dict[str, str]) -> tuple:  # type: ignore[type-arg]
    """(bytes written, CPU seconds) over `seconds` of idling, after `ready` shows and `keys`."""
    with PtySession(argv, (80, 24), env) as session:
        session.wait_for(ready)
        if keys:
            session.drain(0.5)
            session.send(keys)
        session.drain(SETTLE)
        cpu = session.cpu_seconds()
        written = session.drain(seconds)
        return written, session.cpu_seconds() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--screens", help="comma-separated item ids to keep (default: all)")
    args = parser.parse_args()
    byte_compile()
    wanted = set(args.screens.split(",")) if args.screens else None
    course = entry_point()
    rows: list[tuple[str, int, float]] = []
    with tempfile.TemporaryDirectory() as data_dir:
        env = {**os.environ, "ATTN_TUI_DATA_DIR": data_dir}
        written, cpu = watch([sys.executable, "-c", BARE_APP], BARE_TEXT, "", args.seconds, env)
        rows.append(("bare Textual app", written, cpu))
        for label, extra, keys in SCREENS:
            if wanted is not None and extra[-1] not in wanted:
                continue
            written, cpu = watch(course + extra, title_of(extra[-1]), keys, args.seconds, env)
            rows.append((label, written, cpu))
    print(f"idle for {args.seconds:.0f} s at 80x24 after {SETTLE:.0f} s to settle")
    print(f"{'screen':<26} {'bytes':>8} {'bytes/s':>8} {'CPU %':>6}")
    for label, written, cpu in rows:
        print(
            f"{label:<26} {written:>8} {written / args.seconds:>8.0f}"
            f" {100 * cpu / args.seconds:>6.1f}"
        )
    baseline_cpu = rows[0][2]
    busy = [
        label
        for label, written, cpu in rows[1:]
        if written > 0 or cpu > max(2 * baseline_cpu, 0.01 * args.seconds)
    ]
    print("PASS" if not busy else f"FAIL: not idle: {', '.join(busy)}")
    return 0 if not busy else 1


if __name__ == "__main__":
    raise SystemExit(main())
