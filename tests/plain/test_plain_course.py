"""The whole course through plain mode, driven the way a script or a screen reader's
terminal drives it: one line typed after each prompt, read line by line.

A driver stands in for the person: it reads what plain mode printed so far and types
the next line, so the tests follow prompts rather than counting Enters.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.conftest import FIXTURES
from tui_course.content.course import load_course
from tui_course.content.models import REVIEW_ID
from tui_course.plain.console import Console
from tui_course.plain.course import PlainCourse
from tui_course.progress.store import ProgressStore
from tui_course.training.runner import TrainingRun

COURSE = FIXTURES / "plain_course"
FAKE = FIXTURES / "fake_child.py"
WIDTH = 60
ESCAPE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

Policy = Callable[[str, str], str]  # (the prompt line, the transcript so far) -> typed line


class Driver(io.TextIOBase):
    """stdin for plain mode: each readline() asks the policy what to type next."""

    def __init__(self, sink: io.StringIO, policy: Policy, limit: int = 2000) -> None:
        self.console: Console | None = None
        self.sink = sink
        self.policy = policy
        self.typed: list[str] = []
        self.limit = limit

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        del size
        text = self.sink.getvalue()
        assert self.console is not None
        prompt = self.console.last_prompt
        if len(self.typed) >= self.limit:
            return ""  # end of input: plain mode must end cleanly
        line = self.policy(prompt, text)
        self.typed.append(line)
        return line + "\n"


def check_lines(text: str, width: int = WIDTH) -> None:
    """No escape or control character anywhere; no line wider than the width."""
    for line in text.split("\n"):
        assert not ESCAPE.search(line), repr(line)
        assert cell_len(line) <= width, repr(line)


class Taker:
    """Answers every question wrong first, then right (keys of the fixture quiz), goes
    through every page, lab and summary, retries once, then reviews and quits."""

    RIGHT = {
        "What do a query's": "2",
        "Which are ways": "1, 2",
        "What is 1/sqrt(4)": "1/2",
        "Which word does": "Animal",
    }
    WRONG = {
        "What do a query's": "3",
        "Which are ways": "1 3",
        "What is 1/sqrt(4)": "2",
        "Which word does": "the cat",
    }

    def __init__(self) -> None:
        self.clock = [datetime.now(UTC)]
        self.wrong_given: set[str] = set()
        self.retried = False
        self.reviewed = False
        self.lab_inputs = {
            "attention": ["the cat sat down --query cat --embeddings toy-cat-sat", ""],
            "pe": ["positions 3 dim 2 similarity", ""],
            "train": ["--epochs 3", ""],
        }

    def __call__(self, prompt: str, text: str) -> str:
        if prompt.startswith("Enter: more"):
            return ""
        if prompt.startswith("Answer,"):
            asked = text.rsplit("Question ", 1)[-1]
            for start, right in self.RIGHT.items():
                if start in asked:
                    if start not in self.wrong_given and "(again" not in asked:
                        self.wrong_given.add(start)
                        return self.WRONG[start]
                    return right
            return "s"
        if prompt.startswith(("Enter: next question", "Enter: start the quiz", "Enter: go on")):
            return ""
        if prompt.startswith("Enter: next item, r:"):
            if not self.retried:
                self.retried = True
                return "r"
            return ""
        if prompt.startswith("A sentence or flags"):
            here = text.rsplit(" of 7. ", 1)[-1]
            return self.lab_inputs["attention"].pop(0) if here.startswith("Lab: Attention") else ""
        if prompt.startswith("Flags such as"):
            return self.lab_inputs["pe"].pop(0)
        if prompt.startswith("t or options"):
            return self.lab_inputs["train"].pop(0)
        if "End of the course" in prompt:
            if not self.reviewed:
                self.reviewed = True
                self.clock[0] += timedelta(days=1)  # the missed questions are due again
                return "review"
            return "q"
        if prompt.startswith("Enter: "):
            return ""
        raise AssertionError(f"unexpected prompt {prompt!r}")


def take(
    data: Path,
    policy: Policy,
    content: Path = COURSE,
    now: Callable[[], datetime] | None = None,
    open_id: str | None = None,
    shuffle: bool = False,
    limit: int = 2000,
) -> tuple[int, str, Driver]:
    """Plain mode over `content`, typed by `policy`; input ends after `limit` lines."""
    course = load_course(content)
    sink = io.StringIO()
    driver = Driver(sink, policy, limit)
    console = Console(driver, sink, width=WIDTH, height=20, echo=True)  # type: ignore[arg-type]
    driver.console = console
    with ProgressStore(data) as store:
        plain = PlainCourse(
            course, store, console, data, **({"now": now} if now else {}), shuffle_options=shuffle
        )

        def fake_run(options: object) -> TrainingRun:
            log = data / "fake.log"
            return TrainingRun([sys.executable, str(FAKE), "ok", "--log", str(log)], log)

        plain.training_runs = fake_run
        plain.training_extra_installed = lambda: True
        code = plain.run(open_id)
    return code, sink.getvalue(), driver


def test_the_whole_fixture_course_in_plain_mode(tmp_path: Path) -> None:
    taker = Taker()
    code, text, driver = take(tmp_path, taker, now=lambda: taker.clock[0])
    assert code == 0
    check_lines(text)
    # lessons read, in reading order, figures with their numbers in words
    assert text.index("Lesson 1: Words that attend") < text.index("Lesson 2: Where words are")
    assert "sat attends most to sat, 30\u00a0%, then down, 29\u00a0%" in text
    assert "word: the; vector: [1.0, 0.0, 0.2]." in text  # a table read row by row
    assert "link (https://example.org/attention)" in text
    assert "position 0 is most like 1 (0.77)" in text
    assert "End of lesson 2." in text
    # the quiz: wrong first (with targeted feedback), right next, summary, a retry
    assert "That is sqrt(4) itself; now take one over it." in text
    assert "Not yet. 1 try left." in text
    assert "Read as 0.500." in text
    assert "The answer: option 2, 1." in text  # a choice's key, said with its words
    said = "The answers: option 1, Sinusoidal vectors; option 2, Learned position embeddings."
    assert said in " ".join(text.split())
    assert "First-try score: 0 of 4." in text
    assert "Your first-try score stays 0 of 4." in text
    # labs: the attention lab's ranked weights, the PE lab, a training run, one line per epoch
    assert "cat attends most to the, 31\u00a0%, then cat, 29\u00a0%" in text
    assert "position 2 is most like 1" in text
    epochs = [line for line in text.split("\n") if line.startswith("epoch ")]
    assert len(epochs) == 3 and "val_acc 0.9300" in text
    assert "test accuracy 0.930" in text
    # the review pass and the end
    assert "Review: 4 questions due." in text
    assert text.rstrip().endswith("Bye. Your progress is saved.")
    with ProgressStore(tmp_path) as store:
        assert store.lessons_done() == {"attend", "positions"}
        stats = store.quiz_stats("small", 4)
        assert stats.state == "finished" and stats.first_try == 0
        assert stats.mastered == frozenset({1, 2, 3, 4})
        review_rows = [r for r in store.quiz_rows("small") if r.pass_kind == "review"]
        assert len(review_rows) == 4 and all(r.verdict == "right" for r in review_rows)
    assert driver.typed[-1] == "q"


def test_attempts_match_the_same_answers_in_the_tui(tmp_path: Path) -> None:
    """The rows plain mode stores score as the quiz screen's rows for the same answers."""
    import asyncio

    from tests.ui.conftest import running
    from tui_course.answers import resolve_quiz
    from tui_course.content.session import QuizSession
    from tui_course.progress.outline import SHUFFLE_KEY
    from tui_course.progress.scores import mastered_questions
    from tui_course.ui.app import Settings, make_app

    plain_data, tui_data = tmp_path / "plain", tmp_path / "tui"
    for data in (plain_data, tui_data):  # one student's option order, in both front ends
        with ProgressStore(data) as store:
            store.set_setting(SHUFFLE_KEY, "one-student")
    quiz = load_course(COURSE).find("small")
    shown_order = QuizSession.start(quiz, resolve_quiz(quiz), student_key="one-student")  # type: ignore[arg-type]

    def shown(index: int, *file_numbers: int) -> list[str]:
        """The numbers the student sees for options given in the file's numbering."""
        order = shown_order.option_order(index)
        return sorted(str(order.index(n) + 1) for n in file_numbers)

    wrong_multi, right_multi = shown(1, 1, 3), shown(1, 1, 2)
    answers = [
        [shown(0, 3)[0], shown(0, 2)[0]],
        [" ".join(wrong_multi), ", ".join(right_multi)],
        ["2", "1/2"],
        ["the cat", "animal"],
    ]
    queue = [a for pair in answers for a in pair]

    def policy(prompt: str, text: str) -> str:
        if prompt.startswith("Answer,"):
            return queue.pop(0)
        if prompt.startswith("Enter: next item, r:"):
            return "q"
        return ""

    code, text, _ = take(plain_data, policy, open_id="small", shuffle=True)
    assert code == 0 and not queue
    check_lines(text)

    first, second = answers[0]
    keys = [[first, "enter", second, "enter"], [*wrong_multi, "enter"]]
    keys[1] += [*(n for n in wrong_multi if n not in right_multi)]  # unpick the wrong one
    keys[1] += [*(n for n in right_multi if n not in wrong_multi), "enter"]
    typed = [["2", "enter", "ctrl+a", "ctrl+k", *"1/2", "enter"]]
    typed += [[*"the cat", "enter", "ctrl+a", "ctrl+k", *"animal", "enter"]]

    async def in_the_tui() -> None:
        app = make_app(Settings(COURSE, tui_data, "small"))
        async with running(app) as pilot:
            await pilot.press("enter")
            for presses in [*keys, *typed]:
                await pilot.press(*presses)
                await pilot.pause()
                await pilot.press("enter")  # on from the closed question
                await pilot.pause()

    asyncio.run(in_the_tui())

    def rows(data: Path) -> tuple[list[tuple[int, str, str, int, int, bool]], tuple[object, ...]]:
        with ProgressStore(data) as store:
            found = [
                (r.question_index, r.answer, r.verdict, r.try_number, r.hints_seen, r.final)
                for r in store.quiz_rows("small")
            ]
            stats = store.quiz_stats("small", 4)
            score = (stats.state, stats.first_try, stats.mastered, stats.best, stats.tries)
            assert mastered_questions(store.quiz_rows("small"), 4) == stats.mastered
            return found, score

    plain_rows, plain_score = rows(plain_data)
    tui_rows, tui_score = rows(tui_data)
    assert plain_rows == tui_rows
    assert plain_score == tui_score == ("finished", 0, frozenset({1, 2, 3, 4}), 4, 8)


