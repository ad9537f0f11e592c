"""`attn-tui doctor`: what on this account and server stands between a student and the course.

Each check says what it found and, for a problem, the one line that fixes it.
A blocker (the app cannot run or save) makes the command exit non-zero.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import stat
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from tui_course.classroom.config import (
    CLASS_FILE,
    ConfigError,
    SiteConfig,
    load_site_config,
)
from tui_course.paths import site_config_path

OK, WARN, BLOCKER = "ok", "warn", "blocker"
PROTECTED_HARDLINKS = Path("/proc/sys/fs/protected_hardlinks")
MIN_SIZE = (80, 24)  # the layout the course is designed for
SMALLEST = (40, 12)  # below this the outline and a lesson no longer fit at all


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | warn | blocker
    found: str
    fix: str = ""


def terminal_checks(
    env: Mapping[str, str], size: os.terminal_size | None, utf8: bool
) -> Iterator[Check]:
    if size is None:
        yield Check(
            "terminal",
            WARN,
            "not a terminal (output is redirected): attn-tui starts in plain mode, lines of text",
            "ssh -t for the full-screen app; attn-tui --plain asks for plain mode anywhere",
        )
    elif size.columns < SMALLEST[0] or size.lines < SMALLEST[1]:
        yield Check(
            "terminal",
            BLOCKER,
            f"{size.columns}x{size.lines}: too small for the outline and a lesson",
            f"make the window at least {MIN_SIZE[0]}x{MIN_SIZE[1]}",
        )
    elif size.columns < MIN_SIZE[0] or size.lines < MIN_SIZE[1]:
        yield Check(
            "terminal",
            WARN,
            f"{size.columns}x{size.lines}: smaller than the {MIN_SIZE[0]}x{MIN_SIZE[1]} it is"
            " designed for",
            f"make the window at least {MIN_SIZE[0]}x{MIN_SIZE[1]}",
        )
    else:
        yield Check("terminal", OK, f"{size.columns}x{size.lines}")
    term = env.get("TERM", "")
    if term in ("", "dumb", "unknown"):
        # A screen reader's terminal or emacs' shell: plain mode is what it can use.
        yield Check(
            "TERM",
            WARN if term != "unknown" else BLOCKER,
            f"TERM={term or '(unset)'}: the full-screen app cannot draw here; attn-tui"
            " starts in plain mode (lines of text, for screen readers and braille)",
            "export TERM=xterm-256color for the full-screen app (or attn-tui --plain)",
        )
    else:
        yield Check("TERM", OK, term)
    if term in ("", "dumb", "unknown"):
        pass  # no colours to speak of until TERM is fixed
    elif "NO_COLOR" in env:
        yield Check("colours", OK, "off (NO_COLOR is set); every cue is also written in words")
    elif env.get("COLORTERM", "").lower() in ("truecolor", "24bit") or "256" in term:
        yield Check("colours", OK, "256 or more")
    else:
        yield Check(
            "colours",
            WARN,
            f"TERM={term or '(unset)'} promises 8 or 16 colours",
            "export TERM=xterm-256color  (if your terminal supports it)",
        )
    if utf8:
        yield Check("locale", OK, "UTF-8")
    else:
        shown = f"LC_ALL={env['LC_ALL']}" if env.get("LC_ALL") else f"LANG={env.get('LANG', '')}"
        yield Check(
            "locale",
            WARN,
            f"{shown} is not UTF-8: the app draws plain ASCII",
            "export LANG=C.UTF-8",
        )


def data_checks(data_dir: Path) -> Iterator[Check]:
    quoted = shlex.quote(str(data_dir))
    try:
        info = data_dir.lstat()
    except FileNotFoundError:
        parent = next((p for p in data_dir.parents if p.exists()), Path("/"))
        if os.access(parent, os.W_OK | os.X_OK):
            yield Check("data folder", OK, f"{data_dir} (made on first start, mode 0700)")
        else:
            yield Check(
                "data folder",
                BLOCKER,
                f"{data_dir} does not exist and {parent} is not writable",
                f"mkdir -p -m 700 {quoted}  (or start with --data-dir DIR)",
            )
        return
    except OSError as error:
        yield Check("data folder", BLOCKER, f"{data_dir}: {error.strerror}", f"ls -ld {quoted}")
        return
    if not stat.S_ISDIR(info.st_mode):
        yield Check("data folder", BLOCKER, f"{data_dir} is not a folder", f"mv {quoted} ~/")
        return
    if info.st_uid != os.geteuid():
        yield Check(
            "data folder",
            BLOCKER,
            f"{data_dir} belongs to another user",
            f"sudo chown -R $USER {quoted}",
        )
        return
    if not os.access(data_dir, os.W_OK | os.X_OK):
        yield Check("data folder", BLOCKER, f"{data_dir} is not writable", f"chmod 700 {quoted}")
        return
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        yield Check(
            "data folder",
            WARN,
            f"{data_dir} has mode {mode:04o}: other users may read your progress",
            f"chmod 700 {quoted}",
        )
    else:
        yield Check("data folder", OK, f"{data_dir} (mode {mode:04o})")
    database = data_dir / "progress.db"
    try:
        db_mode = stat.S_IMODE(database.stat().st_mode)
    except OSError:
        return
    if db_mode & 0o077:
        yield Check(
            "progress file",
            WARN,
            f"{database} has mode {db_mode:04o}",
            f"chmod 600 {shlex.quote(str(database))}",
        )


def train_check(installed: Callable[[], bool]) -> Check:
    from tui_course.extras import TRAIN_EXTRA_MISSING

    if installed():
        return Check("train extra", OK, "Keras and TensorFlow are installed")
    return Check(
        "train extra",
        WARN,
        "missing: the training lab cannot run (the rest of the course works)",
        TRAIN_EXTRA_MISSING.split(": ", 1)[1],
    )


def class_checks(site: SiteConfig, data_dir: Path) -> Iterator[Check]:
    from tui_course.classroom.config import load_class_config
    from tui_course.classroom.folder import DROPBOX, check_folder
    from tui_course.classroom.submission import dropbox_refusal, pending_files

    if site.class_dir is None:
        yield Check("class folder", OK, "none set up (no class_dir in the site config)")
        return
    problems = check_folder(site.class_dir)
    for problem in problems:
        yield Check("class folder", WARN, f"{problem.path}: {problem.problem}", problem.fix)
    if not problems:
        dropbox = site.class_dir / DROPBOX
        refusal = dropbox_refusal(dropbox)
        if refusal:
            yield Check("class folder", WARN, refusal)
        elif not os.access(dropbox, os.W_OK | os.X_OK):
            yield Check(
                "class folder",
                WARN,
                f"{dropbox}: this account cannot put files in it",
                f"ls -ld {shlex.quote(str(dropbox))}  (an ACL or mount option is in the way)",
            )
        else:
            try:
                settings = load_class_config(site.class_dir)
            except ConfigError as error:
                yield Check("class folder", WARN, str(error), "fix that line of class.toml")
            else:
                yield Check("class folder", OK, f"{site.class_dir} ({settings.course})")
    pending = len(pending_files(data_dir))
    if pending:
        yield Check(
            "submissions",
            WARN,
            f"{pending} submission(s) waiting to reach the drop-box",
            "attn-tui submit",
        )


def slot_check(site: SiteConfig) -> Check:
    from tui_course.classroom.slots import class_slots, training_slots

    try:
        if site.class_dir is not None:
            of_class = class_slots(site.class_dir, site)
            if not of_class.counts_account(os.geteuid()):  # root, a teacher
                state = of_class.state()
                return Check(
                    "training slots",
                    OK,
                    f"the class's: {state.in_use} of {state.slots} in use, {state.waiting}"
                    " waiting; not in its students' group, your own runs take none of them",
                )
        slots = training_slots(site, make=False)
        state = slots.state()
    except ConfigError as error:
        fix = (
            f"fix that line of {CLASS_FILE}"
            if ".toml:" in str(error)
            else f"set slots_dir in {site_config_path()} to a folder root made with mode 1777"
        )
        return Check("training slots", WARN, str(error), fix)
    except FileNotFoundError:
        return Check(
            "training slots",
            WARN if os.geteuid() != 0 else OK,
            "no lock folder yet: training runs are not limited",
            f"set class_dir (attn-tui class init) or slots_dir in {site_config_path()}",
        )
    except OSError as error:
        return Check(
            "training slots",
            WARN,
            f"no folder for the slot locks: {error.strerror or error}; training is not limited",
            f"set slots_dir in {site_config_path()} to a folder made with mode 1777",
        )
    found = (
        f"{state.in_use} of {state.slots} in use, {state.waiting} waiting"
        f" (locks in {slots.queue_dir})"
    )
    if state.unusable:
        return Check(
            "training slots",
            WARN,
            f"{found}; this account cannot join the line",
            f"ls -ld {shlex.quote(str(slots.queue_dir))}  (mode 1777 expected)",
        )
    return Check("training slots", OK, found)


# what a teacher needs


def _group_name(gid: int) -> str:
    import grp

    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def is_teacher(site: SiteConfig) -> bool:
    """This account owns the class folder or is in the drop-box's group right now."""
    from tui_course.classroom.folder import DROPBOX

    if site.class_dir is None:
        return False
    try:
        info = (site.class_dir / DROPBOX).lstat()
        owner = site.class_dir.lstat().st_uid
    except OSError:
        return False
    return os.geteuid() in (owner, info.st_uid) or info.st_gid in os.getgroups()


