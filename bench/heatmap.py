"""Speed of the live attention view, as ratios to one 60 Hz frame (1/60 s).

1. Recompute + render: a 64-word sentence goes through tokenise, embed,
   attention (1 and 4 heads) and the windowed heatmap render that the lab
   draws at 80x24. Target (issue 3): at most 1.0 frame.
2. Keystroke to repainted screen (--tmux): attn-tui runs in tmux at 80x24 on
   the attention lab with a 64-word sentence; Down is pressed repeatedly and
   the pane is polled until the selected row changes. Reported, with the
   polling interval as its resolution.

    python bench/heatmap.py [--repeat 200] [--tmux]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

FRAME = 1 / 60
SENTENCE = " ".join(f"word{i}" for i in range(64))


def recompute_and_render(heads: int) -> None:
    from tui_course.maths.explore import AttentionSetup, explore_attention
    from tui_course.render.heatmap import heatmap_cells, heatmap_rich

    result = explore_attention(AttentionSetup(SENTENCE, "hashed", heads=heads))
    for head in range(heads):
        heatmap_rich(
            heatmap_cells(
                result.weights[head],
                result.tokens,
                result.tokens,
                40,
                max_rows=12,
                width=46,
            )
        )


def time_recompute(repeat: int) -> dict[int, float]:
    recompute_and_render(1)  # imports and caches out of the measurement
    medians = {}
    for heads in (1, 4):
        samples = []
        for _ in range(repeat):
            start = time.perf_counter()
            recompute_and_render(heads)
            samples.append(time.perf_counter() - start)
        medians[heads] = statistics.median(samples)
    return medians


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def selected_row(screen: str) -> str | None:
    for line in screen.splitlines():
        cell = line.split("\u2595", 1)[-1].lstrip()  # right of the outline border
        if cell.startswith(">word"):
            return cell.split()[0]
    return None


def time_keystrokes(presses: int, poll: float = 0.002) -> list[float]:
    session = f"attn-bench-{os.getpid()}"
    data = tempfile.mkdtemp()
    command = f"ATTN_TUI_DATA_DIR={data} {sys.executable} -m tui_course --open attention-lab"
    tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", command)
    try:
        deadline = time.time() + 20
        while "strongest key for 'train'" not in tmux("capture-pane", "-p", "-t", session):
            if time.time() > deadline:
                raise SystemExit("attn-tui did not start in tmux")
            time.sleep(0.05)
        time.sleep(0.5)  # let the sentence box take focus
        tmux("send-keys", "-t", session, "C-u")
        tmux("send-keys", "-t", session, "-l", SENTENCE)
        tmux("send-keys", "-t", session, "Escape")
        deadline = time.time() + 20
        while selected_row(tmux("capture-pane", "-p", "-t", session)) is None:
            if time.time() > deadline:
                raise SystemExit("the 64-word heatmap never appeared")
            time.sleep(0.05)
        samples = []
        for _ in range(presses):
            before = selected_row(tmux("capture-pane", "-p", "-t", session))
            start = time.perf_counter()
            tmux("send-keys", "-t", session, "Down")
            while selected_row(tmux("capture-pane", "-p", "-t", session)) == before:
                if time.perf_counter() - start > 5:
                    raise SystemExit("the screen did not repaint within 5 s")
                time.sleep(poll)
            samples.append(time.perf_counter() - start)
        return samples
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
        shutil.rmtree(data, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--tmux", action="store_true", help="also time keystrokes in tmux")
    parser.add_argument("--presses", type=int, default=20)
    args = parser.parse_args()
    medians = time_recompute(args.repeat)
    ok = True
    for heads, seconds in medians.items():
        ratio = seconds / FRAME
        ok = ok and ratio <= 1.0
        print(
            f"64 words, {heads} head(s): recompute + render median {seconds * 1000:.2f} ms"
            f" = {ratio:.2f} frame (target <= 1.00)"
        )
    if args.tmux:
        if shutil.which("tmux") is None:
            print("tmux not found: keystroke timing skipped")
        else:
            samples = time_keystrokes(args.presses)
            median = statistics.median(samples)
            print(
                f"keystroke to repaint in tmux (80x24, 64 words): median {median * 1000:.0f} ms"
                f" = {median / FRAME:.1f} frames, max {max(samples) * 1000:.0f} ms"
                f" over {len(samples)} presses (includes tmux capture-pane polling)"
            )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
