"""The hostile corpus walked through every screen and command, as an attacker would try it.

What must hold everywhere: the literal text shows, no markup becomes an action, nothing
crashes, and no escape byte (or bidi override) reaches the terminal.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual import events
from textual.command import CommandPalette
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Input, Markdown, OptionList

from tests.conftest import REPO
from tests.fixtures.hostile_corpus import MARKUP_QUIZ_TITLE, write_hostile_course
from tests.ui.conftest import notices, shown, until
from tui_course.content.models import Quiz
from tui_course.ui.app import CourseApp, Settings, make_app
from tui_course.ui.screens.help import HelpScreen

INVISIBLE = ("\x1b", "\x07", "\x9b", "\u202e", "\u200b", "\u200d", "\u2060")


@pytest.fixture(scope="module")
def hostile_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_hostile_course(tmp_path_factory.mktemp("hostile"))


@asynccontextmanager
async def running(app: CourseApp, size: tuple[int, int]) -> AsyncIterator[Pilot[None]]:
    """Like tests.ui.conftest.running, with notifications drawn (they quote content)."""
    async with app.run_test(size=size, notifications=True) as pilot:
        for _ in range(200):
            if app.current is not None:
                break
            await pilot.pause(0.01)
        await pilot.pause()
        yield pilot


async def searched(pilot: Pilot[None]) -> None:
    """The palette's search for what was just typed has finished (it runs in a worker)."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def assert_inert(text: str) -> None:
    for character in INVISIBLE:
        assert character not in text, repr(character)


async def test_every_item_opens_and_shows_its_text_literally(
    hostile_root: Path, tmp_path: Path
) -> None:
    app = make_app(Settings(hostile_root, tmp_path / "data", shuffle_options=False))
    assert {problem.path for problem in app.course.problems} >= {
        "quizzes/key-markup.toml",
        "quizzes/numbers.toml",
        "quizzes/deep.toml",
        "lessons/07-long-line.md",
        "quizzes/long-prompt.toml",
    }
    async with running(app, size=(100, 30)) as pilot:
        text = await shown(pilot)
        assert "Content problems" in text  # the start-up notice, with '[/]' as text
        assert_inert(text)
        await app.workers.wait_for_complete()  # lesson blocks are checked after the first frame
        assert any("lessons/03-typo.md" in line for line in await notices(pilot))
        await app.open_item("typo-lesson")
        assert "This lesson cannot be shown: lessons/03-typo.md:" in await shown(pilot)
        for item in list(app.items):
            await app.open_item(item.id, focus_content=True)
            text = await shown(pilot)
            assert app.is_running and app.return_code is None, item.id
            assert_inert(text)
            assert_inert(app.sub_title)
        app.clear_notifications()  # toasts would cover the text below
        await app.open_item("markup-lesson")
        text = await shown(pilot)
        assert "Heading [@click=app.quit]q" in text
        assert "abcdef, zero width: abcd, CJK 注意力 and emoji 🤖🧠" in text
        assert app.sub_title == "[@click=app.quit]x Closing [/] tag [bold]b[/bold]"
        await app.open_item("markup-quiz")
        text = await shown(pilot)
        assert "[bold]intro[/bold] [@click=app.quit]go [2J cleared?" in text  # the intro
        await pilot.press("enter")
        text = await shown(pilot)
        assert "Pick [@click=app.quit]the[/] one ]52;c;aGVsbG8=" in text
        assert "[@click=app.quit]quit" in text and "注意力 🤖" in text
        assert app.sub_title == f"Quiz: {MARKUP_QUIZ_TITLE}"
        await pilot.press("1", "enter")  # the targeted mistake
        text = await shown(pilot)
        assert "[/] [@click=app.quit]feedback" in text
        await pilot.press("h")
        assert "[bold]hint[/bold] [/]" in await shown(pilot)
        assert app.is_running and app.return_code is None