def session_limits(
    cgroup_file: Path = Path("/proc/self/cgroup"), root: Path = Path("/sys/fs/cgroup")
) -> dict[str, str] | None:
    """The memory, task and CPU limits in force on this session's cgroup (v2, or v1's
    memory and pids controllers); None when they cannot be read."""
    try:
        lines = cgroup_file.read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return None
    paths: dict[str, str] = {}
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                paths[controller] = parts[2]
    found: dict[str, str] = {}

    def read(path: Path) -> str | None:
        try:
            return path.read_text(encoding="ascii").strip()
        except OSError:
            return None

    if "" in paths and (root / "cgroup.controllers").exists():  # v2
        base = root / paths[""].lstrip("/")
        for name, key in (("memory", "memory.max"), ("tasks", "pids.max"), ("cpu", "cpu.max")):
            value = read(base / key)
            if value is not None:
                found[name] = value
    else:  # v1
        if "memory" in paths:
            value = read(root / "memory" / paths["memory"].lstrip("/") / "memory.limit_in_bytes")
            if value is not None:
                found["memory"] = "max" if not value.isdigit() or int(value) >= 1 << 60 else value
        if "pids" in paths:
            value = read(root / "pids" / paths["pids"].lstrip("/") / "pids.max")
            if value is not None:
                found["tasks"] = value
    return found or None


