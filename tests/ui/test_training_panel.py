"""The training lab driven by a fake child process that prints canned events."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widgets import Button, Input, ProgressBar, Select, Static

from tests.conftest import FIXTURES
from tests.ui.conftest import notices, opened, running, widget_text
from tui_course.training.options import TrainOptions
from tui_course.training.runner import TrainingRun
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.heatmap_view import HeatmapView
from tui_course.ui.widgets.training_panel import TrainingPanel

FAKE = FIXTURES / "fake_child.py"


def with_fake_child(app: CourseApp, scenario: str, tmp_path: Path) -> list[TrainingRun]:
    started: list[TrainingRun] = []

    def factory(options: TrainOptions) -> TrainingRun:
        log = tmp_path / f"fake-{len(started)}.log"
        run = TrainingRun([sys.executable, str(FAKE), scenario, "--log", str(log)], log)
        started.append(run)
        return run

    app.training_runs = factory
    app.training_extra_installed = lambda: True  # the fake child needs no Keras
    return started


async def wait_for(pilot: object, condition: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.05)  # type: ignore[attr-defined]


def drawn(app: CourseApp, selector: str) -> str:
    """What a widget shows on screen now, line by line (for renderables that size themselves)."""
    widget = app.query_one(selector)
    region = Region(0, 0, widget.size.width, widget.size.height)
    return "\n".join(strip.text.rstrip() for strip in widget.render_lines(region))


def started(panel: TrainingPanel) -> bool:
    return panel.state.run is not None and panel.state.run.started is not None


def finished(panel: TrainingPanel) -> bool:
    """The run has its result and the panel has let go of the child."""
    return panel.state.run is not None and panel.state.run.done is not None and not panel.running


async def start_and_wait(pilot: object, app: CourseApp) -> TrainingPanel:
    """Press ctrl+t and wait until the child has said it started."""
    panel = app.query_one(TrainingPanel)
    await pilot.press("ctrl+t")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: started(panel))
    return panel


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_run_fills_the_panel(build_app: Callable[..., CourseApp], tmp_path: Path) -> None:
    app = build_app("training-lab")
    runs = with_fake_child(app, "ok", tmp_path)
    async with running(app, notifications=True) as pilot:
        panel = app.query_one(TrainingPanel)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: finished(panel) and bool(panel.state.history))
        status = widget_text(app, "#train-status")
        assert status == "Test accuracy 0.930 with 14,049 parameters in 3.0 s."
        assert runs[0].process is not None and runs[0].process.returncode == 0
        batches = app.query_one("#train-batch-bar", ProgressBar)  # the last epoch is all done,
        assert (batches.progress, batches.total) == (4, 4)  # though its last event said 3 of 4
        plot = drawn(app, "#train-plot")
        assert "accuracy per epoch" in plot and "loss per epoch" in plot
        assert "* train acc   o val acc   # both" in plot
        assert "* train loss   o val loss" in plot
        assert plot.isascii()
        results = drawn(app, "#train-results").splitlines()
        assert results[0].startswith("Runs kept (this and earlier sessions")
        assert results[2].split()[2:] == ["transformer", "3", "0.930", "14,049", "3.0s", "3/4"]
        assert results[3].startswith("links: heads in which every position mixes")
        assert results[-1] == "Time per epoch in your latest runs: transformer 1.0 s (8,000 rows)."
        assert all(len(line) <= 78 for line in results)
        heatmap = app.query_one("#train-attention", HeatmapView)
        assert heatmap.display and heatmap.selected == 29 and heatmap.labels[0] == "1:7"
        assert heatmap.keep_columns == (0, 29)  # first and last digit stay on screen
        header = heatmap.plain.splitlines()[0].split()
        assert header[0] == "1:7" and header[-1] == heatmap.labels[29]  # whole labels
        assert set(header) <= set(heatmap.labels)
        title = widget_text(app, "#train-attention-title")
        assert "first and last digits are the same (model says 0.98)" in title
        findings = widget_text(app, "#train-findings").splitlines()
        assert findings[0].startswith("Trained attention averaged over 64 test sequences")
        assert (
            findings[1]
            == "  head 1: position 1 gets 50%, position 30 50%; 30/30 rows give both > 6.7%"
        )
        assert (
            findings[4]
            == "  head 4: position 1 gets 3%, position 30 3%; 0/30 rows give both > 6.7%"
        )
        assert findings[-1].startswith("In 3 of 4 heads every position's new vector mixes")
        assert "val acc is the accuracy on the test sequences" in widget_text(
            app, "#train-val-note"
        )
        assert any(
            "Training finished (transformer): test accuracy 0.930 with 14,049 parameters" in n
            for n in await notices(pilot)
        )
        assert app.query_one("#train-cancel", Button).disabled
        assert widget_text(app, "#train-estimate") == (
            "Next run: about 0:30 for 30 epochs, from your last transformer run."
        )
    from tui_course.progress.store import ProgressStore

    with ProgressStore(app.settings.data_dir) as store:  # what the next session will read
        kept = store.training_runs()
    assert len(kept) == 1 and kept[0].source == "lab" and kept[0].test_accuracy == 0.93
    assert [round(e["val_accuracy"], 2) for e in kept[0].epochs] == [0.63, 0.78, 0.93]
    assert kept[0].attention is not None and kept[0].attention["sequences"] == 64


@pytest.mark.parametrize("size", [(40, 12), (80, 24)])
async def test_the_panel_scrolls_to_what_is_below_the_bottom(
    build_app: Callable[..., CourseApp], tmp_path: Path, size: tuple[int, int]
) -> None:
    """The form's last field, the Train button and the runs table are below a small screen's
    bottom: keys and focus scroll the panel to them (it once never scrolled at all)."""
    app = build_app("training-lab")
    with_fake_child(app, "ok", tmp_path)
    async with running(app, size=size) as pilot:
        panel = app.query_one(TrainingPanel)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: finished(panel) and bool(panel.state.history))
        assert panel.max_scroll_y > 0
        panel.focus()
        await pilot.press("end")
        await wait_for(pilot, lambda: panel.scroll_y == panel.max_scroll_y)
        results = app.query_one("#train-results")
        assert panel.region.contains_region(results.region.intersection(panel.region))
        assert results.region.bottom <= panel.region.bottom
        await pilot.press("home")
        await wait_for(pilot, lambda: panel.scroll_y == 0)
        threads = app.query_one("#train-threads")
        threads.focus()  # Tab's way to the field: the panel brings it into view
        await wait_for(pilot, lambda: panel.region.contains_region(threads.region))


async def test_runs_of_earlier_sessions_and_of_the_cli_are_in_the_table(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    from tui_course.progress.records import TrainingRecord

    data = tmp_path / "data"
    first = build_app("training-lab", data=data)
    first.store.record_training_run(
        TrainingRecord(
            source="cli",
            options={"model": "rnn", "epochs": 10, "train_size": 8000, "length": 30},
            params=13_721,
            test_accuracy=0.548,
            test_loss=0.69,
            seconds=7.5,
            epochs=tuple({"loss": 0.69, "accuracy": 0.55} for _ in range(10)),
            finished_at="2026-12-01T09:05:00+00:00",
        )
    )
    first.store.close()
    app = build_app("training-lab", data=data)
    app.training_extra_installed = lambda: True  # the estimate shows where training can run
    async with running(app, size=(80, 24)) as pilot:
        await pilot.pause()
        rows = drawn(app, "#train-results").splitlines()
        assert rows[2].split() == ["12-01", "09:05", "rnn", "10", "0.548", "13,721", "7.5s", "-"]
        app.query_one("#train-model", Select).value = "rnn"
        await wait_for(pilot, lambda: "rnn run" in widget_text(app, "#train-estimate"))
        assert widget_text(app, "#train-estimate") == (
            "Next run: about 0:22 for 30 epochs, from your last rnn run."
        )


async def test_starting_replaces_waiting_the_moment_a_slot_is_won(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    from tui_course.classroom.slots import TrainingSlots

    folder = tmp_path / "slots"
    folder.mkdir()
    slots = TrainingSlots(folder, folder, 1, create=True)
    held = slots.try_take()  # another student is training
    assert held is not None
    gate = tmp_path / "tensorflow-loaded"
    log = tmp_path / "fake.log"
    app = build_app("training-lab")
    app.training_extra_installed = lambda: True
    app.training_runs = lambda options: TrainingRun(
        [sys.executable, str(FAKE), "gated", "--gate", str(gate), "--log", str(log)],
        log,
        slots=slots,
    )
    async with running(app) as pilot:
        panel = app.query_one(TrainingPanel)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: "in line" in widget_text(app, "#train-status"))
        assert widget_text(app, "#train-status") == (
            "Waiting for a training slot: 1st in line (1 run at a time). ctrl+x cancels."
        )
        held.release()
        await wait_for(pilot, lambda: "Waiting" not in widget_text(app, "#train-status"))
        status = widget_text(app, "#train-status")  # before the child has said a word
        assert status.startswith("Got training slot 1 of 1") and "waiting" not in status.lower()
        assert status.endswith(": starting (TensorFlow takes a few seconds to load).")
        gate.touch()  # the child's TensorFlow has loaded
        await wait_for(pilot, lambda: finished(panel))
        assert widget_text(app, "#train-status").startswith("Test accuracy 0.930")


async def test_progress_shows_eta_and_speed(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app("training-lab")
    with_fake_child(app, "slow", tmp_path)
    async with running(app) as pilot:
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: "samples/s" in widget_text(app, "#train-status"))
        status = widget_text(app, "#train-status")
        # Which batch the screen caught depends on the machine's load; what it says does not.
        pattern = r"epoch ([123])/3 \| batch [13]/4 \| ETA 0:0(\d) \| 1,000 samples/s"
        shown = re.search(pattern, status)
        assert shown is not None, status
        assert int(shown[1]) + int(shown[2]) == 3  # the fake child's ETA is 3 - epoch seconds
        assert not app.query_one("#train-cancel", Button).disabled
        assert app.query_one("#train-start", Button).disabled


async def test_navigation_works_while_training(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app("training-lab")
    with_fake_child(app, "slow", tmp_path)
    async with running(app) as pilot:
        panel = app.query_one(TrainingPanel)
        await pilot.press("ctrl+t")
        await pilot.press("escape")  # to the outline
        await pilot.press("p")
        ids = [item.id for item in app.items]
        assert await opened(pilot, ids[ids.index("training-lab") - 1])
        await wait_for(pilot, lambda: finished(panel))
        assert panel.state.history[0].test_accuracy == 0.93


async def test_cancel_stops_a_hung_child_within_two_seconds(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app("training-lab")
    runs = with_fake_child(app, "hang", tmp_path)
    async with running(app) as pilot:
        panel = await start_and_wait(pilot, app)
        pid = runs[0].process.pid  # type: ignore[union-attr]
        process = runs[0].process
        assert process is not None
        await pilot.click("#train-cancel")
        # SIGTERM ignored: TERMINATE_GRACE, then SIGKILL (the runner's own tests time it)
        await wait_for(pilot, lambda: process.returncode is not None)
        assert process.returncode == -signal.SIGKILL
        await wait_for(pilot, lambda: not panel.running)
        assert not alive(pid)
        assert widget_text(app, "#train-status").startswith("Cancelled.")
        assert not app.query_one("#train-start", Button).disabled


async def test_quitting_mid_run_asks_first_then_stops_the_child(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app("training-lab")
    runs = with_fake_child(app, "hang", tmp_path)
    async with running(app, notifications=True) as pilot:
        await start_and_wait(pilot, app)
        pid = runs[0].process.pid  # type: ignore[union-attr]
        app.query_one(TrainingPanel).focus()
        await pilot.press("q")
        await pilot.pause()
        assert app.is_running and alive(pid)  # one stray q does not end a run
        assert any("Press q again" in line for line in await notices(pilot))
        assert any("Quit? Training is still running" in line for line in await notices(pilot))
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running
    assert not alive(pid)


async def test_quitting_with_no_run_asks_nothing(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("training-lab")
    async with running(app) as pilot:
        app.query_one(TrainingPanel).focus()
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_a_crash_shows_the_log_tail(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app("training-lab")
    with_fake_child(app, "crash", tmp_path)
    async with running(app) as pilot:
        panel = app.query_one(TrainingPanel)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: "failed" in widget_text(app, "#train-status"))
        assert widget_text(app, "#train-status") == (
            "Training failed: the training process stopped unexpectedly (exit code 139)"
        )
        assert "Fatal Python error: Segmentation fault" in widget_text(app, "#train-log")
        await wait_for(pilot, lambda: not panel.running)


async def test_an_error_event_is_shown(build_app: Callable[..., CourseApp], tmp_path: Path) -> None:
    app = build_app("training-lab")
    with_fake_child(app, "error", tmp_path)
    async with running(app) as pilot:
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: "failed" in widget_text(app, "#train-status"))
        assert "ResourceExhaustedError: out of memory" in widget_text(app, "#train-status")
        assert "ResourceExhaustedError: OOM" in widget_text(app, "#train-log")


async def test_bad_form_value_names_the_field(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app("training-lab")
    runs = with_fake_child(app, "ok", tmp_path)
    async with running(app) as pilot:
        app.query_one("#train-epochs", Input).value = "0"
        await pilot.press("ctrl+t")
        assert widget_text(app, "#train-status") == (
            "Cannot start: epochs must be a whole number from 1 to 1,000."
        )
        assert runs == []


async def test_form_options_reach_the_run(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    app = build_app("training-lab")
    seen: list[TrainOptions] = []
    runs = with_fake_child(app, "ok", tmp_path)
    factory = app.training_runs

    def spy(options: TrainOptions) -> TrainingRun:
        seen.append(options)
        return factory(options)

    app.training_runs = spy
    async with running(app) as pilot:
        panel = app.query_one(TrainingPanel)
        app.query_one("#train-epochs", Input).value = "5"
        app.query_one("#train-length", Input).value = "12"
        await pilot.click("#train-position")
        app.query_one("#train-seed", Input).focus()
        await pilot.press("enter")  # Enter in a number box starts training too
        await wait_for(pilot, lambda: finished(panel))
    assert seen == [TrainOptions(position=False, epochs=5, length=12)]
    assert runs


async def test_missing_extra_disables_training(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("training-lab")
    app.training_extra_installed = lambda: False  # as on a server without the train extra
    async with running(app):
        assert app.query_one("#train-start", Button).disabled
        assert "pip install 'attn-tui[train]'" in widget_text(app, "#train-status")
        assert isinstance(app.query_one("#train-status"), Static)


async def test_ctrl_x_cancels_from_a_number_box(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    """A number box takes ctrl+x as "cut"; while a run is going, the lab's cancel wins."""
    app = build_app("training-lab")
    runs = with_fake_child(app, "hang", tmp_path)
    async with running(app) as pilot:
        box = app.query_one("#train-epochs", Input)
        box.focus()
        await pilot.press("enter")  # Enter in the box starts the run
        panel = app.query_one(TrainingPanel)
        await wait_for(pilot, lambda: started(panel))
        pid = runs[0].process.pid  # type: ignore[union-attr]
        assert box.has_focus
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: not panel.running)
        assert not alive(pid)
        assert widget_text(app, "#train-status").startswith("Cancelled.")
        assert box.value == "30"  # nothing was cut


