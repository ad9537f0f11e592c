"""GIFT import time on hostile numeric answers, as ratios to the shipped quizzes' export.

Issue 19: a 20 KB line `{#` + 19,900 digits + `x}` took 115 s (the numeric-answer pattern
backtracked). Each hostile line is parsed beside the normal file in this run and reported
per character, as a ratio (target: about 1, linear) and in seconds (target: under 0.1 s).

    python bench/gift_import.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable
from pathlib import Path

from tui_course.classroom.gift.export import export_gift
from tui_course.classroom.gift.parse import parse_gift
from tui_course.content import kinds
from tui_course.content.errors import ContentError
from tui_course.content.quizzes import load_quiz

REPO = Path(__file__).resolve().parents[1]
HOSTILE = {
    "digits then x": "::q::How much?{#" + "1" * 19_900 + "x}\n",
    "digits, no x": "::q::How much?{#" + "1" * 19_900 + "}\n",
    "1. repeated": "::q::How much?{#" + "1." * 9_950 + "}\n",
    "range of digits": "::q::How much?{#" + "1" * 9_950 + ".." + "2" * 9_950 + "x}\n",
}


def best(repeat: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        with contextlib.suppress(ContentError):
            work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    quizzes = [load_quiz(path) for path in sorted((REPO / "quizzes").glob("*.toml"))]
    # Only quizzes GIFT can hold (no code or ordering question: their kinds say no_gift).
    exportable = [q for q in quizzes if not any(kinds.of(x).no_gift for x in q.questions)]
    normal = export_gift(exportable)
    normal_time = best(args.repeat, lambda: parse_gift(normal, "normal.gift"))
    per_char = normal_time / len(normal)
    print(f"normal file: {len(normal):,} characters, {normal_time * 1000:.1f} ms")
    for name, text in HOSTILE.items():
        seconds = best(args.repeat, lambda text=text: parse_gift(text, "hostile.gift"))
        ratio = (seconds / len(text)) / per_char
        shown = f"{len(text):,} chars  {seconds * 1000:7.1f} ms"
        print(f"{name:16s} {shown}  per-char ratio {ratio:.2f}")


if __name__ == "__main__":
    main()
