"""`attn-tui validate` for code questions: prove each one can tell right code from wrong.

For every code question: the reference passes every case (its own properties too); the
starter fails; every mistake variant fails and is recognised as itself, its verdict
showing that mistake's feedback; no two mistakes
behave alike on the cases; and a result with its axes in the wrong order cannot pass
(one token makes `x.reshape(h, n, d // h)` equal the right split).

Held-out cases (class recheck's): every input of every case differs from the visible one
on each of HELD_OUT_SEEDS, the reference passes its own check on TABLE_SEED, and a
student returning the visible cases' answers as a table fails there. Common mistakes
(content.common_mistakes, by the function's name) each fail the visible cases: a
declared mistake may recognise them, none may pass.

The reference and the starter run in bounded children (tui_course.sandbox), so a
looping or greedy content file is stopped, not waited for.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from tui_course.codecheck.service import ReferenceFailed, compute_expected
from tui_course.content.code_check import CodeVerdict, Outcome, judge, same_results
from tui_course.content.code_inputs import build_inputs
from tui_course.content.code_model import CodeSpec
from tui_course.content.common_mistakes import common_mistakes
from tui_course.content.errors import ContentError
from tui_course.content.models import Question, Quiz
from tui_course.render.code import verdict_text
from tui_course.sandbox.level import Level, LevelReport, sandbox_level
from tui_course.sandbox.limits import Limits
from tui_course.sandbox.npy import as_array
from tui_course.sandbox.runner import CaseResult, RunResult, Worker

PROOF_LIMITS = Limits(wall_seconds=3.0, cpu_seconds=3)  # the shipped ones take ms
PARALLEL_PROOFS = 4  # questions proved at once (their children start in parallel)
HELD_OUT_SEEDS = (1, 2, 3, 4, 5)  # every input must differ from the visible one on each
TABLE_SEED = 1  # where the reference runs again and a table of the visible answers fails


def _as_run(results: Sequence[CaseResult], level: Level) -> RunResult:
    return RunResult("ok", level, entries=(tuple(results),))


def _layout_problem(spec: CodeSpec, reference: Sequence[CaseResult]) -> str | None:
    """A result whose axes are permuted (then reshaped back) must fail some case."""
    outputs = len(reference[0].outputs) if reference else 0
    for position in range(outputs):
        ndim = reference[0].outputs[position].ndim
        for perm in itertools.permutations(range(ndim)):
            if perm == tuple(range(ndim)):
                continue
            if all(_passes_permuted(case.outputs[position], perm, spec) for case in reference):
                name = spec.outputs[position] if position < len(spec.outputs) else "result"
                return (
                    f"{name} with its axes in the order {perm} passes every case: add a case "
                    "whose axes differ in size (e.g. (n, d, h) = (4, 12, 3))"
                )
    return None


def _passes_permuted(want: Any, perm: tuple[int, ...], spec: CodeSpec) -> bool:
    want = as_array(want)
    moved = np.transpose(want, perm).reshape(want.shape)
    return bool(np.allclose(moved, want, rtol=spec.rel_tolerance, atol=spec.tolerance))


def prove_code_question(
    quiz: Quiz,
    number: int,
    question: Question,
    limits: Limits = PROOF_LIMITS,
    report: LevelReport | None = None,
) -> list[ContentError]:
    spec = question.code
    assert spec is not None
    where = f"question {number}"
    report = report or sandbox_level()
    if report.level is Level.NONE:
        return [
            ContentError(
                quiz.path, question.line, f"{where}: cannot run code here: {report.detail}"
            )
        ]
    starter_worker = Worker(limits, report)  # starts now, beside the reference's child
    try:
        expected = compute_expected(spec, 0, limits, report)
    except ReferenceFailed as error:
        starter_worker.close()
        return [ContentError(quiz.path, question.line, f"{where}: {error}")]
    problems: list[ContentError] = []
    verdict = judge(spec, "", _as_run(expected.reference, report.level), expected.reference)
    if not verdict.passed:
        problems.append(
            ContentError(
                quiz.path,
                question.line,
                f"{where}: the reference fails its own check: {verdict.message}",
            )
        )
    layout = _layout_problem(spec, expected.reference)
    if layout:
        problems.append(ContentError(quiz.path, question.line, f"{where}: {layout}"))
    for line, text in _held_out_problems(spec, expected.reference, limits, report):
        problems.append(ContentError(quiz.path, line or question.line, f"{where}: {text}"))
    for text in _library_problems(spec, expected.inputs, expected, report.level):
        problems.append(ContentError(quiz.path, question.line, f"{where}: {text}"))
    starter = starter_worker.run(spec.starter, spec.entry, build_inputs(spec))
    # judged as other text than the starter, so the run itself must fail (not the text match)
    verdict = judge(spec, "\0", starter, expected.reference, expected.variants)
    if verdict.passed:
        problems.append(
            ContentError(quiz.path, question.line, f"{where}: the starter already passes")
        )
    for index, results in expected.variants.items():
        mistake = spec.mistakes[index]
        label = f"{where} mistake {index + 1} ({mistake.name})"
        verdict = judge(
            spec, "", _as_run(results, report.level), expected.reference, expected.variants
        )
        if verdict.outcome is Outcome.PASSED or not _differs(spec, results, expected.reference):
            problems.append(ContentError(quiz.path, mistake.line, f"{label}: passes every case"))
            continue
        if verdict.mistake != index:
            other = "no mistake" if verdict.mistake is None else f"mistake {verdict.mistake + 1}"
            problems.append(
                ContentError(quiz.path, mistake.line, f"{label}: is recognised as {other}")
            )
        elif not _shows(verdict, mistake.feedback):
            message = f"{label}: its verdict ({verdict.stage}) does not show the feedback"
            problems.append(ContentError(quiz.path, mistake.line, message))
    indices = sorted(expected.variants)
    for first, second in itertools.combinations(indices, 2):
        if same_results(expected.variants[first], expected.variants[second], spec):
            problems.append(
                ContentError(
                    quiz.path,
                    spec.mistakes[second].line,
                    f"{where} mistakes {first + 1} and {second + 1} give the same results on "
                    "every case: add a case that tells them apart",
                )
            )
    return problems


def _same_input(first: Any, second: Any) -> bool:
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        return bool(np.shape(first) == np.shape(second) and np.array_equal(first, second))
    return bool(first == second)


def unvaried_inputs(spec: CodeSpec, seeds: Sequence[int] = HELD_OUT_SEEDS) -> list[tuple[int, str]]:
    """(line, problem) for each input of a case that some held-out seed leaves as it is."""
    visible = build_inputs(spec)
    found: dict[tuple[int, int], tuple[int, str]] = {}
    for seed in seeds:
        held_out = build_inputs(spec, seed)
        for index, case in enumerate(spec.cases):
            for position, arg in enumerate(case.args):
                key = (index, position)
                if key in found or not _same_input(
                    visible[index][position], held_out[index][position]
                ):
                    continue
                found[key] = (
                    case.line,
                    f"case {index + 1} ({case.label}): input {arg.name} is the same on held-out "
                    f"seed {seed}, so class recheck cannot catch a table of the visible answers: "
                    "give it sizes with held_out ranges, or a held_out range of its own",
                )
    return [found[key] for key in sorted(found)]


def _held_out_problems(
    spec: CodeSpec,
    visible: Sequence[CaseResult],
    limits: Limits,
    report: LevelReport,
) -> list[tuple[int | None, str]]:
    """Class recheck's cases: each input varies, the reference still passes its own check
    there, and the visible answers returned as a table do not."""
    problems: list[tuple[int | None, str]] = list(unvaried_inputs(spec))
    try:
        held_out = compute_expected(spec, TABLE_SEED, limits, report)
    except ReferenceFailed as error:
        return [*problems, (None, f"on held-out seed {TABLE_SEED}: {error}")]
    own = judge(spec, "", _as_run(held_out.reference, report.level), held_out.reference)
    if not own.passed:
        text = f"the reference fails its own check on held-out seed {TABLE_SEED}: {own.message}"
        problems.append((None, text))
    table = judge(spec, "\0", _as_run(visible, report.level), held_out.reference, held_out.variants)
    if table.passed:
        text = (
            f"a function returning the visible cases' answers as a table passes held-out seed "
            f"{TABLE_SEED}: vary the cases' inputs there (sizes and held_out ranges)"
        )
        problems.append((None, text))
    return problems


def library_results(function: Any, inputs: Sequence[Sequence[Any]]) -> tuple[CaseResult, ...]:
    """A common mistake's results on the cases, called here (trusted code of ours)."""
    results = []
    for args in inputs:
        copies = [arg.copy() if isinstance(arg, np.ndarray) else arg for arg in args]
        try:
            with np.errstate(all="ignore"):
                value = function(*copies)
        except Exception as error:
            detail = {"type": type(error).__name__, "message": str(error)}
            results.append(CaseResult("exception", (), (), detail))
            continue
        try:
            values = value if isinstance(value, tuple) else (value,)
            outputs = tuple(np.asarray(item, dtype=np.float64) for item in values)
        except (TypeError, ValueError):
            results.append(CaseResult("not_array", detail={"type": type(value).__name__}))
            continue
        results.append(CaseResult("ok", outputs))
    return tuple(results)


