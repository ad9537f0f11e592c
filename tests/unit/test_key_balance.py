"""`attn-tui validate` warns about answer keys a student could game (content.balance)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tui_course.content.balance import key_warnings
from tui_course.content.course import load_course
from tui_course.content.models import Kind, Question, Quiz

ROOT = Path(__file__).resolve().parents[2]


def choice(answer: int, options: tuple[str, ...]) -> Question:
    return Question(Kind.CHOICE, "?", "", 1, options=options, answer=answer)


def test_keys_on_one_position_or_mostly_longest_are_warned_about() -> None:
    even = ("aa", "bb", "cc", "dd")
    clustered = Quiz("q", "Q", "q.toml", tuple(choice(1, even) for _ in range(4)))
    assert key_warnings(clustered) == [
        "4 of 4 single-choice keys are option 1: pressing 1 scores well;"
        " spread the keys over the positions"
    ]
    longest = Quiz(
        "q",
        "Q",
        "q.toml",
        tuple(
            choice(n, tuple("x" * (9 if i == n else 2) for i in range(1, 5))) for n in (1, 2, 3, 4)
        ),
    )
    assert key_warnings(longest) == [
        "4 of 4 single-choice keys are the longest option: picking the longest scores well;"
        " make the wrong options as full as the key"
    ]
    few = Quiz("q", "Q", "q.toml", tuple(choice(1, even) for _ in range(3)))
    assert key_warnings(few) == []  # three questions show no pattern


def test_the_shipped_quizzes_are_balanced_and_validate_prints_warnings_without_failing(
    tmp_path: Path,
) -> None:
    for quiz in load_course(ROOT).quizzes:
        assert key_warnings(quiz) == [], quiz.id
    (tmp_path / "lessons").mkdir()
    (tmp_path / "quizzes").mkdir()
    questions = "".join(
        f'[[question]]\nkind = "choice"\nprompt = "Q{n}?"\noptions = ["a", "b", "c"]\n'
        'answer = 1\nexplanation = "."\n\n'
        for n in range(4)
    )
    (tmp_path / "quizzes" / "q.toml").write_text(f'id = "q"\ntitle = "Q"\n\n{questions}')
    result = subprocess.run(
        [sys.executable, "-m", "tui_course", "validate", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == (
        "warning: quizzes/q.toml: 4 of 4 single-choice keys are option 1: pressing 1 scores"
        " well; spread the keys over the positions"
    )
