"""Answer keys computed by the app's own maths, and proofs that every key holds.

Loading a quiz stays NumPy-free; a numeric key written as `answer_from` is
computed here, when the quiz is opened or validated.
"""

from __future__ import annotations

import dataclasses

from tui_course.content.errors import ContentError
from tui_course.content.grading import numbers_close
from tui_course.content.models import Kind, Question, Quiz
from tui_course.maths.expression import ExpressionError, evaluate_number


def resolve(question: Question) -> Question:
    """The question with numeric keys (its own and its mistakes') computed from answer_from.

    Raises ExpressionError when an expression cannot be evaluated.
    """
    if question.kind is not Kind.NUMERIC:
        return question
    answer = question.answer
    if question.answer_from is not None:
        answer = evaluate_number(question.answer_from)
    mistakes = tuple(
        dataclasses.replace(m, answer=evaluate_number(m.answer_from))
        if m.answer_from is not None
        else m
        for m in question.mistakes
    )
    return dataclasses.replace(question, answer=answer, mistakes=mistakes)


def prove_quiz(quiz: Quiz) -> list[ContentError]:
    """Problems with numeric keys: expressions that fail, typed keys that disagree with
    their expression, and mistakes that would grade as correct."""
    problems: list[ContentError] = []
    for number, question in enumerate(quiz.questions, start=1):
        if question.kind is not Kind.NUMERIC:
            continue
        where = f"question {number}"
        try:
            resolved = resolve(question)
        except ExpressionError as error:
            problems.append(
                ContentError(quiz.path, question.line, f"{where}: answer_from: {error}")
            )
            continue
        if question.answer is not None and question.answer_from is not None:
            computed = float(resolved.answer)
            if not numbers_close(float(question.answer), computed, question):
                problems.append(
                    ContentError(
                        quiz.path,
                        question.line,
                        f"{where}: answer = {question.answer} but answer_from gives {computed:.6g}",
                    )
                )
        for index, mistake in enumerate(resolved.mistakes, start=1):
            if mistake.answer is not None and numbers_close(
                float(mistake.answer), float(resolved.answer), question
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