def limits_check(limits: dict[str, str] | None) -> Check:
    name = "session limits"
    fix = (
        "the user-.slice drop-in of docs/teaching.md (5. Limit each student):"
        " systemctl daemon-reload, then log in again"
    )
    if limits is None:
        return Check(name, WARN, "cannot read this session's cgroup limits", fix)

    def shown(key: str) -> str:
        value = limits.get(key, "?")
        if key == "memory" and value.isdigit():
            return f"{int(value) / 2**30:.1f} GiB"
        if key == "cpu" and value != "max" and " " in value:
            quota, period = value.split()
            return "max" if quota == "max" else f"{100 * int(quota) / int(period):.0f}%"
        return value

    text = ", ".join(f"{key} {shown(key)}" for key in ("memory", "tasks", "cpu") if key in limits)
    if limits.get("memory", "max") == "max" or limits.get("tasks", "max") == "max":
        return Check(name, WARN, f"not limited: {text} (students get the same)", fix)
    return Check(name, OK, f"{text} (students' sessions get the same drop-in)")


def teacher_checks(site: SiteConfig) -> Iterator[Check]:
    """What a teacher needs: the group, a readable drop-box, submissions, editable
    settings, the right to clean, and the per-student limits in force."""
    import grp
    import pwd

    from tui_course.classroom.config import load_class_config
    from tui_course.classroom.folder import DROPBOX

    me = pwd.getpwuid(os.geteuid()).pw_name if os.geteuid() >= 0 else "?"
    if site.class_dir is None:
        yield Check(
            "teacher",
            BLOCKER,
            f"no class_dir in {site_config_path()}",
            "attn-tui class init DIR --group GROUP, then add its class_dir line",
        )
        return
    dropbox = site.class_dir / DROPBOX
    try:
        info = dropbox.lstat()
    except OSError as error:
        yield Check("teachers' group", BLOCKER, f"{dropbox}: {error.strerror or error}")
        return
    group = _group_name(info.st_gid)
    if os.geteuid() == 0 or info.st_gid in os.getgroups():
        yield Check("teachers' group", OK, f"{me} is in '{group}'")
    else:
        try:
            listed = me in grp.getgrgid(info.st_gid).gr_mem
        except KeyError:
            listed = False
        if listed:
            yield Check(
                "teachers' group",
                BLOCKER,
                f"{me} was added to '{group}' after this login",
                "log out and in again (a new group counts from the next login)",
            )
        else:
            yield Check(
                "teachers' group",
                BLOCKER,
                f"{me} is not in '{group}', which reads the drop-box",
                f"sudo usermod -aG {group} {me}, then log in again",
            )
    try:
        files = unreadable = 0
        seen: set[int] = set()
        with os.scandir(dropbox) as entries:
            for files, entry in enumerate(entries, 1):
                if files > 200_000:
                    break
                with contextlib.suppress(OSError):
                    seen.add(entry.stat(follow_symlinks=False).st_uid)
                if files <= 5 and entry.is_file(follow_symlinks=False):
                    try:
                        flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW
                        os.close(os.open(entry.path, flags))
                    except PermissionError:
                        unreadable += 1
                    except OSError:
                        pass
        if unreadable:
            yield Check(
                "drop-box",
                BLOCKER,
                f"{dropbox}: listed, but cannot read the submissions (they are the"
                f" '{group}' group's)",
                "join the teachers' group (above)",
            )
        else:
            yield Check("drop-box", OK, f"readable: {files} file(s) from {len(seen)} account(s)")
    except OSError as error:
        yield Check(
            "drop-box",
            BLOCKER,
            f"{dropbox}: cannot list: {error.strerror or error}",
            "join the teachers' group (above)",
        )
    if os.geteuid() not in (0, info.st_uid):
        yield Check(
            "class clean",
            WARN,
            f"the drop-box belongs to {_owner(info.st_uid)}: only its owner or root may"
            " clean it (it is sticky)",
            f"sudo attn-tui class init {shlex.quote(str(site.class_dir))} --group {group}"
            f" --owner {me}",
        )
    toml = site.class_dir / CLASS_FILE
    if not os.access(toml, os.W_OK):
        yield Check(
            "class.toml",
            WARN,
            f"{toml}: not writable by {me} (deadlines, slots)",
            f"sudo attn-tui class init {shlex.quote(str(site.class_dir))} --group {group}"
            f" --owner {me}",
        )
    try:
        settings = load_class_config(site.class_dir)
    except ConfigError as error:
        yield Check("class.toml", WARN, str(error), "fix that line")
        settings = None
    if settings is not None and settings.students_group:
        try:
            members = len(grp.getgrnam(settings.students_group).gr_mem)
            yield Check(
                "students' group",
                OK,
                f"'{settings.students_group}': {members} listed member(s), each a report row",
            )
        except KeyError:
            yield Check(
                "students' group",
                WARN,
                f"no group '{settings.students_group}' (class.toml students_group)",
                f"groupadd {settings.students_group}",
            )
    elif settings is not None:
        yield Check(
            "students' group",
            WARN,
            "none set: students who never submitted are missing from the report",
            f'add students_group = "GROUP" to {toml}',
        )
    hard_links = hard_links_check()
    if hard_links is not None:
        yield hard_links
    yield limits_check(session_limits())