def test_hints_reveal_and_skip_are_stored_as_in_the_tui(tmp_path: Path) -> None:
    script = ["", "?", "h", "v", "", "s", "h", "h", "h", "=v", "v", "", "q"]

    def policy(prompt: str, text: str) -> str:
        return script.pop(0) if script else "q"

    code, text, _ = take(tmp_path, policy, open_id="small")
    check_lines(text)
    assert "To answer with one of these letters, type = before it (=v)." in " ".join(text.split())
    assert "Hint 1 of 1: They come out of a softmax." in text
    assert "Answer shown (recorded as revealed)." in text
    assert "Skipped." in text
    assert "Hint 2 of 2: So it is 1/2." in text and "No more hints for this question." in text
    assert "Read as: not a number yet." in text  # "=v" answers the letter v
    with ProgressStore(tmp_path) as store:
        rows = store.quiz_rows("small")
        assert [(r.question_index, r.verdict, r.hints_seen, r.revealed) for r in rows] == [
            (1, "revealed", 1, True),
            (2, "skipped", 0, False),
            (3, "revealed", 2, True),
        ]
    assert code == 0


def test_end_of_input_mid_quiz_keeps_every_answer_and_resumes(tmp_path: Path) -> None:
    first = ["", "1"]  # start, a wrong answer: then the input ends

    code, _, _ = take(tmp_path, lambda p, t: first.pop(0) if first else "", open_id="small")
    assert code == 0
    seen: list[str] = []

    def resume(prompt: str, text: str) -> str:
        seen.append(prompt)
        return "q"

    code, text, _ = take(tmp_path, resume)
    assert "Welcome back: you were at Quiz: Small check." in text
    assert "1 try left" in seen[0]  # the stored wrong answer still counts
    with ProgressStore(tmp_path) as store:
        assert store.quiz_stats("small", 4).state == "in progress"


