"""Training and recheck through a real Slurm (scheduler = "slurm"), as real Unix users.

Each test starts attn-tui as a separate process, as a student would, and looks at what
Slurm itself says (squeue) while and after it runs. Runs are tiny (one epoch of 64
sequences): what is tested is the path through Slurm, not the model.

A job must leave squeue after its app dies; how soon (the issue's 10 s) is measured in
bench/slurm_cancel.py, quiet and busy. Here the wait has no clock of its own beyond
WAIT, which a job left behind still fails: the hog that keeps it pending outlasts it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.slurm.cluster import NODE, PARTITION, Cluster
from tests.slurm.conftest import (
    STUDENTS,
    WAIT,
    Command,
    make_home,
    user_env,
    user_python,
    wait_for,
)

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: runs a Slurm cluster"),
    # one worker, one cluster; and the worker that makes and removes the Unix test users
    # (tests/classroom/conftest.py), since the two-student runs use them: in a worker of
    # their own they made the same users at once and removed them under the other's tests
    pytest.mark.xdist_group("unix-accounts"),
]
needs_keras = pytest.mark.skipif(
    importlib.util.find_spec("keras") is None, reason="needs the train extra (keras)"
)

TINY = ["--epochs", "1", "--train-size", "64", "--test-size", "32", "--threads", "1"]


def site_config(folder: Path, *extra: str, slurm: str = "cpus = 1\nmem = 1400\n") -> Path:
    path = folder / "site.toml"
    lines = ['scheduler = "slurm"', *extra, "[slurm]", f'partition = "{PARTITION}"', slurm]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o644)
    return path


def course_jobs(cluster: Cluster, user: str | None = None) -> list[dict[str, str]]:
    """attn-tui's jobs in squeue as Slurm lists them."""
    selection = ["-u", user] if user else []
    done = cluster.run(
        "squeue", "-h", "-n", "attn-tui-train,attn-tui-recheck", "-o", "%i|%j|%u|%T|%r", *selection
    )
    jobs = []
    for line in done.stdout.splitlines():
        job_id, name, owner, state, reason = line.split("|", 4)
        jobs.append({"id": job_id, "name": name, "user": owner, "state": state, "reason": reason})
    return jobs


def hog(cluster: Cluster) -> subprocess.Popen[bytes]:
    """A root job holding every CPU of the node, so the next job waits."""
    process = subprocess.Popen(
        ["srun", "--job-name=hog", "--cpus-per-task=2", "--mem=100", "sleep", "600"],
        env={**os.environ, **cluster.env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(
        lambda: "RUNNING" in cluster.run("squeue", "-h", "-n", "hog", "-o", "%T").stdout,
        "the hog job to run",
    )
    return process


def end_hog(cluster: Cluster, process: subprocess.Popen[bytes]) -> None:
    cluster.run("scancel", "-n", "hog")
    process.wait(30)


def events(command: Command) -> list[dict[str, object]]:
    return [json.loads(line) for line in command.lines if line.startswith("{")]


def test_two_students_train_at_once_as_their_own_jobs(slurm: Cluster, shared: Path) -> None:
    python = user_python(STUDENTS[0])
    assert python
    site = site_config(shared)
    runs = {
        name: Command(
            ["train", "--json", *TINY, "--data-dir", str(make_home(shared, name) / "d")],
            name,
            user_env(shared / name, site),
        )
        for name in STUDENTS
    }
    seen: set[tuple[str, str]] = set()

    def both_running_seen() -> bool:
        for job in course_jobs(slurm):
            if job["state"] == "RUNNING":
                seen.add((job["user"], job["name"]))
        return {user for user, _ in seen} == set(STUDENTS) or any(
            run.process.poll() is not None for run in runs.values()
        )

    wait_for(both_running_seen, "both students' jobs to run")
    assert seen == {(name, "attn-tui-train") for name in STUDENTS}
    for name, run in runs.items():
        assert run.finish() == 0, run.errors
        kinds = [event["event"] for event in events(run)]
        assert kinds[-1] == "done"
        assert "started" in kinds and "batch" in kinds
        done = events(run)[-1]
        assert done["params"] == 14049  # the published transformer, trained on the node
        # the log the child wrote on the node is the student's own file
        logs = list((shared / name / "d" / "logs").iterdir())
        assert logs and all(log.stat().st_uid == _uid(name) for log in logs)
    wait_for(lambda: not course_jobs(slurm), "the finished jobs to leave squeue")


def _uid(name: str) -> int:
    return pwd.getpwnam(name).pw_uid


def test_waiting_shows_slurms_position_and_reason_then_ctrl_c_cancels(
    slurm: Cluster, shared: Path
) -> None:
    user_python(STUDENTS[0])
    site = site_config(shared)
    blocker = hog(slurm)
    try:
        ann = STUDENTS[0]
        run = Command(
            ["train", *TINY, "--data-dir", str(make_home(shared, ann) / "d")],
            ann,
            user_env(shared / ann, site),
        )
        wait_for(
            lambda: run.said("waiting for Slurm: position 1, reason Resources"), "the waiting line"
        )
        (job,) = course_jobs(slurm, ann)
        assert job["state"] == "PENDING" and job["reason"] == "Resources"
        assert run.said(f"(job {job['id']})")
        # the teacher's view lists it, with Slurm's reason
        import grp

        from tui_course.classroom.folder import init_class

        init_class(shared / "class", grp.getgrgid(os.getgid()).gr_name, 1, "Attention 101")
        status = subprocess.run(
            [sys.executable, "-m", "tui_course", "class", "status", str(shared / "class")],
            env={**os.environ, "ATTN_TUI_CONFIG": str(site)},
            capture_output=True,
            text=True,
        )
        assert f"{job['id']} attn-tui-train {ann}: pending, reason Resources" in status.stdout, (
            status.stdout + status.stderr
        )
        run.process.send_signal(signal.SIGINT)  # Ctrl-C
        assert run.finish() == 130
        wait_for(lambda: not course_jobs(slurm, ann), "the job to leave squeue")
    finally:
        end_hog(slurm, blocker)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGHUP])
