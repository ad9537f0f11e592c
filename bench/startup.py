"""Start-up time and idle memory of attn-tui against a minimal Textual app, as ratios.

"Start-up" is launch until the outline is on screen (the issue's measure);
the first lesson's text, which renders right after, is reported beside it.
Both apps run in fresh child processes, alternately, in this one invocation,
so machine noise hits both alike. Each child runs headless, signals "ready"
once its first screen is up (for attn-tui: the outline and the first lesson),
idles briefly, then reports its resident memory and whether any deep-learning
framework got imported.

Targets (issue 2): start-up <= 1.5x, idle memory <= 2.0x, no tensorflow/keras.

    python bench/startup.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FRAMEWORKS = ("tensorflow", "keras", "torch", "jax")


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child(kind: str, data_dir: str) -> None:
    from textual.app import App, ComposeResult
    from textual.pilot import Pilot
    from textual.widgets import Footer, Header, Static

    class Minimal(App[None]):
        def compose(self) -> ComposeResult:
            yield Header()
            yield Static("Hello")
            yield Footer()

    if kind == "minimal":
        app: App[None] = Minimal()
    else:
        from tui_course.paths import default_content_dir
        from tui_course.ui.app import Settings, make_app

        app = make_app(Settings(default_content_dir(), Path(data_dir)))

    async def probe(pilot: Pilot[None]) -> None:
        if kind == "course":
            from tui_course.ui.widgets.outline import Outline

            while not (app.query(Outline) and app.query_one(Outline).option_count):
                await pilot.pause(0.002)
            print("outline", flush=True)
            from textual.widgets import Markdown

            while not (app.query(Markdown) and app.query(Markdown).first().children):
                await pilot.pause(0.002)
            print("lesson", flush=True)
        else:
            print("outline", flush=True)
            print("lesson", flush=True)
        await pilot.pause(0.5)
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in FRAMEWORKS)
        print(json.dumps({"rss_kib": rss_kib(), "frameworks": loaded}), flush=True)
        app.exit()

    app.run(headless=True, size=(80, 24), auto_pilot=probe)


def measure(kind: str, data_dir: str) -> tuple[float, float, int, list[str]]:
    """Seconds to the outline, seconds to the first lesson's text, RSS, frameworks."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, __file__, "--child", kind, "--data-dir", data_dir],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    marks = []
    for expected in ("outline", "lesson"):
        line = process.stdout.readline()
        marks.append(time.perf_counter() - start)
        if line.strip() != expected:
            raise SystemExit(f"{kind} child: expected {expected!r}, got {line!r}")
    report = json.loads(process.stdout.readline())
    process.wait(timeout=30)
    return marks[0], marks[1], report["rss_kib"], report["frameworks"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--child", choices=("minimal", "course"))
    parser.add_argument("--data-dir")
    args = parser.parse_args()
    if args.child:
        child(args.child, args.data_dir)
        return 0
    times: dict[str, list[float]] = {"minimal": [], "course": []}
    lesson_times: dict[str, list[float]] = {"minimal": [], "course": []}
    memory: dict[str, list[int]] = {"minimal": [], "course": []}
    frameworks: set[str] = set()
    with tempfile.TemporaryDirectory() as data_dir:
        measure("course", data_dir)  # warm the file cache and create the store once
        for _ in range(args.rounds):
            for kind in ("minimal", "course"):
                outline, lesson, rss, loaded = measure(kind, data_dir)
                times[kind].append(outline)
                lesson_times[kind].append(lesson)
                memory[kind].append(rss)
                frameworks.update(loaded)
    time_ratio = statistics.median(times["course"]) / statistics.median(times["minimal"])
    lesson_ratio = statistics.median(lesson_times["course"]) / statistics.median(times["minimal"])
    memory_ratio = statistics.median(memory["course"]) / statistics.median(memory["minimal"])
    print(f"rounds: {args.rounds}")
    for kind in ("minimal", "course"):
        print(
            f"{kind:8} outline median {statistics.median(times[kind]) * 1000:7.0f} ms"
            f"   idle RSS median {statistics.median(memory[kind]) / 1024:6.1f} MiB"
        )
    print(f"start-up ratio (course / minimal): {time_ratio:.2f}  (target <= 1.50)")
    print(
        f"first lesson text on screen: {statistics.median(lesson_times['course']) * 1000:.0f} ms,"
        f" ratio {lesson_ratio:.2f} (reported, no target)"
    )
    print(f"memory ratio   (course / minimal): {memory_ratio:.2f}  (target <= 2.00)")
    print(f"deep-learning frameworks imported: {', '.join(sorted(frameworks)) or 'none'}")
    ok = time_ratio <= 1.5 and memory_ratio <= 2.0 and not frameworks
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
