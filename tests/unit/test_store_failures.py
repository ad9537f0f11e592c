"""The store when things go wrong: full disk, long lock, read-only files and folders, damaged
pages, links, and two processes finding the same damaged file. Nothing crashes, nothing healthy
is moved aside, and the student is told in one line."""

from __future__ import annotations

import os
import random
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, cap_database_at_its_size, exclusive_lock, fill_disk, run_python
from tui_course.cli import main
from tui_course.paths import ensure_private_dir
from tui_course.progress import connection
from tui_course.progress.connection import QUICK_TIMEOUT_MS, RETRY_SECONDS
from tui_course.progress.store import (
    DB_NAME,
    ProgressStore,
    StoreError,
    StoreWriteError,
)

PAGE = 4096


def aside_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.startswith(DB_NAME + ".unreadable-"))


def saved_store(folder: Path, attempts: int = 5) -> None:
    with ProgressStore(folder) as store:
        run = store.start_run("quiz", attempts)
        for number in range(1, attempts + 1):
            store.record_attempt(run, "quiz", number, "x" * 100, number % 2 == 1)
        store.finish_run(run, 3)
        store.mark_lesson_done("lesson")
        store.set_setting("last_opened", "quiz")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


class Problems(list[str]):
    """Collects what the store reports, as the app's notices would show it."""

    def __call__(self, message: str) -> None:
        self.append(message)


# full disk


def test_full_disk_while_running_reports_and_goes_on(small_disk: Path) -> None:
    data = small_disk / "data"
    saved_store(data)
    with ProgressStore(data) as store:
        problems = Problems()
        store.on_problem = problems
        fill_disk(small_disk)
        for index in range(300):  # enough rows to need a new page on any layout
            store.set_setting(f"position:lesson-{index}", "x" * 200)
            store.mark_lesson_opened(f"lesson-{index}")
        assert problems == ["Progress not saved: the disk or your quota is full."]  # once
        with pytest.raises(StoreWriteError, match="disk or your quota is full"):
            for _ in range(300):
                store.record_attempt(None, "quiz", 1, "y" * 500, True)
        assert store.start_run("quiz", 3) == 0
        assert store.quiz_stats("quiz", 5).attempts >= 5  # reading still works
        (small_disk / "filler").unlink()
        store.set_setting("last_opened", "lesson")
        assert store.get_setting("last_opened") == "lesson"


def test_full_disk_at_first_start_leaves_nothing_behind(small_disk: Path) -> None:
    data = small_disk / "data"
    data.mkdir()
    fill_disk(small_disk)
    for _ in range(3):
        with pytest.raises(StoreError, match="full"):
            ProgressStore(data)
        store = ProgressStore(data, interactive=True)
        assert store.notice is not None and "not saved" in store.notice
        assert not store.saving
        store.record_attempt(None, "quiz", 1, "1", True)  # the session itself works
        assert len(store.attempts()) == 1
        store.close()
    assert sorted(p.name for p in data.iterdir()) in ([], [DB_NAME]), list(data.iterdir())
    assert aside_files(data) == []


def test_injected_full_disk_on_a_write(data_dir: Path) -> None:
    """Without a tmpfs: SQLite's own page limit gives the same SQLITE_FULL."""
    saved_store(data_dir)
    with ProgressStore(data_dir) as store:
        problems = Problems()
        store.on_problem = problems
        cap_database_at_its_size(store)
        for index in range(200):
            store.set_setting(f"position:{index}", "x" * 300)
        assert problems == ["Progress not saved: the disk or your quota is full."]
        with pytest.raises(StoreWriteError):
            for _ in range(200):
                store.record_attempt(None, "quiz", 1, "y" * 300, True)


# long lock


