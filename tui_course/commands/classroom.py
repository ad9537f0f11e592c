"""`attn-tui class init|report`: the teacher's side of a lab."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tui_course.commands.common import PROG, Parser, add_common, content_dir, data_dir, fail
from tui_course.paths import expand_user

DEFAULT_COURSE = "Transformers and self-attention"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("class", help="set up a class folder, report on submissions")
    actions = parser.add_subparsers(dest="class_command", metavar="ACTION", parser_class=Parser)
    actions.required = True
    init = actions.add_parser("init", help="make a class folder with a private drop-box")
    init.add_argument("dir", metavar="DIR", help="the class folder to make (or repair)")
    init.add_argument("--group", required=True, help="the teachers' Unix group")
    init.add_argument(
        "--training-slots",
        type=int,
        metavar="N",
        default=None,
        help="training runs allowed at once (default: half the cores)",
    )
    init.add_argument("--course", default=DEFAULT_COURSE, help="course name for reports")
    init.add_argument(
        "--owner",
        metavar="USER",
        help="the teacher who owns the folder and may clean the drop-box (default: you;"
        " as root, $SUDO_USER, else required)",
    )
    init.add_argument(
        "--students-group",
        metavar="GROUP",
        help="the students' group: every member gets a row in the report",
    )
    init.set_defaults(run=run_init)
    report = actions.add_parser("report", help="one row per student from the drop-box")
    report.add_argument(
        "dir", metavar="DIR", nargs="?", help="the class folder (default: the site config's)"
    )
    report.add_argument("--format", choices=("table", "csv", "json"), default="table")
    report.add_argument(
        "--allow-partial",
        action="store_true",
        help="csv: exit 0 even when some drop-box files were left out (they are still named"
        " on stderr)",
    )
    report.add_argument(
        "--only-graded",
        metavar="QUIZ",
        help="only QUIZ's columns and the students with a finished first pass in it"
        " (for Moodle's grade import, where an empty cell erases a grade)",
    )
    add_common(report, argparse.SUPPRESS)
    report.set_defaults(run=run_report)
    recheck = actions.add_parser(
        "recheck", help="run every submitted code solution again in the sandbox, on fresh seeds"
    )
    recheck.add_argument("quiz", metavar="QUIZ", nargs="?", help="only this quiz's code")
    recheck.add_argument("--dir", help="the class folder (default: the site config's)")
    recheck.add_argument("--format", choices=("table", "csv"), default="table")
    recheck.add_argument(
        "--seed",
        type=held_out_seed,
        default=None,
        help=f"the held-out seed, 1 to {MAX_SEED} (default: a fresh one; 0 would be the"
        " visible cases, so it is refused)",
    )
    add_common(recheck, argparse.SUPPRESS)
    recheck.set_defaults(run=run_recheck)
    clean = actions.add_parser(
        "clean",
        help="remove or archive drop-box files, keeping each student's latest valid submission",
    )
    clean.add_argument(
        "dir", metavar="DIR", nargs="?", help="the class folder (default: the site config's)"
    )
    clean.add_argument(
        "--archive",
        metavar="FOLDER",
        help="move the files here instead of deleting them (made 0700 if missing)",
    )
    clean.add_argument(
        "--dry-run", action="store_true", help="say what would be removed, change nothing"
    )
    clean.set_defaults(run=run_clean)
    status = actions.add_parser(
        "status", help="who holds the training slots, the line, recent submissions"
    )
    status.add_argument(
        "dir", metavar="DIR", nargs="?", help="the class folder (default: the site config's)"
    )
    status.set_defaults(run=run_status)


def run_init(args: argparse.Namespace) -> int:
    import os

    from tui_course.classroom.config import default_slots
    from tui_course.classroom.folder import ClassFolderError, class_summary_lines, init_class

    directory = expand_user(args.dir).absolute()
    slots = args.training_slots if args.training_slots is not None else default_slots()
    owner = args.owner or (os.environ.get("SUDO_USER") if os.geteuid() == 0 else None)
    if os.geteuid() == 0 and not owner:
        return fail(
            "class init: --owner: as root, name the teacher who will own the class folder"
            " (only its owner can clean the sticky drop-box), e.g. --owner teacher1",
            2,
        )
    try:
        done = init_class(directory, args.group, slots, args.course, owner, args.students_group)
    except ClassFolderError as error:
        return fail(f"class init: {error}", 2 if str(error).startswith("--") else 1)
    for line in done:
        print(line)
    print()
    print("\n".join(class_summary_lines(directory)))
    return 0


def class_dir_from(argument: str | None) -> Path:
    """DIR, or the site config's class_dir; raises ConfigError saying what to do."""
    from tui_course.classroom.config import ConfigError, load_site_config
    from tui_course.paths import site_config_path

    if argument:
        return expand_user(argument).absolute()
    site = load_site_config()
    if site.class_dir is None:
        raise ConfigError(f"no DIR given and no class_dir in {site_config_path()}")
    return site.class_dir


