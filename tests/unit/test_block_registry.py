"""The block kinds' registry (tui_course.content.blocks) is the one place a block is known:
a name it lacks is a one-line error at the fence's line, and every kind it lists has typed
params with defaults, a text renderer, plain-mode words where it says so, a lab that exists,
and a live view where it names one."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tui_course.content.blocks import BLOCKS, block_kind, parse_block
from tui_course.content.blocks.base import BlockParams
from tui_course.content.course import load_course
from tui_course.content.errors import ContentError
from tui_course.content.labs import lab_kind
from tui_course.content.lessons import load_lesson
from tui_course.content.named import named
from tui_course.content.segments import BlockSegment
from tui_course.content.tomlfile import TableCheck, TomlLines, parse_toml
from tui_course.render.blocks import render_block
from tui_course.specs import IntSpec

FRONT = '+++\nid = "l"\ntitle = "t"\norder = 1\n+++\n'  # lines 1-5


def fixture_blocks() -> dict[str, BlockSegment]:
    """One block of each kind, from the UI fixture course (which uses every kind)."""
    found: dict[str, BlockSegment] = {}
    for lesson in load_course(FIXTURES / "ui_course").lessons:
        for segment in lesson.segments:
            if isinstance(segment, BlockSegment):
                found.setdefault(segment.name, segment)
    return found


def check_for(body: str, name: str) -> tuple[dict[str, object], TableCheck]:
    table = parse_toml(body, "l.md", first_line=8)
    return table, TableCheck("l.md", TomlLines(body, first_line=8), (), f"{name} block")


def test_a_block_the_registry_lacks_is_a_one_line_error_at_its_fence(tmp_path: Path) -> None:
    path = tmp_path / "l.md"
    path.write_text(FRONT + "\nBefore.\n\n```heatmapp\nsize = 3\n```\n", encoding="utf-8")
    with pytest.raises(ContentError) as raised:
        load_lesson(path, tmp_path)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("l.md:9: unknown block 'heatmapp' (blocks: attention, digit-data,")
    assert all(name in message for name in BLOCKS)


def test_parse_block_refuses_a_name_it_does_not_know_at_the_table_line() -> None:
    table, check = check_for("size = 3\n", "heatmapp")
    with pytest.raises(ContentError) as raised:
        parse_block("heatmapp", table, check)
    assert str(raised.value).startswith(
        "l.md:8: heatmapp block: unknown block 'heatmapp' (known blocks: attention, "
    )


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_each_kind_is_its_module_with_typed_params_and_defaults(name: str) -> None:
    kind = block_kind(name)
    assert kind.name == name
    assert issubclass(kind.params, BlockParams)
    assert kind.params.__dataclass_params__.frozen  # type: ignore[attr-defined]
    fields = dataclasses.fields(kind.params)
    assert fields, name
    optional = {f.name for f in fields if f.default is not dataclasses.MISSING}
    assert set(kind.defaults()) == optional
    for field in fields:
        toml = field.metadata["toml"]
        assert toml.required == (field.name not in optional), (name, field.name)


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_each_kind_reads_its_keys_and_fills_in_its_defaults(name: str) -> None:
    """A block giving only its required keys (taken from the fixture's block) gets every
    other key's default, once, from the params class."""
    kind = block_kind(name)
    table, check = check_for("\n".join(required_lines(name)) + "\n", name)
    params = kind.parse(table, check)
    for key, default in kind.defaults().items():
        assert getattr(params, key) == default, (name, key)


def required_lines(name: str) -> list[str]:
    """The fixture block's required keys as TOML lines."""
    kind, given = block_kind(name), fixture_blocks()[name].params
    return [
        f"{f.name} = {_toml(getattr(given, f.name))}"
        for f in dataclasses.fields(kind.params)
        if f.default is dataclasses.MISSING
    ]


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_a_number_out_of_its_range_is_named_as_the_block_names_it(name: str) -> None:
    kind = block_kind(name)
    ranged = [
        (f.name, f.metadata["spec"])
        for f in dataclasses.fields(kind.params)
        if isinstance(f.metadata["spec"], IntSpec) and f.metadata["toml"].types == (int,)
    ]
    for key, spec in ranged:
        others = [line for line in required_lines(name) if not line.startswith(f"{key} =")]
        table, check = check_for("\n".join([*others, f"{key} = {spec.high + 1}"]) + "\n", name)
        with pytest.raises(ContentError) as raised:
            kind.parse(table, check)
        assert f"{name} block: '{key}' must be " in str(raised.value), (name, key)
        assert str(raised.value).startswith(f"l.md:{8 + len(others)}: "), (name, key)


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_each_kind_refuses_an_unknown_key_at_its_line(name: str) -> None:
    table, check = check_for("\n\nno_such_key = 1\n", name)
    with pytest.raises(ContentError) as raised:
        block_kind(name).parse(table, check)
    assert str(raised.value).startswith(f"l.md:10: {name} block: unknown key 'no_such_key'")


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_each_kind_has_a_text_renderer_the_dispatch_uses(name: str) -> None:
    kind = block_kind(name)
    renderer = named(kind.text)
    assert list(inspect.signature(renderer).parameters) == ["params", "width", "ascii_only"]
    block = fixture_blocks()[name]
    text = render_block(block)
    assert text.strip() and text == renderer(block.params, None, True)


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_what_plain_mode_and_the_app_take_from_a_kind_resolves(name: str) -> None:
    kind = block_kind(name)
    for path in (kind.words, kind.plain):
        assert path is None or callable(named(path)), path
    assert kind.words is None or kind.plain is None  # plain replaces text and words
    if kind.lab is not None:
        assert lab_kind(kind.lab).lab.id == kind.lab
    assert (kind.widget is None) == (kind.live_caption == ""), name


def test_named_says_what_is_wrong_with_a_path() -> None:
    with pytest.raises(ValueError, match="not a 'module:attribute' path"):
        named("tui_course.render.blocks.attention_text")
    with pytest.raises(AttributeError):
        named("tui_course.render.blocks:no_such_function")


def _toml(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, str):
        return '"' + value + '"'
    return str(value).lower() if isinstance(value, bool) else str(value)