def test_the_app_dying_while_pending_leaves_no_job(
    slurm: Cluster, shared: Path, how: signal.Signals
) -> None:
    user_python(STUDENTS[1])
    site = site_config(shared)
    blocker = hog(slurm)
    try:
        bob = STUDENTS[1]
        run = Command(
            ["train", *TINY, "--data-dir", str(make_home(shared, bob) / "d")],
            bob,
            user_env(shared / bob, site),
        )
        wait_for(lambda: run.said("waiting for Slurm"), "the waiting line")
        assert [job["state"] for job in course_jobs(slurm, bob)] == ["PENDING"]
        run.process.send_signal(how)
        run.finish()
        wait_for(lambda: not course_jobs(slurm, bob), "the job to leave squeue")
    finally:
        end_hog(slurm, blocker)


def test_kill_9_of_a_training_app_ends_its_running_job(slurm: Cluster, shared: Path) -> None:
    user_python(STUDENTS[0])
    site = site_config(shared)
    ann = STUDENTS[0]
    run = Command(
        [
            "train",
            "--json",
            "--epochs",
            "1000",
            "--threads",
            "1",
            "--data-dir",
            str(make_home(shared, ann) / "d"),
        ],
        ann,
        user_env(shared / ann, site),
    )
    wait_for(lambda: any(e["event"] == "batch" for e in events(run)), "training to run")
    assert [job["state"] for job in course_jobs(slurm, ann)] == ["RUNNING"]
    run.process.kill()
    run.finish()
    wait_for(lambda: not course_jobs(slurm, ann), "the job to leave squeue")


def test_a_drained_node_is_the_reason_shown(slurm: Cluster, shared: Path) -> None:
    user_python(STUDENTS[0])
    site = site_config(shared)
    assert (
        slurm.run(
            "scontrol", "update", f"nodename={NODE}", "state=drain", "reason=disk swap"
        ).returncode
        == 0
    )
    ann = STUDENTS[0]
    run = Command(
        ["train", *TINY, "--data-dir", str(make_home(shared, ann) / "d")],
        ann,
        user_env(shared / ann, site),
    )
    wait_for(lambda: course_jobs(slurm, ann) and run.said("waiting for Slurm"), "waiting")
    (job,) = course_jobs(slurm, ann)
    # Slurm's own reason, whichever words this version uses for a drained node
    assert "Req" in job["reason"] or "DRAINED" in job["reason"]
    wait_for(
        lambda: run.said(f"reason {course_jobs(slurm, ann)[0]['reason']}"),
        "the line to show Slurm's reason",
    )
    run.process.send_signal(signal.SIGINT)
    assert run.finish() == 130
    wait_for(lambda: not course_jobs(slurm, ann), "the job to leave squeue")


@needs_keras
def test_a_job_killed_for_memory_is_one_line_naming_the_limit(
    slurm: Cluster, tmp_path: Path
) -> None:
    site = site_config(tmp_path, slurm="cpus = 1\nmem = 200\n")
    run = Command(
        ["train", *TINY, "--data-dir", str(tmp_path / "d")],
        None,
        {**os.environ, "ATTN_TUI_CONFIG": str(site)},
    )
    assert run.finish() == 1
    assert run.errors[-1].startswith("attn-tui: train: Slurm job ")
    assert "was killed for using more memory than its limit (200 MB" in run.errors[-1]
    assert sum("memory" in line for line in run.errors) == 1
    from tui_course.progress.store import ProgressStore

    with ProgressStore(tmp_path / "d") as store:  # kept as failed, not lost
        (failed,) = store.failed_training_runs()
    assert failed.reason == run.errors[-1].removeprefix("attn-tui: train: ")
    assert "exceeded memory limit" in Path(failed.log).read_text()  # srun's words, in the log


