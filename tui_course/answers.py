"""Answer keys computed by the app's own maths, and proofs that every key holds.

Loading a quiz stays NumPy-free; a numeric key written as `answer_from` is
computed here, when the quiz is opened or validated.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from typing import assert_never

import numpy as np

from tui_course.content import kinds
from tui_course.content.errors import ContentError
from tui_course.content.grading import (
    NOT_FINITE,
    AmbiguousNumber,
    AnswerFormatError,
    normalise_text,
    numbers_close,
    parse_number,
)
from tui_course.content.models import Kind, Question, Quiz
from tui_course.content.quizzes import tolerance_problem
from tui_course.maths.expression import (
    BudgetExceeded,
    ExpressionError,
    evaluate_number,
    shared_budget,
)


def resolve(question: Question) -> Question:
    """The question with numeric keys (its own and its mistakes') computed from answer_from.

    Raises ExpressionError when an expression cannot be evaluated.
    """
    if not kinds.of(question).reads_numbers:
        return question
    answer = question.answer
    answer_from = question.numeric_spec.answer_from
    if answer_from is not None:
        answer = evaluate_number(answer_from)
    sources = question.numeric_spec.mistakes_from  # by position; empty: none computed
    padded = (*sources, *(None,) * (len(question.mistakes) - len(sources)))
    mistakes = tuple(
        dataclasses.replace(m, answer=evaluate_number(source)) if source is not None else m
        for m, source in zip(question.mistakes, padded, strict=False)
    )
    return dataclasses.replace(question, answer=answer, mistakes=mistakes)


def _text_key_problems(quiz: Quiz, number: int, question: Question) -> list[ContentError]:
    """Keys that read the same after normalisation: one of them is dead weight. (A mistake
    that reads as a key is refused when the quiz loads, see content.quizzes.)"""
    problems = []
    seen: dict[str, str] = {}
    for key in question.answer:
        normal = normalise_text(key)
        if normal in seen:
            problems.append(
                ContentError(
                    quiz.path,
                    question.line,
                    f"question {number}: answer '{key}' is accepted twice: it reads as "
                    f"'{seen[normal]}' ({normal})",
                )
            )
        seen.setdefault(normal, key)
    return problems


def prove_quiz(quiz: Quiz) -> list[ContentError]:
    """Problems with numeric keys: expressions that fail, typed keys that disagree with
    their expression, and mistakes that would grade as correct."""
    problems: list[ContentError] = []
    resolved_questions = _resolve_all(quiz, problems)
    for number, (question, resolved) in enumerate(
        zip(quiz.questions, resolved_questions, strict=True), start=1
    ):
        match question.kind:
            case Kind.TEXT:
                problems.extend(_text_key_problems(quiz, number, question))
            case Kind.CHOICE | Kind.MULTI | Kind.NUMERIC | Kind.CODE | Kind.ORDER:
                pass  # numeric keys below; code keys by validation.code_questions; the rest at load
            case _:
                assert_never(question.kind)
        if not kinds.of(question).reads_numbers or resolved is None:
            continue
        where = f"question {number}"
        spec = question.numeric_spec
        if spec.answer_from is not None and (
            problem := tolerance_problem(float(resolved.answer), spec.tolerance, spec.rel_tolerance)
        ):
            problems.append(ContentError(quiz.path, question.line, f"{where}: {problem}"))
        if question.answer is not None and spec.answer_from is not None:
            computed = float(resolved.answer)
            if not numbers_close(float(question.answer), computed, spec):
                problems.append(
                    ContentError(
                        quiz.path,
                        question.line,
                        f"{where}: answer = {question.answer} but answer_from gives {computed:.6g}",
                    )
                )
        keys = (float(resolved.answer), *spec.also_accepted)
        for index, mistake in enumerate(resolved.mistakes, start=1):
            if mistake.answer is not None and any(
                numbers_close(float(mistake.answer), key, spec) for key in keys
            ):
                problems.append(
                    ContentError(
                        quiz.path,
                        question.line,
                        f"{where} mistake {index}: its answer {float(mistake.answer):.6g} "
                        "would be graded correct",
                    )
                )
    return problems


def _resolve_all(quiz: Quiz, problems: list[ContentError]) -> list[Question | None]:
    """Each question resolved (None where it failed), under one work budget for the file.

    Once the file's budget is spent, one problem says so and the rest are not tried.
    """
    resolved: list[Question | None] = []
    with shared_budget():  # one hostile file cannot hold the app or validate up for long
        for number, question in enumerate(quiz.questions, start=1):
            try:
                resolved.append(resolve(question))
            except ExpressionError as error:
                where = f"question {number}: answer_from"
                problems.append(ContentError(quiz.path, question.line, f"{where}: {error}"))
                resolved.append(None)
                if isinstance(error, BudgetExceeded):
                    break
    resolved.extend(None for _ in range(len(quiz.questions) - len(resolved)))
    return resolved


def resolve_quiz(quiz: Quiz) -> tuple[Question, ...]:
    """Every key of the quiz computed once, under one work budget for the file.

    Raises ContentError (path:line) for the first expression that fails.
    """
    problems: list[ContentError] = []
    resolved = _resolve_all(quiz, problems)
    if problems:
        raise problems[0]
    return tuple(question for question in resolved if question is not None)


_STUDENT_NAMES = re.compile(r"[a-z_]+")
_SCALAR_NAMES = frozenset({"sqrt", "exp", "log", "sin", "cos", "abs", "pi", "e"})
_WHOLE_NUMBER = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
MAX_EXPRESSION_CHARS = 80


def read_number(raw: str) -> float:
    """A student's numeric answer: a number (decimal comma, fraction, %) or a small
    expression such as 1/sqrt(2) or exp(0.707)/(exp(0.707)+1).

    Expressions go through maths.expression (the same safe evaluator as quiz keys),
    limited to scalar functions and float arithmetic, so an answer cannot build a large
    array or an enormous integer. Raises AnswerFormatError when it cannot be read.
    """
    try:
        return parse_number(raw)
    except AmbiguousNumber:
        raise  # its message says which two readings to choose from
    except AnswerFormatError as plain_failure:
        # one message for every unreadable answer, naming all the box takes
        unreadable = (
            plain_failure if str(plain_failure) == NOT_FINITE else AnswerFormatError(UNREADABLE)
        )
        text = raw.strip().replace("^", "**")
        if len(text) > MAX_EXPRESSION_CHARS or not text:
            raise unreadable from None
        if not set(_STUDENT_NAMES.findall(text)) <= _SCALAR_NAMES or "[" in text:
            raise unreadable from None
        if _DECIMAL_COMMA_INSIDE.search(text):
            text = _DECIMAL_COMMA_INSIDE.sub(".", text)
        floats = _WHOLE_NUMBER.sub(r"\1.0", text)  # 9**9**9 overflows as a float, fast
        try:
            with warnings.catch_warnings(), np.errstate(all="raise"):
                warnings.simplefilter("error")
                return evaluate_number(floats)
        except (ExpressionError, FloatingPointError, ArithmeticError, RuntimeWarning):
            raise AnswerFormatError(UNREADABLE) from None


UNREADABLE = "Type a number (0.25 or 0,25), a fraction like 2/3, or an expression like 1/sqrt(2)."


_DECIMAL_COMMA_INSIDE = re.compile(r"(?<=\d),(?=\d)")