def test_long_lock_while_running_never_freezes_for_long(data_dir: Path) -> None:
    """Under a held lock the first write waits its short timeout, and the writes after it
    are queued without trying the lock again: together they take less than that first
    wait (a ratio in one process, so a busy machine cannot fail it); reads give up too."""
    saved_store(data_dir)
    with ProgressStore(data_dir, interactive=True) as store, exclusive_lock(data_dir / DB_NAME):
        problems = Problems()
        store.on_problem = problems
        start = time.monotonic()
        store.set_setting("last_opened", "other")  # waits QUICK_TIMEOUT_MS, then queued
        first_wait = time.monotonic() - start
        assert first_wait >= QUICK_TIMEOUT_MS / 1000 * 0.9  # it did try the lock
        start = time.monotonic()
        for index in range(20):  # queued at once: the lock is not tried again so soon
            store.set_setting(f"position:{index}", str(index))
            store.mark_lesson_done(f"lesson-{index}")
        assert time.monotonic() - start < first_wait
        assert problems == []  # a lock that may end soon is not worth a notice yet
        start = time.monotonic()
        assert store.get_setting("last_opened") is None  # gave up: the lock is still held
        first_read = time.monotonic() - start
        assert problems and all("holding the progress file" in p for p in problems)
        start = time.monotonic()  # reads right after that one do not wait again
        assert store.get_setting("position:1") is None
        with pytest.raises(StoreError, match="could not be read"):
            store.lessons_done()
        assert time.monotonic() - start < first_read
        with pytest.raises(StoreWriteError, match="holding the progress file"):
            store.record_attempt(None, "quiz", 1, "1", True)  # an answer gives up as well
        with pytest.raises(StoreError, match="could not be read"):
            store.quiz_stats("quiz", 5)
    with ProgressStore(data_dir) as store:  # the lock is gone: queued writes went in at close
        assert store.quiz_stats("quiz", 5).attempts == 5
        assert store.get_setting("last_opened") == "other"
        assert store.get_setting("position:19") == "19"
        assert len(store.lessons_done()) == 21


