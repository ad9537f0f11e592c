"""Lesson 10's data: the code it prints is the lab's generator, and the share of "same" rows
it shows is the generated data's (no Keras needed)."""

from __future__ import annotations

import re

import numpy as np

from tests.conftest import REPO
from tui_course.content.lessons import load_lesson
from tui_course.content.segments import BlockSegment, MarkdownSegment
from tui_course.render.blocks import render_block
from tui_course.training.task import make_data, positive_rate

LESSON = REPO / "lessons" / "10-digit-lab.md"


def lesson_code(marker: str) -> str:
    lesson = load_lesson(LESSON)
    prose = "\n".join(s.text for s in lesson.segments if isinstance(s, MarkdownSegment))
    blocks = [block.split("\n```")[0] for block in prose.split("```python\n")[1:]]
    (code,) = [block for block in blocks if marker in block]
    return code


def test_the_lessons_data_code_is_the_labs_generator() -> None:
    namespace: dict[str, object] = {"np": np, "rng": np.random.default_rng(0)}
    exec(lesson_code("def make_data(n)"), namespace)  # the lesson's own code, as printed
    data = make_data()
    assert data.x_train.tobytes() == namespace["x_train"].tobytes()  # type: ignore[attr-defined]
    assert data.x_test.tobytes() == namespace["x_test"].tobytes()  # type: ignore[attr-defined]
    assert np.array_equal(data.y_test.astype(bool), namespace["y_test"])  # type: ignore[arg-type]


def test_the_lesson_shows_the_generated_share_of_same_rows() -> None:
    lesson = load_lesson(LESSON)
    (block,) = [
        s for s in lesson.segments if isinstance(s, BlockSegment) and s.name == "digit-data"
    ]
    text = render_block(block)
    data = make_data()
    shown = {
        name: (int(same.replace(",", "")), float(rate))
        for name, same, rate in re.findall(
            r"(training|test) rows\s+([\d,]+) of [\d,]+\s+([\d.]+)%", text
        )
    }
    assert shown == {
        "training": (int(data.y_train.sum()), round(positive_rate(data.y_train) * 100, 1)),
        "test": (int(data.y_test.sum()), round(positive_rate(data.y_test) * 100, 1)),
    }
    assert f"{positive_rate(data.y_test):.1%} on these test rows" in text
    assert "0.5 + 0.5 / 9      55.6%" in text and "not 50%" in text
    assert abs(positive_rate(data.y_test) - 0.5) > 0.03  # the lesson's old "equally common"
    assert "equally common" not in LESSON.read_text(encoding="utf-8").replace(
        "So are the two answers equally common? No.", ""
    )


def test_lesson_and_quiz_count_the_same_updates() -> None:
    """The lesson says 29 hidden-state updates; the quiz's key must be the same number."""
    import tomllib

    assert "through 29 hidden-state updates" in LESSON.read_text(encoding="utf-8")
    quiz = tomllib.loads((REPO / "quizzes" / "understanding.toml").read_text(encoding="utf-8"))
    (question,) = [q for q in quiz["question"] if "hidden-state" in q["prompt"]]
    assert question["answer"] == 29
    assert {m["answer"] for m in question["mistake"]} == {28, 30}
