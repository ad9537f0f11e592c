"""Lesson blocks are found by markdown-it, the way the lesson view renders the Markdown."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_course.content.blocks.pe_table import PETableParams
from tui_course.content.errors import ContentError
from tui_course.content.lessons import load_lesson
from tui_course.content.segments import BlockSegment, MarkdownSegment

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
    assert isinstance(block, BlockSegment) and block.params == PETableParams(positions=4, dim=4)
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

    def broken_for_b(path: Path, root: Path | None = None, *, blocks: bool = True) -> object:
        if path.name == "b.md":
            raise RecursionError("maximum recursion depth exceeded")
        return real(path, root, blocks=blocks)

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


@pytest.mark.parametrize(
    ("fits", "too_many"),
    [
        (_table(20, 15), _table(80, 80)),
        ("- a\n" * 195, "- a\n" * 2000),
        ("a\n\n" * 390, "a\n\n" * 2000),
    ],
    ids=["table", "list", "paragraphs"],
)
def test_markdown_too_big_to_draw_is_refused_at_its_line(
    tmp_path: Path, fits: str, too_many: str
) -> None:
    """Textual draws a widget per block: 2,000 list items froze the app for 24 s, an 80 x 80
    table for 11 s. What still fits shows."""
    from tui_course.content.lessons import MAX_MARKDOWN_BLOCKS

    fine = load_lesson(lesson(tmp_path, "Intro.\n\n" + fits))
    assert isinstance(fine.segments[0], MarkdownSegment)
    path = lesson(tmp_path, "Intro.\n\n" + too_many)
    with pytest.raises(ContentError) as raised:
        load_lesson(path)
    error = raised.value
    assert error.line is not None and error.line > FRONT.count("\n") + 2
    assert f"more than {MAX_MARKDOWN_BLOCKS} Markdown blocks" in str(error)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('intro = """\n{big}"""\n\n{question}prompt = "p"\n', 3),
        ('{question}prompt = """\n{big}"""\n', 3),
        ('{question}prompt = "p"\nhints = ["""\n{big}"""]\n', 3),
    ],
    ids=["intro", "prompt", "hint"],
)
def test_a_quiz_text_too_big_to_draw_is_refused(tmp_path: Path, text: str, line: int) -> None:
    from tui_course.content.quizzes import load_quiz

    question = '[[question]]\nkind = "text"\nanswer = "a"\nexplanation = "e"\n'
    path = tmp_path / "big.toml"
    body = text.format(big=_table(80, 80), question=question)
    path.write_text(f'id = "big"\ntitle = "Big"\n{body}', encoding="utf-8")
    with pytest.raises(ContentError, match="Markdown blocks") as raised:
        load_quiz(path)
    assert raised.value.line == line


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(list("-*+>|#`~=_<1.) ax\n\t")), max_size=300))
def test_the_cheap_block_bound_is_never_below_markdown_its_count(markdown: str) -> None:
    """Quizzes skip the parser at start-up when the bound says they are small enough."""
    from tui_course.content.lessons import _SINGLE_BLOCKS, _markdown_parser, _most_blocks

    tokens = _markdown_parser().parse(markdown)
    blocks = sum(1 for token in tokens if token.nesting == 1 or token.type in _SINGLE_BLOCKS)
    assert blocks <= _most_blocks(markdown)


def test_lesson_3_points_at_the_loop_check_line_by_its_words() -> None:
    """The prose said 'the last line of the figure' compares the two versions; the figure
    ends with its notes, so it now quotes the line, and the figure must print it."""
    from tests.conftest import REPO
    from tui_course.content.lessons import load_lessons
    from tui_course.render.blocks import attention_extras, compute_attention_block

    lesson_3 = next(item for item in load_lessons(REPO / "lessons")[0] if item.order == 3)
    prose = " ".join(
        " ".join(segment.text.split())
        for segment in lesson_3.segments
        if isinstance(segment, MarkdownSegment)
    )
    assert "last line of the figure" not in prose
    assert 'The line "Loop and vectorised versions" in the figure above' in prose
    block = next(
        segment
        for segment in lesson_3.segments
        if isinstance(segment, BlockSegment) and getattr(segment.params, "loop_check", False)
    )
    result, row = compute_attention_block(block.params)
    lines = attention_extras(result, row, block.params)
    assert any(line.startswith("Loop and vectorised versions (") for line in lines)


def test_the_fingerprint_follows_the_lessons_text(tmp_path: Path) -> None:
    """The start-up check is skipped for a fingerprint that passed: any edit must change it."""
    from tui_course.content.models import lessons_fingerprint

    one = load_lesson(lesson(tmp_path, "\nSome prose.\n"), tmp_path)
    same = load_lesson(lesson(tmp_path, "\nSome prose.\n"), tmp_path)
    edited = load_lesson(lesson(tmp_path, "\nSome prose!\n"), tmp_path)
    assert lessons_fingerprint([one]) == lessons_fingerprint([same])
    assert lessons_fingerprint([one]) != lessons_fingerprint([edited])
    assert lessons_fingerprint([one, same]) != lessons_fingerprint([one])
