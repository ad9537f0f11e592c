"""`scheduler` and the [slurm] table of the site config, and the srun line made from them.

No cluster needed: these are the parts that read files and build command lines.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tui_course.classroom.config import ConfigError, SlurmSettings, load_site_config
from tui_course.classroom.slurm import CONTROLLER_DOWN, ended_line, parse_squeue, srun_command
from tui_course.training.options import TrainOptions
from tui_course.training.runner import TrainingRun, child_command


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


FULL = """scheduler = "slurm"

[slurm]
partition = "teach"
account = "cs101"
qos = "short"
time_limit = 30
mem = 1800
cpus = 2
extra_args = ["--constraint=avx2", "--reservation=lab"]
"""


def test_the_default_is_local_and_slurm_reads_every_key(tmp_path: Path) -> None:
    assert load_site_config(write(tmp_path, "training_slots = 2\n")).scheduler == "local"
    assert load_site_config(write(tmp_path, "training_slots = 2\n")).slurm is None
    site = load_site_config(write(tmp_path, FULL))
    assert site.scheduler == "slurm"
    assert site.slurm == SlurmSettings(
        "teach", "cs101", "short", 30, 1800, 2, ("--constraint=avx2", "--reservation=lab")
    )
    bare = load_site_config(write(tmp_path, 'scheduler = "slurm"\n'))
    assert bare.slurm == SlurmSettings()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('scheduler = "pbs"\n', r":1: 'scheduler' must be \"local\" or \"slurm\", got 'pbs'"),
        ("scheduler = 1\n", r":1: 'scheduler' must be"),
        ('scheduler = "slurm"\n[slurm]\nmemory = 4\n', r":3: \[slurm\]: unknown key 'memory'"),
        ('scheduler = "slurm"\n[slurm]\nmem = "2G"\n', r":3: \[slurm\]: 'mem' must be"),
        ('scheduler = "slurm"\n[slurm]\ncpus = 0\n', r":3: slurm 'cpus' must be from 1 to"),
        ("[slurm]\n\ntime_limit = -5\n", r":3: slurm 'time_limit' must be from 1 to"),
        ('[slurm]\nextra_args = "--x"\n', r":2: \[slurm\]: 'extra_args' must be"),
        ("[slurm]\nextra_args = [1]\n", r":2: \[slurm\]: 'extra_args' must be"),
        ('[slurm]\npartition = "a b"\n', r":2: slurm 'partition' must be a name without spaces"),
    ],
)
def test_a_bad_value_is_one_line_naming_file_and_line(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=message) as raised:
        load_site_config(path)
    assert str(raised.value).startswith(f"{path}:")
    assert "\n" not in str(raised.value)


def test_srun_line_carries_the_sites_limits_then_the_same_child(tmp_path: Path) -> None:
    site = load_site_config(write(tmp_path, FULL))
    assert site.slurm is not None
    child = child_command(TrainOptions(epochs=2), tmp_path / "log")
    command = srun_command(site.slurm, "attn-tui-train", "abc123", child)
    assert command[: command.index("--")] == [
        "srun",
        "--job-name=attn-tui-train",
        "--comment=attn-tui:abc123",
        "--nodes=1",
        "--ntasks=1",
        "--kill-on-bad-exit=1",
        "--partition=teach",
        "--account=cs101",
        "--qos=short",
        "--time=30",
        "--mem=1800",
        "--cpus-per-task=2",
        "--constraint=avx2",
        "--reservation=lab",
    ]
    assert command[command.index("--") + 1 :] == child
    assert child[:3] == [sys.executable, "-m", "tui_course.training"]


def test_a_slurm_site_makes_the_run_a_watched_srun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(write(tmp_path, FULL)))
    run = TrainingRun.for_options(TrainOptions(epochs=2), tmp_path / "data")
    assert run.command[1:3] == ["-m", "tui_course.training.slurm_job"]
    srun = run.command.index("srun")
    assert run.command[run.command.index("--") + 1] == "srun"
    tail = run.command[srun:]
    assert tail[tail.index("--") + 1 :] == child_command(TrainOptions(epochs=2), run.log)
    assert run.find_slots is None  # Slurm's queue, not the server's slots
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(write(tmp_path, "training_slots = 2\n")))
    local = TrainingRun.for_options(TrainOptions(epochs=2), tmp_path / "data")
    assert local.command[1:3] == ["-m", "tui_course.training"]
    assert local.find_slots is not None


def test_squeue_rows_with_a_free_text_comment_and_control_characters() -> None:
    text = (
        "12|attn-tui-train|ann|PENDING|Priority|teach|(null)|0:00|2026-12-05T10:00:00|N/A"
        "|attn-tui:tok|en\n"
        "13|attn-tui-train|bob|RUNNING|None|teach|node1|1:02|2026-12-05T10:00:00"
        "|2026-12-05T10:00:07|\x1b[31mx\n"
        "garbage line\n"
    )
    first, second = parse_squeue(text)
    assert (first.job_id, first.user, first.reason, first.token) == (
        12,
        "ann",
        "Priority",
        "tok|en",
    )
    assert first.waited_seconds() == 0.0  # not started: N/A
    assert second.waited_seconds() == 7.0
    assert "\x1b" not in second.comment and second.token is None


# srun's and slurmstepd's own lines (the memory one as Slurm 22.05 printed it in
# tests/slurm; the time limit's as slurmstepd writes it)
MEMORY = [
    "slurmstepd-n1: error: *** STEP 8.0 ON n1 CANCELLED AT 2026-12-05T03:30:25 ***",
    "slurmstepd-n1: error: StepId=8.0 exceeded memory limit (423907328 > 262144000), being killed",
    "srun: Exceeded job memory limit",
]
TIME = [
    "slurmstepd: error: *** JOB 15 ON n1 CANCELLED AT 2026-12-05T03:30:25 DUE TO TIME LIMIT ***"
]
ACCOUNT = [
    "srun: error: Unable to allocate resources: Invalid account or account/partition"
    " combination specified"
]
SCANCEL = [
    "srun: job 77 queued and waiting for resources",
    "slurmstepd: error: *** JOB 77 ON n1 CANCELLED AT 2026-12-05T03:30:25 ***",
]


@pytest.mark.parametrize(
    ("stderr", "line"),
    [
        (
            MEMORY,
            "Slurm job 8 was killed for using more memory than its limit (250 MB, mem in"
            " the site's [slurm] table): a smaller model or batch fits",
        ),
        (
            TIME,
            "Slurm job 15 was stopped at its time limit (30 minutes, time_limit in the"
            " site's [slurm] table): fewer epochs fit in it",
        ),
        (
            ACCOUNT,
            "Slurm refused the job: Unable to allocate resources: Invalid account or"
            " account/partition combination specified",
        ),
        (SCANCEL, "Slurm job 77 was cancelled (scancel)"),
        (
            [
                "srun: error: Unable to allocate resources: Unable to contact slurm controller"
                " (connect failure)"
            ],
            CONTROLLER_DOWN,
        ),
        (["something else"], "the Slurm job ended with exit code 1"),
    ],
)
def test_why_a_job_ended_is_one_line(stderr: list[str], line: str) -> None:
    assert ended_line(stderr, 1, None, 250, 30) == (line, not line.endswith("exit code 1"))
