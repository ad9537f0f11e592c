"""The quiz view's state and words, without Textual: each change a new run, the old one kept."""

from __future__ import annotations

from tui_course.content.models import Kind, Mistake, NumericSpec, Question, Quiz
from tui_course.content.session import AttemptRecord, Outcome, Phase, QuizSession
from tui_course.render import quiz as render
from tui_course.views.quiz import QuizRun


def q(kind: Kind, **fields: object) -> Question:
    return Question(kind=kind, prompt="p", explanation="e", line=1, **fields)  # type: ignore[arg-type]


CHOICE = q(Kind.CHOICE, options=("a", "b", "c", "d"), answer=2, mistakes=(Mistake(3, "c!"),))
MULTI = q(Kind.MULTI, options=("a", "b", "c"), answer=(1, 3))
NUMERIC = q(Kind.NUMERIC, answer=0.5, numeric=NumericSpec(tolerance=0.005), hints=("h1",), tries=2)
QUIZ = Quiz("x", "X", "x.toml", (CHOICE, MULTI, NUMERIC), intro="Hello")


def started() -> QuizRun:
    return QuizRun.of(QuizSession.start(QUIZ, QUIZ.questions, clock=lambda: 0.0)).begin()


def submit(run: QuizRun) -> QuizRun:
    """Grade and apply, as the widget does once the store has kept the record."""
    graded = run.graded()
    assert not isinstance(graded, str), graded
    verdict, record = graded
    return run.saved(record, verdict)


def test_a_change_is_a_new_run_and_the_old_one_stays_as_it_was() -> None:
    intro = QuizRun.of(QuizSession.start(QUIZ, QUIZ.questions))
    run = intro.begin()
    assert (intro.phase, run.phase) == (Phase.INTRO, Phase.ASKING)
    picked = run.pick(3)
    wrong = submit(picked)
    assert wrong.session.state.tries_used == 1 and picked.session.state.tries_used == 0
    assert picked.session.state.message is None and wrong.session.state.message == "c!"
    assert run.pick(9) is run and intro.pick(1) is intro  # no such option, or not asking: as is


def test_cursor_and_picks_single_and_multiple_choice() -> None:
    run = started()
    moved = run.move_cursor(-1)
    assert (moved.cursor, moved.picked) == (4, frozenset({4}))  # single choice: the cursor picks
    multi = submit(run.pick(2)).advanced()
    assert (multi.phase, multi.question.kind, multi.picked) == (
        Phase.ASKING,
        Kind.MULTI,
        frozenset(),
    )
    toggled = multi.pick(1).pick(3).pick(1)
    assert toggled.picked == frozenset({3})
    assert toggled.move_cursor(1).picked == frozenset({3})  # multiple choice: Space picks
    assert [line.marker for line in render.options(toggled)] == [
        "> 1. [ ] ",  # the last pick moved the cursor
        "  2. [ ] ",
        "  3. [x] ",
    ]


def test_a_new_question_carries_nothing_of_the_last_ones_words() -> None:
    closed = submit(started().pick(2))
    assert render.keys(closed) == ["Enter or Right: next question"]
    assert render.verdict(closed) == ("Correct. First try.", "correct")
    assert render.teach(closed) == "**Why:** e"
    following = closed.advanced()
    assert "Enter or Right: next question" not in render.keys(following)
    assert render.verdict(following) == ("", "")
    assert render.teach(following) == ""
    assert render.title(following).startswith("Question 2 of 3")
    assert render.prompt(following) == "**2.** p"


def test_typed_answers_are_read_aloud_and_a_bad_one_is_a_problem_not_a_try() -> None:
    run = submit(submit(started().pick(2)).advanced().pick(1).pick(3)).advanced()
    assert run.asks_typed and render.read_as(run) == ""
    typed = run.type("1/2")
    assert render.read_as(typed) == "read as 0.500"  # the key's precision
    assert render.read_as(run.type("x")) == "read as: not a number yet"
    wrong = submit(run.type("0.25"))
    assert render.verdict(wrong) == ("Not yet. 1 try left.", "incorrect")
    assert render.hints(wrong) == "*Hint 1 of 1:* h1"  # the next hint taught it
    assert render.teach(wrong) == ""  # shown once, in the hints
    again = wrong.type("0,25").graded()
    assert isinstance(again, str) and "tried that one already" in again
    assert render.verdict(wrong.with_problem(again))[0] == again


def test_a_failed_save_changes_nothing_but_the_problem() -> None:
    run = started().pick(2)
    failed = run.unsaved(OSError("disk I/O error"))
    assert failed.session.state.tries_used == 0 and failed.picked == run.picked
    assert (
        render.verdict(failed)[0] == "Your answer could not be saved (disk I/O error). Try again."
    )


def test_the_summary_lists_the_misses_and_what_the_store_adds() -> None:
    run = started()
    for _ in range(3):
        record = run.skip_record()
        assert isinstance(record, AttemptRecord) and record.verdict is Outcome.SKIPPED
        run = run.saved(record).advanced()
    assert run.phase is Phase.FINISHED and run.at_end
    summed = run.finished(mastered=2, first_try_score=None)
    assert render.prompt(summed) == ""  # the summary is text, not Markdown
    summary = render.summary(summed)
    text = summary.plain
    assert text.startswith("First-try score: 0 of 3. Right in the end")
    bold = [text[span.start : span.end] for span in summary.spans if span.style == "bold"]
    assert bold == ["First-try score: 0 of 3."]
    assert "Since then (going again or in review): 2 of 3" in text
    assert "- 1. p" in text and render.keys(summed)[0] == "r: the 3 missed again"
    retry = summed.again()
    assert retry.session.pass_id != summed.session.pass_id and retry.phase is Phase.ASKING
    assert len(retry.session.order) == 3


def test_the_pass_id_stays_with_every_change_of_one_pass() -> None:
    run = started()
    after = submit(run.pick(2)).advanced().pick(1)
    assert after.session is not run.session and after.session.pass_id == run.session.pass_id


def test_a_missed_prompt_is_quoted_by_its_words_without_its_markdown() -> None:
    """The summary is text: a prompt's Markdown is read, not shown as marks, and nothing in
    it becomes markup."""
    marked = Question(
        kind=Kind.TEXT,
        prompt="What does `softmax` give **each** row of [b]scores[/b]? <eos> " + "word " * 30,
        explanation="e",
        answer="weights",
        line=1,
    )
    quiz = Quiz("m", "M", "m.toml", (marked,))
    run = QuizRun.of(QuizSession.start(quiz, quiz.questions, clock=lambda: 0.0)).begin()
    record = run.skip_record()
    assert isinstance(record, AttemptRecord)
    summary = render.summary(run.saved(record).advanced().finished(None, None)).plain
    listed = summary.split("\n")[-1]
    assert listed.startswith("- 1. What does softmax give each row of [b]scores[/b]? <eos>")
    assert listed.endswith(" ...") and len(listed) <= len("- 1. ") + 60