def run_report(args: argparse.Namespace) -> int:
    import json

    from tui_course.classroom.config import ConfigError, load_class_config
    from tui_course.classroom.folder import DROPBOX, check_folder
    from tui_course.classroom.report import (
        build_report,
        graded_only,
        group_members,
        report_csv,
        report_json,
        report_table,
    )
    from tui_course.content.course import load_course

    try:
        directory = class_dir_from(args.dir)
        problems = check_folder(directory)
        if problems:
            for problem in problems:
                fail(f"class report: {problem}")
            return 1
        settings = load_class_config(directory)
    except ConfigError as error:
        return fail(f"class report: {error}")
    course = load_course(content_dir(args))
    members: list[str] = []
    only_members = False  # with the students' group, nobody else is a student
    if settings.students_group:
        try:
            members = group_members(settings.students_group)
            only_members = True
        except KeyError:
            fail(f"class report: warning: {settings.path}: no group '{settings.students_group}'")
    try:
        report = build_report(
            directory / DROPBOX,
            [quiz.id for quiz in course.quizzes],
            {quiz.id: quiz.title for quiz in course.quizzes},
            dict(settings.deadlines),
            members,
            only_members,
        )
    except PermissionError:
        return fail(
            f"class report: {directory / DROPBOX}: permission denied"
            " (only members of the class folder's group may read it)"
        )
    except OSError as error:
        return fail(f"class report: {directory / DROPBOX}: {error.strerror or error}")
    if args.only_graded is not None:
        if args.only_graded not in report.quiz_ids:
            known = ", ".join(report.quiz_ids) or "none found"
            return fail(f"class report: --only-graded: no quiz '{args.only_graded}' ({known})")
        report = graded_only(report, args.only_graded)
    if args.format == "json":
        print(json.dumps(report_json(report), indent=2))
    elif args.format == "csv":
        print(report_csv(report), end="")
        partial = report.partial()
        if partial:
            # a grades file from a subset must not pass unnoticed into a gradebook
            for reason in partial:
                fail(f"class report: warning: {reason}")
            fail(
                "class report: warning: some files were left out of these grades;"
                " `attn-tui class report` lists them, `attn-tui class clean` removes them"
            )
            if not args.allow_partial:
                return 3
    else:
        print(f"{settings.course}: {len(report.students)} student(s), {PROG} class report")
        print(report_table(report))
    return 0


def run_recheck(args: argparse.Namespace) -> int:
    import secrets
    import sys

    from tui_course.classroom.config import ConfigError
    from tui_course.classroom.folder import DROPBOX
    from tui_course.classroom.recheck import latest_submissions, recheck, recheck_csv, recheck_table
    from tui_course.codecheck.service import CodeChecker
    from tui_course.content.course import load_course
    from tui_course.sandbox.level import Level

    try:
        directory = class_dir_from(args.dir)
        students = class_students(directory)
    except ConfigError as error:
        return fail(f"class recheck: {error}")
    through_slurm = recheck_through_slurm(args)
    if through_slurm is not None:
        return through_slurm
    course = load_course(content_dir(args))
    if args.quiz is not None and all(quiz.id != args.quiz for quiz in course.quizzes):
        return fail(f"class recheck: no quiz '{args.quiz}' in the course", 2)
    with CodeChecker(
        minimum=Level.BWRAP, warm=False, hide=[directory, content_dir(args)]
    ) as checker:
        if not checker.allowed:
            return fail(
                "class recheck: refuses to run students' code without bwrap "
                f"({checker.report.detail}); fix: {checker.report.fix}"
            )
        try:
            submissions, refused = latest_submissions(directory / DROPBOX, students)
        except OSError as error:
            return fail(f"class recheck: {directory / DROPBOX}: {error.strerror or error}")
        seed = args.seed if args.seed is not None else secrets.randbelow(2**31) + 1
        rows = recheck(submissions, course, checker, seed, args.quiz)
    for line in refused:
        print(f"{PROG}: skipped {line}", file=sys.stderr)
    if args.format == "csv":
        print(recheck_csv(rows), end="")
    else:
        print(f"held-out seed {seed} (again: --seed {seed})")
        print(recheck_table(rows))
    return 0


