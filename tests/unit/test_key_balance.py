"""`attn-tui validate` warns about answer keys a student could game (content.balance)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tui_course.content.balance import key_warnings, leading, strictly
from tui_course.content.course import load_course
from tui_course.content.models import Kind, Question, Quiz

ROOT = Path(__file__).resolve().parents[2]


def choice(answer: int, options: tuple[str, ...]) -> Question:
    return Question(Kind.CHOICE, "?", "", 1, options=options, answer=answer)


def multi(answer: set[int], options: tuple[str, ...]) -> Question:
    return Question(Kind.MULTI, "?", "", 1, options=options, answer=frozenset(answer))


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
    shortest = Quiz(
        "q",
        "Q",
        "q.toml",
        tuple(
            choice(n, tuple("x" * (2 if i == n else 9) for i in range(1, 5))) for n in (1, 2, 3, 4)
        ),
    )
    assert key_warnings(shortest) == [
        "4 of 4 single-choice keys are the shortest option: picking the shortest scores well;"
        " make the key as full as the wrong options"
    ]
    # two of four: not more than half, no warning (ties are neither longest nor shortest)
    half = Quiz("q", "Q", "q.toml", (*shortest.questions[:2], *(choice(n, even) for n in (3, 4))))
    assert key_warnings(half) == []
    tops = Quiz("q", "Q", "q.toml", (multi({1, 2}, even), multi({1}, even), multi({2, 4}, even)))
    assert key_warnings(tops) == [
        "2 of 3 multi-select keys are the first options: ticking the top ones scores well in an"
        " export (GIFT keeps the file's order); spread the keys"
    ]
    assert key_warnings(Quiz("q", "Q", "q.toml", (multi({1, 2}, even),))) == []  # one is no pattern
    few = Quiz("q", "Q", "q.toml", tuple(choice(1, even) for _ in range(3)))
    assert key_warnings(few) == []  # three questions show no pattern


def test_the_shipped_quizzes_are_balanced_and_validate_prints_warnings_without_failing(
    tmp_path: Path,
) -> None:
    keys = []
    for quiz in load_course(ROOT).quizzes:
        assert key_warnings(quiz) == [], quiz.id
        keys += [(q.answer, q.options) for q in quiz.questions if q.kind is Kind.CHOICE]
    # over the whole course, no more keys at either extreme than chance (one in four)
    for extreme in ("longest", "shortest"):
        count = sum(strictly(extreme, answer, options) for answer, options in keys)
        assert count <= len(keys) / 4, (extreme, count, len(keys))
    multis = [
        q.answer
        for quiz in load_course(ROOT).quizzes
        for q in quiz.questions
        if q.kind is Kind.MULTI
    ]
    assert multis and not any(leading(answer) for answer in multis)
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