async def test_ctrl_x_still_cuts_when_nothing_runs(build_app: Callable[..., CourseApp]) -> None:
    app = build_app("training-lab")
    app.training_extra_installed = lambda: True
    async with running(app) as pilot:
        box = app.query_one("#train-batch_size", Input)
        box.focus()
        box.select_all()
        await pilot.press("ctrl+x")
        assert box.value == ""
        assert widget_text(app, "#train-status").startswith("Ready.")


async def test_paths_and_child_messages_reach_the_screen_as_text(
    build_app: Callable[..., CourseApp],
) -> None:
    """Textual writes an ESC inside a Static's Text straight to the terminal: the child's
    error message and log lines (Keras writes control codes) and any error quoting a path
    without repr() would reach it."""
    from tui_course.training.protocol import Error

    app = build_app("training-lab")
    app.training_extra_installed = lambda: True

    def unwritable(options: TrainOptions) -> TrainingRun:
        raise OSError("cannot make /data/\x1b]0;pwned\x07/logs")

    app.training_runs = unwritable
    async with running(app) as pilot:
        panel = app.query_one(TrainingPanel)
        await pilot.press("ctrl+t")
        await pilot.pause()
        status = widget_text(app, "#train-status")
        assert status.startswith("Cannot start: the training log cannot be written")
        assert "/data/]0;pwned/logs" in status and "\x1b" not in status
        panel.state = panel.state.start(panel.form.read_options())
        panel.state = panel.state.apply(Error("boom \x1b[2J", ["line \x1b]52;c;aGk=\x07 one"]))
        await pilot.pause()
        assert widget_text(app, "#train-status") == "Training failed: boom [2J"
        assert widget_text(app, "#train-log").splitlines()[-1] == "  line ]52;c;aGk= one"


