"""Held-out cases and common mistakes: a table of the visible answers passes the check but
fails class recheck for every shipped code question; every common mistake of the library
fails the visible cases; validate says so, one line, of a quiz that lets one through."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.sandbox.conftest import LIMITS_ONLY
from tui_course.cli import main
from tui_course.codecheck.service import CodeChecker
from tui_course.content.code_check import Outcome
from tui_course.content.code_inputs import build_inputs
from tui_course.content.common_mistakes import LIBRARY, common_mistakes
from tui_course.content.errors import ContentError
from tui_course.content.models import Question
from tui_course.content.quizzes import load_quiz
from tui_course.sandbox.level import Level
from tui_course.sandbox.limits import TEST_LIMITS
from tui_course.sandbox.npy import as_array
from tui_course.validation.code_questions import prove_code_quiz, unvaried_inputs

REPO = Path(__file__).resolve().parents[2]
QUIZ = load_quiz(REPO / "quizzes" / "write-the-code.toml", REPO)
CODE = [
    pytest.param(question, id=question.code.entry)
    for question in QUIZ.questions
    if question.code is not None
]


@pytest.fixture(scope="module")
def checker() -> Iterator[CodeChecker]:
    with CodeChecker(TEST_LIMITS, LIMITS_ONLY, minimum=Level.LIMITS) as made:
        yield made


def table_student(checker: CodeChecker, question: Question) -> str:
    """The visible cases' answers, returned in the order the cases are called."""
    assert question.code is not None
    answers = [
        repr(as_array(result.outputs[0]).tolist())
        for result in checker.expected(question).reference
    ]
    return (
        "import numpy as np\n\n"
        f"ANSWERS = [{', '.join(answers)}]\n"
        "CALLS = [0]\n\n\n"
        f"def {question.code.entry}(*args):\n"
        "    answer = ANSWERS[CALLS[0] % len(ANSWERS)]\n"
        "    CALLS[0] += 1\n"
        "    return np.array(answer, dtype=float)\n"
    )


@pytest.mark.parametrize("question", CODE)
def test_a_table_of_the_visible_answers_passes_the_check_but_not_recheck(
    checker: CodeChecker, question: Question
) -> None:
    code = table_student(checker, question)
    assert checker.check(question, code).outcome is Outcome.PASSED
    for seed in (1, 7, 2**31):
        verdict = checker.check(question, code, seed_offset=seed)
        assert verdict.outcome is Outcome.FAILED, (seed, verdict.message)
        assert verdict.cases_failed  # at least one held-out case tells it apart
        # named by the inputs it has there, not by a visible label untrue of it
        assert all(label.startswith("held-out ") for label in verdict.cases_failed)
        assert "of shape (" in verdict.message


@pytest.mark.parametrize("question", CODE)
def test_every_input_of_every_case_varies_on_held_out_seeds(question: Question) -> None:
    assert question.code is not None
    visible = build_inputs(question.code)
    assert unvaried_inputs(question.code, seeds=range(1, 41)) == []
    for seed in (1, 2, 3):
        held_out = build_inputs(question.code, seed)
        for case_visible, case_held in zip(visible, held_out, strict=True):
            for a, b in zip(case_visible, case_held, strict=True):
                assert np.shape(a) != np.shape(b) or not np.array_equal(a, b)
    assert (
        build_inputs(question.code, 5)[0][0].tolist()
        == build_inputs(question.code, 5)[0][0].tolist()
    )  # the same seed gives the same held-out cases (recheck --seed N again)


def test_positional_encoding_varies_positions_and_d_model() -> None:
    spec = next(q.code for q in QUIZ.questions if q.code and q.code.entry == "positional_encoding")
    assert spec is not None
    visible = build_inputs(spec)
    assert [len(case[0]) for case in visible] == [8, 5, 5]
    assert [case[1] for case in visible] == [6, 5, 12]  # 12: float32 fails visibly there
    held = build_inputs(spec, 3)
    assert [case[1] for case in held] != [6, 5, 12]
    assert held[1][1] % 2 == 1  # the odd case stays odd
    assert not np.array_equal(held[2][0], visible[2][0])  # "large positions" drawn afresh
    assert held[2][0].max() <= 20000


def test_seed_0_and_negative_seeds_are_refused_in_one_line(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "dropbox").mkdir()
    for seed, words in (("0", "is the visible cases"), ("-1", "is not a seed from 1"),
                        ("x", "is not a whole number")):  # fmt: skip
        with pytest.raises(SystemExit) as stopped:
            main(["class", "recheck", "--dir", str(tmp_path), "--seed", seed])
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "--seed" in err and words in err
        assert "Traceback" not in err
    with pytest.raises(ValueError, match="seed offset -1"):
        build_inputs(QUIZ.questions[0].code, -1)  # type: ignore[arg-type]


