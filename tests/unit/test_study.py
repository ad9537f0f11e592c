"""The app's and plain mode's session bookkeeping without either: answer keys, quiz and
review sessions, the outline's state and what the class folder is owed (tui_course.study)."""

from __future__ import annotations

import shutil
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest

from tests.conftest import FIXTURES, run_python
from tui_course.classroom.link import ClassLink
from tui_course.content.course import load_course
from tui_course.content.errors import ContentError
from tui_course.content.models import REVIEW_ID, Course, Quiz
from tui_course.content.session import Phase, QuizSession
from tui_course.progress.recorder import QuizRecorder
from tui_course.progress.review import ReviewSchedule
from tui_course.progress.store import ProgressStore
from tui_course.study import Outbox, Study

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
SUMS = """id = "sums"
title = "Sums"

[[question]]
kind = "numeric"
prompt = "What is sqrt(4) + 1?"
answer_from = "sqrt(4) + 1"
explanation = "2 + 1."
"""
BROKEN = """id = "broken"
title = "Broken key"

[[question]]
kind = "numeric"
prompt = "What is it?"
answer_from = "softmax([1, 2])[5]"
explanation = "There is no sixth weight."
"""


@pytest.fixture
def course(tmp_path: Path) -> Course:
    """The plain-mode fixture course (a lesson pair, quiz `small` without expressions),
    with a quiz whose key is computed and one whose key cannot be."""
    root = tmp_path / "course"
    shutil.copytree(FIXTURES / "plain_course", root)
    (root / "quizzes" / "sums.toml").write_text(SUMS, encoding="utf-8")
    (root / "quizzes" / "broken.toml").write_text(BROKEN, encoding="utf-8")
    loaded = load_course(root)
    assert not loaded.problems
    return loaded


@pytest.fixture
def store(data_dir: Path) -> ProgressStore:
    return ProgressStore(data_dir)


def quiz(course: Course, quiz_id: str) -> Quiz:
    found = course.find(quiz_id)
    assert isinstance(found, Quiz)
    return found


def reveal_next(session: QuizSession, recorder: QuizRecorder) -> QuizSession:
    """Close the current question as the views do (save its record, then apply it): the
    session after it."""
    session = session.begin()
    record = session.reveal()
    assert record is not None
    recorder.save(session, record)
    session = session.apply(record)
    last = session.position == len(session.order) - 1
    session = session.advance()
    if last:
        recorder.finish(session)
    return session


# answer keys


