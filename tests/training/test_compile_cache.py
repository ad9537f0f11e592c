"""The compile cache's folder: private, per machine, and only entries a finished run vouched
for are left for TensorFlow to load (a damaged entry ended a run's training silently)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from tui_course.training import compile_cache

ENTRY = "xla_compile_cache__1__2__XLA_CPU_JIT.pb"


@pytest.fixture(autouse=True)
def fixed_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compile_cache, "machine_key", lambda: "machine-a")


def test_the_folder_is_private_and_per_machine(tmp_path: Path) -> None:
    place = compile_cache.prepare(tmp_path / "compile-cache")
    assert place == tmp_path / "compile-cache" / "machine-a"
    assert place.is_dir() and place.stat().st_mode & 0o777 == 0o700
    flags = compile_cache.xla_flags(place, "--tf_xla_auto_jit=0")
    assert flags == f"--tf_xla_auto_jit=0 --tf_xla_persistent_cache_directory={place}"


def test_only_vouched_for_entries_are_left_to_load(tmp_path: Path) -> None:
    place = compile_cache.prepare(tmp_path)
    assert place is not None
    (place / ENTRY).write_bytes(b"compiled step")
    assert compile_cache.prepare(tmp_path) == place
    assert not (place / ENTRY).exists()  # written by a run that never finished: removed

    (place / ENTRY).write_bytes(b"compiled step")
    compile_cache.vouch(place)  # the run finished
    assert compile_cache.prepare(tmp_path) == place
    assert (place / ENTRY).read_bytes() == b"compiled step"

    (place / ENTRY).write_bytes(b"compiled step, cut sh")  # damaged since
    compile_cache.prepare(tmp_path)
    assert not (place / ENTRY).exists()


def test_a_link_or_folder_inside_is_removed_not_followed(tmp_path: Path) -> None:
    place = compile_cache.prepare(tmp_path / "cache")
    assert place is not None
    outside = tmp_path / "outside.pb"
    outside.write_bytes(b"not ours")
    (place / ENTRY).symlink_to(outside)
    (place / "folder").mkdir()
    compile_cache.vouch(place)
    assert compile_cache.prepare(tmp_path / "cache") == place
    assert sorted(p.name for p in place.iterdir()) == [compile_cache.CHECKED]
    assert outside.read_bytes() == b"not ours"


def test_a_shared_or_linked_folder_or_one_with_spaces_is_not_used(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o775)
    assert compile_cache.prepare(shared) is None
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(real)
    assert compile_cache.prepare(tmp_path / "link") is None
    assert compile_cache.prepare(tmp_path / "with space") is None
    assert not (tmp_path / "with space").exists()


def test_old_entries_and_machines_are_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compile_cache, "KEEP", 2)
    place = compile_cache.prepare(tmp_path)
    assert place is not None
    for age, name in enumerate(["a.pb", "b.pb", "c.pb"]):
        (place / name).write_bytes(name.encode())
        os.utime(place / name, (1000 + age, 1000 + age))
    compile_cache.vouch(place)
    assert sorted(p.name for p in place.iterdir()) == ["b.pb", "c.pb", compile_cache.CHECKED]
    for age, machine in enumerate(["old-1", "old-2"]):
        (tmp_path / machine).mkdir(mode=0o700)
        os.utime(tmp_path / machine, (1000 + age, 1000 + age))
    assert compile_cache.prepare(tmp_path) == place  # the machine in use is kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["machine-a", "old-2"]


def test_the_machine_key_names_cpu_and_tensorflow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("needs the 'train' extra")
    key = compile_cache.machine_key()
    assert len(key) == 16 and key == compile_cache.machine_key()
