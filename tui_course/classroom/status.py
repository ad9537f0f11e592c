"""`attn-tui class status`: who holds the training slots, who waits, what arrived lately."""

from __future__ import annotations

import datetime as dt
import os
import stat
from pathlib import Path

from tui_course.classroom.config import load_class_config, load_site_config
from tui_course.classroom.folder import DROPBOX
from tui_course.classroom.report import InTransit, owner_name, shown_name
from tui_course.classroom.slots import QueueFile, TrainingSlots, class_slots, this_server

RECENT = 10  # submissions shown
MAX_LISTED = 50_000  # drop-box entries looked at for the recent list


def _when(ctime_ns: int) -> str:
    return dt.datetime.fromtimestamp(ctime_ns / 1e9, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def _ago(ctime_ns: int) -> str:
    seconds = max(0, (dt.datetime.now(dt.UTC).timestamp() * 1e9 - ctime_ns) / 1e9)
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def _holder(entry: QueueFile) -> str:
    pid = f", pid {entry.pid}" if entry.pid is not None else ""
    return f"{owner_name(entry.uid)}{pid}"


def slot_lines(slots: TrainingSlots) -> list[str]:
    view = slots.view()
    limit = (
        f"; at most {slots.max_run_seconds / 60:g} min a run"
        if slots.max_run_seconds is not None
        else ""
    )
    lines = [
        f"Training slots: {len(view.running)} of {slots.count} in use, {len(view.waiting)}"
        f" waiting ({slots.runs_per_user} per student{limit}; this server's line: {this_server()})"
    ]
    for number, entry in enumerate(view.running, 1):
        if entry.starting:
            lines.append(f"  slot {number}: {_holder(entry)}, starting its training process")
            continue
        since = entry.started_ns or entry.ctime_ns
        lines.append(
            f"  slot {number}: {_holder(entry)}, since {_when(since)} UTC ({_ago(since)} min)"
        )
    for place, entry in enumerate(view.waiting, 1):
        lines.append(f"  line {place}: {_holder(entry)}, waiting {_ago(entry.ctime_ns)} min")
    if view.ignored:
        lines.append(
            f"  {view.ignored} other file(s) in the queue not counted (over a student's"
            " allowance, not a class member's, no training process, stopped, over time, or"
            " dead)"
        )
    return lines


def slurm_lines() -> list[str]:
    """scheduler = "slurm": the course's jobs in squeue, every user's, running first."""
    from tui_course.classroom.slurm import SlurmError, class_jobs, job_line

    try:
        jobs = class_jobs()
    except SlurmError as error:
        return [f"Slurm jobs: {error}"]
    running = sum(job.state == "RUNNING" for job in jobs)
    lines = [
        f"Slurm jobs (attn-tui-train, attn-tui-recheck): {running} running, "
        f"{len(jobs) - running} waiting"
    ]
    return lines + [job_line(job) for job in jobs]


def recent_lines(dropbox: Path) -> list[str]:
    found: list[tuple[int, str, int, int]] = []
    in_transit = InTransit(dropbox)
    try:
        with os.scandir(dropbox) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_LISTED:
                    break
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode) and not in_transit.passes_over(entry.name, info):
                    found.append((info.st_ctime_ns, entry.name, info.st_uid, info.st_size))
    except PermissionError:
        return [
            f"Recent submissions: cannot list {dropbox}: permission denied (only the"
            " teachers' group may; `attn-tui doctor --teacher` checks)"
        ]
    except OSError as error:
        return [f"Recent submissions: cannot list {dropbox}: {error.strerror or error}"]
    found.sort(reverse=True)
    lines = [f"Recent submissions ({len(found)} file(s) in the drop-box):"]
    for ctime_ns, name, uid, size in found[:RECENT]:
        lines.append(
            f"  {_when(ctime_ns)} UTC  {owner_name(uid):<16} {size:>7} B  {shown_name(name)}"
        )
    return lines


def class_status(directory: Path) -> str:
    """Raises ConfigError for a broken class.toml."""
    settings = load_class_config(directory)
    site = load_site_config()
    slots = class_slots(directory, site)
    lines = [f"{settings.course} ({directory})", ""]
    lines += slurm_lines() if site.scheduler == "slurm" else slot_lines(slots)
    lines += [""]
    lines += recent_lines(directory / DROPBOX)
    return "\n".join(lines)