def test_list_go_and_previous(tmp_path: Path) -> None:
    script = ["l", "go 4", "p", "go positions", "q"]

    code, text, _ = take(tmp_path, lambda p, t: script.pop(0) if script else "q", open_id="attend")
    check_lines(text)
    assert "1. Lesson 1: Words that attend, not read yet (you are here)" in text
    assert "2. Quiz: Small check, not started" in text
    assert "4 of 7. Lab: Attention lab" in text
    assert "3 of 7. Lesson 2: Where words are" in text
    assert code == 0


def test_ascii_locale_gives_ascii_only(tmp_path: Path) -> None:
    course = load_course(COURSE)
    sink = io.StringIO()
    script = [""] * 30 + ["q"]
    driver = Driver(sink, lambda p, t: script.pop(0) if script else "q")
    console = Console(driver, sink, width=WIDTH, height=20, ascii_only=True, echo=True)  # type: ignore[arg-type]
    driver.console = console
    with ProgressStore(tmp_path) as store:
        PlainCourse(course, store, console, tmp_path).run("positions")
    text = sink.getvalue()
    assert text.isascii()
    assert "own - and nearby" in text  # the em dash, spelt out
    check_lines(text)


@pytest.mark.parametrize("colour", [False, True])
def test_colour_only_when_asked(tmp_path: Path, colour: bool) -> None:
    course = load_course(COURSE)
    sink = io.StringIO()
    script = ["", "2", "", "q"]
    driver = Driver(sink, lambda p, t: script.pop(0) if script else "q")
    console = Console(driver, sink, width=WIDTH, colour=colour, echo=True)  # type: ignore[arg-type]
    driver.console = console
    with ProgressStore(tmp_path) as store:
        PlainCourse(course, store, console, tmp_path, shuffle_options=False).run("small")
    assert ("\x1b[32mCorrect. First try.\x1b[0m" in sink.getvalue()) is colour
    assert ("\x1b" in sink.getvalue()) is colour


def test_nothing_due_and_review_open(tmp_path: Path) -> None:
    code, text, _ = take(tmp_path, lambda p, t: "q", open_id=REVIEW_ID)
    assert "Nothing is due for review right now." in text
    assert code == 0


def test_grids_off_says_figures_in_words_only_and_is_remembered(tmp_path: Path) -> None:
    script = ["grids", "q"]
    take(tmp_path, lambda p, t: script.pop(0) if script else "q", open_id="positions")
    _, text, _ = take(tmp_path, lambda p, t: "" if "Enter: more" in p else "q", open_id="attend")
    check_lines(text)
    assert "@@ 32" not in text and "Weights of 'sat'" not in text  # no grid, no bars
    assert "sat attends most to sat, 30\u00a0%" in text
    assert "To change it, type go attention-lab at the next prompt." in text
    _, text, _ = take(tmp_path, lambda p, t: "" if "Enter: more" in p else "q", open_id="positions")
    said = "position 1: sin 0 is 0.841, cos 1 is 0.540, sin 2 is 0.010, cos 3 is 1.000."
    assert said in " ".join(text.split())
    assert "Cosine similarity of positions" not in text