def student_source(function: object, entry: str) -> str:
    source = inspect.getsource(function)  # type: ignore[arg-type]
    name = function.__name__  # type: ignore[attr-defined]
    source = source.replace(f"def {name}(", f"def {entry}(").replace(
        "  # type: ignore[no-untyped-def]", ""
    )
    return "import numpy as np\n\n\n" + source


LIBRARY_CASES = [
    pytest.param(question, mistake, id=mistake.function.__name__)
    for question in QUIZ.questions
    if question.code is not None
    for mistake in common_mistakes(question.code.entry)
]


def test_the_library_covers_every_shipped_code_question() -> None:
    entries = {q.code.entry for q in QUIZ.questions if q.code is not None}
    assert entries <= set(LIBRARY)
    names = {m.name for m in LIBRARY["attention_weights"]}
    assert {
        "global max",
        "softmax axis 0",
        "no scale",
        "scale by d",
        "sqrt key count",
        "transposed result",
    } <= names
    names = {m.name for m in LIBRARY["positional_encoding"]}
    assert {"sin cos swapped", "i for 2i", "base 1000", "positions off by one"} <= names


@pytest.mark.parametrize(("question", "mistake"), LIBRARY_CASES)
def test_each_common_mistake_fails_the_visible_cases_as_student_code(
    checker: CodeChecker, question: Question, mistake: object
) -> None:
    assert question.code is not None
    code = student_source(mistake.function, question.code.entry)  # type: ignore[attr-defined]
    verdict = checker.check(question, code)
    assert verdict.outcome in (Outcome.FAILED, Outcome.ERROR), verdict.message
    assert verdict.stage not in ("unfinished", "syntax", "missing"), verdict.message


def test_the_global_max_gets_its_own_feedback(checker: CodeChecker) -> None:
    question = QUIZ.questions[0]
    mistake = next(m for m in LIBRARY["attention_weights"] if m.name == "global max")
    verdict = checker.check(question, student_source(mistake.function, "attention_weights"))
    assert verdict.outcome is Outcome.FAILED
    assert "each row's own maximum" in verdict.mistake_feedback
    assert verdict.cases_failed == ("very large scores, rows far apart",)


FLOAT32_SELF_ATTENTION = """import numpy as np


def self_attention(x):
    x = x.astype(np.float32)
    s = x @ x.T / np.float32(np.sqrt(x.shape[-1]))
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ x
"""


def test_float32_fails_where_it_is_a_mistake_on_the_visible_cases_and_passes_elsewhere() -> None:
    """Check and recheck agree on float32 code: it failed a held-out seed (recheck) after
    passing every visible case (check). Where float32 loses the answer's digits (scores in
    the hundreds, positions in the thousands) a visible case fails it, with its own words;
    where it only rounds (self_attention) the tolerance takes it on every seed."""
    for entry in ("attention_weights", "positional_encoding"):
        assert "float32" in {mistake.name for mistake in LIBRARY[entry]}
        question = next(q for q in QUIZ.questions if q.code and q.code.entry == entry)
        assert question.code is not None
        assert any(m.variant == f"{entry}_float32" for m in question.code.mistakes)
    question = next(q for q in QUIZ.questions if q.code and q.code.entry == "self_attention")
    assert question.code is not None
    spec = question.code
    namespace: dict[str, object] = {}
    exec(FLOAT32_SELF_ATTENTION, namespace)
    student = namespace["self_attention"]
    reference = namespace_of(REPO / "quizzes" / spec.module)[spec.reference]
    for seed in range(60):  # the visible cases (0) and 59 held-out seeds
        for args in build_inputs(spec, seed):
            got, want = student(*args), reference(*args)  # type: ignore[operator]
            assert np.allclose(got, want, rtol=spec.rel_tolerance, atol=spec.tolerance), seed


def namespace_of(path: Path) -> dict[str, object]:
    namespace: dict[str, object] = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace


def test_a_float32_positional_encoding_is_told_so_at_check_time(checker: CodeChecker) -> None:
    """The red team's float32 encoding: it passed `check` and failed every recheck seed."""
    question = next(q for q in QUIZ.questions if q.code and q.code.entry == "positional_encoding")
    code = (
        "import numpy as np\n\n\ndef positional_encoding(positions, d_model):\n"
        "    positions = np.asarray(positions, dtype=np.float32)\n"
        "    columns = np.arange(d_model)\n"
        "    rates = (1.0 / 10000 ** ((2 * (columns // 2)) / d_model)).astype(np.float32)\n"
        "    angles = positions[:, None] * rates\n"
        "    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))\n"
    )
    verdict = checker.check(question, code)
    assert verdict.outcome is Outcome.FAILED, verdict.message
    assert verdict.cases_failed == ("large positions",)


