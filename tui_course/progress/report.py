"""Progress as plain data, for `attn-tui progress` in every format."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from tui_course.content.models import Course
from tui_course.progress.store import ProgressStore


def progress_report(course: Course, store: ProgressStore) -> dict[str, list[dict[str, Any]]]:
    done = store.lessons_done()
    lessons = [
        {"id": lesson.id, "title": lesson.title, "order": lesson.order, "done": lesson.id in done}
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
                "best_score": stats.best_correct,
                "mastered": len(stats.mastered),
                "attempts": stats.attempts,
                "done": len(stats.mastered) == total,
            }
        )
    attempts = [asdict(attempt) for attempt in store.attempts()]
    return {"lessons": lessons, "quizzes": quizzes, "attempts": attempts}
