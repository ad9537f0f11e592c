"""An order question in plain mode: the lines said numbered (indentation kept), the order
typed as numbers ("3 1 2"), anything else answered with a one-line help, no try spent."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.conftest import FIXTURES, REPO
from tests.plain.test_plain_course import check_lines, take
from tui_course.content.quizzes import load_quiz
from tui_course.progress.store import ProgressStore

LINES = load_quiz(REPO / "quizzes" / "in-order.toml").questions[1].options  # lesson 7's call


def course_with_order_quiz(tmp_path: Path) -> Path:
    """The plain fixture course plus the shipped order quiz."""
    root = tmp_path / "content"
    shutil.copytree(FIXTURES / "plain_course", root)
    shutil.copy(REPO / "quizzes" / "in-order.toml", root / "quizzes")
    return root


def shown_lines(text: str) -> dict[str, int]:
    """The numbered lines of the question said last: line text -> its shown number (a
    line wrapped at the console's width goes on indented under it)."""
    question = text.rsplit("Question ", 1)[-1]
    found = re.findall(r"^  (\d)\. (.*(?:\n     \S.*)*)$", question, flags=re.MULTILINE)
    return {re.sub(r"\n +", " ", line): int(number) for number, line in found}


def test_an_order_question_typed_as_numbers(tmp_path: Path) -> None:
    typed_wrong: list[str] = []

    def policy(prompt: str, text: str) -> str:
        if prompt.startswith("Answer,"):
            if "Lesson 7's" not in text.rsplit("Question ", 1)[-1]:
                return "s"  # the other two: skipped
            numbers = shown_lines(text)
            right = " ".join(str(numbers[line]) for line in LINES)
            if not typed_wrong:
                typed_wrong.append("1 2")
                return "1 2"  # not an order of the seven lines
            if len(typed_wrong) == 1:
                typed_wrong.append("1 2 3 4 5 6 7")
                return "1 2 3 4 5 6 7"  # as shown: never the right order
            return right
        if prompt.startswith("Enter: next item") or "End of the course" in prompt:
            return "q"
        return ""

    root = course_with_order_quiz(tmp_path)
    code, text, _ = take(tmp_path / "data", policy, content=root, open_id="in-order")
    assert code == 0
    check_lines(text)
    asked = text.split("Question 2 of 3", 1)[1].split("Question 3 of 3", 1)[0]
    assert "Type the line numbers in the right order, e.g. 3 1 2." in asked
    said = shown_lines("Question " + asked)
    assert sorted(said) == sorted(LINES)  # each line said once, numbered, indentation kept
    words = " ".join(asked.split())  # as wrapped at the console's width
    assert "Type the line numbers 1 to 7 in the order the lines belong, each once" in words
    assert "Not yet. 2 tries left." in asked
    assert "Correct." in asked
    assert "The right order:" in asked
    with ProgressStore(tmp_path / "data") as store:
        rows = [r for r in store.quiz_rows("in-order") if r.question_index == 2]
    assert [(r.verdict, r.try_number) for r in rows] == [("wrong", 1), ("right", 2)]