@needs_keras
def test_a_job_past_its_time_limit_is_one_line_naming_it(slurm: Cluster, tmp_path: Path) -> None:
    """Slurm's smallest limit is a minute, and it looks every 30 s: this takes 1 to 1.5 min."""
    site = site_config(tmp_path, slurm="cpus = 1\nmem = 1400\ntime_limit = 1\n")
    run = Command(
        ["train", "--epochs", "1000", "--threads", "1", "--data-dir", str(tmp_path / "d")],
        None,
        {**os.environ, "ATTN_TUI_CONFIG": str(site)},
    )
    assert run.finish(timeout=2 * WAIT) == 1
    (line,) = [line for line in run.errors if "time limit" in line]
    assert line.startswith("attn-tui: train: Slurm job ")
    assert line.endswith(
        "was stopped at its time limit (1 minute, time_limit in the site's [slurm] table):"
        " fewer epochs fit in it"
    )
    from tui_course.progress.store import ProgressStore

    with ProgressStore(tmp_path / "d") as store:
        (failed,) = store.failed_training_runs()
    assert failed.epochs  # the epochs it finished are kept with the failure


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="recheck needs bwrap")
def test_recheck_runs_as_the_teachers_job(slurm: Cluster, tmp_path: Path) -> None:
    import grp

    from tui_course.classroom.folder import init_class

    class_dir = tmp_path / "class"
    init_class(class_dir, grp.getgrgid(os.getgid()).gr_name, 1, "Attention 101")
    (class_dir / "dropbox" / "junk.txt").write_text("not a submission")
    site = site_config(tmp_path, f'class_dir = "{class_dir}"')
    env = {**os.environ, "ATTN_TUI_CONFIG": str(site), "ATTN_TUI_DATA_DIR": str(tmp_path / "d")}
    blocker = hog(slurm)
    try:
        run = Command(["class", "recheck", "--seed", "7"], None, env)
        wait_for(
            lambda: run.said("waiting for Slurm: position 1, reason Resources"),
            "the recheck to wait in Slurm",
        )
        assert [job["name"] for job in course_jobs(slurm)] == ["attn-tui-recheck"]
    finally:
        end_hog(slurm, blocker)
    assert run.finish() == 0, run.errors
    assert "held-out seed 7 (again: --seed 7)" in run.lines
    # issue 29's "skipped twice", through the job: the watcher relays the job's stderr once
    me = pwd.getpwuid(os.geteuid()).pw_name
    skipped = [line for line in run.errors if "skipped" in line]
    assert skipped == [f"attn-tui: skipped junk.txt: not JSON ({me})"]


@needs_keras
def test_controller_down_or_srun_missing_is_one_line(slurm: Cluster, tmp_path: Path) -> None:
    from tui_course.progress.records import TrainingRecord
    from tui_course.progress.store import ProgressStore

    data = tmp_path / "d"
    kept = TrainingRecord("cli", {}, 1, 0.5, 0.7, 1.0, (), None, "2026-01-01T00:00:00+00:00")
    with ProgressStore(data) as store:
        assert store.record_training_run(kept)
    site = site_config(tmp_path)
    env = {**os.environ, "ATTN_TUI_CONFIG": str(site)}
    slurm.stop_daemon("slurmctld")
    down = Command(["train", *TINY, "--data-dir", str(data)], None, env)
    assert down.finish() == 1
    assert down.errors == [
        "attn-tui: train: Slurm's controller (slurmctld) does not answer: an admin starts it"
        ' (systemctl start slurmctld), or sets scheduler = "local" in the site config'
    ]
    doctor = Command(["doctor", "--teacher"], None, env)
    assert doctor.finish() != 0
    assert any(line.startswith("blocker slurm") and "slurmctld" in line for line in doctor.lines)
    slurm.start_controller()
    no_srun = Command(
        ["train", *TINY, "--data-dir", str(data)],
        None,
        {**env, "PATH": str(Path(sys.executable).parent)},
    )
    assert no_srun.finish() != 0
    assert len(no_srun.errors) == 1
    assert "srun is not installed on this server" in no_srun.errors[0]
    with ProgressStore(data) as store:
        assert [run.finished_at for run in store.training_runs()] == [kept.finished_at]


def test_doctor_checks_the_partition_and_a_test_submission(slurm: Cluster, tmp_path: Path) -> None:
    env = {**os.environ, "ATTN_TUI_CONFIG": str(site_config(tmp_path))}
    good = Command(["doctor", "--teacher"], None, env)
    good.finish()
    slurm_lines = [line for line in good.lines if " slurm " in f" {line} "]
    assert [line.split()[0] for line in slurm_lines] == ["ok", "ok", "ok"], good.lines
    assert any(f"partition '{PARTITION}' is up" in line for line in slurm_lines)
    assert any("may submit" in line for line in slurm_lines)
    (tmp_path / "bad").mkdir()
    bad_site = site_config(tmp_path / "bad", slurm='partition = "nosuch"\n')
    bad_site.write_text(bad_site.read_text().replace(f'partition = "{PARTITION}"\n', ""))
    bad = Command(["doctor", "--teacher"], None, {**env, "ATTN_TUI_CONFIG": str(bad_site)})
    assert bad.finish() != 0
    assert any(
        "partition 'nosuch' does not exist (partitions: attn)" in line for line in bad.lines
    ), bad.lines
