"""`$` in a Python regex also matches before a final newline: names and ids must not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_course.classroom.quiz_toml import dumps
from tui_course.classroom.submission import ITEM_ID, USER_NAME
from tui_course.content.errors import ContentError
from tui_course.content.quizzes import load_quiz


@pytest.mark.parametrize("pattern", [USER_NAME, ITEM_ID])
def test_drop_box_names_refuse_a_trailing_newline(pattern: object) -> None:
    assert pattern.match("alice")  # type: ignore[attr-defined]
    assert not pattern.match("alice\n")  # type: ignore[attr-defined]


def test_a_quiz_id_with_a_trailing_newline_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "q.toml"
    question = '[[question]]\nkind = "text"\nprompt = "P"\nanswer = "a"\nexplanation = "E"\n'
    path.write_text('id = "quiz\\n"\ntitle = "T"\n' + question, encoding="utf-8")
    with pytest.raises(ContentError, match="lowercase letters"):
        load_quiz(path)


def test_toml_keys_with_a_trailing_newline_are_quoted() -> None:
    assert dumps({"0\n": 1}) == '"0\\n" = 1\n'
