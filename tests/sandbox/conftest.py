"""Shared pieces for the sandbox tests: the shipped code quiz, both sandbox levels, small limits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_course.codecheck.service import CodeChecker
from tui_course.content.models import Question, Quiz
from tui_course.content.quizzes import load_quiz
from tui_course.sandbox.level import Level, LevelReport, forget_probe, sandbox_level
from tui_course.sandbox.limits import TEST_LIMITS

REPO = Path(__file__).resolve().parents[2]
CODE_QUIZ = REPO / "quizzes" / "write-the-code.toml"
# A right answer to the shipped quiz's attention_weights question.
ATTENTION_SOLUTION = (
    "import numpy as np\n"
    "def attention_weights(Q, K):\n"
    "    s = Q @ K.T / np.sqrt(Q.shape[-1])\n"
    "    e = np.exp(s - s.max(axis=-1, keepdims=True))\n"
    "    return e / e.sum(axis=-1, keepdims=True)\n"
)
LIMITS_ONLY = LevelReport(Level.LIMITS, "bwrap made unavailable for this test", "install it")


def bwrap_report() -> LevelReport | None:
    forget_probe()
    report = sandbox_level()
    return report if report.level is Level.BWRAP else None


def level_params() -> list[object]:
    report = bwrap_report()
    bwrap = pytest.param(
        report, id="bwrap", marks=pytest.mark.skipif(report is None, reason="no bwrap")
    )
    return [bwrap, pytest.param(LIMITS_ONLY, id="limits-only")]


@pytest.fixture(scope="session")
def code_quiz() -> Quiz:
    return load_quiz(CODE_QUIZ, REPO)


@pytest.fixture(scope="session")
def attention_question(code_quiz: Quiz) -> Question:
    return code_quiz.questions[0]


@pytest.fixture(params=level_params())
def checker(request: pytest.FixtureRequest) -> Iterator[CodeChecker]:
    with CodeChecker(TEST_LIMITS, request.param, minimum=Level.LIMITS, warm=False) as made:
        yield made
