"""`attn-tui export --format gift|moodle-xml [QUIZ] [-o FILE]`: quizzes out to an LMS."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from tui_course.commands.common import PROG, add_common, content_dir, fail

if TYPE_CHECKING:
    from tui_course.content.models import Quiz


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "export", help="write quizzes as GIFT or Moodle XML for an LMS question bank"
    )
    parser.add_argument("quiz", nargs="?", metavar="QUIZ", help="quiz id (default: every quiz)")
    parser.add_argument(
        "--format",
        choices=("gift", "moodle-xml"),
        required=True,
        help="gift (plain text) or moodle-xml; both import into a Moodle question bank",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    add_common(parser, argparse.SUPPRESS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import sys

    from tui_course.classroom.lms_answers import ExportError
    from tui_course.commands.quiz_import import write_output
    from tui_course.content.course import load_course

    root = content_dir(args)
    course = load_course(root)
    for problem in course.problems:
        if problem.path.startswith("quizzes"):
            print(f"{PROG}: warning: {problem}", file=sys.stderr)
    quizzes = list(course.quizzes)
    if args.quiz is not None:
        quizzes = [quiz for quiz in quizzes if quiz.id == args.quiz]
        if not quizzes:
            known = ", ".join(quiz.id for quiz in course.quizzes) or "none found"
            return fail(f"error: no quiz with id '{args.quiz}' in {root} (quizzes: {known})", 2)
    quizzes, left_out = _exportable(quizzes, args.format)
    for line in left_out:  # each kind says why it has no place in this format
        print(f"{PROG}: note: {line}", file=sys.stderr)
    if not quizzes:
        return fail(f"error: no quiz with questions Moodle can take in {root}")
    from tui_course.classroom.lms_answers import moodle_differences

    for quiz in quizzes:
        for note in moodle_differences(quiz)[1]:
            print(f"{PROG}: note: {note}", file=sys.stderr)
    try:
        if args.format == "gift":
            from tui_course.classroom.gift.export import export_gift

            text = export_gift(quizzes)
        else:
            from tui_course.classroom.moodle_xml import export_moodle_xml

            text = export_moodle_xml(quizzes)
    except ExportError as error:
        return fail(f"error: {error}")
    return write_output(text, args.output)


def _exportable(quizzes: list[Quiz], fmt: str) -> tuple[list[Quiz], list[str]]:
    """The quizzes without the questions whose kind this format cannot hold, and one line
    per kind left out, naming the questions (quiz id and number) and the kind's reason."""
    import dataclasses

    from tui_course.content import kinds

    kept: list[Quiz] = []
    left_out: dict[str, list[str]] = {}
    for quiz in quizzes:
        questions = []
        for number, question in enumerate(quiz.questions, start=1):
            kind = kinds.of(question)
            reason = kind.no_gift if fmt == "gift" else kind.no_moodle
            if reason:
                why = f"{question.kind} questions are not exported: {reason}"
                left_out.setdefault(why, []).append(f"{quiz.id} q{number}")
            else:
                questions.append(question)
        if questions:
            kept.append(dataclasses.replace(quiz, questions=tuple(questions)))
    return kept, [f"{why} ({', '.join(names)})" for why, names in left_out.items()]
