"""What the quiz screen says, from a QuizRun: one function per part of the screen.

Prompts, hints, feedback and explanations are Markdown sources (content, never markup);
the rest is plain text (the summary a rich Text, for its bold score). An empty string
means the part takes no line at all.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.text import Text

from tui_course.content import kinds
from tui_course.content.grading import AnswerFormatError, format_number
from tui_course.content.kinds.base import Row
from tui_course.content.markdown import plain_text
from tui_course.content.models import Question
from tui_course.content.session import Outcome, PassKind, Phase

if TYPE_CHECKING:  # a view state is only read here: views import render, not back
    from tui_course.views.quiz import QuizRun

# Each miss listed costs a Markdown parse of its prompt: 2,000 listed in full (as
# Markdown, a widget per line) froze the app for 45 s.
MAX_LISTED_MISSES = 20

BOX_KEYS = "Esc then h hint, v answer, Right skip"
OPEN_KEYS = "h hint, v answer, Right skip"


def _without_hint(keys: str, hint_left: bool) -> str:
    """The key line offers h only while the question has a hint left."""
    return keys if hint_left else keys.replace("h hint, ", "")


RULES = (
    "A wrong answer gets a pointer or the next hint, then you try again. The answer "
    "and explanation show once you get it right, run out of tries, or press **v** "
    "(that counts as revealed). Your **first-try** score is the one that counts; "
    "going through again later never changes it."
)


# One option or row: marker ("> 2. (*) "), text (with "<- correct" once closed), picked.
OptionLine = Row


def title(run: QuizRun) -> str:
    session = run.session
    if run.phase is Phase.INTRO:
        # How to start, in the first line: on a small screen the keys below are cut off.
        return f"{session.quiz.title} | {len(session.order)} questions | Enter to start"
    if run.phase is Phase.FINISHED:
        return f"Finished | {session.quiz.title}"
    position = f"Question {session.position + 1} of {len(session.order)}"
    if session.kind is PassKind.RETRY:
        position += " (again: the first-try score stays)"
    elif session.kind is PassKind.REVIEW:
        quiz_id = session.review_of.get(session.index, session.quiz.id)
        position += f" (review, from {quiz_id})"
    return f"{position} | {session.quiz.title}"


def prompt(run: QuizRun) -> str:
    """Markdown: the intro or the question (none at the end: the summary is text)."""
    session = run.session
    if run.phase is Phase.INTRO:
        intro = session.quiz.intro or ""
        return f"{intro}\n\n{RULES}" if intro else RULES
    if run.phase is Phase.FINISHED:
        return ""
    return f"**{session.number}.** {run.question.prompt}"


def options(run: QuizRun) -> list[OptionLine]:
    if run.phase not in (Phase.ASKING, Phase.CLOSED):
        return []
    question = run.question
    arranging = run.arranging
    if arranging is not None:
        return list(arranging.rows(question, closed=run.phase is Phase.CLOSED))
    multi = kinds.of(question).picks_several
    closed = run.phase is Phase.CLOSED
    lines = []
    for number, text in enumerate(question.options, start=1):
        chosen = number in run.picked
        box = ("[x]" if chosen else "[ ]") if multi else ("(*)" if chosen else "( )")
        pointer = ">" if number == run.cursor and not closed else " "
        if closed:
            key = question.answer if multi else {question.answer}
            if number in key:
                text += "  <- correct"
            elif chosen:
                text += "  <- your answer"
        lines.append(OptionLine(f"{pointer} {number}. {box} ", text, chosen))
    return lines


def read_as(run: QuizRun) -> str:
    """How a numeric answer is read, so 0,67 or 1/sqrt(2) is never a mystery."""
    if run.phase not in (Phase.ASKING, Phase.CLOSED) or not kinds.of(run.question).reads_numbers:
        return ""
    raw = run.session.state.last_answer if run.phase is Phase.CLOSED else run.typed
    if not raw.strip():
        return ""
    try:
        value = run.session.read_number(raw)
    except AnswerFormatError:
        return "read as: not a number yet"
    return f"read as {reading(value, run.question)}"


def hints(run: QuizRun) -> str:
    """Markdown: the hints seen so far."""
    if run.phase not in (Phase.ASKING, Phase.CLOSED):
        return ""
    total = len(run.question.hints)
    return "\n\n".join(
        f"*Hint {i} of {total}:* {h}" for i, h in enumerate(run.session.hints(), start=1)
    )


def verdict(run: QuizRun) -> tuple[str, str]:
    """The verdict line and its tone ("", "correct" or "incorrect")."""
    state = run.session.state
    if run.phase is Phase.ASKING:
        if run.problem:
            return run.problem, ""
        if state.tries_used and kinds.of(run.question).checked:  # code is fixed, not guessed
            checks = f"{state.tries_used} check{'s' if state.tries_used > 1 else ''}"
            return f"Not yet ({checks}): fix it and check again.", "incorrect"
        if state.tries_used:
            left = run.session.tries_left
            return f"Not yet. {left} {'try' if left == 1 else 'tries'} left.", "incorrect"
        return "", ""
    if run.phase is Phase.CLOSED:
        return closed_text(run), "correct" if state.outcome is Outcome.RIGHT else "incorrect"
    return "", ""


def closed_text(run: QuizRun) -> str:
    session = run.session
    state = session.state
    question = session.question
    if state.outcome is Outcome.RIGHT:
        lines = ["Correct." + (" First try." if state.tries_used == 1 else "")]
        if state.tries_used == 1 and session.kind is not PassKind.FIRST:
            lines = ["Correct. First try this time."]  # the first-try score is not this one
    elif state.outcome is Outcome.REVEALED:
        lines = ["Answer shown (recorded as revealed)."]
    elif state.outcome is Outcome.SKIPPED:
        lines = ["Skipped."]
    else:
        lines = ["Not quite, and that was the last try."]
    kind = kinds.of(question)
    if state.outcome is not Outcome.RIGHT:
        if state.last_answer and kind.typed:
            lines.append(f"You answered {state.last_answer}.")
        given = state.verdict
        if given is not None and given.feedback and state.outcome is Outcome.WRONG:
            lines.append(given.feedback)
    lines.extend(kind.key_lines(question))
    return "\n".join(lines)


def teach(run: QuizRun) -> str:
    """Markdown: what the last wrong answer taught, or the explanation once closed."""
    if run.phase is Phase.CLOSED:
        return f"**Why:** {run.question.explanation}"
    if run.phase is not Phase.ASKING:
        return ""
    message = run.session.state.message
    # a hint that taught the last wrong answer already shows in the hint list
    return message if message and message not in run.session.hints() else ""


def keys(run: QuizRun) -> list[str]:
    """The keys that work now."""
    session = run.session
    if run.phase is Phase.INTRO:
        return ["Enter: start", "Esc: outline"]
    if run.phase is Phase.CLOSED:
        if kinds.of(run.question).checked:  # the editor keeps Enter and Right for the code
            return ["Esc, then Enter or Right: next question"]
        return ["Enter or Right: next question"]
    if run.phase is Phase.ASKING:
        if kinds.of(run.question).checked:  # a failed check never closes it: no tries to count
            return [kinds.of(run.question).screen_keys, BOX_KEYS]
        return [
            kinds.of(run.question).screen_keys,
            f"{session.tries_left} of {session.tries_allowed} tries left",
            _without_hint(BOX_KEYS if run.asks_typed else OPEN_KEYS, session.hint_left),
        ]
    shown = []
    if session.kind is not PassKind.REVIEW:
        if session.missed:
            shown.append(f"r: the {len(session.missed)} missed again")
        shown.append("a: all again")
        shown.append("n: next in the course")
    shown.append("Esc: outline")
    return shown


def summary(run: QuizRun) -> Text:
    """The end of a pass: its scores, then the first misses. The app's own words, drawn
    as text (a returning student's first screen needs no Markdown parser); a missed
    prompt is quoted by its first words, read from its Markdown as plain text."""
    session = run.session
    total = len(session.order)
    text = Text()
    sentences: list[str] = []
    if session.kind is PassKind.FIRST:
        text.append(f"First-try score: {session.first_try_count} of {total}.", style="bold")
        sentences.append(
            f"Right in the end, without showing the answer: {session.right_count} of {total}."
        )
        if run.mastered is not None and run.mastered > session.right_count:
            sentences.append(
                f"Since then (going again or in review): {run.mastered} of {total} "
                "right without showing the answer."
            )
    else:
        text.append(f"This time: {session.right_count} of {total} right.")
        if session.kind is PassKind.REVIEW:
            sentences.append(
                "Each question comes back later: sooner if you missed it, "
                "later and later as you get it right."
            )
        if session.kind is PassKind.RETRY and run.first_try_score is not None:
            count = len(session.questions)
            sentences.append(f"Your first-try score stays {run.first_try_score} of {count}.")
    for sentence in sentences:
        text.append(f" {sentence}")
    if session.missed and session.kind is not PassKind.REVIEW:
        text.append("\n\nNot right on the first try:\n")
        for index in session.missed[:MAX_LISTED_MISSES]:
            prompt = plain_text(session.questions[index].prompt)
            text.append(f"\n- {index + 1}. {first_words(prompt)}")
        if len(session.missed) > MAX_LISTED_MISSES:
            text.append(f"\n- ... and {len(session.missed) - MAX_LISTED_MISSES} more")
    return text


def first_words(text: str, width: int = 60) -> str:
    """A prompt cut to about a line at a word boundary: "k1 = [1, 0] ...", not "... a..."."""
    short = textwrap.shorten(text, width, placeholder=" ...")
    return short if short != "..." else " ".join(text.split())[: width - 3] + "..."


def reading(value: float, question: Question) -> str:
    """A number as the student should recognise it: the key's precision, no float noise."""
    spec = question.numeric_spec
    return format_number(value, spec) if spec.tolerance > 0 else f"{value:.6g}"
