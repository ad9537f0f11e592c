"""The parsed-CSS cache (ui/css_cache.py): a second start styles every node as the first
did, from the file instead of parsing; a damaged, foreign or hostile file is never
believed; a disk that will not take the file changes nothing."""

from __future__ import annotations

import io
import os
import pickle
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.widgets import Footer, Header, Markdown, OptionList

from tests.conftest import REPO
from tests.ui.conftest import UI_COURSE, running, screen_text, until
from tui_course.ui import css_cache
from tui_course.ui.app import CourseApp, Settings, make_app

APP_CSS = Path(css_cache.__file__).with_name("app.tcss")
# Widgets whose DEFAULT_CSS stands for Textual's own sources in the plain-object tests.
WIDGETS = (Header, Footer, OptionList, Markdown)


def styled(app: App[Any]) -> list[tuple[str, str, str]]:
    """Every node of the screen with the CSS it ended up with (a heading's id ends in a
    number of its process, left out)."""
    return [
        (type(node).__name__, re.sub(r"-[0-9]{6,}$", "", node.id or ""), node.styles.css)
        for node in app.screen.walk_children(with_self=True)
    ]


async def first_start(data: Path) -> tuple[list[tuple[str, str, str]], str, CourseApp]:
    app = make_app(Settings(UI_COURSE, data))
    async with running(app, (100, 30)) as pilot:
        # the file is written after the start item opened, in a worker thread
        assert await until(pilot, lambda: (data / css_cache.CACHE_NAME).exists())
        assert await until(pilot, lambda: not app.css_cache.new)
        return styled(app), screen_text(app), app


def sheet(variables: dict[str, str] | None = None) -> Stylesheet:
    """A stylesheet with app.tcss and some of Textual's widgets' own CSS, as the app adds them."""
    stylesheet = Stylesheet(variables=variables or App().get_css_variables())
    stylesheet.read(APP_CSS)
    for widget in WIDGETS:
        for read_from, css, tie_breaker, scope in widget()._get_default_css():
            stylesheet.add_source(
                css, read_from=read_from, is_default_css=True, tie_breaker=tie_breaker, scope=scope
            )
    return stylesheet


def plain(rules: list[RuleSet]) -> list[tuple[Any, ...]]:
    """Rule sets as comparable values: a layout (GridLayout() and the like) has no equality of
    its own, so it is compared by its name. (RuleSet.css cannot be: Textual's own fails on
    some rules.)"""
    out = []
    for rule in rules:
        styles = {
            name: getattr(value, "name", value) if name == "layout" else value
            for name, value in rule.styles._rules.items()
        }
        out.append(
            (
                rule.selector_set,
                styles,
                rule.styles.important,
                rule.errors,
                rule.is_default_rules,
                rule.tie_breaker,
                rule.selector_names,
                rule.pseudo_classes,
            )
        )
    return out


def parsed(cache_file: Path, variables: dict[str, str] | None = None) -> tuple[list[RuleSet], Any]:
    """The rules of sheet(), with a ParseCache whose file is `cache_file`."""
    stylesheet = sheet(variables)
    assert cache_file.name == css_cache.CACHE_NAME
    parse_cache = css_cache.attach(stylesheet, cache_file.parent)
    stylesheet.parse()
    return stylesheet.rules, parse_cache


async def test_a_second_start_styles_every_node_from_the_file_as_the_first_did(
    tmp_path: Path,
) -> None:
    styles_then, text_then, first = await first_start(tmp_path)
    app = make_app(Settings(UI_COURSE, tmp_path))
    async with running(app, (100, 30)):
        assert styled(app) == styles_then
        assert screen_text(app) == text_then
        assert not app.css_cache.new  # nothing parsed: every source came from the file
        assert app.css_cache.used == set(first.css_cache.used)


def test_rules_read_back_equal_the_parsed_ones_and_match_nodes_alike(tmp_path: Path) -> None:
    cache_file = tmp_path / css_cache.CACHE_NAME
    fresh, parse_cache = parsed(cache_file)
    assert parse_cache.new and not parse_cache.used - set(parse_cache.new)
    parse_cache.save()
    assert cache_file.stat().st_mode & 0o777 == 0o600
    loaded, second = parsed(cache_file)
    assert not second.new and second.used == set(parse_cache.stored)
    assert second.variables == css_cache._variables(sheet())
    assert plain(loaded) == plain(fresh)
    assert any("layout" in rule.styles._rules for rule in fresh)  # layouts were compared too
    for old, new in zip(fresh, loaded, strict=True):
        for old_set, new_set in zip(old.selector_set, new.selector_set, strict=True):
            for a, b in zip(old_set.selectors, new_set.selectors, strict=True):
                # the check a selector matches nodes with, rebuilt as Textual builds it
                assert (b._check.func, b._check.args) == (a._check.func, a._check.args)
        assert new.styles.get_rule("color") == old.styles.get_rule("color")
        assert new.styles.has_rule("color") == old.styles.has_rule("color")


