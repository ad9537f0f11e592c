"""`attn-tui check [ID] [FILE] [--watch]`: check a code question's solution from a shell.

ID is `quiz/number` (code/1) or the function's name (attention_weights); without ID the
code questions are listed. FILE defaults to the draft the app's editor saves. The
verdict is plain text, the same the editor shows; exit 0 when it passes, 1 when not.
"""

from __future__ import annotations

import argparse
import gc
import sys
from typing import TYPE_CHECKING, Any

from tui_course.commands.common import (
    PROG,
    add_common,
    content_dir,
    data_dir,
    fail,
    recording_dir,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tui_course.codecheck.service import CodeChecker
    from tui_course.content.models import Question, Quiz

POLL_SECONDS = 0.5  # --watch where the kernel cannot say when the file changes
BACKSTOP_SECONDS = 2.0  # and where it can: a network drive may say nothing


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "check",
        help="run your code for a code question in the sandbox and say what is wrong",
        epilog="example:\n  attn-tui check code/1 my_attention.py --watch",
    )
    parser.add_argument("id", nargs="?", metavar="ID", help="quiz/number or the function's name")
    parser.add_argument("file", nargs="?", metavar="FILE", help="your code (default: your draft)")
    parser.add_argument(
        "--watch", action="store_true", help="check again each time the file is saved"
    )
    parser.add_argument(
        "--starter", action="store_true", help="print the question's starter code and exit"
    )
    add_common(parser, argparse.SUPPRESS)
    parser.set_defaults(run=run)


def code_questions(quizzes: list[Quiz]) -> list[tuple[Quiz, int, Question]]:
    return [
        (quiz, number, question)
        for quiz in quizzes
        for number, question in enumerate(quiz.questions, start=1)
        if question.code is not None
    ]


def find(found: list[tuple[Quiz, int, Question]], wanted: str) -> tuple[Quiz, int, Question] | None:
    for quiz, number, question in found:
        assert question.code is not None
        if wanted in (f"{quiz.id}/{number}", question.code.entry):
            return quiz, number, question
    return None


def run(args: argparse.Namespace) -> int:
    import contextlib
    import os

    # NumPy, loaded below, would start BLAS's thread pool, whose threads spin waiting for
    # work a check never gives them (a few small arrays) on the core the sandbox's child
    # is starting on; one thread, unless the caller chose otherwise
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    checker = None
    if args.id is not None and not args.starter:
        # The sandbox's child starts first: it imports NumPy on the other core while this
        # process loads the course and NumPy itself (codecheck.service imports neither).
        from tui_course.codecheck.service import CodeChecker

        checker = CodeChecker(
            warm=args.watch, data_dir=data_dir(args), hide=[content_dir(args)], start_here=True
        )
    # What a check loads (NumPy, the course) lives until the process ends: the cyclic
    # collector's passes over it while it loads, and the interpreter's last collections at
    # exit, are work for nothing (a tenth of a check's CPU). Collection is off while the
    # check runs; then what is alive is frozen out of later passes, and collection is on
    # again (--watch turns it on before its loop: garbage of its checks is collected).
    gc.disable()
    try:
        with checker or contextlib.nullcontext():
            return _run(args, checker)
    finally:
        _resume_collection()


def _resume_collection() -> None:
    gc.freeze()
    gc.enable()


def _run(args: argparse.Namespace, checker: CodeChecker | None) -> int:
    from pathlib import Path

    from tui_course.codecheck.student_file import CodeFileError, read_code_file
    from tui_course.content.course_cache import CACHE_NAME, cached_course
    from tui_course.text.safe import one_line, path_text

    # the course as the app keeps it parsed (a check needs its quizzes, not its lessons)
    course, save_course = cached_course(content_dir(args), recording_dir(args) / CACHE_NAME)
    found = code_questions(list(course.quizzes))
    if args.id is None:
        for quiz, number, question in found:
            assert question.code is not None
            print(f"{quiz.id}/{number}  {question.code.entry}()  {one_line(question.prompt)[:60]}")
        if not found:
            return fail("no code questions in this course")
        return 0
    chosen = find(found, args.id)
    if chosen is None:
        known = ", ".join(f"{q.id}/{n}" for q, n, _ in found) or "none"
        return fail(f"error: no code question '{args.id}' (code questions: {known})", 2)
    quiz, number, question = chosen
    assert question.code is not None
    if args.starter:  # no check: no checker was made
        print(question.code.starter, end="")
        return 0
    assert checker is not None  # made for every check
    from tui_course.progress.drafts import draft_path

    path = (
        Path(args.file).expanduser()
        if args.file
        else draft_path(recording_dir(args), quiz.id, number)
    )
    if not args.file and not path.exists():
        return fail(
            f"error: no FILE given and no draft saved for {quiz.id}/{number}; start one with"
            f" `{PROG} check {quiz.id}/{number} --starter > mine.py`"
        )
    _say_if_practice(args)
    if args.watch:
        try:
            read_code_file(path)
        except CodeFileError as error:
            return fail(f"error: {path_text(str(path))}: {error}")
        return _watch(args, checker, quiz, number, question, path, save_course)
    try:
        code = read_code_file(path)
    except CodeFileError as error:
        return fail(f"error: {path_text(str(path))}: {error}")
    status = _check_once(args, checker, quiz, number, question, code)
    if save_course is not None:  # after the verdict is shown: the next check reads it
        save_course()
    return status


