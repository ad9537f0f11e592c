"""The training form accepts exactly what tui_course.specs allows (a run that fits 2 GB)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Input

from tests.ui.conftest import running
from tui_course import specs
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.training_panel import TrainingPanel


async def test_form_takes_each_limit_and_refuses_one_past(
    build_app: Callable[..., CourseApp],
) -> None:
    app = build_app("training-lab")
    async with running(app):
        panel = app.query_one(TrainingPanel)
        assert (
            panel.form.read_options() == type(panel.form.read_options())()
        )  # the form starts on the defaults
        for spec in specs.TRAINING_FORM:
            box = app.query_one(f"#train-{spec.name}", Input)
            box.value = str(spec.high)
            assert getattr(panel.form.read_options(), spec.name) == spec.high
            box.value = str(spec.low)
            assert getattr(panel.form.read_options(), spec.name) == spec.low
            box.value = str(spec.high + 1)
            with pytest.raises(ValueError, match=f"must be a whole number {spec.allowed()}"):
                panel.form.read_options()
            box.value = str(spec.default)
        app.query_one("#train-batch_size", Input).value = "8192"
        with pytest.raises(ValueError, match="batch must be a whole number from 1 to 512"):
            panel.form.read_options()


async def test_form_labels_show_the_ranges_at_80x24(build_app: Callable[..., CourseApp]) -> None:
    """The limits showed only in the error after pressing Train (or a mouse tooltip)."""
    from tests.ui.conftest import shown

    app = build_app("training-lab")
    async with running(app, size=(80, 24)) as pilot:
        text = await shown(pilot)
        for spec, name in zip(specs.TRAINING_FORM, ("digits", "epochs", "batch"), strict=False):
            assert f"{name} {spec.low:,}-{spec.high:,}" in text
        assert "threads 1-8" in text and "seed" in text
