"""Start-up time and idle memory of `attn-tui` against a bare Textual app, as ratios.

Both run as a user runs them: the real `attn-tui` entry point (the console
script next to this Python, or `python -m tui_course`) and a bare app
(Header, Static, Footer) in a child of this script, each on its own
pseudo-terminal with the real Textual driver. Start-up is launch until the
outline's last item is on the terminal (120x30, where the outline shows
beside the lesson); the first lesson's text is reported beside it. Idle
memory is the resident size after two more seconds of idling. The two
alternate in this one invocation, so machine noise hits both alike.

tui_course is byte-compiled first, as `pip install` leaves it. Ratios are
the median over rounds of each round's attn-tui / bare ratio.

The first lesson's text is what a student reads first: the first two words of lesson 1's
first line of prose, timed from launch in the same run as the outline (the start opens
the last item opened, lesson 1 here), against the bare app's first paint. By default the
data folder is the one the warm-up run made (a returning student: progress store, course
cache and CSS cache there); --fresh gives every attn-tui round an empty one (a new
student: store created, course and CSS parsed).

Also printed, for a busy machine: the CPU time (user + system, from /proc) each process
had used when its text showed, as the same paired ratios. Wall time there waits for
other work as much as for this one; CPU time does not, so these ratios are the steadier
reading of what the wall-time ratios measure (the targets stay on wall time).

Targets: start-up <= 1.1x (issue 30; issue 9 asked 1.3x), first lesson text <= 1.5x
(issue 30), idle memory <= 1.5x, no NumPy before the outline, no deep-learning
framework at all.

    python bench/startup.py [--rounds 7] [--fresh] [--busy]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from pty_session import PtySession

FRAMEWORKS = ("tensorflow", "keras", "torch", "jax")
START_TARGET = 1.1
LESSON_TARGET = 1.5
MEMORY_TARGET = 1.5
SIZE = (120, 30)
BARE_TEXT = "Bare app ready"


# Run with `python -c`: the bare app imports nothing but Textual.
BARE_APP = f"""
from textual.app import App
from textual.widgets import Footer, Header, Static

class Bare(App):
    def compose(self):
        yield Header()
        yield Static({BARE_TEXT!r})
        yield Footer()

Bare().run()
"""


def byte_compile() -> None:
    """Write tui_course's bytecode, as `pip install` does, so both apps start from .pyc.

    (A source checkout run with PYTHONDONTWRITEBYTECODE would otherwise compile
    every tui_course module at every start, which no installed copy does.)
    """
    import compileall

    import tui_course

    compileall.compile_dir(Path(tui_course.__file__).parent, quiet=1)


def entry_point() -> list[str]:
    """The installed console script beside this interpreter, else the package's __main__."""
    script = Path(sys.executable).with_name("attn-tui")
    if script.exists():
        return [str(script)]
    found = shutil.which("attn-tui")
    return [found] if found else [sys.executable, "-m", "tui_course"]


def markers() -> tuple[str, str]:
    """Text only the outline shows first (its last item's title), and the first lesson's text."""
    from tui_course.content.course import load_course
    from tui_course.content.models import Lab, Lesson, Quiz
    from tui_course.content.segments import MarkdownSegment
    from tui_course.paths import default_content_dir

    course = load_course(default_content_dir())
    last = course.outline()[-1]
    title = last.title if isinstance(last, Lesson | Quiz | Lab) else last.id
    first = course.lessons[0]
    prose = next(s.text for s in first.segments if isinstance(s, MarkdownSegment))
    line = next(
        line for line in prose.splitlines() if line.strip() and not line.startswith(("#", "-"))
    )
    return title[:12], " ".join(line.split()[:2])


def measure(argv: list[str], outline: str, lesson: str | None, env: dict[str, str]) -> dict:  # type: ignore[type-arg]
    with PtySession(argv, SIZE, env) as session:
        first = session.wait_for(outline)
        first_cpu = session.cpu_seconds()
        shown, shown_cpu = first, first_cpu
        if lesson:
            shown = session.wait_for(lesson)
            shown_cpu = session.cpu_seconds()
        session.drain(2.0)
        return {
            "outline": first,
            "lesson": shown,
            "outline_cpu": first_cpu,
            "lesson_cpu": shown_cpu,
            "rss": session.rss_kib(),
            "frameworks": session.loaded(FRAMEWORKS),
        }


