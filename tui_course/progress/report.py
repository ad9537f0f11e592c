"""Progress as plain data, for `attn-tui progress` and for the classroom report.

The keys of each row are a contract (see the classroom helpers): lessons have id,
title, order, read, last_activity; quizzes have id, title, questions, state,
answered, first_try, mastered, best, tries, hints, reveals, seconds, last_activity.
Training runs are the store's TrainingRecord fields (options, per-epoch curves, result,
trained-attention summary).
"""

from __future__ import annotations

import getpass
import os
from dataclasses import asdict
from typing import Any

from tui_course.content.models import Course
from tui_course.progress.store import ProgressStore


def user_name() -> str:
    """The name the kernel knows this process by, as the class report's owner check uses:
    USER and LOGNAME are the student's to set. Without a passwd entry (a container), the
    environment's name, else "unknown"."""
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        pass
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def progress_report(course: Course, store: ProgressStore) -> dict[str, Any]:
    read = store.lessons_done()
    activity = store.lesson_activity()
    lessons = [
        {
            "id": lesson.id,
            "title": lesson.title,
            "order": lesson.order,
            "read": lesson.id in read,
            "last_activity": activity.get(lesson.id),
        }
        for lesson in course.lessons
    ]
    quizzes = []
    for quiz in course.quizzes:
        total = len(quiz.questions)
        stats = store.quiz_stats(quiz.id, total)
        quizzes.append(
            {
                "id": quiz.id,
                "title": quiz.title,
                "questions": total,
                "state": stats.state,
                "answered": stats.answered,
                "first_try": stats.first_try,
                "mastered": len(stats.mastered),
                "best": stats.best,
                "tries": stats.tries,
                "hints": stats.hints,
                "reveals": stats.reveals,
                "seconds": stats.seconds,
                "last_activity": stats.last_activity,
            }
        )
    attempts = [
        {**asdict(row), "revealed": bool(row.revealed), "final": bool(row.final)}
        for row in store.all_rows()
    ]
    training_runs = [asdict(record) for record in store.training_runs()]
    failed_runs = [asdict(record) for record in store.failed_training_runs()]
    return {
        "user": user_name(),
        "lessons": lessons,
        "quizzes": quizzes,
        "attempts": attempts,
        "code": final_code(store),
        "training_runs": training_runs,
        "failed_training_runs": failed_runs,
    }


def final_code(store: ProgressStore) -> list[dict[str, Any]]:
    """Each code question's last checked code, its hash and verdict (the drop-box keeps it,
    so a teacher can run it again with `attn-tui class recheck`)."""
    last: dict[tuple[str, int], dict[str, Any]] = {}
    for row in store.code_checks():
        last[(row.quiz_id, row.question_index)] = {
            "quiz_id": row.quiz_id,
            "question": row.question_index,
            "code": row.code,
            "sha256": row.sha256,
            "outcome": row.outcome,
            "sandbox": row.sandbox,
            "checked_at": row.created_at,
        }
    return list(last.values())
