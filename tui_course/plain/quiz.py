"""A quiz pass as a conversation: one question, one typed line at a time.

The session (content/session.py) holds every rule and the recorder stores every
attempt before the verdict is said, exactly as the quiz screen does; this module
only turns typed lines into the session's changes (each a new session, kept in
`PlainQuiz.session`) and says its state in lines, worded by render/quiz.py (the quiz
screen's own words, from a views.quiz.QuizRun).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tui_course.content import kinds
from tui_course.content.grading import AnswerFormatError, Verdict
from tui_course.content.session import AttemptRecord, Outcome, PassKind, Phase, QuizSession
from tui_course.plain.console import Console
from tui_course.plain.markdown import markdown_lines
from tui_course.progress.recorder import QuizRecorder
from tui_course.render import quiz as words
from tui_course.text.safe import clean
from tui_course.views.quiz import QuizRun

ANSWER_WORDS = {
    "h": "hint",
    "hint": "hint",
    "v": "reveal",
    "show": "reveal",
    "s": "skip",
    "skip": "skip",
}
QUIZ_HELP = (
    "In a question: type your answer and press Enter. h: the next hint, v: show the "
    "answer (recorded as revealed), s: skip the question. To answer with one of these "
    "letters, type = before it (=v). n: next item, q: quit, l: list of items."
)


class PlainQuiz:
    """Drives one pass at a time; `on_finished` is told when a pass ends (the class
    drop-box). `session` is the pass as it stands: each change replaces it."""

    def __init__(
        self,
        console: Console,
        recorder: QuizRecorder,
        course_words: Callable[[str], None],
        on_finished: Callable[[QuizSession], None],
        data_dir: Path,
    ) -> None:
        self.console = console
        self.data_dir = data_dir  # where code drafts are kept (the app's editor's too)
        self.recorder = recorder
        self.course_words = course_words  # raises Command for n, q, l... typed anywhere
        self.on_finished = on_finished
        self.session: QuizSession | None = None

    @property
    def current(self) -> QuizSession:
        """The pass being played (run() sets it first)."""
        assert self.session is not None, "run() starts a pass"
        return self.session

    def run(self, session: QuizSession) -> None:
        """Until the student leaves the pass's summary (Enter goes on in the course)."""
        say = self.console.say
        self.session = session
        if session.phase is Phase.INTRO:
            say(f"Quiz: {session.quiz.title}, {len(session.order)} questions.", "heading")
            self.say_markdown(words.prompt(QuizRun.of(session)))
            while True:
                line = self.ask("Enter: start the quiz, n: next item, q: quit")
                if line == "":
                    break
            self.session = session.begin()
        while True:
            while self.current.phase is not Phase.FINISHED:
                self.question()
            again = self.summary(self.current)
            if again is None:
                return
            self.session = again

    def ask(self, prompt: str) -> str:
        """A line, with course-wide words (n, q, l, ?) handled first."""
        line = self.console.ask(prompt).strip()
        if line in ("?", "help"):
            self.console.say(QUIZ_HELP)
        self.course_words(line)
        return line

    def say_markdown(self, text: str) -> None:
        self.console.say_all(markdown_lines(text))

    def question(self) -> None:
        say = self.console.say
        session = self.current
        question = session.question
        say()
        say(_sentence(words.title(QuizRun.of(session)).replace(" | ", ". ")), "heading")
        self.say_markdown(words.prompt(QuizRun.of(session)))
        for number, option in enumerate(question.options, start=1):
            say(f"  {number}. {option}")
        kind = kinds.of(question)
        if kind.plain_prompt is None:  # a code question: typed here or from a file
            self.code_question()
            return
        say(f"{kind.plain_prompt}. h: hint, v: show the answer, s: skip.")
        while self.current.phase is Phase.ASKING:
            session = self.current
            left = session.tries_left
            line = self.ask(f"Answer, {left} {'try' if left == 1 else 'tries'} left")
            if line in ("?", "help"):
                continue  # said by ask()
            word = ANSWER_WORDS.get(line.lower())
            if word == "hint":
                self.hint(
                    "No more hints for this question."
                    if question.hints
                    else "This question has no hints."
                )
                continue
            if word == "reveal":
                self.save(session.reveal())
                continue
            if word == "skip":
                if self.save(session.skip()):
                    say("Skipped.")
                    self._advance()
                return
            if line.startswith("="):
                line = line[1:]
            if not line:
                say("Type an answer first (or h, v, s; ? for help).")
                continue
            try:
                raw = kind.plain_answer(line, question)
            except AnswerFormatError as problem:
                say(str(problem))
                continue
            reading = words.read_as(QuizRun.of(session).type(raw))
            if reading:
                say(reading.capitalize() + ".")
            try:
                verdict, record = session.answer(raw)
            except AnswerFormatError as problem:
                say(str(problem))
                continue
            before = session.state.hints_seen
            if self.save(record, verdict) and self.current.phase is Phase.ASKING:
                after = self.current
                say(words.verdict(QuizRun.of(after))[0], "bad")
                message = after.state.message
                if message:
                    if after.state.hints_seen > before:  # the lesson was the next hint
                        total = len(question.hints)
                        message = f"Hint {after.state.hints_seen} of {total}: {message}"
                    self.say_markdown(message)
        if self.current.phase is Phase.CLOSED:
            self.closed()

    def hint(self, none_left: str) -> None:
        """The next hint said, or `none_left` when there is none."""
        session = self.current
        if not session.hint_left:
            self.console.say(none_left)
            return
        self.session = session = session.with_hint()
        seen = session.state.hints_seen
        total = len(session.question.hints)
        self.say_markdown(f"Hint {seen} of {total}: {session.hints()[-1]}")

    def code_question(self) -> None:
        """A question answered by a program, typed here or read from a file (plain/code.py);
        once closed, the model solution as the app's editor shows it."""
        from tui_course.plain.code import PlainCode

        spec = getattr(self.current.question, "code", None)
        if spec is None:
            self.console.say("This question cannot be answered in plain mode.")
            self.ask("Enter: next question")
            self._advance()
            return
        PlainCode(
            self.console, self.ask, self.data_dir, lambda: self.current, self.save, self.answer_word
        ).run(spec)
        if self.current.phase is Phase.CLOSED:
            self.console.say_all(["A model solution:", *clean(spec.solution.rstrip()).split("\n")])
            self.closed()

    def answer_word(self, line: str) -> str | None:
        """h, v or s typed at a code question: the hint, the answer, a skip (then the next
        question is the session's). Which of the three it was; None for any other line."""
        word = ANSWER_WORDS.get(line.lower())
        if word == "hint":
            self.hint("No more hints for this question.")
        elif word == "reveal":
            self.save(self.current.reveal())
        elif word == "skip" and self.save(self.current.skip()):
            self.console.say("Skipped.")
            self._advance()
        return word

    def save(self, record: AttemptRecord | None, verdict: Verdict | None = None) -> bool:
        """Stored first, then applied: nothing is said that is not on disk."""
        if record is None:
            return False
        try:
            self.recorder.save(self.current, record)
        except Exception as error:  # the store failed: say so, change nothing
            self.console.say(f"Your answer could not be saved ({error}). Try again.")
            return False
        self.session = self.current.apply(record, verdict)
        return True

    def closed(self) -> None:
        session = self.current
        state = session.state
        said, *rest = words.closed_text(QuizRun.of(session)).split("\n")
        self.console.say(said, "good" if state.outcome is Outcome.RIGHT else "bad")
        self.console.say_all(rest)
        question = session.question
        self.console.say_all(kinds.of(question).plain_key_lines(question))
        self.say_markdown(words.teach(QuizRun.of(session)))
        while self.ask("Enter: next question, q: quit") != "":
            self.console.say("Press Enter to go on.")
        self._advance()

    def _advance(self) -> None:
        self.session = session = self.current.advance()
        if session.phase is Phase.FINISHED:
            try:
                self.recorder.finish(session)
            except Exception as error:  # every answer is saved; only the end mark is not
                self.console.say(f"The end of this pass could not be saved ({error}).")
            self.on_finished(session)

    def summary(self, session: QuizSession) -> QuizSession | None:
        """The pass's summary; a retry pass when the student asks for one."""
        say = self.console.say
        say()
        say(_sentence(f"Finished: {session.quiz.title}"), "heading")
        mastered = first_try = None
        try:
            count = len(session.questions)
            if session.kind is PassKind.FIRST:
                mastered = self.recorder.mastered_count(session.quiz.id, count)
            elif session.kind is PassKind.RETRY:
                first_try = self.recorder.first_try_score(session.quiz.id, count)
        except Exception:  # a busy store: the pass's own summary still stands
            pass
        summary = words.summary(QuizRun.of(session).finished(mastered, first_try))
        self.console.say_all(summary.plain.split("\n"))
        if session.kind is PassKind.REVIEW:
            self.ask("Enter: go on")
            return None
        choices = ["Enter: next item"]
        if session.missed:
            choices.append(f"r: the {len(session.missed)} missed again")
        choices.append("a: all again")
        while True:
            line = self.ask(", ".join(choices)).lower()
            if line == "":
                return None
            if line == "r" and session.missed:
                return session.retry()
            if line == "a":
                return session.retry(range(len(session.questions)))
            say("Type r or a, or press Enter.")


def _sentence(text: str) -> str:
    """Text ending in one stop: 'why positions?' stays, 'Small check' gets its '.'."""
    return text if text.endswith((".", "?", "!", ":")) else text + "."
