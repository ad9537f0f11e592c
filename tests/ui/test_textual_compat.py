"""Each private part of Textual the app reaches (tui_course/ui/textual_compat.py, and the
handlers its subclasses override) is still where and what the app expects: an upgrade of
the pinned textual that moves one fails here, by name, instead of somewhere in a screen.

(LinuxDriver.run_input_thread, which CappedPasteDriver copies, is compared line for line
in tests/unit/test_paste_cap.py.)"""

from __future__ import annotations

import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path

from textual.app import App
from textual.content import Content
from textual.widgets import Footer, Input, TextArea

from tui_course.ui import textual_compat
from tui_course.ui.textual_compat import (
    BORDER_CHARS,
    BORDER_LOCATIONS,
    FooterKey,
    ToggleButton,
    XTermParser,
    prune_watchers,
)

ROOT = Path(__file__).resolve().parents[2]


def parameters(function: object) -> list[str]:
    return list(inspect.signature(function).parameters)  # type: ignore[arg-type]


def test_the_installed_textual_is_the_pinned_one() -> None:
    pins = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert f"textual=={version('textual')}" in pins
    assert f"rich=={version('rich')}" in pins


def test_the_border_tables_hold_every_style_the_ascii_swap_uses() -> None:
    for table in (BORDER_CHARS, BORDER_LOCATIONS):
        assert {"ascii", "double", "round", "solid", "tall", "none", "hidden"} <= set(table)
        corners, middle, bottom = table["ascii"]  # three rows of three
        assert len(corners) == len(middle) == len(bottom) == 3
    textual_compat.clear_border_cache()  # get_box is still an lru_cache


def test_the_truncation_the_ascii_ellipsis_wraps_takes_what_it_is_given() -> None:
    assert parameters(Content.truncate)[:2] == ["self", "max_width"]
    assert {"ellipsis", "pad"} <= set(parameters(Content.truncate))
    assert Content("abcdef").truncate(4, ellipsis=True).plain == "abc\u2026"


def test_the_toggle_and_footer_key_parts_the_app_sets() -> None:
    for name in ("BUTTON_LEFT", "BUTTON_INNER", "BUTTON_RIGHT"):
        assert isinstance(getattr(ToggleButton, name), str)
    assert parameters(FooterKey.__init__)[:5] == [
        "self",
        "key",
        "key_display",
        "description",
        "action",
    ]
    assert {"disabled", "tooltip"} <= set(parameters(FooterKey.__init__))
    assert hasattr(Footer, "compact")
    # CourseFooter.bindings_changed sets what Footer's own compose reads
    assert "_bindings_ready" in inspect.getsource(Footer)


def test_the_parser_the_paste_cap_subclasses() -> None:
    assert parameters(XTermParser.__init__)[:2] == ["self", "debug"]
    assert callable(XTermParser.feed) and callable(XTermParser.tick)


async def test_exit_renderables_and_watcher_lists_are_where_they_are_pruned() -> None:
    class Probe(App[None]):
        pass

    app = Probe()
    async with app.run_test():
        assert isinstance(app._exit_renderables, list)
        app._exit_renderables.append("traceback")
        textual_compat.clear_exit_renderables(app)
        assert app._exit_renderables == []
        box = Input()
        await app.mount(box)
        app.watch(app, "theme", lambda: None)  # a watcher of the app's theme, as TextArea's
        watchers = getattr(app, "__watchers", {}).get("theme")
        assert watchers and all(len(pair) == 2 for pair in watchers)
        prune_watchers(app, "theme", lambda node: False)
        assert getattr(app, "__watchers")["theme"] == []


def test_the_handlers_the_app_overrides_are_still_textuals_own() -> None:
    """Textual calls each class's _on_paste/_on_mount down the MRO itself: the overrides
    must not call them again (that pasted everything twice, and ran two blink timers)."""
    assert "_on_paste" in TextArea.__dict__ and "_on_key" in TextArea.__dict__
    assert "_on_mount" in Input.__dict__
    for name in ("_replace_via_keyboard", "_restart_blink"):
        assert callable(getattr(TextArea, name))
    assert parameters(TextArea._replace_via_keyboard)[:4] == ["self", "insert", "start", "end"]
    assert "_handle_exception" in App.__dict__


def test_the_option_list_parts_the_outline_overrides() -> None:
    """outline.py draws its rows through OptionList's own per-option hooks and caches."""
    from textual.widgets import OptionList
    from textual.widgets.option_list import Option

    assert parameters(OptionList._get_visual) == ["self", "option"]
    assert parameters(OptionList._get_option_render) == ["self", "option", "style"]
    option_list = OptionList(Option("row"))
    for name in ("_option_render_cache", "_option_to_index", "_line_cache"):
        assert hasattr(option_list, name), name
    assert hasattr(option_list._line_cache, "lines")
    assert Option("row")._visual is None  # reset when a prompt is replaced, too


def test_the_stylesheet_parts_the_css_cache_stands_in_for(tmp_path: Path) -> None:
    """css_cache.py puts its ParseCache in a Stylesheet's `_parse_cache` and keys it by
    `_variables`: Textual must still look parsed sources up there, store them there, and
    empty it when the variables change."""
    from textual.css.stylesheet import Stylesheet

    from tui_course.ui.css_cache import attach

    stylesheet = Stylesheet(variables={"primary": "red"})
    assert stylesheet._variables == {"primary": "red"}
    parse_cache = attach(stylesheet, tmp_path)  # no file there
    assert stylesheet._parse_cache is parse_cache
    stylesheet.add_source("Static { color: $primary; }", read_from=("test", "Static.CSS"))
    stylesheet.parse()
    assert len(parse_cache.new) == 1  # Textual stored what it parsed in the stand-in
    (rules,) = parse_cache._memory.values()
    stylesheet.parse()
    assert stylesheet.rules[0] is rules[0]  # and looked it up there the second time
    stylesheet.set_variables({"primary": "blue"})
    assert not parse_cache._memory  # emptied with new variables
