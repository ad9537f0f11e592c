"""Only the site's course counts: `--content OTHER` (with a doctored reference, say) is
practice. Its checks are shown and kept apart from the real progress, never recorded
under the real course's quiz id, and never sent to the class drop-box."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import tui_course.cli as cli
from tui_course.classroom.folder import init_class
from tui_course.classroom.link import ClassLink
from tui_course.cli import main
from tui_course.paths import default_content_dir
from tui_course.progress.practice import MARKER, is_practice, is_site_course, recording_dir
from tui_course.progress.store import ProgressStore

REPO = Path(__file__).resolve().parents[2]

UNIFORM = """import numpy as np


def attention_weights(Q, K):
    return np.full((Q.shape[0], K.shape[0]), 1.0 / K.shape[0])
"""


def doctored_course(tmp_path: Path) -> Path:
    """The real code quiz, whose reference says uniform weights are right."""
    root = tmp_path / "mycourse"
    (root / "lessons").mkdir(parents=True)
    shutil.copytree(REPO / "quizzes", root / "quizzes")
    module = root / "quizzes" / "code_exercises.py"
    source = module.read_text(encoding="utf-8")
    module.write_text(
        source.replace(
            "    return _softmax_rows(Q @ K.T / np.sqrt(Q.shape[-1]))\n",
            "    return np.full((Q.shape[0], K.shape[0]), 1.0 / K.shape[0])\n",
            1,
        ),
        encoding="utf-8",
    )
    assert "np.full" in module.read_text(encoding="utf-8")
    return root


def test_a_check_against_a_doctored_course_is_shown_but_never_counts(
    tmp_path: Path,
    capsys,  # type: ignore[no-untyped-def]
) -> None:
    data, other = tmp_path / "data", doctored_course(tmp_path)
    student = tmp_path / "uniform.py"
    student.write_text(UNIFORM)
    argv = ["check", "code/1", str(student), "--content", str(other), "--data-dir", str(data)]
    assert main(argv) == 0  # the doctored reference agrees with it: shown as a pass
    captured = capsys.readouterr()
    assert captured.out.startswith("PASSED")
    notes = captured.err.strip().splitlines()
    assert len(notes) == 1 and notes[0].startswith("attn-tui: practice: ")
    assert "counts toward nothing" in notes[0]
    with ProgressStore(data) as store:  # the real progress: nothing under code/1
        assert store.code_checks("code") == []
        assert store.attempts("code") == []
    # against the site's course the same code is checked for real, and recorded
    assert main(["check", "code/1", str(student), "--data-dir", str(data)]) == 1
    assert "practice" not in capsys.readouterr().err
    with ProgressStore(data) as store:
        assert [row.outcome for row in store.code_checks("code")] == ["failed"]


def test_practice_goes_to_a_store_of_its_own(tmp_path: Path) -> None:
    data, other = tmp_path / "data", doctored_course(tmp_path)
    assert is_site_course(default_content_dir())
    assert recording_dir(data, default_content_dir()) == data
    link = tmp_path / "link-to-the-course"
    link.symlink_to(default_content_dir())
    assert recording_dir(data, link) == data  # the same course by another name counts
    practice = recording_dir(data, other)
    assert practice.parent == data / "practice" and is_practice(practice)
    assert (practice / MARKER).read_text().strip() == str(other.resolve())
    assert recording_dir(data, other) == practice  # the same folder, the same store
    assert not is_practice(data)


def test_the_app_opened_on_another_course_records_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, other = tmp_path / "data", doctored_course(tmp_path)
    opened: list[tuple[Path, Path]] = []
    monkeypatch.setattr(
        cli, "start_course", lambda content, chosen, *rest: opened.append((content, chosen)) or 0
    )
    assert main(["--content", str(other), "--data-dir", str(data)]) == 0
    assert main(["--data-dir", str(data)]) == 0
    assert opened[0][1] == recording_dir(data, other) != data
    assert opened[1][1] == data


def test_practice_is_never_sent_to_the_class_folder(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,  # type: ignore[no-untyped-def]
) -> None:
    import grp
    import os

    class_dir = tmp_path / "class"
    init_class(class_dir, grp.getgrgid(os.getgid()).gr_name, 1, "Attention")
    site = tmp_path / "site.toml"
    site.write_text(f'class_dir = "{class_dir}"\n', encoding="utf-8")
    monkeypatch.setenv("ATTN_TUI_CONFIG", str(site))
    data, other = tmp_path / "data", doctored_course(tmp_path)
    practice = recording_dir(data, other)
    link, problem = ClassLink.from_site(practice)
    assert link is None and problem is not None and "never sent" in problem
    assert ClassLink.from_site(data)[0] is not None
    assert main(["submit", "--content", str(other), "--data-dir", str(data)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "only the site's course goes to the class folder" in err[0]
    assert main(["submit", "--data-dir", str(practice)]) == 1  # the practice store itself
    assert "never sent" in capsys.readouterr().err
    assert list((class_dir / "dropbox").iterdir()) == []
