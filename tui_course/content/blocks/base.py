"""What every block kind is: its typed params, how its TOML body is read and proved, and
where the layers above find its text, its words for plain mode and its live widget.

A block's params are a frozen dataclass whose fields are the TOML keys: each field says
its TOML type, its range (a spec from specs.py) and its default once, through `key()`.
Drawing a block needs NumPy and Textual, which this layer never imports: a kind names
those functions by dotted path ("module:function"), and render/, plain/ and ui/ (which may
import them) resolve the path with content.named. So loading a lesson stays free of both.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Generic, TypeVar

from tui_course import specs
from tui_course.content.tomlfile import Field, TableCheck

INT = Field((int,), "a whole number")
BOOL = Field((bool,), "true or false")
STR = Field((str,), "a string")


@dataclasses.dataclass(frozen=True)
class BlockParams:
    """The params of one block kind (each kind subclasses it with its own fields)."""


P = TypeVar("P", bound=BlockParams)


def key(
    toml: Field,
    default: Any = dataclasses.MISSING,
    spec: specs.IntSpec | specs.ChoiceSpec | None = None,
) -> Any:
    """A block key: its TOML type, its default (none: the key is required), its range."""
    if default is dataclasses.MISSING:
        toml = dataclasses.replace(toml, required=True)
    return dataclasses.field(default=default, metadata={"toml": toml, "spec": spec})


def spec_key(spec: specs.IntSpec | specs.ChoiceSpec, required: bool = False) -> Any:
    """A key whose type, range and default are those of its spec."""
    toml = INT if isinstance(spec, specs.IntSpec) else STR
    return key(toml, dataclasses.MISSING if required else spec.default, spec)


class BlockKind(Generic[P]):
    """One fenced block a lesson may embed. A kind module defines a subclass and `KIND`."""

    name: ClassVar[str]
    params: type[P]
    # The block as text, for `attn-tui validate`, the CLI and plain mode (render layer):
    # (params, width: int | None, ascii_only: bool) -> str. Raises BlockError when the
    # figure cannot be computed (a word missing from an embedding set).
    text: ClassVar[str]
    # Plain mode: the figure's numbers as sentences, (params, tables: bool) -> list[str];
    # None: the figure's text says it all.
    words: ClassVar[str | None] = None
    # Plain mode's whole figure, when it is more than text and words (the real model is
    # loaded): (params, console, data_dir) -> list[str].
    plain: ClassVar[str | None] = None
    # The live view in the app (ui layer): (params) -> Widget; None: the text in a frame.
    widget: ClassVar[str | None] = None
    # The frame's title around the live view.
    live_caption: ClassVar[str] = ""
    # The lab where the student can change this figure (plain mode says "go <lab>").
    lab: ClassVar[str | None] = None

    def parse(self, table: dict[str, Any], check: TableCheck) -> P:
        """The block's body read into its params; a ContentError at the key's line if not."""
        fields = dataclasses.fields(self.params)
        check.check(table, {field.name: field.metadata["toml"] for field in fields})
        for field in fields:
            spec = field.metadata["spec"]
            if spec is not None and field.name in table:
                problem = spec.problem(table[field.name])
                if problem is not None:  # named as the block names it ('tokens', not 'words')
                    raise check.error(
                        problem.replace(f"'{spec.name}'", f"'{field.name}'"), field.name
                    )
        values = {
            name: tuple(value) if isinstance(value, list) else value
            for name, value in table.items()
        }
        params = self.params(**values)
        self.validate(params, check)
        return params

    def validate(self, params: P, check: TableCheck) -> None:
        """The rules that tie keys together (raise check.error(message, key))."""

    def defaults(self) -> dict[str, Any]:
        """Each optional key and its default, as the params class gives them."""
        return {
            field.name: field.default
            for field in dataclasses.fields(self.params)
            if field.default is not dataclasses.MISSING
        }


def each_in_range(
    check: TableCheck, values: tuple[int, ...], spec: specs.IntSpec, key_name: str
) -> None:
    """Every number of a list key within its spec's range."""
    for value in values:
        problem = spec.problem(value)
        if problem is not None:
            raise check.error(problem.replace(f"'{spec.name}'", f"each of '{key_name}'"), key_name)