REFERENCE = """import numpy as np


def attention_weights(Q, K):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""

WEAK_QUIZ = """id = "weak"
title = "Weak cases"

[[question]]
kind = "code"
prompt = "Write attention_weights(Q, K)."
explanation = "Scaled dot products, softmax over each row."
entry = "attention_weights"
module = "ref.py"
reference = "attention_weights"
properties = ["finite", "rows_sum_to_one"]
starter = '''def attention_weights(Q, K):
    raise NotImplementedError
'''

[[question.case]]
label = "3 queries, 5 keys"
seed = 1
sizes = {{ n = 3, m = 5, d = 4 }}
held_out = {{ n = [2, 6], m = [2, 6], d = [2, 6] }}
args = [{{ name = "Q", shape = ["n", "d"], scale = {scale} }}, {{ name = "K", shape = ["m", "d"] }}]

[[question.case]]
label = "4 queries, 4 keys"
seed = 2
sizes = {{ n = 4, d = 4 }}
held_out = {{ n = [2, 6], d = [2, 6] }}
args = [{{ name = "Q", shape = ["n", "d"] }}, {{ name = "K", shape = ["d", "d"] }}]
"""


def weak_course(tmp_path: Path, scale: float = 1.0) -> Path:
    root = tmp_path / "course"
    (root / "lessons").mkdir(parents=True)
    (root / "quizzes").mkdir()
    (root / "quizzes" / "ref.py").write_text(REFERENCE)
    (root / "quizzes" / "weak.toml").write_text(WEAK_QUIZ.format(scale=scale))
    return root


def test_validate_fails_in_one_line_when_the_global_max_passes(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = weak_course(tmp_path)
    assert main(["validate", str(root)]) == 1
    lines = [line for line in capsys.readouterr().out.splitlines() if "global max" in line]
    assert len(lines) == 1
    assert lines[0].startswith(f"{Path('quizzes') / 'weak.toml'}:")
    assert ": question 1: the common mistake 'global max'" in lines[0]
    assert "passes every visible case" in lines[0]


def test_validate_passes_the_global_max_proof_once_the_rows_lie_far_apart(
    tmp_path: Path,
) -> None:
    root = weak_course(tmp_path, scale=2000.0)
    quiz = load_quiz(root / "quizzes" / "weak.toml", root)
    problems = [str(p) for p in prove_code_quiz(quiz, report=LIMITS_ONLY)]
    assert not any("global max" in problem for problem in problems), problems


FIXED_PE = """id = "pe"
title = "PE"

[[question]]
kind = "code"
prompt = "Write positional_encoding(positions, d_model)."
explanation = "Sines and cosines."
entry = "pe"
reference = "tui_course.maths.positional:positional_encoding"
starter = '''def pe(positions, d_model):
    raise NotImplementedError
'''

[[question.case]]
label = "8 positions"
args = [{ name = "num_positions", value = 8 }, { name = "d_model", value = 6 }]
"""


def test_an_input_fixed_on_held_out_seeds_is_reported_at_its_case(tmp_path: Path) -> None:
    path = tmp_path / "pe.toml"
    path.write_text(FIXED_PE)
    quiz = load_quiz(path, tmp_path)
    problems = [str(p) for p in prove_code_quiz(quiz, report=LIMITS_ONLY)]
    fixed = [p for p in problems if "is the same on held-out seed" in p]
    assert [p.split(": case 1")[0] for p in fixed] == ["pe.toml:14: question 1"] * 2
    assert any("input num_positions" in p for p in fixed)
    assert any("as a table passes held-out seed 1" in p for p in problems)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ('sizes = { n = 3 }\nargs = [{ name = "x", shape = ["n"] }]', "needs both a value"),
        (
            'sizes = { n = 3 }\nheld_out = { n = [4, 2] }\nargs = [{ name = "x", shape = ["n"] }]',
            "held_out range of 'n' must be [low, high]",
        ),
        ('args = [{ name = "x", shape = ["n"] }]', "'n' is not one of the case's sizes"),
        ('args = [{ name = "x", arange = 4, held_out = [0, 9] }]', "goes with a value"),
        (
            "sizes = { n = 3 }\nheld_out = { n = [1, 9000] }\n"
            'args = [{ name = "x", shape = ["n", "n"] }]',
            "more than 100000 numbers",
        ),
    ],
)
def test_size_errors_name_file_and_line(tmp_path: Path, case: str, message: str) -> None:
    path = tmp_path / "s.toml"
    path.write_text(
        FIXED_PE.split("[[question.case]]")[0].replace('entry = "pe"', 'entry = "f"')
        + '[[question.case]]\nlabel = "one"\n'
        + case
        + "\n"
    )
    with pytest.raises(ContentError) as raised:
        load_quiz(path, tmp_path)
    assert str(raised.value).startswith("s.toml:") and message in str(raised.value)