def test_other_theme_variables_parse_again(tmp_path: Path) -> None:
    cache_file = tmp_path / css_cache.CACHE_NAME
    _, parse_cache = parsed(cache_file)
    parse_cache.save()
    variables = {**App().get_css_variables(), "primary": "#123456"}
    rules, other = parsed(cache_file, variables)
    assert not other.used - set(other.new)  # nothing taken from the file
    assert other.new
    fresh = sheet(variables)
    fresh.parse()
    assert plain(rules) == plain(fresh.rules)


def test_a_theme_changed_in_a_session_parses_anew_and_keeps_the_file_as_it_was(
    tmp_path: Path,
) -> None:
    stylesheet = sheet()
    parse_cache = css_cache.attach(stylesheet, tmp_path)
    stylesheet.parse()
    before = dict(parse_cache.new)
    first_variables = parse_cache.variables
    stylesheet.set_variables({**stylesheet._variables, "primary": "#654321"})
    stylesheet.parse()  # Textual's own cache is emptied by set_variables: all parsed again
    assert len(parse_cache._memory) == len(before)  # under the new variables, in memory
    assert parse_cache.new == before  # the file keeps what it was started with
    assert parse_cache.variables == first_variables
    parse_cache.stored = dict(before)  # as a file under the first variables would hold
    parse_cache._memory.clear()
    with pytest.raises(KeyError):  # and nothing is answered from it under other variables
        parse_cache[next(iter(before))]