def class_students(directory: Path) -> list[str] | None:
    """The members of class.toml's students_group; None (everyone) without one, or when
    the folder has no class.toml. Raises ConfigError for a broken class.toml."""
    from tui_course.classroom.config import CLASS_FILE, load_class_config
    from tui_course.classroom.report import group_members

    if not (directory / CLASS_FILE).exists():
        return None
    settings = load_class_config(directory)
    if not settings.students_group:
        return None
    try:
        return group_members(settings.students_group)
    except KeyError:
        fail(f"class recheck: warning: {settings.path}: no group '{settings.students_group}'")
        return None


def recheck_through_slurm(args: argparse.Namespace) -> int | None:
    """With scheduler = "slurm", the same recheck as the caller's own Slurm job (named
    attn-tui-recheck), its output relayed as it comes; None: run it here. Inside that
    job the site config still says slurm, so the job's name says not to submit again."""
    import os
    import subprocess
    import sys

    from tui_course.classroom.slurm import JOB_RECHECK, in_job
    from tui_course.training.runner import log_path_for, site_slurm, slurm_job_command

    settings = site_slurm()
    if settings is None or in_job(JOB_RECHECK):
        return None
    child = [sys.executable, "-m", "tui_course", "class", "recheck", "--format", args.format]
    if args.quiz is not None:
        child.append(args.quiz)
    for flag, value in (("--dir", args.dir), ("--content", getattr(args, "content", None))):
        if value:
            child += [flag, str(expand_user(value))]
    if args.seed is not None:
        child += ["--seed", str(args.seed)]
    try:
        log = log_path_for(data_dir(args))
    except OSError as error:
        return fail(f"class recheck: cannot write its Slurm log: {error}")
    command = slurm_job_command(settings, JOB_RECHECK, child, log, text=True)
    from tui_course.training.lifeline import PARENT_PID_ENV

    watcher = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # Ctrl-C reaches this process, which asks for the scancel
        env={**os.environ, PARENT_PID_ENV: str(os.getpid())},  # the watcher dies with it
    )
    try:
        return watcher.wait()
    except KeyboardInterrupt:
        watcher.terminate()  # the watcher's scancel
        try:
            watcher.wait(20)
        except subprocess.TimeoutExpired:
            watcher.kill()
        print(f"{PROG}: class recheck: cancelled", file=sys.stderr)
        return 130


MAX_SEED = 2**63 - 1


def held_out_seed(text: str) -> int:
    """--seed: a whole number from 1; 0 is the visible cases every student saw, so it is
    refused rather than reported as held-out."""
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if seed == 0:
        raise argparse.ArgumentTypeError(
            "0 is the visible cases, not held-out ones (give 1 or more, or leave --seed out)"
        )
    if not 1 <= seed <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"{seed} is not a seed from 1 to {MAX_SEED}")
    return seed


def run_clean(args: argparse.Namespace) -> int:
    import errno
    import os

    from tui_course.classroom.clean import ArchiveRefused, clean_dropbox
    from tui_course.classroom.config import ConfigError
    from tui_course.classroom.folder import DROPBOX

    try:
        directory = class_dir_from(args.dir)
    except ConfigError as error:
        return fail(f"class clean: {error}")
    dropbox = directory / DROPBOX
    archive = expand_user(args.archive).absolute() if args.archive else None
    try:
        result = clean_dropbox(dropbox, archive, args.dry_run)
    except ArchiveRefused as error:
        return fail(f"class clean: --archive {error}")
    except OSError as error:
        return fail(f"class clean: {dropbox}: {error.strerror or error}")
    verb = "would remove" if args.dry_run else ("archived" if archive else "removed")
    print(f"kept {len(result.kept)} file(s) the report uses; {verb} {len(result.removed)}")
    for name, reason in result.failed[:20]:
        fail(f"class clean: {dropbox / name}: {reason}")
    refused = {os.strerror(errno.EPERM), os.strerror(errno.EACCES)}
    if any(reason in refused for _, reason in result.failed):
        fail(
            f"class clean: {len(result.failed)} file(s) could not be moved: the drop-box is"
            " sticky, so only its owner or root may (`attn-tui class init DIR --owner YOU`"
            " as root makes you its owner)"
        )
    elif result.failed:
        fail(f"class clean: {len(result.failed)} file(s) could not be moved")
    if result.failed:
        return 1
    return 0


def run_status(args: argparse.Namespace) -> int:
    from tui_course.classroom.config import ConfigError
    from tui_course.classroom.status import class_status

    try:
        directory = class_dir_from(args.dir)
        print(class_status(directory))
    except ConfigError as error:
        return fail(f"class status: {error}")
    except OSError as error:
        return fail(f"class status: {error.filename or directory}: {error.strerror or error}")
    return 0
