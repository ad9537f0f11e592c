"""The app takes block figures and lab screens from the registries: a block kind that names a
live view gets it (framed with the kind's caption), any other is its text; every
registered lab opens as the screen its factory makes, and an unknown one is refused."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import ContentSwitcher

from tests.ui.conftest import running, until
from tests.unit.test_block_registry import fixture_blocks
from tui_course.content.blocks import BLOCKS, block_kind
from tui_course.content.labs import LABS
from tui_course.content.models import Lab
from tui_course.content.named import named
from tui_course.render.blocks import render_block
from tui_course.ui.app import CourseApp
from tui_course.ui.widgets.labs import LabNeeds, make_lab
from tui_course.ui.widgets.lesson_view import Figure, LiveFigure, _figure


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_a_block_is_the_live_view_its_kind_names_or_its_text(name: str) -> None:
    kind, block = block_kind(name), fixture_blocks()[name]
    shown = _figure(block)
    if kind.widget is None:
        assert type(shown) is Figure and shown.border_title == "computed live"
        assert shown._text == render_block(block)
    else:
        assert isinstance(shown, LiveFigure) and shown.border_title == kind.live_caption
        assert type(shown.view) is type(named(kind.widget)(block.params))


@pytest.mark.parametrize("lab_id", [kind.lab.id for kind in LABS])
async def test_every_registered_lab_opens_as_its_factorys_screen(
    build_app: Callable[..., CourseApp], lab_id: str
) -> None:
    app = build_app(lab_id)
    async with running(app) as pilot:
        switcher = app.query_one(ContentSwitcher)
        assert await until(pilot, lambda: switcher.current == f"lab-{lab_id}")
        screen = app.query_one(f"#lab-{lab_id}")
        factory = named(next(kind.widget for kind in LABS if kind.lab.id == lab_id))
        assert type(screen) is type(factory(_needs(app), None))
        assert app.current is not None and app.current.id == lab_id


def test_a_lab_the_registry_lacks_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no lab called guess-lab"):
        make_lab(Lab("guess-lab", "Guess", after="intro", summary="s"))


def _needs(app: CourseApp) -> LabNeeds:
    return LabNeeds(app.training_runs, app.training_extra_installed, app.store)
