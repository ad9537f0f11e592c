"""The comparison table of kept training runs: a projection of the records it is given."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from tui_course.progress.records import TrainingRecord
from tui_course.render.training import runs_table


class RunsTable:
    """The table at whatever width it is drawn (narrow screens drop columns)."""

    def __init__(self, records: tuple[TrainingRecord, ...]) -> None:
        self.records = records

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(runs_table(self.records, options.max_width), no_wrap=True, overflow="crop")


class TrainingRunsTable(Widget):
    DEFAULT_CSS = """
    TrainingRunsTable {
        height: auto;
        margin: 1 0 0 0;
    }
    """

    records: reactive[tuple[TrainingRecord, ...]] = reactive((), layout=True)

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)

    def render(self) -> RunsTable:
        return RunsTable(self.records)
