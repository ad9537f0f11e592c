"""Whether the student has a shell anyway: only then may the app open `$EDITOR` (vi's `:!sh`
is a shell) or run an edited Keras listing outside the code sandbox.

The lab recipe (docs/teaching.md, "Running a lab server") logs students straight into the app with
sshd's ForceCommand and a site config naming the class folder. So the answer is no:
- under a forced command a client asked to replace (sshd sets SSH_ORIGINAL_COMMAND);
- on a class server (the site config names `class_dir`), unless that config also says
  `student_shell = true` (students there log in with a shell as well);
- when the site config cannot be read (a broken config is no permission).
Anywhere else (a laptop, a shell account) the student runs attn-tui from their own shell.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ShellAccess:
    allowed: bool
    reason: str  # why not, in words the student sees ("" when allowed)


def shell_access(env: Mapping[str, str] | None = None) -> ShellAccess:
    env = os.environ if env is None else env
    if "SSH_ORIGINAL_COMMAND" in env:
        return ShellAccess(False, "this login runs attn-tui as a forced command")
    from tui_course.classroom.config import ConfigError, load_site_config

    try:
        site = load_site_config()
    except ConfigError:
        return ShellAccess(False, "the site config cannot be read")
    if site.class_dir is not None and not site.student_shell:
        return ShellAccess(False, "this is a class server without student shells")
    return ShellAccess(True, "")


def external_editor(env: Mapping[str, str] | None = None) -> str | None:
    """The student's `$VISUAL` or `$EDITOR` command, or None when there is none."""
    env = os.environ if env is None else env
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            return value
    return None


def editor_available(env: Mapping[str, str] | None = None) -> bool:
    """Whether ctrl+o ($EDITOR) works here: a shell of the student's own and an editor named."""
    return shell_access(env).allowed and external_editor(env) is not None