class FrozenClock:
    """Stands in for the store's `time` module: its monotonic clock moves only when the
    test moves it, so a retry interval is passed without waiting it out."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


def test_queued_writes_go_in_once_the_lock_ends(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FrozenClock()
    monkeypatch.setattr(connection, "time", clock)
    saved_store(data_dir)
    with ProgressStore(data_dir, interactive=True) as store:
        with exclusive_lock(data_dir / DB_NAME):
            store.set_setting("last_opened", "first")
            store.set_setting("last_opened", "second")
        clock.now += RETRY_SECONDS / 2
        store.mark_lesson_opened("next")  # too soon to retry: queued behind the two
        assert store.get_setting("last_opened") == "quiz"
        assert "next" not in store.lesson_activity()
        clock.now += RETRY_SECONDS / 2
        store.mark_lesson_opened("later")  # the next write retries the queue first, in order
        assert store.get_setting("last_opened") == "second"
        assert {"next", "later"} <= store.lesson_activity().keys()
        assert store.problem is None


def test_long_lock_at_start_opens_an_empty_session(data_dir: Path) -> None:
    saved_store(data_dir)
    before = (data_dir / DB_NAME).read_bytes()
    with exclusive_lock(data_dir / DB_NAME):
        store = ProgressStore(data_dir, interactive=True)  # gives up while the lock is held
        assert store.notice is not None and "holding the progress file" in store.notice
        store.close()
    assert (data_dir / DB_NAME).read_bytes() == before
    assert aside_files(data_dir) == []


# read-only files and folders, modes


def test_read_only_database_is_left_read_only(data_dir: Path) -> None:
    saved_store(data_dir)
    database = data_dir / DB_NAME
    database.chmod(0o444)
    before = database.read_bytes()
    with ProgressStore(data_dir) as store:
        assert store.notice is not None
        assert "read-only" in store.notice and "0444" in store.notice
        assert not store.saving
        assert store.quiz_stats("quiz", 5).attempts == 5  # what was saved is shown
        store.record_attempt(None, "quiz", 1, "new", True)  # the session goes on in memory
        store.set_setting("last_opened", "lesson")
        assert store.quiz_stats("quiz", 5).attempts == 6
    assert mode(database) == 0o444
    assert database.read_bytes() == before


def test_read_only_folder_is_left_read_only(data_dir: Path) -> None:
    saved_store(data_dir)
    data_dir.chmod(0o555)
    try:
        with ProgressStore(data_dir) as store:
            assert store.notice is not None and "read-only" in store.notice
            assert store.get_setting("last_opened") == "quiz"
            store.mark_lesson_opened("another")
        assert mode(data_dir) == 0o555
        assert sorted(p.name for p in data_dir.iterdir()) == [DB_NAME]
    finally:
        data_dir.chmod(0o700)


def test_read_only_folder_without_a_database(data_dir: Path) -> None:
    data_dir.mkdir(mode=0o555)
    data_dir.chmod(0o555)
    try:
        with pytest.raises(StoreError, match="read-only"):
            ProgressStore(data_dir)
        with ProgressStore(data_dir, interactive=True) as store:
            assert store.notice is not None and "read-only" in store.notice
            store.set_setting("last_opened", "a")
        assert list(data_dir.iterdir()) == []
    finally:
        data_dir.chmod(0o700)


def test_existing_shared_folder_keeps_its_mode(tmp_path: Path) -> None:
    shared = tmp_path / "class"
    shared.mkdir()
    shared.chmod(0o775)
    saved_store(shared)
    assert mode(shared) == 0o775
    assert mode(shared / DB_NAME) == 0o600  # created by the app


def test_existing_database_keeps_its_mode(data_dir: Path) -> None:
    saved_store(data_dir)
    (data_dir / DB_NAME).chmod(0o640)
    saved_store(data_dir)
    assert mode(data_dir / DB_NAME) == 0o640


@pytest.mark.parametrize("umask", [0o002, 0o022, 0o000, 0o277])
def test_created_folders_and_files_are_private_under_any_umask(tmp_path: Path, umask: int) -> None:
    data = tmp_path / "a" / "b" / "data"
    old = os.umask(umask)
    try:
        saved_store(data)
        logs = ensure_private_dir(tmp_path / "other" / "logs")  # what `attn-tui train` makes
    finally:
        os.umask(old)
    for folder in (tmp_path / "a", tmp_path / "a" / "b", data, tmp_path / "other", logs):
        assert mode(folder) == 0o700, folder
    assert mode(data / DB_NAME) == 0o600


# links


def test_symlinked_database_is_refused(data_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-program.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE mine (x)")
    conn.commit()
    conn.close()
    other.chmod(0o644)
    before = other.read_bytes()
    data_dir.mkdir()
    (data_dir / DB_NAME).symlink_to(other)
    for fallback in (False, True):
        with pytest.raises(StoreError, match="symbolic link"):
            ProgressStore(data_dir, interactive=fallback)
    assert other.read_bytes() == before and mode(other) == 0o644
    assert (data_dir / DB_NAME).is_symlink()


def test_symlinked_data_folder_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    real.chmod(0o755)
    link = tmp_path / "data"
    link.symlink_to(real)
    with pytest.raises(StoreError, match="symbolic link"):
        ProgressStore(link, interactive=True)
    assert list(real.iterdir()) == [] and mode(real) == 0o755


def test_app_refuses_a_symlinked_data_folder_in_one_line(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "data").symlink_to(real)
    # Without a terminal the app would stop at "no terminal" first: plain mode, fed from a
    # pipe, opens the store as the full-screen app does.
    result = subprocess.run(
        [sys.executable, "-m", "tui_course", "--plain", "--data-dir", str(tmp_path / "data")],
        input="q\n",
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "symbolic link" in result.stderr
    assert list(real.iterdir()) == []


# healthy files that fail to open are never moved aside


def test_journal_folder_does_not_move_a_healthy_database(data_dir: Path) -> None:
    saved_store(data_dir)
    before = (data_dir / DB_NAME).read_bytes()
    (data_dir / (DB_NAME + "-journal")).mkdir()
    store = ProgressStore(data_dir, interactive=True)
    store.close()
    assert aside_files(data_dir) == []
    assert (data_dir / DB_NAME).read_bytes() == before
    (data_dir / (DB_NAME + "-journal")).rmdir()
    with ProgressStore(data_dir) as again:
        assert again.quiz_stats("quiz", 5).attempts == 5


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_left_alone(data_dir: Path) -> None:  # pragma: no cover - non-root
    saved_store(data_dir)
    (data_dir / DB_NAME).chmod(0)
    with ProgressStore(data_dir, interactive=True) as store:
        assert store.notice is not None
    assert aside_files(data_dir) == []


# damaged pages


def damaged_copies(tmp_path: Path) -> list[tuple[str, bytes]]:
    """One copy per page, that page overwritten; and one per page with a few bytes changed."""
    saved_store(tmp_path / "good", attempts=60)
    raw = (tmp_path / "good" / DB_NAME).read_bytes()
    copies = []
    for page in range(len(raw) // PAGE):
        start = page * PAGE + (100 if page == 0 else 0)  # keep the file header on page 1
        wiped = bytearray(raw)
        wiped[start : (page + 1) * PAGE] = b"\xff" * ((page + 1) * PAGE - start)
        copies.append((f"page {page + 1} wiped", bytes(wiped)))
        poked = bytearray(raw)
        for offset in range(start + 8, (page + 1) * PAGE, 509):
            poked[offset] ^= 0x5A
        copies.append((f"page {page + 1} poked", bytes(poked)))
    noise = random.Random(8)  # page 1 holds the schema's text: bytes there reach Python
    for trial in range(150):
        scribbled = bytearray(raw)
        for _ in range(noise.choice([1, 4, 16])):
            scribbled[noise.randrange(100, PAGE)] = noise.randrange(256)
        copies.append((f"page 1 scribbled {trial}", bytes(scribbled)))
    return copies


def test_damaged_pages_never_give_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copies = damaged_copies(tmp_path)
    assert len(copies) >= 10
    for name, raw in copies:
        folder = tmp_path / name.replace(" ", "-")
        folder.mkdir()
        (folder / DB_NAME).write_bytes(raw)
        code = main(["progress", "--data-dir", str(folder), "--content", str(REPO)])
        err = capsys.readouterr().err
        assert code in (0, 1), name
        assert "Traceback" not in err and err.count("\n") <= 1, (name, err)
        moved = aside_files(folder)
        if moved:  # moved only when SQLite said damaged, and then byte for byte
            assert code == 0 and "moved to" in err, name
            assert moved[0].read_bytes() == raw
        with ProgressStore(folder, interactive=True) as store:
            store.set_setting("after", "damage")


# two processes


OPEN_AT_ONCE = """
import sys, time
from pathlib import Path
from tui_course.progress.store import ProgressStore
folder, start = Path(sys.argv[1]), float(sys.argv[2])
time.sleep(max(0.0, start - time.time()))
with ProgressStore(folder) as store:
    store.record_attempt(None, "quiz", 1, sys.argv[3], True)
    print(store.notice or "")
