"""The progress store: every query the app makes of its one SQLite file.

What a session keeps: quiz passes and every attempt (a code check with its code), review
cards, lessons opened and read, small settings, and training runs, finished or failed.
Opening the file, its locks and the guards around each read and write are connection.py's;
the tables and their migrations are schema.py's. Scores are derived in scores.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from tui_course.content.code_model import MAX_CODE_BYTES, CodeAttempt
from tui_course.progress.connection import DB_NAME as DB_NAME
from tui_course.progress.connection import ProgressFile
from tui_course.progress.schema import SCHEMA_VERSION as SCHEMA_VERSION
from tui_course.progress.scores import AttemptRow as AttemptRow
from tui_course.progress.scores import QuizStats as QuizStats
from tui_course.progress.scores import quiz_stats
from tui_course.progress.store_errors import StoreError as StoreError
from tui_course.progress.store_errors import StoreWriteError as StoreWriteError

if TYPE_CHECKING:
    from tui_course.progress.records import CodeCheckRow, FailedTrainingRecord, TrainingRecord

MAX_STORED_ANSWER = 200


@dataclass(frozen=True)
class Attempt:
    quiz_id: str
    question_index: int  # 1-based, as the quiz screen numbers questions
    answer: str
    correct: bool
    timestamp: str  # ISO 8601, UTC


def _json_list(text: object) -> list[str]:
    import json  # in each use: no start-up reads or writes JSON

    try:
        value = json.loads(str(text)) if text else []
    except ValueError:
        return []
    return [str(item) for item in value] if isinstance(value, list) else []


_ROW_COLUMNS = (
    "run_id, quiz_id, question_index, answer, verdict, try_number, hints_seen, revealed,"
    " seconds, pass_kind, final, created_at"
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ProgressStore(ProgressFile):
    """The store the app, the commands and the classroom use: opened as ProgressFile says
    (`ProgressStore(directory, interactive=...)`), closed with `close()` or `with`."""

    # quizzes

    def start_run(
        self, quiz_id: str, total: int, kind: str = "first", *, essential: bool = False
    ) -> int:
        """0 if the run could not be saved: its attempts are still kept, without a run.
        `essential` (the run made with its first attempt) raises StoreWriteError instead."""
        cursor = self._write(
            "INSERT INTO runs (quiz_id, total, started_at, kind) VALUES (?, ?, ?, ?)",
            (quiz_id, total, _now(), kind),
            essential=essential,
            deferrable=False,  # its id is needed now
        )
        return int(cursor.lastrowid or 0) if cursor is not None else 0

    def record_attempt(
        self,
        run_id: int | None,
        quiz_id: str,
        question_index: int,
        answer: str,
        correct: bool,
        *,
        verdict: str | None = None,
        try_number: int = 1,
        hints_seen: int = 0,
        revealed: bool = False,
        seconds: float | None = None,
        pass_kind: str = "first",
        final: bool = True,
        code: CodeAttempt | None = None,
    ) -> Attempt:
        """Write one attempt durably before returning; the caller shows the verdict after.
        Raises StoreWriteError (one line) when it could not be written."""
        stamp = _now()
        answer = answer[:MAX_STORED_ANSWER]
        code_values: tuple[object, ...] = (None,) * 7
        if code is not None:
            import json

            code_values = (
                code.code.encode("utf-8", "replace")[:MAX_CODE_BYTES].decode("utf-8", "ignore"),
                code.sha256,
                code.outcome,
                code.mistake,
                json.dumps(list(code.cases_failed)),
                code.sandbox,
                code.seconds,
            )
        self._write(
            "INSERT INTO attempts (run_id, quiz_id, question_index, answer, correct, created_at,"
            " verdict, try_number, hints_seen, revealed, seconds, pass_kind, final, code,"
            " code_sha256, code_outcome, code_mistake, code_cases_failed, code_sandbox,"
            " code_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                quiz_id,
                question_index,
                answer,
                int(correct),
                stamp,
                verdict or ("right" if correct else "wrong"),
                try_number,
                hints_seen,
                int(revealed),
                seconds,
                pass_kind,
                int(final),
                *code_values,
            ),
            essential=True,
        )
        return Attempt(quiz_id, question_index, answer, correct, stamp)

    def code_checks(self, quiz_id: str | None = None) -> list[CodeCheckRow]:
        """Every stored code check, oldest first (the drop-box summary keeps the last)."""
        from tui_course.progress.records import CodeCheckRow

        where = "WHERE code_sha256 IS NOT NULL" + (" AND quiz_id = ?" if quiz_id else "")
        rows = self._read(
            "SELECT quiz_id, question_index, code, code_sha256, code_outcome, code_mistake,"
            f" code_cases_failed, code_sandbox, code_seconds, created_at FROM attempts {where}"
            " ORDER BY id",
            (quiz_id,) if quiz_id else (),
        )
        return [
            CodeCheckRow(
                str(row[0]),
                int(row[1]),
                str(row[2] or ""),
                str(row[3]),
                str(row[4] or ""),
                None if row[5] is None else int(row[5]),
                tuple(_json_list(row[6])),
                str(row[7] or ""),
                float(row[8] or 0.0),
                str(row[9]),
            )
            for row in rows
        ]

    def finish_run(self, run_id: int, correct: int | None = None) -> None:
        """Mark a pass complete; `correct` is kept for v1 readers only, scores come from rows."""
        self._write(
            "UPDATE runs SET finished_at = ?, correct = ? WHERE id = ?", (_now(), correct, run_id)
        )

    def first_run(self, quiz_id: str) -> tuple[int, bool] | None:
        """The quiz's first pass (the graded one): its run id and whether it was finished."""
        rows = self._read(
            "SELECT id, finished_at IS NOT NULL FROM runs WHERE quiz_id = ? AND kind = 'first'"
            " ORDER BY id LIMIT 1",
            (quiz_id,),
        )
        return None if not rows else (int(rows[0][0]), bool(rows[0][1]))

    def run_exists(self, run_id: int) -> bool:
        return bool(self._read("SELECT 1 FROM runs WHERE id = ?", (run_id,)))

    def run_rows(self, run_id: int) -> list[AttemptRow]:
        rows = self._read(
            f"SELECT {_ROW_COLUMNS} FROM attempts WHERE run_id = ? ORDER BY id", (run_id,)
        )
        return [AttemptRow(*row) for row in rows]

    def all_rows(self) -> list[AttemptRow]:
        rows = self._read(f"SELECT {_ROW_COLUMNS} FROM attempts ORDER BY id")
        return [AttemptRow(*row) for row in rows]

    def quiz_rows(self, quiz_id: str) -> list[AttemptRow]:
        rows = self._read(
            f"SELECT {_ROW_COLUMNS} FROM attempts WHERE quiz_id = ? ORDER BY id", (quiz_id,)
        )
        return [AttemptRow(*row) for row in rows]

    def finished_full_runs(self, quiz_id: str, question_count: int) -> list[int]:
        rows = self._read(
            "SELECT id FROM runs WHERE quiz_id = ? AND finished_at IS NOT NULL AND total = ?"
            " ORDER BY id",
            (quiz_id, question_count),
        )
        return [int(row[0]) for row in rows]

    def quiz_stats(self, quiz_id: str, question_count: int) -> QuizStats:
        """Scores derived from attempt rows only (see tui_course.progress.scores)."""
        return quiz_stats(self, quiz_id, question_count)

    def attempts(self, quiz_id: str | None = None) -> list[Attempt]:
        query = "SELECT quiz_id, question_index, answer, correct, created_at FROM attempts"
        args: tuple[str, ...] = ()
        if quiz_id is not None:
            query += " WHERE quiz_id = ?"
            args = (quiz_id,)
        rows = self._read(query + " ORDER BY id", args)
        return [Attempt(q, i, a, bool(c), t) for q, i, a, c, t in rows]

    # forgetting (attn-tui reset): each raises StoreWriteError when it did not happen

    def forget_quiz(self, quiz_id: str) -> int:
        """Delete a quiz's attempts, passes and review cards; returns the attempts removed."""
        with self.transaction():
            cursor = self._write(
                "DELETE FROM attempts WHERE quiz_id = ?", (quiz_id,), essential=True
            )
            self._write("DELETE FROM runs WHERE quiz_id = ?", (quiz_id,), essential=True)
            self._write("DELETE FROM review_cards WHERE quiz_id = ?", (quiz_id,), essential=True)
        return int(cursor.rowcount) if cursor is not None else 0

    def forget_lesson(self, lesson_id: str) -> bool:
        with self.transaction():
            deleted = self._write(
                "DELETE FROM lessons WHERE lesson_id = ?", (lesson_id,), essential=True
            )
            self._write(
                "DELETE FROM settings WHERE key = ?", (f"position:{lesson_id}",), essential=True
            )
        return deleted is not None and deleted.rowcount > 0

    def forget_everything(self) -> None:
        with self.transaction():
            for table in (
                "attempts",
                "runs",
                "review_cards",
                "lessons",
                "settings",
                "training_runs",
                "failed_training_runs",
            ):
                self._write(f"DELETE FROM {table}", essential=True)

    # the review schedule (tui_course.progress.review owns the FSRS side)

    def review_card(self, quiz_id: str, question_index: int) -> str | None:
        rows = self._read(
            "SELECT card FROM review_cards WHERE quiz_id = ? AND question_index = ?",
            (quiz_id, question_index),
        )
        return None if not rows else str(rows[0][0])

    def save_review_card(self, quiz_id: str, question_index: int, card: str, due: str) -> None:
        """Raises StoreWriteError: it is written with its attempt, in one transaction."""
        self._write(
            "INSERT INTO review_cards (quiz_id, question_index, card, due) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (quiz_id, question_index)"
            " DO UPDATE SET card = excluded.card, due = excluded.due",
            (quiz_id, question_index, card, due),
            essential=True,
        )

    def review_cards_due(self, now: str) -> list[tuple[str, int, str]]:
        """(quiz id, question number, due) of every card due at `now` (ISO 8601 UTC)."""
        rows = self._read(
            "SELECT quiz_id, question_index, due FROM review_cards WHERE due <= ?"
            " ORDER BY due, quiz_id, question_index",
            (now,),
        )
        return [(str(q), int(i), str(d)) for q, i, d in rows]

    def review_cards_all(self) -> list[tuple[str, int, str]]:
        rows = self._read("SELECT quiz_id, question_index, due FROM review_cards ORDER BY due")
        return [(str(q), int(i), str(d)) for q, i, d in rows]

    # lessons and settings

    def mark_lesson_opened(self, lesson_id: str) -> None:
        self._write(
            "INSERT OR IGNORE INTO lessons (lesson_id, first_opened_at) VALUES (?, ?)",
            (lesson_id, _now()),
        )

    def mark_lesson_done(self, lesson_id: str) -> None:
        self.mark_lesson_opened(lesson_id)
        self._write(
            "UPDATE lessons SET done_at = ? WHERE lesson_id = ? AND done_at IS NULL",
            (_now(), lesson_id),
        )

    def lessons_done(self) -> set[str]:
        """Lessons read: their end has been on screen."""
        rows = self._read("SELECT lesson_id FROM lessons WHERE done_at IS NOT NULL")
        return {str(row[0]) for row in rows}

    def lesson_activity(self) -> dict[str, str]:
        """When each lesson was last touched: read, or else first opened."""
        rows = self._read("SELECT lesson_id, COALESCE(done_at, first_opened_at) FROM lessons")
        return {str(lesson): str(stamp) for lesson, stamp in rows}

    def get_setting(self, key: str) -> str | None:
        """None when unset, or when it cannot be read (reported: settings are not essential)."""
        try:
            rows = self._read("SELECT value FROM settings WHERE key = ?", (key,))
        except StoreError as error:
            self._report(str(error))
            return None
        return str(rows[0][0]) if rows else None

    def set_setting(self, key: str, value: str) -> None:
        self._write(
            "INSERT INTO settings (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # training runs

    def record_training_run(self, record: TrainingRecord) -> int:
        """Keep a finished run; 0 when it could not be saved (reported, never raised: a
        training result is not worth stopping the lab for)."""
        import json

        cursor = self._write(
            "INSERT INTO training_runs (finished_at, source, options, params, test_accuracy,"
            " test_loss, seconds, epochs, attention) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.finished_at or _now(),
                record.source,
                json.dumps(record.options, sort_keys=True),
                record.params,
                record.test_accuracy,
                record.test_loss,
                record.seconds,
                json.dumps(list(record.epochs)),
                None if record.attention is None else json.dumps(record.attention),
            ),
        )
        return int(cursor.lastrowid or 0) if cursor is not None else 0

    def record_failed_training_run(self, record: FailedTrainingRecord) -> int:
        """Keep a run that ended in an error; 0 when it could not be saved (reported)."""
        import json

        cursor = self._write(
            "INSERT INTO failed_training_runs (finished_at, source, options, reason, epochs, log)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                record.finished_at or _now(),
                record.source,
                json.dumps(record.options, sort_keys=True),
                record.reason,
                json.dumps(list(record.epochs)),
                record.log,
            ),
        )
        return int(cursor.lastrowid or 0) if cursor is not None else 0

    def failed_training_runs(self) -> list[FailedTrainingRecord]:
        """Every kept failed run, oldest first; a row whose JSON does not parse is skipped."""
        import json

        from tui_course.progress.records import FailedTrainingRecord

        rows = self._read(
            "SELECT id, finished_at, source, options, reason, epochs, log"
            " FROM failed_training_runs ORDER BY id"
        )
        records = []
        for run_id, when, source, options, reason, epochs, log in rows:
            try:
                records.append(
                    FailedTrainingRecord(
                        source=str(source),
                        options=dict(json.loads(options)),
                        reason=str(reason),
                        epochs=tuple(dict(epoch) for epoch in json.loads(epochs)),
                        log=str(log),
                        finished_at=str(when),
                        id=int(run_id),
                    )
                )
            except (ValueError, TypeError):
                continue
        return records

    def training_runs(self) -> list[TrainingRecord]:
        """Every kept run, oldest first. A row whose JSON does not parse is skipped."""
        import json

        from tui_course.progress.records import TrainingRecord

        rows = self._read(
            "SELECT id, finished_at, source, options, params, test_accuracy, test_loss, seconds,"
            " epochs, attention FROM training_runs ORDER BY id"
        )
        records = []
        for run_id, when, source, options, params, accuracy, loss, seconds, epochs, att in rows:
            try:
                record = TrainingRecord(
                    source=str(source),
                    options=dict(json.loads(options)),
                    params=int(params),
                    test_accuracy=float(accuracy),
                    test_loss=float(loss),
                    seconds=float(seconds),
                    epochs=tuple(dict(epoch) for epoch in json.loads(epochs)),
                    attention=None if att is None else dict(json.loads(att)),
                    finished_at=str(when),
                    id=int(run_id),
                )
            except (ValueError, TypeError):
                continue
            records.append(record)
        return records