def test_keys_are_computed_once_per_quiz_even_when_asked_for_twice_at_once(
    course: Course, store: ProgressStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tui_course.study as study_module

    computed: list[str] = []
    gate = threading.Event()
    real = study_module.quiz_keys

    def held(asked: Quiz) -> Any:
        assert gate.wait(10)  # both asks are in before the first computation ends
        computed.append(asked.id)
        return real(asked)

    monkeypatch.setattr(study_module, "quiz_keys", held)
    study = Study(course, store)
    first = study.answer_keys([quiz(course, "sums")])
    second = study.answer_keys()  # every quiz: sums is already on its way
    assert not first.done()  # the caller's thread never computes
    gate.set()
    keys, every = first.result(timeout=10), second.result(timeout=10)
    assert sorted(computed) == ["broken", "sums"]  # each once; small has nothing to compute
    assert keys["sums"] is every["sums"]
    assert set(every) == {"broken", "small", "sums"}
    assert every["small"] == quiz(course, "small").questions
    again = study.answer_keys([quiz(course, "sums")]).result(timeout=10)
    assert again["sums"] is keys["sums"] and len(computed) == 2


def test_an_unexpected_failure_reaches_whoever_waits(
    course: Course, store: ProgressStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tui_course.study as study_module

    def broken(asked: Quiz) -> Any:
        raise RuntimeError(f"no keys for {asked.id}")

    monkeypatch.setattr(study_module, "quiz_keys", broken)
    study = Study(course, store)
    with pytest.raises(RuntimeError, match="no keys for"):
        study.answer_keys().result(timeout=10)  # never a future that hangs
    with pytest.raises(RuntimeError):
        study.answer_keys([quiz(course, "sums")]).result(timeout=10)


def test_a_quiz_with_nothing_to_compute_has_its_keys_at_once(
    course: Course, store: ProgressStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No thread to wait on (a returning student's quiz opens in the frame it is asked
    for), and the key computation is never run for it."""
    import tui_course.study as study_module

    def never(asked: Quiz) -> Any:
        raise AssertionError(f"{asked.id} has nothing to compute")

    monkeypatch.setattr(study_module, "quiz_keys", never)
    small = quiz(course, "small")
    keys = Study(course, store).answer_keys([small])
    assert keys.done() and keys.result() == {"small": small.questions}


def test_a_computed_key_holds_its_value(course: Course, store: ProgressStore) -> None:
    keys = Study(course, store).answer_keys([quiz(course, "sums")]).result(timeout=30)
    questions = keys["sums"]
    assert not isinstance(questions, ContentError)
    assert questions[0].answer == pytest.approx(3.0)


def test_a_quiz_whose_key_cannot_be_computed_gives_its_content_error(
    course: Course, store: ProgressStore
) -> None:
    study = Study(course, store)
    keys = study.answer_keys().result(timeout=30)
    error = keys["broken"]
    assert isinstance(error, ContentError)
    assert error.path.endswith("broken.toml") and error.line == 4
    assert not isinstance(keys["sums"], ContentError)  # its neighbours are not held up
    with pytest.raises(ContentError) as raised:
        study.quiz_session(quiz(course, "broken"))
    assert raised.value is error


def test_a_quiz_without_expressions_opens_without_numpy(data_dir: Path) -> None:
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tui_course.content.course import load_course\n"
        "from tui_course.progress.store import ProgressStore\n"
        "from tui_course.study import Study\n"
        "course = load_course(Path(sys.argv[1]))\n"
        "study = Study(course, ProgressStore(Path(sys.argv[2])))\n"
        "quiz = course.find('small')\n"
        "study.answer_keys([quiz]).result(timeout=30)\n"
        "session = study.quiz_session(quiz)\n"
        "print(session.phase, len(session.order), 'numpy' in sys.modules)\n"
    )
    done = run_python(script, str(FIXTURES / "plain_course"), str(data_dir))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["intro", "4", "False"]


# sessions


def test_a_quiz_opens_fresh_then_resumed_then_finished_from_the_store(
    course: Course, store: ProgressStore
) -> None:
    study = Study(course, store, lambda: START)
    small = quiz(course, "small")
    recorder = study.recorder()
    fresh = study.quiz_session(small)
    assert fresh.phase is Phase.INTRO
    fresh = reveal_next(fresh, recorder)
    assert store.review_cards_all()[0][:2] == ("small", 1)  # a reveal comes back for review
    resumed = study.quiz_session(small)
    assert resumed.phase is Phase.ASKING and resumed.index == 1  # question 2, no intro
    assert resumed.states[0].closed
    for _ in range(3):
        resumed = reveal_next(resumed, recorder)
    finished = study.quiz_session(small)
    assert finished.phase is Phase.FINISHED
    assert study.outline().marks["small"] == "[=] 0/4"


def test_options_keep_the_file_order_without_shuffling(
    course: Course, store: ProgressStore
) -> None:
    assert Study(course, store, shuffle_options=False).student_key() is None
    shuffled = Study(course, store)
    key = shuffled.student_key()
    assert key is not None and shuffled.student_key() == key  # kept in the store
    assert shuffled.quiz_session(quiz(course, "small")).student_key == key


def test_review_is_none_until_a_missed_question_is_due(
    course: Course, store: ProgressStore
) -> None:
    clock = [START]
    study = Study(course, store, lambda: clock[0])
    assert study.review_session() is None
    assert study.outline().due is None  # nothing ever scheduled: no Review entry
    ReviewSchedule(store, lambda: START).closed("small", 3, "revealed", 0, "first")
    assert study.review_session() is None  # scheduled, not due yet
    assert study.outline().due == 0
    clock[0] = START + timedelta(minutes=2)
    review = study.review_session()
    assert review is not None and review.quiz.id == REVIEW_ID
    assert [review.review_of[i] for i in review.order] == ["small"]
    assert review.review_numbers == {0: 3}
    assert study.outline().due == 1


def test_review_leaves_out_a_quiz_whose_keys_fail(course: Course, store: ProgressStore) -> None:
    schedule = ReviewSchedule(store, lambda: START)
    schedule.closed("broken", 1, "revealed", 0, "first")
    schedule.closed("sums", 1, "revealed", 0, "first")
    review = Study(course, store, lambda: START + timedelta(minutes=2)).review_session()
    assert review is not None
    assert [review.review_of[i] for i in review.order] == ["sums"]


# what the class folder is sent


def test_a_lesson_is_newly_read_only_the_first_time(course: Course, store: ProgressStore) -> None:
    study = Study(course, store)
    assert study.lesson_read("attend") is True
    assert study.lesson_read("attend") is False
    assert study.outline().marks["attend"] == "[x]"


def test_a_review_pass_sends_every_quiz(course: Course, store: ProgressStore) -> None:
    study = Study(course, store)
    assert study.sent_after("sums") == ("sums",)
    assert sorted(study.sent_after(REVIEW_ID)) == ["broken", "small", "sums"]


class FlakyLink:
    """A class link whose progress cannot be read the first `busy` times it is asked."""

    def __init__(self, busy: int) -> None:
        self.busy = busy
        self.asked: list[list[str]] = []

    def payload(self, course: Course, store: ProgressStore, quiz_ids: list[str]) -> Any:
        self.asked.append(list(quiz_ids))
        if len(self.asked) <= self.busy:
            return None
        return {"quizzes": [{"id": quiz_id} for quiz_id in quiz_ids]}


def test_results_that_could_not_be_read_go_with_the_next_ones(
    course: Course, store: ProgressStore
) -> None:
    study = Study(course, store)
    link = FlakyLink(busy=1)
    assert study.submission(cast(ClassLink, link), ["sums"]) is None  # the store was busy
    sent = study.submission(cast(ClassLink, link), ["small"])
    assert sent == {"quizzes": [{"id": "small"}, {"id": "sums"}]}
    assert study.submission(cast(ClassLink, link), []) == {"quizzes": []}  # a lesson read
    assert link.asked == [["sums"], ["small", "sums"], []]


def test_leaving_sends_every_quiz_only_while_one_is_part_way(
    course: Course, store: ProgressStore, tmp_path: Path
) -> None:
    study = Study(course, store, lambda: START)
    link = ClassLink(tmp_path / "class", store.path.parent)
    assert study.part_way(link) is None  # nothing started
    small = quiz(course, "small")
    recorder = QuizRecorder(store)
    session = study.quiz_session(small)
    session = reveal_next(session, recorder)
    payload = study.part_way(link)
    assert payload is not None
    states = {entry["id"]: entry["state"] for entry in payload["quizzes"]}
    assert states == {"broken": "not started", "small": "in progress", "sums": "not started"}
    for _ in range(3):
        session = reveal_next(session, recorder)
    assert study.part_way(link) is None  # finished: its result went when it finished


def test_the_outbox_keeps_what_could_not_be_read_until_it_is_sent() -> None:
    outbox = Outbox()
    assert outbox.with_owed(["b"]) == ["b"]
    outbox.unread(outbox.with_owed(["b"]))
    assert outbox.with_owed(["a"]) == ["a", "b"]
    outbox.sent()
    assert outbox.with_owed(["c"]) == ["c"]