"""


def test_two_processes_opening_a_damaged_file_at_once(data_dir: Path) -> None:
    data_dir.mkdir()
    damaged = b"SQLite format 3\0" + os.urandom(PAGE * 3)
    for trial in range(8):
        folder = data_dir / f"trial-{trial}"
        folder.mkdir()
        (folder / DB_NAME).write_bytes(damaged)
        start = time.time() + 0.6
        children = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_AT_ONCE, str(folder), str(start), name],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for name in ("first", "second", "third")
        ]
        outputs = [child.communicate(timeout=60) for child in children]
        assert [child.returncode for child in children] == [0, 0, 0], outputs
        moved = aside_files(folder)
        assert len(moved) == 1, (trial, moved)
        assert moved[0].read_bytes() == damaged
        assert sum("moved to" in out for out, _ in outputs) == 1
        assert not any("read-only" in out or "not saved" in out for out, _ in outputs), outputs
        with ProgressStore(folder) as store:
            assert sorted(a.answer for a in store.attempts()) == ["first", "second", "third"]


def test_moving_a_damaged_file_aside_leaves_the_next_sessions_journal_alone(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the damaged file has left its name, another session may create the fresh file
    and start writing it (its journal beside it): that journal is not the damaged one's.
    Moving it lost that session's answers when three sessions opened a damaged file."""
    data_dir.mkdir()
    damaged = b"SQLite format 3\0" + os.urandom(PAGE * 3)
    (data_dir / DB_NAME).write_bytes(damaged)
    journal = data_dir / (DB_NAME + "-journal")
    keep = ProgressStore._keep_under_new_name

    def another_session_starts_between(store: ProgressStore, source: Path, base: str) -> Path:
        target = keep(store, source, base)
        if source.name == DB_NAME:  # the damaged file has left: a session makes the new one
            (data_dir / DB_NAME).write_bytes(b"")
            journal.write_bytes(b"that session's journal")
        return target

    monkeypatch.setattr(ProgressStore, "_keep_under_new_name", another_session_starts_between)
    with ProgressStore(data_dir, interactive=True) as store:
        assert store.notice is not None and "moved to" in store.notice
    # (SQLite itself then treats the stand-in journal, which no lock holds, as hot and
    # rolls it back: what counts is that it was never moved aside as the damaged one's.)
    assert [p.read_bytes() for p in aside_files(data_dir)] == [damaged]