def test_cli_training_lines_hold_no_escape_codes(capsys: pytest.CaptureFixture[str]) -> None:
    from tui_course.commands.train import print_plain_training
    from tui_course.training.protocol import Error, Started

    print_plain_training(
        Started("transformer", 10, 1, 1, 8, 16, 16, 4, True, 0, 1, "/d/\x1b]0;pwned\x07/x.log")
    )
    print_plain_training(Error("bad \x1b[2J", ["tail \x1b]8;;http://e\x07"]))
    out, err = capsys.readouterr()
    assert "(log: /d/]0;pwned/x.log)" in out
    assert err.splitlines() == ["attn-tui: train: bad [2J", "  tail ]8;;http://e"]
    assert "\x1b" not in out + err


async def test_train_waits_until_the_finished_run_is_kept(
    build_app: Callable[..., CourseApp], tmp_path: Path
) -> None:
    """Done comes before the child has exited (TensorFlow exits slowly). Train was enabled
    by then, and a second run's worker cancelled the first's before it kept the record:
    the finished run never reached the table or the store."""
    gate = tmp_path / "exited"
    runs: list[TrainingRun] = []

    def lingering(options: TrainOptions) -> TrainingRun:
        log = tmp_path / f"fake-{len(runs)}.log"
        command = [sys.executable, str(FAKE), "lingering", "--gate", str(gate), "--log", str(log)]
        runs.append(TrainingRun(command, log))
        return runs[-1]

    app = build_app("training-lab")
    app.training_runs = lingering
    app.training_extra_installed = lambda: True
    async with running(app) as pilot:
        panel = app.query_one(TrainingPanel)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: panel.state.run is not None and not panel.state.running)
        await pilot.pause()
        assert widget_text(app, "#train-status").startswith("Test accuracy 0.930")
        assert panel.running and app.query_one("#train-start", Button).disabled
        assert app.query_one("#train-cancel", Button).disabled  # the run is over
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert len(runs) == 1
        gate.touch()
        await wait_for(pilot, lambda: not panel.running)
        assert [record.test_accuracy for record in panel.state.history] == [0.93]
        assert not app.query_one("#train-start", Button).disabled
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: len(runs) == 2)
