"""`attn-tui doctor`: what on this account and server stands between a student and the course.

Each check says what it found and, for a problem, the one line that fixes it.
A blocker (the app cannot run or save) makes the command exit non-zero.
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from tui_course.classroom.config import ConfigError, SiteConfig, load_site_config, site_config_path

OK, WARN, BLOCKER = "ok", "warn", "blocker"
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
        yield Check("terminal", WARN, "not a terminal (output is redirected): size unknown")
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
        yield Check(
            "TERM",
            BLOCKER,
            f"TERM={term or '(unset)'}: the app cannot draw on this terminal",
            "export TERM=xterm-256color",
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
    from tui_course.classroom.slots import training_slots

    try:
        slots = training_slots(site, make=False)
        state = slots.state()
    except ConfigError as error:
        return Check("training slots", WARN, str(error), "fix that line of class.toml")
    except FileNotFoundError:
        return Check("training slots", OK, "none taken yet (the lock folder is made on first use)")
    except OSError as error:
        return Check(
            "training slots",
            WARN,
            f"no folder for the slot locks: {error.strerror or error}; training is not limited",
            f"set slots_dir in {site_config_path()} to a folder made with mode 1777",
        )
    found = (
        f"{state.in_use} of {state.slots} in use, {state.waiting} waiting"
        f" (locks in {slots.slots_dir})"
    )
    if state.unusable:
        return Check(
            "training slots",
            WARN,
            f"{found}; {state.unusable} slot file(s) missing or unreadable",
            f"attn-tui class init {shlex.quote(str(slots.slots_dir.parent))} --group GROUP"
            f" --training-slots {state.slots}",
        )
    if slots.create:  # the system folder: whoever made it could remove it
        try:
            info = slots.slots_dir.stat()
        except OSError:
            info = None
        if info is not None:
            foreign = info.st_uid not in (0, os.geteuid())
            unguarded = bool(info.st_mode & 0o002) and not info.st_mode & stat.S_ISVTX
            if foreign or unguarded:
                why = "belongs to another user" if foreign else "lets anyone delete its locks"
                return Check(
                    "training slots",
                    WARN,
                    f"{found}; the lock folder {why}",
                    f"set slots_dir in {site_config_path()} to a folder root made with mode 1777",
                )
    return Check("training slots", OK, found)


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
    from tui_course.sandbox.level import Level, sandbox_level

    report = sandbox_level()
    if report.level is Level.BWRAP:
        return Check("code sandbox", OK, f"bwrap: {report.detail}")
    if report.level is Level.NONE:
        return Check(
            "code sandbox", WARN, f"none: {report.detail}; code questions cannot be checked"
        )
    if site.class_dir is not None and not site.allow_code_without_bwrap:
        found = f"limits only ({report.detail}): code checks are off on this class server"
        return Check("code sandbox", WARN, found, report.fix)
    return Check("code sandbox", WARN, f"limits only: {report.detail}", report.fix)


def run_checks(
    env: Mapping[str, str],
    size: os.terminal_size | None,
    utf8: bool,
    data_dir: Path,
    train_installed: Callable[[], bool],
) -> list[Check]:
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
    checks.append(slot_check(site))
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