def test_a_fresh_file_another_session_writes_is_never_removed(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new progress file is empty until the first session's schema is committed. A
    session whose own schema step fails for any reason but a full disk must leave it: the
    other session's answers go into that very file."""
    from tui_course.progress import schema

    data_dir.mkdir()
    fresh = data_dir / DB_NAME
    fresh.write_bytes(b"")  # as another session has just created it
    before = os.stat(fresh)
    real = schema.prepare_schema
    calls: list[int] = []

    def journal_gone_once(conn: sqlite3.Connection) -> None:
        calls.append(1)
        if len(calls) == 1:
            error = sqlite3.OperationalError("unable to open database file")
            error.sqlite_errorcode = sqlite3.SQLITE_CANTOPEN  # type: ignore[attr-defined]
            raise error
        real(conn)

    monkeypatch.setattr(schema, "prepare_schema", journal_gone_once)
    with ProgressStore(data_dir) as store:
        store.record_attempt(None, "quiz", 1, "mine", True)
    now = os.stat(fresh)
    assert (now.st_dev, now.st_ino) == (before.st_dev, before.st_ino)  # the same file
    assert len(calls) == 2


def test_a_file_moved_aside_while_it_is_checked_is_not_taken_for_read_only(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """access() also says no for a file that has just left its name: another session
    moving the damaged file aside at that moment. That is a race to open again after, not a
    read-only file (this session's answers were kept in memory only: lost, in one run of
    three sessions opening a damaged file)."""
    data_dir.mkdir()
    damaged = data_dir / DB_NAME
    damaged.write_bytes(b"SQLite format 3\0" + os.urandom(PAGE * 3))
    real_access = os.access
    moved: list[Path] = []

    def moved_aside_meanwhile(path: object, mode: int, **kwargs: object) -> bool:
        if Path(str(path)) != damaged or moved:
            return real_access(path, mode, **kwargs)  # type: ignore[arg-type]
        # The other session: the damaged file leaves its name, this look finds nothing
        # there, then the fresh file is made.
        moved.append(damaged.rename(data_dir / f"{DB_NAME}.unreadable-elsewhere"))
        found = real_access(path, mode, **kwargs)  # type: ignore[arg-type]
        damaged.write_bytes(b"")
        return found

    monkeypatch.setattr(connection.os, "access", moved_aside_meanwhile)
    with ProgressStore(data_dir) as store:
        assert store.saving and store.notice is None, store.notice
        store.record_attempt(None, "quiz", 1, "kept", True)
    monkeypatch.undo()
    assert moved
    with ProgressStore(data_dir) as store:
        assert [attempt.answer for attempt in store.attempts()] == ["kept"]


def test_kill_9_during_move_aside_keeps_the_damaged_file(data_dir: Path) -> None:
    """A process killed holding the move-aside lock does not block the next one."""
    data_dir.mkdir()
    (data_dir / DB_NAME).write_bytes(b"not a database at all" * 300)
    script = (
        "import fcntl, os, signal, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    assert run_python(script, str(data_dir / (DB_NAME + ".lock"))).returncode == -9
    with ProgressStore(data_dir) as store:
        assert store.notice is not None and "moved to" in store.notice
    assert aside_files(data_dir)[0].read_bytes().startswith(b"not a database")


# contention between healthy sessions must still never fail

WRITER = """
import sys
from pathlib import Path
from tui_course.progress.store import ProgressStore
with ProgressStore(Path(sys.argv[1]), interactive=True) as store:
    for index in range(30):
        store.record_attempt(None, sys.argv[2], index, "x", True)
        store.set_setting("last_opened", sys.argv[2])
    print(store.notice or store.problem or "")
"""

READER = """
import sys
from pathlib import Path
from tui_course.progress.store import ProgressStore
for _ in range(15):
    with ProgressStore(Path(sys.argv[1])) as store:
        store.attempts()
"""


def test_five_sessions_writing_and_reports_reading_lose_nothing(data_dir: Path) -> None:
    """Five logins of one student answering while `attn-tui progress` runs again and again:
    the short timeouts are for long locks, not for each other's quick writes."""
    ProgressStore(data_dir).close()
    children = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(data_dir), f"quiz-{n}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(5)
    ] + [
        subprocess.Popen(
            [sys.executable, "-c", READER, str(data_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [child.communicate(timeout=120) for child in children]
    assert [child.returncode for child in children] == [0] * 7, outputs
    assert all(out.strip() == "" for out, _ in outputs), outputs  # no write problem reported
    with ProgressStore(data_dir) as store:
        assert len(store.attempts()) == 150


def test_a_query_without_the_guards_still_fails_as_one_line(data_dir: Path) -> None:
    """Queries added later that call the connection directly cannot crash a caller that
    handles StoreError, and SQLite's code is still there for `except sqlite3.Error`."""
    saved_store(data_dir)
    with ProgressStore(data_dir, interactive=True) as store, exclusive_lock(data_dir / DB_NAME):
        with pytest.raises(StoreError, match="holding the progress file") as caught:
            store._conn.execute("SELECT COUNT(*) FROM attempts")
        assert isinstance(caught.value, sqlite3.Error)
        assert caught.value.sqlite_errorcode == sqlite3.SQLITE_BUSY
