"""What `attn-tui` imports before its first frame: the real entry point on a real pty."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tui_course.commands import COMMANDS

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pty")

# Runs cli.main() exactly as the console script does; the only addition is a
# hook on App._display that notes sys.modules when the outline is first drawn.
FIRST_PAINT_PROBE = """
import gc, json, sys
from textual.app import App

report_path = sys.argv[1]
draw = App._display

def display(self, screen, renderable):
    draw(self, screen, renderable)
    if renderable is None or not self._running or hasattr(App, "first_paint"):
        return
    from tui_course.ui.widgets.outline import Outline
    outlines = screen.query(Outline)
    if outlines and outlines.first().option_count and outlines.first().display:
        App.first_paint = sorted(sys.modules)
        App.gc_at_first_paint = gc.isenabled()
        self.call_after_refresh(after_first_frame, self)

def after_first_frame(app, frames=0):
    # GC comes back once the first item is open, a few frames on (not a time limit: the
    # frame count only stops a broken app from keeping the probe forever).
    if not gc.isenabled() and frames < 2000:
        app.call_after_refresh(after_first_frame, app, frames + 1)
        return
    App.gc_after_first_frame = gc.isenabled()
    App.open_when_gc_came_back = app.current.id if app.current else None
    app.exit()

App._display = display
from tui_course.cli import main
sys.argv = ["attn-tui"]
code = main()
with open(report_path, "w") as report:
    gc_states = [getattr(App, name, None) for name in ("gc_at_first_paint", "gc_after_first_frame")]
    json.dump(
        {
            "code": code,
            "modules": getattr(App, "first_paint", None),
            "gc": gc_states,
            "open": getattr(App, "open_when_gc_came_back", None),
        },
        report,
    )
"""


def first_paint(tmp_path: Path, size: tuple[int, int]) -> dict[str, Any]:
    """The probe's report: exit code, modules loaded at the first frame, and whether cyclic
    GC was on at the first frame and on the frame after."""
    import fcntl
    import struct
    import termios

    columns, rows = size
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    report = tmp_path / "report.json"
    env = {**os.environ, "ATTN_TUI_DATA_DIR": str(tmp_path / "data"), "TERM": "xterm-256color"}
    process = subprocess.Popen(
        [sys.executable, "-c", FIRST_PAINT_PROBE, str(report)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    screen = bytearray()
    deadline = time.monotonic() + 60
    try:
        while process.poll() is None and time.monotonic() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    screen.extend(os.read(master, 65536))
                except OSError:
                    break
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        os.close(master)
    assert report.exists(), f"attn-tui did not reach its first frame: {bytes(screen[-500:])!r}"
    result = json.loads(report.read_text())
    assert result["code"] == 0
    assert result["modules"] is not None, "the outline was never drawn"
    report_data: dict[str, Any] = result
    return report_data


def test_first_paint_imports_no_numpy_markdown_or_command_modules(tmp_path: Path) -> None:
    modules = first_paint(tmp_path, (120, 30))["modules"]
    assert "tui_course.ui.widgets.outline" in modules  # the probe saw the app, not a stub
    heavy = [
        name
        for name in modules
        if name.split(".")[0] in ("numpy", "markdown_it", "tensorflow", "keras")
        or name.removeprefix("tui_course.commands.") in COMMANDS.values()
        or name.startswith(("tui_course.training.task", "tui_course.maths"))
        or name in ("argparse", "tui_course.specs")  # no flags to parse, no form to check
    ]
    assert heavy == []


def test_a_start_with_the_course_cached_parses_no_content(tmp_path: Path) -> None:
    """A student returning to a quiz: the course the last session parsed is read whole (no
    quiz, lesson or code-question parser is imported before the first frame), and what
    comes after the quiz opens (the lessons' digest, hashlib's OpenSSL) waits for it."""
    from tui_course.content.course_cache import CACHE_NAME, cached_course
    from tui_course.paths import default_content_dir
    from tui_course.progress.outline import LAST_OPENED, student_key
    from tui_course.progress.store import ProgressStore

    with ProgressStore(tmp_path / "data") as store:  # as the student's first session left it
        store.set_setting(LAST_OPENED, "checkpoint")
        student_key(store)
    _, save = cached_course(
        default_content_dir(), tmp_path / "data" / CACHE_NAME, now=time.time() + 60
    )
    assert save is not None
    save()
    modules = first_paint(tmp_path, (120, 30))["modules"]
    assert "tui_course.content.course_cache" in modules  # the probe saw the cache read
    assert "tui_course.ui.widgets.quiz_view" in modules  # the quiz opened before that frame
    parsers = ("quizzes", "lessons", "code_parse")
    assert [name for name in parsers if f"tui_course.content.{name}" in modules] == []
    assert [
        name for name in ("hashlib", "argparse") if name in modules
    ] == []  # (the probe has json)


def test_cyclic_gc_waits_for_the_first_item_and_then_runs_again(tmp_path: Path) -> None:
    """Start-up objects all live, so collecting them before the first item is open is
    wasted; leaving GC off after it would let a long session's garbage cycles pile up."""
    report = first_paint(tmp_path, (120, 30))
    assert report["gc"] == [False, True]
    assert report["open"] is not None  # back on with the first lesson open, not before


def test_cli_parses_a_command_whose_module_it_imports_on_demand() -> None:
    from tui_course.cli import commands_needed
    from tui_course.commands.parser import build_parser

    assert commands_needed([]) == set()
    assert commands_needed(["--open", "x"]) == set()
    assert commands_needed(["pe", "--dim", "2"]) == {"pe"}
    assert commands_needed(["--help"]) is None
    args = build_parser(commands_needed(["pe", "--dim", "6"])).parse_args(["pe", "--dim", "6"])
    assert (args.command, args.dim, args.positions) == ("pe", 6, 8)
    with pytest.raises(SystemExit) as raised:
        build_parser(set()).parse_args(["bogus"])
    assert raised.value.code == 2
