"""Code questions: schema errors at their line, the order of feedback, validate's proofs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_course.content.code_check import Outcome, judge
from tui_course.content.errors import ContentError
from tui_course.content.quizzes import load_quiz
from tui_course.sandbox.level import Level
from tui_course.sandbox.limits import TEST_LIMITS
from tui_course.sandbox.runner import CaseResult, RunResult
from tui_course.validation.code_questions import prove_code_quiz

MODULE = """import numpy as np

def softmax_rows(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)

def softmax_columns(x):
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)

def softmax_columns_again(x):
    return softmax_columns(x)

def identity(x):
    return x.copy()

def loops(x):
    while True:
        pass

def greedy(x):
    return np.ones(10**10)
"""

QUIZ = """id = "t"
title = "T"

[[question]]
kind = "code"
prompt = "Write softmax(x) over rows."
explanation = "Rows sum to 1."
entry = "softmax"
module = "ref.py"
reference = "{reference}"
outputs = ["weights"]
properties = ["rows_sum_to_one"]
starter = '''def softmax(x):
    raise NotImplementedError
'''
{extra}
[[question.case]]
label = "3 by 5"
seed = 1
args = [{{ name = "x", shape = {shape} }}]
{mistakes}
"""

COLUMNS = """
[[question.mistake]]
variant = "softmax_columns"
feedback = "Rows, not columns."
"""


def write(
    tmp_path: Path,
    reference: str = "softmax_rows",
    shape: str = "[3, 5]",
    mistakes: str = COLUMNS,
    extra: str = "",
) -> Path:
    (tmp_path / "ref.py").write_text(MODULE)
    path = tmp_path / "t.toml"
    path.write_text(QUIZ.format(reference=reference, shape=shape, mistakes=mistakes, extra=extra))
    return path


def errors_of(tmp_path: Path, **kwargs: str) -> list[str]:
    quiz = load_quiz(write(tmp_path, **kwargs), tmp_path)
    from tests.sandbox.conftest import LIMITS_ONLY

    return [str(problem) for problem in prove_code_quiz(quiz, report=LIMITS_ONLY)]


def test_a_sound_question_proves(tmp_path: Path) -> None:
    assert errors_of(tmp_path) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"extra": "answer = 3"}, "t.toml:16: question 1: unknown key 'answer'"),
        ({"reference": "no such"}, "is not a function name"),
        ({"shape": "[0, 5]"}, "a shape of 1 to 10000"),
        ({"shape": "[5000, 5000]"}, "more than 100000 numbers"),
        ({"extra": "tolerance = 5"}, "'tolerance' must be a number from 0 to 1"),
        (
            {"mistakes": '[[question.mistake]]\nfeedback = "x"\n'},
            "exactly one of 'variant' or 'raises'",
        ),
        (
            {"mistakes": '[[question.mistake]]\nraises = "E"\nmatch = "("\nfeedback = "x"\n'},
            "'match' is not a regular expression",
        ),
    ],
)
def test_schema_errors_name_file_and_line(
    tmp_path: Path, kwargs: dict[str, str], message: str
) -> None:
    path = write(tmp_path, **kwargs)
    with pytest.raises(ContentError) as caught:
        load_quiz(path, tmp_path)
    text = str(caught.value)
    assert text.startswith("t.toml:")
    assert message in text


def test_a_mistake_that_passes_is_reported_at_its_line(tmp_path: Path) -> None:
    mistakes = '\n[[question.mistake]]\nvariant = "softmax_rows"\nfeedback = "same"\n'
    assert errors_of(tmp_path, mistakes=mistakes) == [
        "t.toml:22: question 1 mistake 1 (softmax_rows): passes every case"
    ]


def test_indistinguishable_mistakes_are_reported(tmp_path: Path) -> None:
    mistakes = (
        COLUMNS + '\n[[question.mistake]]\nvariant = "softmax_columns_again"\nfeedback = "y"\n'
    )
    problems = errors_of(tmp_path, mistakes=mistakes)
    assert any("mistakes 1 and 2 give the same results" in p for p in problems)
    assert any(
        "mistake 2 (softmax_columns_again): is recognised as mistake 1" in p for p in problems
    )


def test_a_square_single_case_cannot_tell_a_transpose(tmp_path: Path) -> None:
    problems = errors_of(tmp_path, reference="identity", shape="[1, 1]", mistakes="")
    assert any("weights with its axes in the order (1, 0) passes every case" in p for p in problems)


@pytest.mark.parametrize("reference", ["loops", "greedy"])
def test_a_hostile_reference_is_bounded(tmp_path: Path, reference: str) -> None:
    quiz = load_quiz(write(tmp_path, reference=reference, mistakes=""), tmp_path)
    from tests.sandbox.conftest import LIMITS_ONLY
    from tui_course.validation.code_questions import prove_code_question

    problems = prove_code_question(quiz, 1, quiz.questions[0], TEST_LIMITS, LIMITS_ONLY)
    assert len(problems) == 1
    assert "ref.py: stopped (time limit)" in str(problems[0]) or "out of memory" in str(problems[0])


# the judge alone, on made-up results: the order of feedback


def spec_of(tmp_path: Path):  # type: ignore[no-untyped-def]
    return load_quiz(write(tmp_path), tmp_path).questions[0].code


def run(*cases: CaseResult, status: str = "ok", **detail: object) -> RunResult:
    return RunResult(status, Level.BWRAP, entries=(cases,), detail=dict(detail))


def test_feedback_comes_in_the_issues_order(tmp_path: Path) -> None:
    import numpy as np

    spec = spec_of(tmp_path)
    right = np.full((3, 5), 0.2)
    reference = (CaseResult("ok", (right,)),)
    syntax = judge(spec, spec.starter, run(status="syntax_error", line=2, message="bad"), reference)
    assert (syntax.outcome, syntax.line) == (Outcome.ERROR, 2)
    assert syntax.message.startswith("Syntax error on line 2")
    unfinished = judge(spec, spec.starter, run(CaseResult("ok", (right,))), reference)
    assert unfinished.stage == "unfinished"
    raised = judge(
        spec,
        "x",
        run(
            CaseResult(
                "exception",
                detail={"type": "KeyError", "message": "k", "frames": [[4, "softmax", "d[k]"]]},
            )
        ),
        reference,
    )
    assert (raised.outcome, raised.line, raised.traceback) == (
        Outcome.ERROR,
        4,
        ((4, "softmax", "d[k]"),),
    )
    shape = judge(spec, "x", run(CaseResult("ok", (right.T,))), reference)
    assert shape.message == "Case '3 by 5': expected weights of shape (3, 5), got (5, 3)."
    half = right.copy()
    half[2] = 0.142
    prop = judge(spec, "x", run(CaseResult("ok", (half,))), reference)
    assert prop.stage == "property"
    assert "row 2 of weights sums to 0.71, not 1" in prop.message
    shifted = right.copy()
    shifted[1] = [0.1, 0.2, 0.35, 0.15, 0.2]
    values = judge(spec, "x", run(CaseResult("ok", (shifted,))), reference)
    assert values.stage == "values"
    assert "weights[1, 2] is 0.35, expected 0.2" in values.message
    assert values.diff is not None and values.diff.wrong.sum() == 3
    mistaken = judge(
        spec,
        "x",
        run(CaseResult("ok", (shifted,))),
        reference,
        {0: (CaseResult("ok", (shifted,)),)},
    )
    assert (mistaken.mistake, mistaken.mistake_feedback) == (0, "Rows, not columns.")
    passed = judge(spec, "x", run(CaseResult("ok", (right + 1e-9,))), reference)
    assert passed.passed


def test_validate_stops_a_looping_reference_and_names_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "lessons").mkdir()
    quizzes = tmp_path / "quizzes"
    quizzes.mkdir()
    write(quizzes, reference="loops", mistakes="")
    result = subprocess.run(
        [sys.executable, "-m", "tui_course", "validate", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard, not a timing
        check=False,
    )
    assert result.returncode == 1
    assert "quizzes/t.toml:4: question 1: ref.py: stopped (time limit)" in result.stdout


def test_the_verdict_text_fits_40_columns_and_windows_around_the_worst_cell(
    tmp_path: Path,
) -> None:
    import numpy as np

    from tui_course.content.code_check import CellDiff, CodeVerdict
    from tui_course.render.code import verdict_text

    want = np.zeros((12, 12))
    got = want.copy()
    got[10, 11] = 5.0
    verdict = CodeVerdict(
        Outcome.FAILED,
        "values",
        "Case 'big': result[10, 11] is 5, expected 0. " * 3,
        Level.BWRAP,
        cases_failed=("a, b", "c"),
        diff=CellDiff("big", "result", got, want, got != want),
    )
    text = verdict_text(verdict, width=40)
    assert max(len(line) for line in text.splitlines()) <= 40
    assert "Cases not passed: a, b; c" in text
    assert "(rows 4-11, cols 8-11 of 12x12)" in text
    assert " !5" in text  # the wrong cell is in the window, marked


def test_a_reference_from_tui_course_maths_is_called_in_the_parent(tmp_path: Path) -> None:
    assert errors_of(tmp_path, reference="tui_course.maths.attention:softmax") == []
    problems = errors_of(tmp_path, reference="tui_course.maths.attention:no_such")
    assert len(problems) == 1 and "cannot load tui_course.maths.attention:no_such" in problems[0]


def test_validate_proves_each_mistake_shows_its_own_feedback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # softmax over columns fails "rows sum to 1" first: the feedback must still show
    assert errors_of(tmp_path) == []
    import tui_course.validation.code_questions as code_proof

    monkeypatch.setattr(code_proof, "verdict_text", lambda verdict, width=80: verdict.message)
    assert errors_of(tmp_path) == [
        "t.toml:22: question 1 mistake 1 (softmax_columns): its verdict (property) does not "
        "show the feedback"
    ]


def test_split_heads_without_transpose_gets_its_own_feedback() -> None:
    """The shipped question, the mistake written as a student would, run in a child."""
    from tests.sandbox.conftest import LIMITS_ONLY
    from tui_course.codecheck.service import compute_expected
    from tui_course.content.code_inputs import build_inputs
    from tui_course.render.code import verdict_text
    from tui_course.sandbox.runner import Worker

    repo = Path(__file__).resolve().parents[2]
    quiz = load_quiz(repo / "quizzes" / "write-the-code.toml", repo / "quizzes")
    question = next(q for q in quiz.questions if q.code and q.code.entry == "split_heads")
    spec = question.code
    assert spec is not None
    assert "rows_sum_to_one" not in spec.properties  # a split is not a softmax
    code = (
        "def split_heads(q, num_heads):\n"
        "    n, d = q.shape\n"
        "    return q.reshape(num_heads, n, d // num_heads)\n"
    )
    expected = compute_expected(spec, 0, TEST_LIMITS, LIMITS_ONLY)
    worker = Worker(TEST_LIMITS, LIMITS_ONLY)
    try:
        run = worker.run(code, spec.entry, build_inputs(spec))
    finally:
        worker.close()
    verdict = judge(spec, code, run, expected.reference, expected.variants)
    mistake = next(i for i, m in enumerate(spec.mistakes) if m.name == "split_heads_plain_reshape")
    assert (verdict.outcome, verdict.mistake) == (Outcome.FAILED, mistake)
    shown = " ".join(verdict_text(verdict, 40).split())
    assert " ".join(spec.mistakes[mistake].feedback.split()) in shown
