"""Lesson blocks are found by markdown-it, the way the lesson view renders the Markdown."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_course.content.errors import ContentError
from tui_course.content.lessons import load_lesson
from tui_course.content.models import BlockSegment, MarkdownSegment

FRONT = '+++\nid = "l"\ntitle = "t"\norder = 1\n+++\n'  # lines 1-5


def lesson(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "l.md"
    path.write_text(FRONT + body, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "\n-   item\n\n    ```attentoin\n    x = 1\n    ```\n",
            "l.md:9: unknown block 'attentoin'",
        ),
        ("\n> ```attentoin\n> x = 1\n> ```\n", "l.md:7: unknown block 'attentoin'"),
        ("\n~~~attentoin\nx = 1\n~~~\n", "l.md:7: unknown block 'attentoin'"),
        ("\n   ```Attentoin extra words\nx\n   ```\n", "l.md:7: unknown block 'attentoin'"),
        (
            "\n- item\n\n  ```pe-table\n  positions = 4\n  ```\n",
            "l.md:9: a 'pe-table' block must start at the margin",
        ),
        ("\n```python\nnever closed\n", "l.md:7: fenced block 'python' is never closed"),
        ("\n> ```python\n> x\n\nafter\n", "l.md:7: fenced block 'python' is never closed"),
    ],
)
def test_fences_anywhere_are_checked_with_their_line(
    tmp_path: Path, body: str, message: str
) -> None:
    with pytest.raises(ContentError) as raised:
        load_lesson(lesson(tmp_path, body), tmp_path)
    assert str(raised.value).startswith(message)


def test_an_indented_code_block_is_prose_not_a_fence(tmp_path: Path) -> None:
    """Four spaces make code in Markdown; the ``` inside is text, as the view shows it."""
    loaded = load_lesson(lesson(tmp_path, "\n    ```attentoin\n    x\n    ```\n"), tmp_path)
    assert [type(s) for s in loaded.segments] == [MarkdownSegment]


def test_blocks_split_the_prose_and_keep_their_toml_lines(tmp_path: Path) -> None:
    body = (
        "\nBefore.\n\n```python\ncode\n```\n\n````pe-table\npositions = 4\ndim = 4\n````\n"
        "\nAfter.\n\n```pe-table\ndims = 4\n```\n"
    )
    with pytest.raises(ContentError) as raised:
        load_lesson(lesson(tmp_path, body), tmp_path)
    assert str(raised.value).startswith("l.md:21: pe-table block: unknown key 'dims'")
    loaded = load_lesson(lesson(tmp_path, body.rsplit("\nAfter.", 1)[0] + "\nAfter.\n"), tmp_path)
    prose, block, after = loaded.segments
    assert isinstance(prose, MarkdownSegment) and "```python" in prose.text
    assert isinstance(block, BlockSegment) and block.params == {"positions": 4, "dim": 4}
    assert block.line == 13
    assert after == MarkdownSegment("After.")


def test_a_loader_bug_in_one_file_skips_that_file_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui_course.content import lessons

    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "a.md").write_text(FRONT.replace('"l"', '"a"'), encoding="utf-8")
    (folder / "b.md").write_text(FRONT.replace('"l"', '"b"'), encoding="utf-8")
    real = lessons.load_lesson

    def broken_for_b(path: Path, root: Path | None = None) -> object:
        if path.name == "b.md":
            raise RecursionError("maximum recursion depth exceeded")
        return real(path, root)

    monkeypatch.setattr(lessons, "load_lesson", broken_for_b)
    loaded, problems = lessons.load_lessons(folder, tmp_path)
    assert [lesson.id for lesson in loaded] == ["a"]
    assert [str(p) for p in problems] == [
        "lessons/b.md: cannot be loaded: RecursionError('maximum recursion depth exceeded')"
    ]


def test_a_title_of_invisible_characters_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "l.md"
    path.write_text(FRONT.replace('title = "t"', 'title = "\\u200b\\u202e "'), encoding="utf-8")
    with pytest.raises(ContentError) as raised:
        load_lesson(path, tmp_path)
    assert str(raised.value) == "l.md:3: 'title' must not be empty"


def _table(columns: int, rows: int) -> str:
    return "|a" * columns + "|\n" + "|-" * columns + "|\n" + ("|x" * columns + "|\n") * rows


def test_a_table_too_big_to_draw_is_refused_at_its_line(tmp_path: Path) -> None:
    """80 x 80 cells froze the app for 11 s (a widget per cell); 20 x 19 still shows."""
    from tui_course.content.lessons import MAX_TABLE_CELLS

    fine = load_lesson(lesson(tmp_path, "Intro.\n\n" + _table(20, 19)))
    assert isinstance(fine.segments[0], MarkdownSegment)
    path = lesson(tmp_path, "Intro.\n\n" + _table(80, 80))
    with pytest.raises(ContentError) as raised:
        load_lesson(path)
    error = raised.value
    assert error.line is not None and path.read_text().split("\n")[error.line - 1].startswith("|a")
    assert f"tables with 6,480 cells in all; at most {MAX_TABLE_CELLS}" in str(error)


def test_a_quiz_text_with_a_table_too_big_to_draw_is_refused(tmp_path: Path) -> None:
    from tui_course.content.quizzes import load_quiz

    question = '[[question]]\nkind = "text"\nanswer = "a"\nexplanation = "e"\n'
    big = _table(80, 80)
    for text, line, where in (
        (f'intro = """\n{big}"""\n\n{question}prompt = "p"\n', 3, "intro"),
        (f'{question}prompt = """\n{big}"""\n', 3, "question 1"),
        (f'{question}prompt = "p"\nhints = ["""\n{big}"""]\n', 3, "question 1"),
    ):
        path = tmp_path / "big.toml"
        path.write_text(f'id = "big"\ntitle = "Big"\n{text}', encoding="utf-8")
        with pytest.raises(ContentError, match="tables with 6,480 cells") as raised:
            load_quiz(path)
        assert raised.value.line == line, where
