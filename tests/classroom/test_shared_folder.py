"""Several login servers, one class folder: nothing that crosses machines rests on a lock.

Real NFS is not available to the tests. What they pin down is what the code does where
two servers share the folder: a drop-box file gets its name only once it is whole (by
link, atomic on the file server), and each server's training line holds only the queue
files named for that server, so a run on another server, whose lock and process this one
cannot see, is neither counted here nor removed as a leftover. The two servers are this
process under two host names, and a child process with a host name of its own (a UTS
namespace, where the tests may make one).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from tui_course.classroom import report as report_module
from tui_course.classroom import slots as slots_module
from tui_course.classroom import submission as submission_module
from tui_course.classroom.clean import clean_dropbox
from tui_course.classroom.report import Rejected, newest_per_owner
from tui_course.classroom.slots import TrainingSlots, this_server
from tui_course.classroom.status import recent_lines
from tui_course.classroom.submission import deliver, in_transit

PAYLOAD = b'{"format": "attn-tui-submission", "padding": "' + b"x" * 4000 + b'"}\n'


def listing(dropbox: Path) -> tuple[list[str], list[Rejected]]:
    """What a report on another server would read: every file name it keeps, and the
    entries it would show as problems."""
    odd: list[Rejected] = []
    found = newest_per_owner(dropbox, 100, odd.append)
    names = [entry.name for files in found.owners.values() for entry in files]
    return names, odd


def test_a_submission_is_named_only_once_it_is_whole(
    class_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dropbox = class_dir / "dropbox"
    seen_mid_write: list[tuple[list[str], list[Rejected]]] = []
    status_mid_write: list[str] = []
    real_write = os.write

    def half_then_look(fd: int, data: bytes | memoryview) -> int:
        # the student's app has written half of its file: a report looks now
        written = real_write(fd, bytes(data[: max(len(data) // 2, 1)]))
        if not seen_mid_write:
            seen_mid_write.append(listing(dropbox))
            status_mid_write.extend(recent_lines(dropbox))
        return written

    monkeypatch.setattr(os, "write", half_then_look)
    path = deliver(dropbox, PAYLOAD, "ann")
    monkeypatch.setattr(os, "write", real_write)

    names, odd = seen_mid_write[0]
    assert names == [] and odd == []  # nothing half-written under a name, nothing to warn of
    assert status_mid_write == ["Recent submissions (0 file(s) in the drop-box):"]
    assert path.read_bytes() == PAYLOAD
    assert path.stat().st_nlink == 1
    assert [p.name for p in dropbox.iterdir()] == [path.name]  # no .part- file left
    assert listing(dropbox)[0] == [path.name]


def test_a_link_whose_reply_was_lost_counts_as_made(class_dir: Path) -> None:
    dropbox = class_dir / "dropbox"
    part = dropbox / ".part-0123456789abcdef"
    part.write_bytes(b"{}")
    target = dropbox / "ann-1.json"
    os.link(part, target)  # the server made it; the client was told EEXIST on the resend
    assert submission_module._linked(part, target) is True
    other = dropbox / "ann-2.json"
    other.write_bytes(b"someone else's")
    assert submission_module._linked(part, other) is False
    assert other.read_bytes() == b"someone else's"


def test_a_part_file_left_by_a_dead_writer_is_shown_and_cleaned(
    class_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dropbox = class_dir / "dropbox"
    part = dropbox / ".part-fedcba9876543210"
    part.write_bytes(b'{"format": "attn-tui-sub')
    assert in_transit(part.name) and not in_transit(".part-short") and not in_transit("a.json")
    # young: a submission on its way, neither read, shown nor removed
    assert listing(dropbox) == ([], [])
    result = clean_dropbox(dropbox)
    assert part.exists() and result.removed == []
    # eleven minutes on (either way: another server's clock), its writer is gone
    later = time.time_ns() + (report_module.IN_TRANSIT_SECONDS + 60) * 10**9
    monkeypatch.setattr(time, "time_ns", lambda: later)
    assert listing(dropbox)[0] == [part.name]  # read, and so reported, like any junk
    assert clean_dropbox(dropbox).removed == [part.name]
    assert not part.exists()


@pytest.fixture
def queue(tmp_path: Path) -> Path:
    folder = tmp_path / "queue"
    folder.mkdir(mode=0o1777)
    return folder


def server(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setattr(slots_module, "this_server", lambda: name)


def one_slot(queue: Path) -> TrainingSlots:
    return TrainingSlots(queue, queue, 1, runs_per_user=1)


def test_each_server_counts_only_its_own_line(queue: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server(monkeypatch, "alpha")
    alpha = one_slot(queue).try_take()
    assert alpha is not None and alpha.path is not None
    assert alpha.path.name.endswith(".alpha")
    assert one_slot(queue).try_take() is None  # alpha's one slot is taken
    server(monkeypatch, "beta")
    beta_slots = one_slot(queue)
    assert beta_slots.state().in_use == 0  # alpha's CPU is not beta's
    beta = beta_slots.try_take()
    assert beta is not None and beta.path is not None and beta.path.name.endswith(".beta")
    server(monkeypatch, "alpha")
    assert one_slot(queue).state().in_use == 1
    alpha.release()
    beta.release()
    assert list(queue.iterdir()) == []


def test_another_servers_run_is_never_removed_as_a_leftover(
    queue: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Files of this account that no process here has locked: on beta, alpha's runs look
    # exactly like this (their locks are known to alpha and the file server only).
    names = {
        "alpha": f"run-{'a' * 24}.alpha",
        "ours": f"run-{'b' * 24}.beta",
        "legacy": f"ticket-{'c' * 24}",  # an older version's name: this server's
    }
    for name in names.values():
        (queue / name).touch()
    server(monkeypatch, "beta")
    assert one_slot(queue).state().in_use == 0
    left = sorted(p.name for p in queue.iterdir())
    assert left == [names["alpha"]]  # beta's own and the legacy leftovers went


def test_the_run_file_is_open_for_writing(queue: Path) -> None:
    # Linux's NFS client turns flock(LOCK_EX) into a POSIX write lock, which a file open
    # read-only cannot take (EBADF): training could not join the line over NFS.
    slot = one_slot(queue).try_take()
    assert slot is not None and slot.fd is not None
    assert fcntl.fcntl(slot.fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDWR
    slot.release()


def test_this_server_is_a_safe_name_part(monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.uname()
    fake = os.uname_result((real.sysname, "lab1.cs.example.edu", *real[2:]))
    monkeypatch.setattr(os, "uname", lambda: fake)
    assert this_server() == "lab1-cs-example-edu"


TAKE_ONE = """
import json, sys
from pathlib import Path
from tui_course.classroom.slots import TrainingSlots, this_server
from tui_course.classroom.status import recent_lines
queue = Path(sys.argv[1])
slot = TrainingSlots(queue, queue, 1, runs_per_user=1).try_take()
print(json.dumps({"server": this_server(), "took": None if slot is None else slot.path.name}))
"""


def _can_make_uts_namespace() -> bool:
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        return False
    probe = subprocess.run([unshare, "--uts", "true"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _can_make_uts_namespace(), reason="needs root and unshare --uts")
def test_two_servers_as_two_processes_with_their_own_host_names(queue: Path) -> None:
    mine = one_slot(queue).try_take()
    assert mine is not None  # this server's only slot
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-c", TAKE_ONE, str(queue)]
    same = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    assert json.loads(same.stdout)["took"] is None  # same server: the slot is taken
    rename_then_run = 'hostname attn-other-server && exec "$@"'
    other = subprocess.run(
        ["unshare", "--uts", "sh", "-c", rename_then_run, "-", *command],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    answer = json.loads(other.stdout)
    assert answer["server"] == "attn-other-server" != this_server()
    assert answer["took"] is not None and answer["took"].endswith(".attn-other-server")
    # the other server's process has ended: its file is its own leftover, not ours
    assert (queue / answer["took"]).exists()
    assert one_slot(queue).state().in_use == 1
    mine.release()


def test_clean_archives_across_file_systems_without_opening_a_fifo(
    class_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The class folder on NFS and the teacher's archive in a local home: rename(2) says
    # EXDEV. Regular files are copied then removed; a FIFO or a link is only removed.
    import errno

    dropbox = class_dir / "dropbox"
    (dropbox / "junk.txt").write_bytes(b"not a submission\n")
    os.mkfifo(dropbox / "fifo")
    os.symlink("/etc/passwd", dropbox / "link")
    archive = tmp_path / "archive"

    def other_file_system(source: object, target: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "rename", other_file_system)
    result = clean_dropbox(dropbox, archive)
    assert sorted(result.removed) == ["fifo", "junk.txt", "link"] and result.failed == []
    assert os.listdir(dropbox) == []
    assert os.listdir(archive) == ["junk.txt"]
    assert (archive / "junk.txt").read_bytes() == b"not a submission\n"


def test_a_hidden_name_hides_no_big_file_and_no_flood(class_dir: Path) -> None:
    # A student's shell can keep a `.part-` file's ctime new for ever (touch in a loop):
    # young alone is no proof of a submission on its way. One larger than any submission,
    # or past the few one account's app can be writing at once, is read like any file.
    dropbox = class_dir / "dropbox"
    big = dropbox / ".part-00000000000000ff"
    with big.open("wb") as handle:
        handle.truncate(submission_module.MAX_SUBMISSION_BYTES + 1)  # sparse
    flood = [dropbox / f".part-{number:016x}" for number in range(10)]
    for part in flood:
        part.write_bytes(b'{"format": "attn-tui-submission", "user": "someone-else"}')
    names, odd = listing(dropbox)
    assert odd == [] and big.name in names
    passed_over = [part for part in flood if part.name not in names]
    assert len(passed_over) == report_module.MAX_IN_TRANSIT
    assert recent_lines(dropbox)[0] == "Recent submissions (7 file(s) in the drop-box):"
    result = clean_dropbox(dropbox)
    assert big.name in result.removed and len(result.removed) == 7
    left = os.listdir(dropbox)
    assert len(left) == report_module.MAX_IN_TRANSIT and set(left) < {p.name for p in flood}


def test_clean_copies_no_file_larger_than_a_submission_to_another_file_system(
    class_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A sparse file costs its student no quota; copied across file systems it is written
    # out whole, and a terabyte fills the teacher's disk. It stays, and clean says why.
    import errno

    dropbox = class_dir / "dropbox"
    (dropbox / "junk.txt").write_bytes(b"not a submission\n")
    huge = dropbox / "huge.bin"
    with huge.open("wb") as handle:
        handle.truncate(8 * submission_module.MAX_SUBMISSION_BYTES)
    archive = tmp_path / "archive"

    def other_file_system(source: object, target: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "rename", other_file_system)
    result = clean_dropbox(dropbox, archive)
    assert result.removed == ["junk.txt"]
    [(name, reason)] = result.failed
    assert name == "huge.bin" and reason.startswith("larger than any submission (4,194,304 bytes)")
    assert os.listdir(dropbox) == ["huge.bin"] and os.listdir(archive) == ["junk.txt"]


def test_clean_archives_only_into_a_folder_no_one_else_can_change(
    class_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui_course.cli import main

    dropbox = class_dir / "dropbox"
    (dropbox / "junk.txt").write_bytes(b"not a submission\n")
    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    open_to_all.chmod(0o1777)  # a name in /tmp someone made first
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(elsewhere)
    for archive, said in ((open_to_all, "others may write"), (link, "is not a folder")):
        assert main(["class", "clean", str(class_dir), "--archive", str(archive)]) == 1
        err = capsys.readouterr().err
        assert f"class clean: --archive {archive}: " in err and said in err
        assert os.listdir(dropbox) == ["junk.txt"]
    assert os.listdir(open_to_all) == [] and os.listdir(elsewhere) == []


def test_clean_removes_a_young_part_folder_or_fifo(class_dir: Path) -> None:
    # The app writes a regular file. A `.part-` folder kept young by a touch in a loop was
    # never removed, whatever it held; the report lists it, so clean must be able to.
    dropbox = class_dir / "dropbox"
    folder = dropbox / ".part-00000000000000aa"
    folder.mkdir()
    (folder / "inside").write_bytes(b"x" * 1000)
    os.mkfifo(dropbox / ".part-00000000000000bb")
    names, odd = listing(dropbox)
    assert names == [] and sorted(r.name for r in odd) == [folder.name, ".part-00000000000000bb"]
    result = clean_dropbox(dropbox)
    assert sorted(result.removed) == [folder.name, ".part-00000000000000bb"]
    assert os.listdir(dropbox) == []


def test_young_part_files_cost_a_look_a_few_reads(
    class_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Whether a young `.part-` file is a whole forgery takes a read; a student's thousands
    # of them must not cost each look thousands of reads before any cap applies.
    dropbox = class_dir / "dropbox"
    from tests.classroom.conftest import submission
    from tui_course.classroom.submission import encode_submission

    forged = encode_submission(submission("someone-else", "2026-11-30T08:00:00Z", quiz=(5, 5)))
    for number in range(50):
        (dropbox / f".part-{number:016x}").write_bytes(forged)
    looked: list[str] = []
    real = report_module._forged_or_impossible

    def counting(directory: Path, name: str) -> bool:
        looked.append(name)
        return real(directory, name)

    monkeypatch.setattr(report_module, "_forged_or_impossible", counting)
    names, _ = listing(dropbox)
    assert len(looked) == report_module.MAX_IN_TRANSIT
    assert len(names) == 50  # each a whole forgery: none passed over, all shown