class Boom:
    """Unpickles as a call to os.system: the file must never get that far."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


def hostile_files(tmp_path: Path, good: bytes) -> dict[str, bytes]:
    marker = tmp_path / "ran"
    key = css_cache.versions()
    from textual.css import model

    return {
        "calls os.system": pickle.dumps(key) + pickle.dumps(Boom(marker)),
        "calls os.system in the key": pickle.dumps(Boom(marker)),
        "names a Textual function": pickle.dumps(key)
        + pickle.dumps(((), {("k",) * 5: [model._check_id]})),
        # classes these modules import, not define: a partial or attrgetter could be
        # built into a rule and called by Textual
        "names functools.partial through Textual": pickle.dumps(key)
        + b"ctextual.css.model\npartial\n.",
        "names operator.attrgetter through Textual": pickle.dumps(key)
        + b"ctextual.geometry\nattrgetter\n.",
        "random bytes": bytes(range(256)) * 8,
        "cut short": good[: len(good) // 2],
        "another Python or Textual": pickle.dumps((*key[:-1], ())) + good[len(pickle.dumps(key)) :],
        "entries not rule sets": pickle.dumps(key) + pickle.dumps(((), {("a",) * 5: ["rule"]})),
        "entries not a dict": pickle.dumps(key) + pickle.dumps(((), [1, 2, 3])),
        "variables not pairs": pickle.dumps(key) + pickle.dumps(((1, 2), {})),
        "empty": b"",
    }


@pytest.fixture
def good_file(tmp_path: Path) -> bytes:
    (tmp_path / "good").mkdir()
    cache_file = tmp_path / "good" / css_cache.CACHE_NAME
    _, parse_cache = parsed(cache_file)
    parse_cache.save()
    return cache_file.read_bytes()


def test_a_file_names_only_make_and_make_builds_only_textuals_css_classes() -> None:
    for named in (b"ctextual.css.model\nRuleSet\n.", b"ctextual.css.model\npartial\n."):
        with pytest.raises(pickle.UnpicklingError):  # no class, Textual's own or imported
            css_cache._Unpickler(io.BytesIO(named)).load()
    make = css_cache._Unpickler(io.BytesIO(b"ctui_course.ui.css_cache\n_make\n.")).load()
    assert type(make("textual.css.model.RuleSet")) is RuleSet
    for name in ("textual.css.model.partial", "textual.geometry.attrgetter", "os.system"):
        with pytest.raises(pickle.UnpicklingError):
            make(name, ())
    with pytest.raises(pickle.UnpicklingError):
        make("textual.css.model.RuleSet.__class__", ())


def test_a_file_cannot_set_attributes_of_textuals_classes(tmp_path: Path) -> None:
    """The pickle's BUILD on a class object sets that class's attributes for the process:
    here StylesBase.background, which would paint every widget red. No class object can be
    had from a file, so the load fails and the class stays as it was."""
    from textual.css.styles import StylesBase

    before = StylesBase.__dict__["background"]
    path = tmp_path / css_cache.CACHE_NAME
    path.write_bytes(
        b"\x80\x04ctextual.css.styles\nStylesBase\n"
        b"N}Vbackground\nctextual.color\nColor\n(K\xffK\x00K\x00tRs\x86b."
    )
    path.chmod(0o600)
    assert css_cache.load(path) == ((), {})
    assert StylesBase.__dict__["background"] is before


def colliding_keys(count: int) -> bytes:
    """A pickle of a dict whose int keys all hash alike: building it takes count**2 steps
    (a file of a few hundred KB could take minutes)."""
    step = 2**61 - 1  # every multiple of it hashes to 0
    parts = [b"\x80\x02}("]
    for number in range(1, count + 1):
        key = (number * step).to_bytes(10, "little", signed=True)
        parts.append(b"\x8a\x0a" + key + b"N")
    return b"".join([*parts, b"u."])


def test_a_file_is_set_aside_while_it_loads_and_a_bad_one_is_not_loaded_twice(
    tmp_path: Path, good_file: bytes
) -> None:
    path = tmp_path / css_cache.CACHE_NAME
    aside = tmp_path / f".{css_cache.CACHE_NAME}.loading"
    path.write_bytes(colliding_keys(2000))  # small enough to load here at once
    path.chmod(0o600)
    assert css_cache.load(path) == ((), {})
    assert not path.exists() and not aside.exists()  # not there to stall the next start
    path.write_bytes(good_file)
    path.chmod(0o600)
    assert css_cache.load(path)[1] and path.exists() and not aside.exists()  # put back
    aside.write_bytes(good_file)  # as a start killed while loading leaves it
    aside.chmod(0o600)
    path.unlink()
    assert css_cache.load(path) == ((), {}) and not aside.exists()  # removed, not loaded


def test_a_start_stopped_while_loading_leaves_nothing_to_load_again(
    tmp_path: Path, good_file: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / css_cache.CACHE_NAME
    path.write_bytes(good_file)
    path.chmod(0o600)

    def stopped(self: object) -> object:
        raise KeyboardInterrupt  # as a start interrupted (or hung, then killed) mid-load

    monkeypatch.setattr(css_cache._Unpickler, "load", stopped)
    with pytest.raises(KeyboardInterrupt):
        css_cache.load(path)
    assert not path.exists()  # set aside: the next start does not load it
    monkeypatch.undo()
    assert css_cache.load(path) == ((), {})
    assert not (tmp_path / f".{css_cache.CACHE_NAME}.loading").exists()  # and it is gone


def test_the_key_has_textuals_colour_and_css_files_and_their_folders() -> None:
    import textual
    import textual._color_constants

    (_, _, made_by) = css_cache.versions()
    paths = {entry[0] for entry in made_by}  # type: ignore[union-attr]
    assert textual._color_constants.__file__ in paths
    assert os.path.dirname(textual.__file__) in paths
    assert os.path.dirname(textual._color_constants.__file__) in paths


def test_the_good_file_loads(tmp_path: Path, good_file: bytes) -> None:
    path = tmp_path / "copy.pickle"
    path.write_bytes(good_file)
    path.chmod(0o600)
    assert css_cache.load(path)[1]


@pytest.mark.parametrize(
    "name",
    [
        "calls os.system",
        "calls os.system in the key",
        "names a Textual function",
        "names functools.partial through Textual",
        "names operator.attrgetter through Textual",
        "random bytes",
        "cut short",
        "another Python or Textual",
        "entries not rule sets",
        "entries not a dict",
        "variables not pairs",
        "empty",
    ],
)
def test_a_hostile_or_damaged_file_is_never_believed(
    tmp_path: Path, good_file: bytes, name: str
) -> None:
    path = tmp_path / css_cache.CACHE_NAME
    path.write_bytes(hostile_files(tmp_path, good_file)[name])
    path.chmod(0o600)
    assert css_cache.load(path) == ((), {})
    assert not (tmp_path / "ran").exists()
    rules, parse_cache = parsed(path)  # and the stylesheet parses as Textual would
    fresh = sheet()
    fresh.parse()
    assert plain(rules) == plain(fresh.rules) and not parse_cache.stored


def test_a_file_others_could_write_a_link_or_an_oversized_one_is_not_read(
    tmp_path: Path, good_file: bytes
) -> None:
    path = tmp_path / css_cache.CACHE_NAME
    path.write_bytes(good_file)
    path.chmod(0o644)  # readable by others: not one this app wrote
    assert css_cache.load(path) == ((), {})
    path.chmod(0o600)
    link = tmp_path / "link.pickle"
    link.symlink_to(path)
    assert css_cache.load(link) == ((), {})
    big = tmp_path / "big.pickle"
    with big.open("wb") as file:
        file.write(good_file)
        file.truncate(css_cache.MAX_CACHE_BYTES + 1)
    big.chmod(0o600)
    assert css_cache.load(big) == ((), {})


async def test_the_app_starts_the_same_over_a_hostile_file(
    tmp_path: Path, good_file: bytes
) -> None:
    clean = tmp_path / "clean"
    clean.mkdir()
    styles_then, text_then, _ = await first_start(clean)
    data = tmp_path / "data"
    data.mkdir()
    (data / css_cache.CACHE_NAME).write_bytes(hostile_files(tmp_path, good_file)["calls os.system"])
    (data / css_cache.CACHE_NAME).chmod(0o600)
    styles_now, text_now, _ = await first_start(data)
    assert not (tmp_path / "ran").exists()
    assert (styles_now, text_now) == (styles_then, text_then)
    assert css_cache.load(data / css_cache.CACHE_NAME)[1]  # written over with a good one


def test_a_disk_that_will_not_take_the_file_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / css_cache.CACHE_NAME
    _, parse_cache = parsed(path)
    new = dict(parse_cache.new)

    def full(*_: object, **__: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("tui_course.paths.write_file_safely", full)
    parse_cache.save()  # no exception
    assert not path.exists() and parse_cache.new == new  # still owed


def test_the_file_keeps_this_sessions_sources_first_up_to_the_cap(tmp_path: Path) -> None:
    _, parse_cache = parsed(tmp_path / css_cache.CACHE_NAME)
    old = {("css", ("old", str(n)), False, 0, ""): [] for n in range(css_cache.MAX_ENTRIES)}
    parse_cache.stored = old  # type: ignore[assignment]
    entries = parse_cache.to_save()
    assert entries is not None and len(entries) == css_cache.MAX_ENTRIES
    assert set(parse_cache.new) <= set(entries)  # all of this session's, then the older ones
    parse_cache.new = {}
    assert parse_cache.to_save() is None  # nothing new: nothing to write


async def test_a_crash_on_styles_read_back_removes_the_file_and_the_next_start_is_whole(
    tmp_path: Path,
) -> None:
    """A file this app wrote but whose styles make Textual fail (here every width is
    nonsense): the real app ends with its crash report, the file is gone, and the next
    start is whole."""
    from tests.unit.test_crash import run_in_pty
    from tui_course.progress.practice import recording_dir
    from tui_course.runtime.crash import EXIT_SOFTWARE

    root = tmp_path / "data"
    data = recording_dir(root, UI_COURSE)  # where `--content UI_COURSE` keeps its files
    await first_start(data)  # the first start parsed and wrote the file
    cache_file = data / css_cache.CACHE_NAME
    variables, entries = css_cache.load(cache_file)
    assert entries
    for rules in entries.values():
        for rule in rules:
            rule.styles._rules["width"] = "nonsense"  # type: ignore[typeddict-item]
    buffer = io.BytesIO()
    pickler = css_cache._Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dump(css_cache.versions())
    pickler.dump((variables, entries))
    cache_file.write_bytes(buffer.getvalue())
    command = [
        *(sys.executable, "-m", "tui_course"),
        *("--content", str(UI_COURSE), "--data-dir", str(root)),
    ]
    env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(REPO), TEXTUAL_PRESS="q")
    status, _ = run_in_pty(command, env)
    assert status == EXIT_SOFTWARE  # Textual failed on the styles read back
    assert not cache_file.exists()
    assert list(data.glob("crash-*.log"))
    status, _ = run_in_pty(command, env)
    assert status == 0  # and the next start is whole again
