"""StateView, the base of the interactive views: identity, batching, the first draw."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui_course.ui.widgets.state_view import StateView


@dataclass(frozen=True)
class Counter:
    """A state holding an array, as the attention explorer's does: `==` on two equal
    distinct ones raises."""

    count: int
    weights: np.ndarray = field(default_factory=lambda: np.ones((2, 2)))


class CounterView(StateView[Counter], Vertical):
    def __init__(self, state: Counter) -> None:
        super().__init__(state, id="counter")
        self.draws: list[tuple[Counter | None, Counter]] = []
        self.text = Static("", id="counter-text")

    def compose(self) -> ComposeResult:
        yield self.text

    def draw(self, old: Counter | None, new: Counter) -> None:
        self.draws.append((old, new))
        self.text.update(f"count {new.count}")


class CounterApp(App[None]):
    def __init__(self, state: Counter) -> None:
        super().__init__()
        self.first = state

    def compose(self) -> ComposeResult:
        yield CounterView(self.first)


async def test_the_first_draw_is_on_mount_from_nothing() -> None:
    first = Counter(0)
    app = CounterApp(first)
    async with app.run_test() as pilot:
        view = app.query_one(CounterView)
        await pilot.pause()
        assert view.draws == [(None, first)]
        assert str(view.text.render()) == "count 0"


async def test_two_changes_in_one_turn_are_one_draw_from_the_first_old_to_the_last_new() -> None:
    first, second, third = Counter(0), Counter(1), Counter(2)
    app = CounterApp(first)
    async with app.run_test() as pilot:
        view = app.query_one(CounterView)
        await pilot.pause()
        view.state = second
        view.state = third
        assert len(view.draws) == 1  # nothing drawn yet: the draw waits for the turn's end
        await pilot.pause()
        assert view.draws == [(None, first), (first, third)]
        assert str(view.text.render()) == "count 2"


async def test_equal_distinct_states_are_compared_by_identity_and_never_raise() -> None:
    first = Counter(0)
    twin = Counter(0)  # equal fields, a distinct array: `first != twin` raises
    app = CounterApp(first)
    async with app.run_test() as pilot:
        view = app.query_one(CounterView)
        await pilot.pause()
        view.state = twin
        await pilot.pause()
        assert view.draws == [(None, first), (first, twin)]
        assert view.state is twin


async def test_the_same_object_again_draws_nothing() -> None:
    first, second = Counter(0), Counter(1)
    app = CounterApp(first)
    async with app.run_test() as pilot:
        view = app.query_one(CounterView)
        await pilot.pause()
        view.state = first
        await pilot.pause()
        assert view.draws == [(None, first)]
        view.state = second
        view.state = first  # back to what is on screen within the turn: nothing to draw
        await pilot.pause()
        assert view.draws == [(None, first)]
        view.state = second
        await pilot.pause()
        view.state = second
        await pilot.pause()
        assert view.draws == [(None, first), (first, second)]