def first_paint_has_numpy(argv: list[str], outline: str, env: dict[str, str]) -> bool:
    """Whether NumPy is mapped into attn-tui the moment the outline is first on screen."""
    with PtySession(argv, SIZE, env) as session:
        session.wait_for(outline)
        return bool(session.loaded(("numpy",)))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--fresh", action="store_true", help="an empty data folder each round")
    parser.add_argument("--busy", action="store_true", help="two CPU burners during the run")
    args = parser.parse_args()
    byte_compile()
    outline_text, lesson_text = markers()
    course_argv = entry_point()
    bare_argv = [sys.executable, "-c", BARE_APP]
    results: dict[str, list[dict]] = {"bare": [], "attn-tui": []}  # type: ignore[type-arg]
    from check_start import burners

    with tempfile.TemporaryDirectory() as data_dir, burners(2 if args.busy else 0):
        env = {**os.environ, "ATTN_TUI_DATA_DIR": data_dir}
        measure(course_argv, outline_text, lesson_text, env)  # warm caches, create the store
        numpy_at_first_paint = first_paint_has_numpy(course_argv, outline_text, env)
        for round_number in range(args.rounds):
            results["bare"].append(measure(bare_argv, BARE_TEXT, None, env))
            course_env = env
            if args.fresh:
                fresh = Path(data_dir) / f"fresh-{round_number}"
                course_env = {**env, "ATTN_TUI_DATA_DIR": str(fresh)}
            results["attn-tui"].append(measure(course_argv, outline_text, lesson_text, course_env))

    def median(kind: str, key: str) -> float:
        return statistics.median(run[key] for run in results[kind])

    def paired(key: str, bare_key: str | None = None) -> float:
        """Median of each round's ratio: rounds alternate, so load hits both alike."""
        pairs = zip(results["attn-tui"], results["bare"], strict=True)
        return statistics.median(course[key] / bare[bare_key or key] for course, bare in pairs)

    time_ratio = paired("outline")
    memory_ratio = paired("rss")
    frameworks = sorted({name for run in results["attn-tui"] for name in run["frameworks"]})
    lesson_ratio = paired("lesson")
    outline_cpu_ratio = paired("outline_cpu")
    lesson_cpu_ratio = paired("lesson_cpu", "outline_cpu")
    print(
        f"entry point: {' '.join(course_argv)}   rounds: {args.rounds}   terminal: 120x30 pty"
        f"   data folder: {'new each round' if args.fresh else 'kept (returning student)'}"
        f"   CPU burners of its own: {2 if args.busy else 0}"
    )
    for kind in ("bare", "attn-tui"):
        print(
            f"{kind:9} first paint median {median(kind, 'outline') * 1000:6.0f} ms"
            f"   idle RSS median {median(kind, 'rss') / 1024:6.1f} MiB"
        )
    print(
        f"start-up ratio (attn-tui outline / bare):   {time_ratio:.2f}"
        f"  (target <= {START_TARGET:.2f})"
    )
    print(
        f"first lesson text ratio (/ bare first paint): {lesson_ratio:.2f}"
        f"  (target <= {LESSON_TARGET:.2f}; attn-tui median"
        f" {median('attn-tui', 'lesson') * 1000:.0f} ms)"
    )
    print(
        f"CPU used by then, the same ratios:          start-up {outline_cpu_ratio:.2f},"
        f" first lesson text {lesson_cpu_ratio:.2f}  (bare median"
        f" {median('bare', 'outline_cpu') * 1000:.0f} ms; attn-tui"
        f" {median('attn-tui', 'outline_cpu') * 1000:.0f} and"
        f" {median('attn-tui', 'lesson_cpu') * 1000:.0f} ms; load {os.getloadavg()[0]:.1f})"
    )
    print(
        f"idle memory ratio (attn-tui / bare):      {memory_ratio:.2f}"
        f"  (target <= {MEMORY_TARGET:.2f})"
    )
    print(f"NumPy loaded at first paint: {'yes' if numpy_at_first_paint else 'no'}")
    print(f"deep-learning frameworks loaded: {', '.join(frameworks) or 'none'}")
    ok = (
        time_ratio <= START_TARGET
        and lesson_ratio <= LESSON_TARGET
        and memory_ratio <= MEMORY_TARGET
        and not frameworks
        and not numpy_at_first_paint
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
