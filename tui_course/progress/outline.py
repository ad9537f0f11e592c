"""Where a student stands in the course, as the outline shows it (the TUI and plain mode)."""

from __future__ import annotations

from datetime import UTC, datetime

from tui_course.content.models import Course
from tui_course.progress.store import ProgressStore

LAST_OPENED = "last_opened"  # the setting that makes `attn-tui` resume where it was left
SHUFFLE_KEY = "option-order-key"  # the store setting behind each student's option orders
# The fingerprint (content.models.lessons_fingerprint) of lessons whose live blocks passed.
LESSON_BLOCKS_CHECKED = "lesson-blocks-checked"


def outline_marks(course: Course, store: ProgressStore) -> dict[str, str]:
    """Each item's mark (see ui.widgets.outline.MARKS_LEGEND): scores only for a finished
    first pass."""
    done = store.lessons_done()
    marks = {lesson.id: "[x]" if lesson.id in done else "[ ]" for lesson in course.lessons}
    marks.update({lab.id: "   " for lab in course.labs})
    for quiz in course.quizzes:
        total = len(quiz.questions)
        stats = store.quiz_stats(quiz.id, total)
        if stats.state == "finished":
            box = "[x]" if len(stats.mastered) == total else "[=]"
            marks[quiz.id] = f"{box} {stats.first_try}/{total}"
        elif stats.state == "in progress":
            marks[quiz.id] = f"[~] {stats.answered}/{total}"
        else:
            marks[quiz.id] = "[ ]"
    return marks


def review_due(store: ProgressStore, now: datetime) -> int | None:
    """Questions due for review now; None when nothing was ever scheduled (no entry)."""
    if not store.review_cards_all():
        return None
    return len(store.review_cards_due(now.astimezone(UTC).isoformat(timespec="seconds")))


def student_key(store: ProgressStore) -> str:
    """The random key this student's quiz option orders are drawn from (content.shuffle),
    kept in their store and made on first use: the app and plain mode show the same order."""
    key = store.get_setting(SHUFFLE_KEY)
    if key is None:
        import secrets

        key = secrets.token_hex(8)
        store.set_setting(SHUFFLE_KEY, key)
    return key
