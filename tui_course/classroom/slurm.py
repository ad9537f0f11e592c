"""The site's Slurm, as the course uses it: srun command lines, squeue and sinfo answers.

Training and `class recheck` run as the user's own job through `srun`, not `sbatch`:
srun relays the job's stdout as it is written, so the JSON lines reach the live panel
and the CLI exactly as the local child's do, with no output file to tail on a shared
folder, and srun's exit is the job's. Each job carries `--comment=attn-tui:<token>`, a
random token of the run's own: squeue shows it (%k), so the run's watcher
(tui_course.training.slurm_job) finds its job id before srun would say it, and can
cancel a job whose srun was killed mid-submission. The job names stay the fixed
`attn-tui-train` / `attn-tui-recheck`, which is what a teacher filters on.

Standard library only: the watcher imports this on every run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from tui_course.classroom.config import SlurmSettings
from tui_course.content.text import strip_control

JOB_TRAIN = "attn-tui-train"
JOB_RECHECK = "attn-tui-recheck"
JOB_NAMES = (JOB_TRAIN, JOB_RECHECK)
COMMENT_PREFIX = "attn-tui:"
QUERY_TIMEOUT = 20.0  # seconds a squeue/sinfo/scancel may take before Slurm counts as down
_FIELDS = "%i|%j|%u|%T|%r|%P|%N|%M|%V|%S|%k"  # the comment last: it is free text and may hold |
CONTROLLER_DOWN = (
    "Slurm's controller (slurmctld) does not answer: an admin starts it (systemctl start"
    ' slurmctld), or sets scheduler = "local" in the site config'
)


def not_installed(program: str) -> str:
    return (
        f"{program} is not installed on this server: an admin installs Slurm's client"
        " (Debian: slurm-client) with the cluster's slurm.conf, or sets scheduler ="
        ' "local" in the site config'
    )


_KILLED = re.compile(
    r"\*\*\* (?:JOB|STEP) (\S+) ON \S+ CANCELLED AT \S+(?: DUE TO ([A-Z ]+))? \*\*\*"
)
_JOB_ID = re.compile(r"(?:\*\*\* (?:JOB|STEP) |StepId=|srun: job |jobid )(\d+)")
_MEMORY = re.compile(r"memory limit|oom-kill|out of memory|OUT_OF_MEMORY", re.IGNORECASE)
_REFUSED = re.compile(r"srun: error: (?:Unable to allocate resources|.*[Ii]nvalid).*")


class SlurmError(Exception):
    """Slurm could not be asked (not installed, controller down): one line saying what to fix."""


@dataclass(frozen=True)
class SlurmJob:
    """One row of squeue."""

    job_id: int
    name: str
    user: str
    state: str  # PENDING, RUNNING, COMPLETING...
    reason: str  # Resources, Priority, ReqNodeNotAvail... ("None" when running)
    partition: str
    nodes: str
    elapsed: str
    submitted: str  # ISO times as squeue prints them
    started: str  # "N/A" while pending
    comment: str

    def waited_seconds(self) -> float:
        """From submission to start, by Slurm's own clock (0 when not known)."""
        import datetime as dt

        try:
            waited = dt.datetime.fromisoformat(self.started) - dt.datetime.fromisoformat(
                self.submitted
            )
        except ValueError:
            return 0.0
        return max(waited.total_seconds(), 0.0)

    @property
    def token(self) -> str | None:
        if self.comment.startswith(COMMENT_PREFIX):
            return self.comment[len(COMMENT_PREFIX) :]
        return None


def srun_command(
    settings: SlurmSettings, job_name: str, token: str, child: Sequence[str]
) -> list[str]:
    """srun running `child` as one task on one node, with the site's limits."""
    command = [
        "srun",
        f"--job-name={job_name}",
        f"--comment={COMMENT_PREFIX}{token}",
        "--nodes=1",
        "--ntasks=1",
        "--kill-on-bad-exit=1",
    ]
    if settings.partition:
        command.append(f"--partition={settings.partition}")
    if settings.account:
        command.append(f"--account={settings.account}")
    if settings.qos:
        command.append(f"--qos={settings.qos}")
    if settings.time_limit:
        command.append(f"--time={settings.time_limit}")
    if settings.mem:
        command.append(f"--mem={settings.mem}")
    if settings.cpus:
        command.append(f"--cpus-per-task={settings.cpus}")
    return [*command, *settings.extra_args, "--", *child]


