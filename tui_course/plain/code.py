"""A code question in plain mode: the code is typed or pasted at the prompt.

A student under ForceCommand (a screen reader, a braille display, no shell) cannot make a
file, so the code comes inline: lines read as they are (indentation kept, no word in them
obeyed) until a line holding only a full stop. The draft is the same file the app's editor
and `attn-tui check ID` use, written whole when the full stop comes, so a dropped line
mid-way loses nothing already kept. `read` says it back with line numbers, `line N`
types one line again, and `check` runs it through the same sandbox and judge as the app.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tui_course.content.code_model import MAX_CODE_BYTES, CodeSpec
from tui_course.content.grading import AnswerFormatError, Verdict
from tui_course.content.session import AttemptRecord, Phase, QuizSession
from tui_course.plain.console import Console
from tui_course.render import quiz as words
from tui_course.text.safe import clean
from tui_course.views.quiz import QuizRun

END_OF_CODE = "."
CODE_WORDS = (
    "code: type or paste your code, ending with a line holding only a full stop; "
    "read: hear your code with line numbers; line N: type line N again; check: check "
    "your code; check FILE: check a file instead; starter: the starter code again; "
    "h: hint, v: show the answer, s: skip."
)
_LINE_WORD = re.compile(r"line\s+(\d{1,6})$", re.IGNORECASE)


def numbered(code: str) -> list[str]:
    """The code said back a line at a time, each after its number (a blank line says so:
    a reader passes over an empty one)."""
    lines = code.rstrip("\n").split("\n") if code.strip() else []
    width = len(str(len(lines)))
    return [
        f"{n:>{width}}: {line}" if line.strip() else f"{n:>{width}}: (blank)"
        for n, line in enumerate(lines, start=1)
    ]


def too_long(code: str) -> bool:
    return len(code.encode("utf-8", "surrogatepass")) > MAX_CODE_BYTES


class PlainCode:
    """One code question's conversation. `session` gives the pass as it stands (each
    change makes a new one), `save` stores an attempt and then applies it
    (PlainQuiz.save); `answer_word` is the quiz's own h, v and s."""

    def __init__(
        self,
        console: Console,
        ask: Callable[[str], str],
        data_dir: Path,
        session: Callable[[], QuizSession],
        save: Callable[[AttemptRecord | None, Verdict | None], bool],
        answer_word: Callable[[str], str | None],
    ) -> None:
        self.console = console
        self.ask = ask  # a prompt's line, course words (n, q, l) handled first
        self.data_dir = data_dir
        self.session = session
        self.save = save
        self.answer_word = answer_word  # h, v or s: said, and which it was

    def run(self, spec: CodeSpec) -> None:
        """Until the question closes (right, out of tries, revealed) or is skipped."""
        from tui_course.progress.drafts import read_draft

        say = self.console.say
        session = self.session()
        key = (session.review_of.get(session.index, session.quiz.id), session.number)
        try:
            saved = read_draft(self.data_dir, *key)
        except OSError as error:
            saved = None
            say(f"Your saved draft could not be read ({error.strerror or error}).")
        draft = saved if saved is not None else spec.starter
        count = len(numbered(draft))
        if saved is not None:
            said = f"You have a saved draft of {count} lines."
        else:
            said = f"Your code starts as the starter code, {count} lines."
        say(f"Write the function {spec.entry}. {said} Type ? for what you can type.")
        say(CODE_WORDS)
        while self.session().phase is Phase.ASKING:
            line = self.ask("code, read, line N, check, h, v or s")
            lowered = line.lower()
            word, _, rest = line.partition(" ")
            if line in ("?", "help"):
                say(CODE_WORDS)
            elif lowered in ("code", "write"):
                typed = self.read_code()
                if typed is not None:
                    draft = self.keep(key, typed)
            elif lowered == "read":
                self.console.say_all(numbered(draft) or ["Your code is empty."])
            elif numbered_line := _LINE_WORD.match(line):
                draft = self.retype_line(key, draft, int(numbered_line[1]))
            elif lowered == "starter":
                self.console.say_all(["Starter code:", *numbered(spec.starter)])
                say("Type code to write yours (it replaces your draft).")
            elif lowered == "check":
                self.check(draft)
            elif word.lower() == "check" and rest.strip():
                self.check_file(rest.strip())
            elif (said_word := self.answer_word(lowered)) is not None:
                if said_word == "skip":
                    return  # the session is on its next question (or asks this one again)
            else:
                say("Type code to write your code, or ? for what you can type.")

    def read_code(self) -> str | None:
        """Lines as typed until one holding only a full stop; None when over the size a
        check takes (every line is still read to the stop, so none is taken as a word)."""
        say = self.console.say
        say("Type or paste your code. End it with a line holding only a full stop (.).")
        lines: list[str] = []
        size = 0
        while True:
            line = self.console.read_raw()
            if line.strip() == END_OF_CODE:
                break
            size += len(line.encode("utf-8", "surrogatepass")) + 1
            if size <= MAX_CODE_BYTES:
                lines.append(line)
        if size > MAX_CODE_BYTES:
            say(
                f"That code is over {MAX_CODE_BYTES // 1024} KB, the most a check takes; "
                "your draft is as it was."
            )
            return None
        return "\n".join(lines) + "\n" if lines else ""

    def retype_line(self, key: tuple[str, int], draft: str, number: int) -> str:
        """Line N typed again (N one past the last adds a line)."""
        lines = draft.rstrip("\n").split("\n") if draft.strip() else []
        if not 1 <= number <= len(lines) + 1:
            self.console.say(
                f"Your code has {len(lines)} lines; type line 1 to line {len(lines) + 1}."
            )
            return draft
        if number <= len(lines):
            self.console.say(f"Line {number} is now: {lines[number - 1]}")
        self.console.say(f"Type line {number} as it should be.")
        line = self.console.read_raw()
        if number <= len(lines):
            lines[number - 1] = line
        else:
            lines.append(line)
        code = "\n".join(lines) + "\n"
        if too_long(code):
            self.console.say(f"That would make the code over {MAX_CODE_BYTES // 1024} KB.")
            return draft
        return self.keep(key, code)

    def keep(self, key: tuple[str, int], code: str) -> str:
        """The code as the draft: written whole, then said in one line."""
        from tui_course.progress.drafts import write_draft

        count = len(numbered(code))
        try:
            write_draft(self.data_dir, *key, code)
        except (OSError, ValueError) as error:
            self.console.say(
                f"Your code ({count} lines) could not be saved as your draft "
                f"({getattr(error, 'strerror', None) or error}); check still "
                "takes it."
            )
            return code
        self.console.say(
            f"Kept as your draft: {count} lines. Type check to check it, read to hear it."
        )
        return code

    def check_file(self, name: str) -> None:
        from tui_course.codecheck.student_file import CodeFileError, read_code_file

        try:
            code = read_code_file(Path(name).expanduser())
        except CodeFileError as error:
            self.console.say(f"{clean(name)}: {error}.")
            return
        self.check(code)

    def check(self, code: str) -> None:
        """The same check, verdict and stored attempt as the app's editor."""
        from tui_course.codecheck.service import attempt_of, check
        from tui_course.render.code import verdict_lines

        if not code.strip():
            self.console.say("Your code is empty: type code to write it first.")
            return
        self.console.say("Checking...")
        session = self.session()
        verdict = check(session.question, code, data_dir=self.data_dir)
        self.console.say_all(verdict_lines(verdict, self.console.width))
        try:
            graded, record = session.answer_code(
                code, verdict.passed, None, attempt_of(code, verdict)
            )
        except AnswerFormatError as problem:
            self.console.say(str(problem))
            return
        if self.save(record, graded) and self.session().phase is Phase.ASKING:
            self.console.say(words.verdict(QuizRun.of(self.session()))[0], "bad")