async def test_lesson_links_are_shown_not_opened(
    hostile_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    app = make_app(Settings(hostile_root, tmp_path / "data", "markup-lesson"))
    monkeypatch.setattr(app, "open_url", lambda url, **_: opened.append(url))
    async with running(app, size=(100, 30)) as pilot:
        app.clear_notifications()
        markdown = app.query_one(Markdown)
        markdown.post_message(Markdown.LinkClicked(markdown, "file:///etc/passwd\x1b[2J"))
        text = "\n".join(await notices(pilot))
        assert "Link (not opened)" in text and "file:///etc/passwd[2J" in text
        assert opened == []


async def test_quizzes_whose_keys_cannot_be_computed_are_refused_with_a_notice(
    hostile_root: Path, tmp_path: Path
) -> None:
    app = make_app(Settings(hostile_root, tmp_path / "data"))
    async with running(app, size=(120, 30)) as pilot:
        before = app.current
        await app.open_item("expression")
        text = "\n".join(await notices(pilot))
        assert "This quiz cannot open" in text
        assert "quizzes/expression.toml:4: question 1:" in text
        assert "exponent 387420489 is beyond 64" in text
        assert app.current is before  # still where the student was
        await app.open_item("expensive")
        text = "\n".join(await notices(pilot))
        assert "quizzes/expensive.toml:151: question 22:" in text
        await app.open_item("many")  # 10,000 questions: opens
        assert isinstance(app.current, Quiz) and len(app.current.questions) == 10_000


async def test_the_palette_shows_titles_as_text_and_runs_no_action(
    hostile_root: Path, tmp_path: Path
) -> None:
    app = make_app(Settings(hostile_root, tmp_path / "data"))
    async with running(app, size=(120, 30)) as pilot:
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"click")
        await searched(pilot)
        options = app.screen.query_one(OptionList)
        prompts = [options.get_option_at_index(i).prompt for i in range(options.option_count)]
        plain = [p.plain if isinstance(p, Content) else str(p) for p in prompts]
        assert any(f"Quiz: {MARKUP_QUIZ_TITLE}" in text for text in plain)
        assert any("Lesson 1: [@click=app.quit]x Closing [/] tag" in text for text in plain)
        for prompt in prompts:
            assert isinstance(prompt, Content)
            assert not any("@click" in str(span.style) for span in prompt.spans)
            assert not any("link" in str(span.style) for span in prompt.spans)
        assert_inert("\n".join(plain))
        # Searching for brackets and backslashes highlights escaped titles without error.
        for _ in range(5):
            await pilot.press("backspace")
        await pilot.press(*"[/]\\[")
        await searched(pilot)
        assert app.is_running and isinstance(app.screen, CommandPalette)
        await pilot.press(*("backspace" for _ in range(4)), *"click")
        await searched(pilot)
        options = app.screen.query_one(OptionList)
        first = str(options.get_option_at_index(0).prompt)
        # Clicking the text that says @click=app.quit opens the item; it does not quit.
        await pilot.click(OptionList, offset=(5, 0))
        await until(
            pilot,
            lambda: not app.is_running or (app.current is not None and app.current.title in first),
        )
        assert app.is_running and app.return_code is None
        assert app.current is not None


async def test_help_and_the_outline_survive_the_corpus_at_40x12(
    hostile_root: Path, tmp_path: Path
) -> None:
    app = make_app(Settings(hostile_root, tmp_path / "data"))
    async with running(app, size=(40, 12)) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        assert_inert(await shown(pilot))
        await pilot.press("escape")
        for _ in range(len(app.items)):
            await pilot.press("n")
            assert_inert(await shown(pilot))
        assert app.is_running and app.return_code is None


async def test_hostile_text_typed_or_pasted_into_the_attention_lab(
    hostile_root: Path, tmp_path: Path
) -> None:
    app = make_app(Settings(hostile_root, tmp_path / "data", "attention-lab"))
    async with running(app, size=(100, 30)) as pilot:
        box = app.query_one("#lab-attention-lab Input.sentence", Input)
        box.focus()
        box.value = ""
        pasted = "the [@click=app.quit]cat \x1b]0;x\x07 sat \u202eon [/] 注意力 🤖"
        app.post_message(events.Paste(pasted))  # as the terminal delivers a paste
        await until(pilot, lambda: box.value != "")
        assert box.value == "the [@click=app.quit]cat ]0;x sat on [/] 注意力 🤖"
        await pilot.press("enter")
        text = await shown(pilot)
        assert_inert(text)
        assert app.is_running and app.return_code is None


def run_cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "tui_course", *args],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("validate", "{root}"),
        ("progress", "--content", "{root}", "--data-dir", "{data}"),
        ("progress", "--format", "csv", "--content", "{root}", "--data-dir", "{data}"),
        ("progress", "--format", "json", "--content", "{root}", "--data-dir", "{data}"),
        ("--open", "\x1b]0;pwned\x07", "--content", "{root}", "--data-dir", "{data}"),
        ("progress", "--format", "\x1b[2J\u202e"),
        ("attention", "the \x1b]52;c;aGVsbG8=\x07 cat \u202esat"),
    ],
)
def test_cli_commands_write_no_escape_bytes(
    hostile_root: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    filled = [arg.format(root=hostile_root, data=tmp_path / "data") for arg in args]
    result = run_cli(*filled)
    output = result.stdout + result.stderr
    assert b"Traceback" not in output
    assert b"\x1b" not in output and b"\x07" not in output
    assert "\u202e".encode() not in output and "\u200b".encode() not in output
    assert result.returncode in (0, 1, 2)


def test_progress_shows_hostile_titles_as_text(hostile_root: Path, tmp_path: Path) -> None:
    result = run_cli("progress", "--content", str(hostile_root), "--data-dir", str(tmp_path))
    assert result.returncode == 0
    out = result.stdout.decode()
    assert "[@click=app.quit]x Closing" in out
    assert "Bidi txt.exe and zerowidthjoiner"[:30] in out


def test_an_ascii_only_terminal_gets_question_marks_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "course"
    (root / "lessons").mkdir(parents=True)
    (root / "quizzes").mkdir()
    (root / "lessons" / "a.md").write_text(
        '+++\nid = "a"\ntitle = "注意力 🤖"\norder = 1\n+++\n\ntext\n', encoding="utf-8"
    )
    monkeypatch.setenv("PYTHONIOENCODING", "ascii")
    result = run_cli("progress", "--content", str(root), "--data-dir", str(tmp_path / "data"))
    assert result.returncode == 0, result.stderr
    assert b" ??? ? " in result.stdout  # the title's characters, each shown as '?'