def hard_links_check() -> Check | None:
    """fs.protected_hardlinks off lets anyone link(2) a file they cannot even read: a
    student links another's submission into the drop-box, and the new name moves that
    file's ctime, its arrival time, so a submission made in time is marked late. None
    where the kernel has no such setting."""
    try:
        value = PROTECTED_HARDLINKS.read_text(encoding="ascii").strip()
    except (OSError, ValueError):
        return None
    if value != "0":
        return Check("hard links", OK, "fs.protected_hardlinks = 1")
    return Check(
        "hard links",
        WARN,
        "fs.protected_hardlinks = 0: a student can hard-link another's submission, which"
        " makes it arrive again (a submission in time is marked late)",
        "sysctl -w fs.protected_hardlinks=1, and the same line in"
        " /etc/sysctl.d/60-attn-tui.conf, on every login server",
    )


def _owner(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _writable_by_others(path: Path) -> bool:
    try:
        return bool(path.stat().st_mode & 0o022)
    except OSError:
        return False


def site_check(site: SiteConfig) -> Check:
    """The site config steers every student's app: only its admin may change it."""
    if site.path is None:
        return Check("site config", OK, f"none at {site_config_path()}")
    if site.path != Path(os.devnull) and _writable_by_others(site.path):
        return Check(
            "site config",
            WARN,
            f"{site.path} may be changed by other users (it names the class folder)",
            f"chmod 644 {shlex.quote(str(site.path))}",
        )
    return Check("site config", OK, str(site.path))


def sandbox_check(site: SiteConfig) -> Check:
    """Which sandbox students' code runs in, and the line that raises it."""
    from tui_course.sandbox.level import Level, landlock_abi, sandbox_level

    report = sandbox_level()
    runs_as = f"; student code runs as {report.runs_as}" if report.runs_as else ""
    if report.level is Level.BWRAP:
        inside = (
            ", uid 65534 inside, no capabilities" if not report.runs_as.startswith("nobody") else ""
        )
        return Check("code sandbox", OK, f"bwrap: {report.detail}{runs_as}{inside}")
    if report.level is Level.NONE:
        return Check(
            "code sandbox", WARN, f"none: {report.detail}; code questions cannot be checked"
        )
    if site.class_dir is not None and not site.allow_code_without_bwrap:
        found = f"limits only ({report.detail}): code checks are off on this class server"
        return Check("code sandbox", WARN, found, report.fix)
    walls = "Landlock, seccomp and rlimits" if landlock_abi() else "seccomp and rlimits only"
    found = f"limits only: {report.detail}{runs_as} (no namespaces: {walls})"
    return Check("code sandbox", WARN, found, report.fix)


def slurm_checks(site: SiteConfig) -> list[Check]:
    """scheduler = "slurm": Slurm answers, the partition is up, this account may submit.
    Each failure is a blocker: training and recheck cannot start."""
    from tui_course.classroom.config import SlurmSettings
    from tui_course.classroom.slurm import scheduler_checks

    fixes = (
        'an admin starts slurmctld, fixes the [slurm] table, or sets scheduler = "local"'
        f" in {site_config_path()}"
    )
    return [
        Check("slurm", OK if ok else BLOCKER, found, "" if ok else fixes)
        for ok, found in scheduler_checks(site.slurm or SlurmSettings())
    ]


def run_checks(
    env: Mapping[str, str],
    size: os.terminal_size | None,
    utf8: bool,
    data_dir: Path,
    train_installed: Callable[[], bool],
    teacher: bool | None = None,
) -> list[Check]:
    """Every check; `teacher` None: the teacher's too when this account is one."""
    checks = list(terminal_checks(env, size, utf8))
    checks += data_checks(data_dir)
    checks.append(train_check(train_installed))
    try:
        site = load_site_config()
    except ConfigError as error:
        checks.append(Check("site config", BLOCKER, str(error), "fix that line (an admin's job)"))
        return checks
    checks.append(site_check(site))
    checks.append(sandbox_check(site))
    checks += class_checks(site, data_dir)
    if site.scheduler == "slurm":
        checks += slurm_checks(site)
    else:
        checks.append(slot_check(site))
    if teacher or (teacher is None and is_teacher(site)):
        checks += teacher_checks(site)
    return checks


def format_checks(checks: list[Check]) -> str:
    from tui_course.content.text import strip_control

    width = max(len(check.name) for check in checks)
    lines = []
    for check in checks:
        lines.append(f"{check.status:<7} {check.name:<{width}}  {strip_control(check.found)}")
        if check.fix and check.status != OK:
            lines.append(f"{'':<7} {'':<{width}}  fix: {strip_control(check.fix)}")
    blockers = sum(check.status == BLOCKER for check in checks)
    warnings = sum(check.status == WARN for check in checks)
    lines.append("")
    lines.append(f"{blockers} blocker(s), {warnings} warning(s)")
    return "\n".join(lines)
