"""Every malformed content file gives one exact `path:line: message`, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tui_course.validation.course import validate

BAD = FIXTURES / "bad"

EXPECTED = [
    "lessons/bad-block-key.md:11: pe-table block: unknown key 'dims' "
    "(allowed: decimals, dim, positions, shaded, similarity, start, table)",
    "lessons/bad-lesson-block.md:11: unknown block 'attentoin' "
    "(blocks: attention, digit-data, heads, key-dim, params, pe-table, real-attention, "
    "score-spread; "
    "or a code language such as python)",
    "lessons/no-front-matter.md:1: a lesson must start with '+++' front matter (id, title)",
    "lessons/unclosed-fence.md:7: fenced block 'python' is never closed",
    "lessons/unknown-word.md:7: attention block: 'dog' is not in toy-cat-sat "
    "(its words: the, cat, sat, down)",
    "quizzes/bad-expression.toml:4: question 1: answer_from: "
    "'__import__('os').getcwd()' is not allowed in an answer expression",
    "quizzes/directory.toml: is a directory, expected a file",
    "quizzes/empty.toml: is empty",
    "quizzes/mistake-is-answer.toml:11: question 1 mistake 1: "
    "this mistake's answer 'the  street.' reads as a key (the street)",
    "quizzes/not-utf8.toml:2: is not valid UTF-8 text",
    "quizzes/numeric-key-wrong.toml:4: question 1: answer = 0.5 but answer_from gives 0.841471",
    "quizzes/numeric-mistake-correct.toml:4: question 1 mistake 1: "
    "its answer 1.415 would be graded correct",
    "quizzes/out-of-range.toml:9: question 1: 'answer' = 4 is not an option (1-3)",
    "quizzes/syntax.toml:3: invalid TOML: Expected ']]' at the end of an array declaration",
    "quizzes/two-correct.toml:9: question 1: single choice needs exactly one correct option, "
    'got 2 (use kind = "multi" for several)',
    "quizzes/unknown-key.toml:15: question 2: unknown key 'tolerence' (allowed: answer, "
    "answer_from, explanation, hints, kind, mistake, options, prompt, rel_tolerance, tolerance,"
    " tries)",
    "quizzes/unknown-kind.toml:5: question 1: unknown kind 'essay'"
    " (choice, multi, numeric, text, code, order)",
    "quizzes/wrong-type.toml:10: question 1: 'hints' must be a list of strings",
]


def test_every_bad_fixture_reports_its_exact_message() -> None:
    report = validate(BAD)
    assert [str(problem) for problem in report.problems] == EXPECTED
    assert not report.ok


def test_validate_command_prints_problems_and_exits_1() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tui_course", "validate", str(BAD)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout.splitlines() == EXPECTED
    assert "Traceback" not in result.stderr
    assert result.stderr.strip() == f"{len(EXPECTED)} problem(s) found in {BAD}"


def test_shipped_course_is_valid_and_counted(course_root: Path) -> None:
    report = validate(course_root)
    assert report.problems == ()
    assert report.summary() == (
        "11 lessons, 5 quizzes, 31 questions, 16 computed figures: all valid"
    )


def test_validate_command_on_shipped_course_exits_0(course_root: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tui_course", "validate", str(course_root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all valid" in result.stdout


def _course(tmp_path: Path, lessons: dict[str, str], quizzes: dict[str, str]) -> Path:
    (tmp_path / "lessons").mkdir()
    (tmp_path / "quizzes").mkdir()
    for name, text in lessons.items():
        (tmp_path / "lessons" / name).write_text(text, encoding="utf-8")
    for name, text in quizzes.items():
        (tmp_path / "quizzes" / name).write_text(text, encoding="utf-8")
    return tmp_path


LESSON = '+++\nid = "{id}"\ntitle = "T"\norder = {order}\n+++\n\nBody.\n'
QUIZ = (
    'id = "{id}"\ntitle = "Q"\nafter = "{after}"\n\n[[question]]\nkind = "text"\n'
    'prompt = "p"\nexplanation = "e"\nanswer = "a"\n'
)


def test_cross_file_checks(tmp_path: Path) -> None:
    root = _course(
        tmp_path,
        {
            "a.md": LESSON.format(id="intro", order=1),
            "b.md": LESSON.format(id="intro", order=2),
            "c.md": LESSON.format(id="other", order=1),
        },
        {"q.toml": QUIZ.format(id="quiz", after="nowhere")},
    )
    problems = [str(p) for p in validate(root).problems]
    assert problems == [
        "lessons/b.md:2: id 'intro' is already used by lessons/a.md",
        "lessons/c.md:4: order 1 is also used by lesson 'intro'",
        "quizzes/q.toml:3: after = 'nowhere' is not a lesson id",
    ]


def test_quiz_and_lesson_ids_share_one_namespace(tmp_path: Path) -> None:
    root = _course(
        tmp_path,
        {"a.md": LESSON.format(id="intro", order=1)},
        {"q.toml": QUIZ.format(id="intro", after="intro")},
    )
    assert [str(p) for p in validate(root).problems] == [
        "quizzes/q.toml:1: id 'intro' is already used by lessons/a.md"
    ]


def test_broken_quiz_does_not_stop_the_rest(tmp_path: Path) -> None:
    root = _course(
        tmp_path,
        {"a.md": LESSON.format(id="intro", order=1)},
        {
            "good.toml": QUIZ.format(id="good", after="intro"),
            "bad.toml": "id = [\n",
        },
    )
    report = validate(root)
    assert [quiz.id for quiz in report.course.quizzes] == ["good"]
    assert [lesson.id for lesson in report.course.lessons] == ["intro"]
    assert len(report.problems) == 1 and str(report.problems[0]).startswith("quizzes/bad.toml:")


@pytest.mark.parametrize("missing", ["lessons", "quizzes"])
def test_missing_folder_is_reported(tmp_path: Path, missing: str) -> None:
    present = "quizzes" if missing == "lessons" else "lessons"
    (tmp_path / present).mkdir()
    assert [str(p) for p in validate(tmp_path).problems] == [f"{missing}/: folder not found"]


def test_nonexistent_root(tmp_path: Path) -> None:
    problems = [str(p) for p in validate(tmp_path / "nope").problems]
    assert problems == [f"{(tmp_path / 'nope').as_posix()}: content folder not found"]