def _say_if_practice(args: argparse.Namespace) -> None:
    """Checks against another content folder are practice: its reference may be anything."""
    from tui_course.progress.practice import NOT_SENT, is_site_course
    from tui_course.text.safe import path_text

    content = content_dir(args)
    if not is_site_course(content):
        print(
            f"{PROG}: practice: {path_text(str(content))} is not the site's course, so this"
            f" check counts toward nothing (kept apart from your progress; {NOT_SENT})",
            file=sys.stderr,
        )


def _check_once(
    args: argparse.Namespace, checker: Any, quiz: Quiz, number: int, question: Question, code: str
) -> int:
    import shutil
    import threading

    from tui_course.codecheck.service import counts_as_attempt
    from tui_course.render.code import verdict_text

    if checker.warning:
        print(f"{PROG}: {checker.warning}", file=sys.stderr)

    def load_recording() -> None:
        """While this thread waits for the sandbox's child, what recording the verdict
        needs is loaded beside it (not before: the work that must come first is not made
        to share the interpreter with it), so the prompt comes back sooner after it."""
        threading.Thread(
            target=_load_recording, args=(question,), name="attn-tui-record-imports", daemon=True
        ).start()

    verdict = checker.check(question, code, on_wait=load_recording)
    print(verdict_text(verdict, shutil.get_terminal_size((80, 24)).columns))
    if counts_as_attempt(verdict):  # the app's rule: an unfinished starter costs no try
        _record(args, quiz, number, question, code, verdict)
    return 0 if verdict.passed else 1


def _load_recording(question: Question) -> None:
    """Import what _record uses (the question's kind among it). Nothing is opened or
    written here; a failure is left for _record to meet and report."""
    import contextlib

    with contextlib.suppress(Exception):
        from tui_course.content import kinds
        from tui_course.content.session import QuizSession  # noqa: F401
        from tui_course.progress.recorder import QuizRecorder  # noqa: F401
        from tui_course.progress.store import ProgressStore  # noqa: F401

        kinds.of(question)


def _record(
    args: argparse.Namespace, quiz: Quiz, number: int, question: Question, code: str, verdict: Any
) -> None:
    """The check goes into the quiz like an answer in the app: its first pass while the
    question is open there, else a retry pass of that one question."""
    from tui_course.codecheck.service import attempt_of
    from tui_course.content.grading import AnswerFormatError
    from tui_course.content.session import QuizSession
    from tui_course.progress.recorder import QuizRecorder, first_pass_states
    from tui_course.progress.store import ProgressStore, StoreError

    index = number - 1
    try:
        with ProgressStore(recording_dir(args)) as store:
            states = first_pass_states(store, quiz.id, len(quiz.questions))
            session = QuizSession.start(quiz, quiz.questions, done=states)
            if states.get(index) is not None and states[index].closed:
                session = session.retry([index])
            else:
                session = session.at_question(index)
            try:
                _, record = session.answer_code(
                    code, verdict.passed, None, attempt_of(code, verdict)
                )
            except AnswerFormatError:
                return  # the same code checked twice in a row: no new try
            recorder = QuizRecorder(store)
            recorder.save(session, record)
    except (StoreError, OSError) as error:
        print(f"{PROG}: warning: this check was not saved: {error}", file=sys.stderr)


def _fingerprint(path: Path) -> tuple[int, int, str] | None:
    """mtime, size and content hash: a network or WSL drive may keep a coarse mtime."""
    import hashlib

    from tui_course.codecheck.student_file import CodeFileError, read_code_file

    try:
        info = path.stat()
        digest = hashlib.sha256(read_code_file(path).encode("utf-8", "surrogatepass")).hexdigest()
    except (OSError, CodeFileError):
        return None
    return info.st_mtime_ns, info.st_size, digest


def _changed(
    path: Path, seen: tuple[int, int, str] | None, last: tuple[int, int, str] | None
) -> str | None:
    """The file's code when it changed since the last check and can still be read."""
    from tui_course.codecheck.student_file import CodeFileError, read_code_file

    if seen is None or seen == last:
        return None
    try:
        return read_code_file(path)
    except CodeFileError:
        return None  # replaced between the two reads: the next poll sees it


def _watch(
    args: argparse.Namespace,
    checker: CodeChecker,
    quiz: Quiz,
    number: int,
    question: Question,
    path: Path,
    save_course: Callable[[], None] | None,
) -> int:
    """Check now, then again after each save: woken by the kernel when the file's folder
    changes (file_watch), looking at the file anyway every few seconds."""
    import time

    from tui_course.codecheck.file_watch import FileWatch
    from tui_course.text.safe import path_text

    last: tuple[int, int, str] | None = None
    _resume_collection()  # a long-lived loop: its own garbage is collected
    with FileWatch(path) as watch:
        backstop = BACKSTOP_SECONDS if watch.woken_by_kernel else POLL_SECONDS
        print(f"watching {path_text(str(path))} (Ctrl+C to stop)", file=sys.stderr)
        while True:
            seen = _fingerprint(path)
            code = _changed(path, seen, last)
            if code is not None:
                last = seen
                print(f"\n--- {time.strftime('%H:%M:%S')} {quiz.id}/{number}")
                _check_once(args, checker, quiz, number, question, code)
                sys.stdout.flush()
                if save_course is not None:
                    save_course()
                    save_course = None
            watch.wait(backstop)
