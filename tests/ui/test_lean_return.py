"""A returning student starts as lean as a new one: no NumPy before a figure needs it, no
Markdown view before content Markdown shows (a finished quiz's summary is the app's own
text)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.ui.conftest import UI_COURSE, quiz

# first-check (no computed keys) with its first pass finished, then the app resumed on an item
SCRIPT = """
import asyncio, json, sys
from pathlib import Path
from tui_course.progress.store import ProgressStore
from tui_course.ui.app import LAST_OPENED, Settings, make_app

data = Path(sys.argv[1])
with ProgressStore(data) as store:
    run_id = store.start_run("first-check", 3)
    store.record_attempt(run_id, "first-check", 1, "2", True, seconds=4.0)
    store.record_attempt(run_id, "first-check", 2, "1", True, seconds=5.0)
    store.record_attempt(
        run_id, "first-check", 3, "", False, verdict="revealed", revealed=True, try_number=0
    )
    store.finish_run(run_id)
    store.set_setting(LAST_OPENED, sys.argv[2])
app = make_app(Settings(Path(sys.argv[3]), data, None))

async def main() -> str:
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):
            if app.started and app.current is not None:
                break
            await pilot.pause(0.05)
        # what runs after the first item opens (the lessons' block check) has run too
        await app.workers.wait_for_complete()
        await pilot.pause()
        return app.current.id if app.current else ""

opened = asyncio.run(main())
markdown_view = "textual.widgets._markdown" in sys.modules
print(json.dumps({"opened": opened, "numpy": "numpy" in sys.modules, "markdown": markdown_view}))
"""


def first_screen(tmp_path: Path, item: str) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "data"), item, str(UI_COURSE)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        timeout=120,
    )
    return json.loads(result.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_coming_back_to_a_finished_quiz_loads_no_numpy(tmp_path: Path) -> None:
    assert not any(q.numeric_spec.answer_from for q in quiz("first-check").questions)
    assert first_screen(tmp_path, "first-check") == {
        "opened": "first-check",
        "numpy": False,
        "markdown": False,
    }


def test_a_quiz_with_computed_keys_still_gets_them(tmp_path: Path) -> None:
    # by-hand has answer_from keys: opening it is what loads the maths
    assert any(q.numeric_spec.answer_from for q in quiz("by-hand").questions)
    assert first_screen(tmp_path, "by-hand") == {
        "opened": "by-hand",
        "numpy": True,
        "markdown": True,  # its intro is content Markdown
    }