def _run(
    command: Sequence[str], timeout: float = QUERY_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    if shutil.which(command[0]) is None:
        raise SlurmError(not_installed(command[0]))
    try:
        done = subprocess.run(
            list(command),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise SlurmError(CONTROLLER_DOWN) from None
    except OSError as error:
        raise SlurmError(f"{command[0]}: {error.strerror or error}") from None
    if done.returncode != 0 and controller_unreachable(done.stderr):
        raise SlurmError(CONTROLLER_DOWN)
    return done


def controller_unreachable(text: str) -> bool:
    return "Unable to contact slurm controller" in text or "Socket timed out" in text


def ended_line(
    stderr: Sequence[str],
    code: int,
    job_id: int | None = None,
    mem: int | None = None,
    time_limit: int | None = None,
) -> tuple[str, bool]:
    """Why srun ended badly, in one line, from srun's and slurmstepd's own words: the limit
    that ended the job, a refusal, an unreachable controller; False when none is named."""
    text = "\n".join(stderr)
    if job_id is None:  # the job may end before a squeue looked
        found = _JOB_ID.search(text)
        job_id = int(found.group(1)) if found else None
    job = f"Slurm job {job_id}" if job_id is not None else "the Slurm job"
    killed = _KILLED.search(text)
    if _MEMORY.search(text):
        limit = f"{mem} MB" if mem else "its memory limit"
        return (
            f"{job} was killed for using more memory than its limit ({limit}, mem in the"
            " site's [slurm] table): a smaller model or batch fits"
        ), True
    if killed is not None and killed.group(2) and "TIME LIMIT" in killed.group(2):
        minutes = "minute" if time_limit == 1 else "minutes"
        limit = f"{time_limit} {minutes}" if time_limit else "its time limit"
        return (
            f"{job} was stopped at its time limit ({limit}, time_limit in the site's [slurm]"
            " table): fewer epochs fit in it"
        ), True
    if killed is not None:
        why = (killed.group(2) or "").strip().lower()
        return f"{job} was cancelled" + (f" by Slurm ({why})" if why else " (scancel)"), True
    if controller_unreachable(text):
        return CONTROLLER_DOWN, True
    refused = _REFUSED.search(text)
    if refused is not None:
        return f"Slurm refused the job: {refused.group(0)[len('srun: error: ') :]}", True
    return f"{job} ended with exit code {code}", False


def parse_squeue(text: str) -> list[SlurmJob]:
    jobs = []
    for line in text.splitlines():
        parts = line.split("|", 10)
        if len(parts) != 11 or not parts[0].strip().isdigit():
            continue
        clean = [strip_control(part.strip()) for part in parts]
        jobs.append(SlurmJob(int(clean[0]), *clean[1:]))
    return jobs


def squeue(*selection: str) -> list[SlurmJob]:
    """Jobs matching squeue's own selection options; SlurmError when Slurm cannot answer."""
    done = _run(["squeue", "-h", "-o", _FIELDS, *selection])
    if done.returncode != 0:
        message = strip_control(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "")
        raise SlurmError(f"squeue failed: {message or f'exit code {done.returncode}'}")
    return parse_squeue(done.stdout)


def own_jobs(job_name: str) -> list[SlurmJob]:
    """This account's jobs of that name (its runs of the course)."""
    import pwd

    try:  # the account, not $USER (which the user sets)
        user = pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        user = str(os.getuid())
    return squeue("-u", user, "-n", job_name)


def job_with_token(job_name: str, token: str) -> SlurmJob | None:
    return next((job for job in own_jobs(job_name) if job.token == token), None)


def queue_position(job: SlurmJob) -> int:
    """1 = the next pending job of its partition Slurm will start (by priority)."""
    pending = squeue("-t", "PENDING", "-p", job.partition, "--sort=-p,i")
    ids = [other.job_id for other in pending]
    return ids.index(job.job_id) + 1 if job.job_id in ids else len(ids) + 1


def scancel(job_ids: Sequence[int]) -> None:
    if job_ids:
        _run(["scancel", *(str(job_id) for job_id in job_ids)])


def class_jobs() -> list[SlurmJob]:
    """Every user's course jobs, running first (for `class status`)."""
    jobs = squeue("-n", ",".join(JOB_NAMES), "-t", "PENDING,RUNNING,CONFIGURING,COMPLETING")
    return sorted(jobs, key=lambda job: (job.state != "RUNNING", job.job_id))


def job_line(job: SlurmJob) -> str:
    if job.state == "RUNNING":
        return f"  {job.job_id} {job.name} {job.user}: running on {job.nodes} for {job.elapsed}"
    return f"  {job.job_id} {job.name} {job.user}: {job.state.lower()}, reason {job.reason}"


def scheduler_checks(settings: SlurmSettings) -> list[tuple[bool, str]]:
    """For doctor --teacher: (ok, line) for sinfo, the partition and a test submission."""
    checks: list[tuple[bool, str]] = []
    try:
        done = _run(["sinfo", "-h", "-o", "%R|%a|%D|%T"])
    except SlurmError as error:
        return [(False, str(error))]
    if done.returncode != 0:
        return [(False, f"sinfo failed: {strip_control(done.stderr.strip())}")]
    checks.append((True, "Slurm's controller answers (sinfo)"))
    rows = [line.split("|") for line in done.stdout.splitlines() if line.count("|") == 3]
    wanted = settings.partition
    if wanted is None:
        default = _run(["scontrol", "show", "partition"]).stdout
        wanted = _default_partition(default)
    mine = [row for row in rows if row[0] == wanted]
    if not mine:
        known = ", ".join(sorted({row[0] for row in rows})) or "none"
        checks.append((False, f"partition {wanted!r} does not exist (partitions: {known})"))
        return checks
    if any(row[1] != "up" for row in mine):
        checks.append(
            (
                False,
                f"partition {wanted!r} is {mine[0][1]}: scontrol update"
                f" partitionname={wanted} state=up",
            )
        )
    else:
        usable = [row for row in mine if row[3].rstrip("*~#") in ("idle", "mixed", "allocated")]
        states = ", ".join(f"{row[2]} {row[3]}" for row in mine)
        checks.append((bool(usable), f"partition {wanted!r} is up ({states})"))
    test = srun_command(settings, JOB_TRAIN, "doctor", ["true"])
    test.insert(1, "--test-only")
    probe = _run(test)
    if probe.returncode == 0:
        checks.append((True, f"this account may submit to {wanted!r} (srun --test-only)"))
    else:
        last = strip_control(probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else "")
        checks.append((False, f"this account may not submit: {last}"))
    return checks


def _default_partition(text: str) -> str | None:
    name = None
    for word in text.split():
        if word.startswith("PartitionName="):
            name = word.split("=", 1)[1]
        elif word == "Default=YES" and name is not None:
            return name
    return name


def srun_found() -> bool:
    return shutil.which("srun") is not None


def in_job(job_name: str) -> bool:
    """This process runs inside the course's own job of that name (not to submit again)."""
    return os.environ.get("SLURM_JOB_NAME") == job_name and "SLURM_JOB_ID" in os.environ
