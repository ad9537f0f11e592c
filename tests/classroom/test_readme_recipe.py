"""The README's lab-server recipe: sshd, systemd and attn-tui accept its snippets as written."""

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
    found = SECTION.search((REPO / "README.md").read_text(encoding="utf-8"))
    assert found, "README.md lost its 'Running a lab server' section"
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
    assert "setenv ATTN_TUI_CONFIG=/etc/attn-tui/class-b.toml" in settings


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_slice_drop_in_keys_are_known_to_systemd(tmp_path: Path) -> None:
    unit = tmp_path / "attn-readme-test.slice"
    unit.write_text(block("ini", "Limit each student"), encoding="utf-8")
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True
    )
    assert "Unknown key" not in result.stderr
    assert "[Slice]" in unit.read_text() and "MemoryMax=" in unit.read_text()
