"""What a code question's editor costs the TUI process: memory, and typing during a check.

In a fresh interpreter, the app (the one factory, headless) opens the shipped "Write the
code" quiz on its intro: the baseline, the app without an editor. Then it starts
question 1: the editor mounts (TextArea, tree-sitter when installed, the warm sandboxed
worker, which is a child process and not counted), the student types a solution and
checks it (the time from Enter to an editor that takes keys is printed: keys pressed before
it are dropped, not typed into the code); then 30 keys are typed while a check that loops
forever runs. Resident memory (VmRSS of the TUI process, after a garbage collection) is
read at each point and printed against the baseline; the target is at most 30 MB more
with the editor open.

    python bench/code_editor.py
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import tempfile
import time
from pathlib import Path

SOLUTION = (
    "import numpy as np\n\n\ndef attention_weights(Q, K):\n"
    "    scores = Q @ K.T / np.sqrt(Q.shape[-1])\n"
    "    scores = scores - scores.max(axis=-1, keepdims=True)\n"
    "    exps = np.exp(scores)\n"
    "    return exps / exps.sum(axis=-1, keepdims=True)\n"
)
LOOPING = "def attention_weights(Q, K):\n    while True:\n        pass\n"
TARGET_MB = 30.0


def rss_kb() -> int:
    gc.collect()
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def measure(data_dir: Path) -> dict[str, float]:
    from tui_course.paths import default_content_dir
    from tui_course.ui.app import Settings, make_app
    from tui_course.ui.widgets.code_exercise import CodeExerciseView

    app = make_app(Settings(default_content_dir(), data_dir, "code"))
    result: dict[str, float] = {}

    async def until(pilot: object, done: object, seconds: float = 60.0) -> None:
        deadline = time.monotonic() + seconds
        while not done():  # type: ignore[operator]
            if time.monotonic() > deadline:
                raise TimeoutError
            await pilot.pause(0.02)  # type: ignore[attr-defined]

    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.current is not None)
        await pilot.pause(1.0)
        result["baseline_kb"] = rss_kb()
        started = time.monotonic()
        await pilot.press("enter")
        await until(pilot, lambda: bool(app.query(CodeExerciseView)))
        view = app.query_one(CodeExerciseView)
        await until(pilot, lambda: view.state is not None and view.editor.taking_keys)
        result["enter_to_editor_taking_keys_s"] = time.monotonic() - started
        await pilot.pause(1.0)
        result["editor_open_kb"] = rss_kb()
        view.editor.replace(SOLUTION, view.editor.document.start, view.editor.document.end)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: view.state is not None and view.state.verdict is not None)
        result["after_check_kb"] = rss_kb()
        view.editor.replace(LOOPING, view.editor.document.start, view.editor.document.end)
        view.editor.focus()  # the pass closed the question and gave the keys to the quiz
        await pilot.pause()
        started = time.monotonic()
        await pilot.press(*("y" * 30))
        result["typing_30_keys_idle_s"] = time.monotonic() - started
        view.editor.replace(LOOPING, view.editor.document.start, view.editor.document.end)
        view.editor.move_cursor(view.editor.document.end)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: view.state is not None and view.state.checking is not None)
        started = time.monotonic()
        await pilot.press("#", *("x" * 29))  # a comment: the looping code stays valid
        result["typing_30_keys_during_check_s"] = time.monotonic() - started
        result["draft_kept_every_key"] = float(
            view.state is not None and view.state.draft.endswith("#" + "x" * 29)
        )
        result["check_still_running"] = float(
            view.state is not None and view.state.checking is not None
        )
        await until(pilot, lambda: view.state is not None and view.state.checking is None)
        result["after_looping_check_kb"] = rss_kb()
    return result


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        result = asyncio.run(measure(Path(folder)))
    base = result["baseline_kb"]
    growth_mb = (max(result["editor_open_kb"], result["after_check_kb"]) - base) / 1024
    print(f"# python bench/code_editor.py  ({sys.version.split()[0]})")
    print(f"app on the quiz intro (no editor): {base / 1024:.1f} MB")
    for key in ("editor_open_kb", "after_check_kb", "after_looping_check_kb"):
        value = result[key]
        print(f"{key[:-3].replace('_', ' ')}: {value / 1024:.1f} MB, {value / base:.3f}x baseline")
    print(f"growth with the editor open: {growth_mb:.1f} MB (target at most {TARGET_MB:.0f} MB)")
    opening = result["enter_to_editor_taking_keys_s"]
    print(f"Enter to question 1's editor taking keys (first open, Pilot): {opening:.2f} s")
    idle, busy = result["typing_30_keys_idle_s"], result["typing_30_keys_during_check_s"]
    print(f"30 keys typed with no check running: {idle:.2f} s (Pilot, headless)")
    print(
        f"30 keys typed while a looping check ran: {busy:.2f} s, {busy / idle:.2f}x idle,"
        f" every key kept: {bool(result['draft_kept_every_key'])},"
        f" check still running meanwhile: {bool(result['check_still_running'])}"
    )
    print(
        json.dumps(
            result | {"growth_mb": round(growth_mb, 1), "within_target": growth_mb <= TARGET_MB}
        )
    )


if __name__ == "__main__":
    main()