def _library_problems(
    spec: CodeSpec, inputs: Sequence[Sequence[Any]], expected: Any, level: Level
) -> list[str]:
    """Each common mistake for this function fails the visible cases (recognised or not)."""
    problems = []
    for mistake in common_mistakes(spec.entry):
        results = library_results(mistake.function, inputs)
        verdict = judge(spec, "\0", _as_run(results, level), expected.reference, expected.variants)
        if verdict.passed:
            problems.append(
                f"the common mistake '{mistake.name}' ({mistake.function.__name__} in "
                "tui_course/content/common_mistakes.py) passes every visible case: add a case "
                "that tells it apart"
            )
    return problems


def _shows(verdict: CodeVerdict, feedback: str) -> bool:
    """The feedback is in the text the student reads (the CLI's and the editor's)."""
    shown = " ".join(verdict_text(verdict, width=10_000).split())
    return " ".join(feedback.split()) in shown


def _differs(
    spec: CodeSpec, results: Sequence[CaseResult], reference: Sequence[CaseResult]
) -> bool:
    return not same_results(results, reference, spec)


def prove_code_quiz(quiz: Quiz, report: LevelReport | None = None) -> list[ContentError]:
    """Every code question of the quiz, proved side by side: each proof waits on children."""
    from concurrent.futures import ThreadPoolExecutor

    def prove(number: int, question: Question) -> list[ContentError]:
        try:
            return prove_code_question(quiz, number, question, report=report)
        except Exception as error:  # a content file must not stop validate
            message = f"question {number}: cannot be proved: {error!r}"
            return [ContentError(quiz.path, question.line, message)]

    code = [
        (number, question)
        for number, question in enumerate(quiz.questions, start=1)
        if question.code is not None  # only a code question has a spec
    ]
    with ThreadPoolExecutor(max_workers=PARALLEL_PROOFS) as pool:
        results = list(pool.map(lambda pair: prove(*pair), code))
    return [problem for problems in results for problem in problems]
