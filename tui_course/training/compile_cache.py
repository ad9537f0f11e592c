"""XLA's compiled training step, kept on disk so the next run does not compile it again.

A default run compiles its training step through XLA (TrainOptions.training_step_through_xla);
TensorFlow can keep the compiled program in a folder (TF_XLA_FLAGS'
--tf_xla_persistent_cache_directory) and load it in the next run of the same model and
sizes: about 4.5 s of CPU less, with results the same to the last digit.

What it loads is machine code, and TensorFlow does not survive a damaged entry (a file
cut short ended the run's training after no step, as if the data had run out). So:
- the folder must be this user's own, written by nobody else;
- each CPU model, CPU flags and TensorFlow version get a folder of their own (a Slurm job
  may land on another kind of node than the last);
- an entry is loaded only if a run that finished vouched for it (its sha256 in
  CHECKED); anything else there is removed before TensorFlow starts, and compiled anew.
Anything wrong with the folder means compiling, as without it. Standard library only: the
child calls this before it imports TensorFlow.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from pathlib import Path

from tui_course.paths import ensure_private_dir, write_file_safely

CHECKED = "checked.json"  # {entry name: sha256} of the entries finished runs wrote
KEEP = 16  # entries (about 0.9 MB each for the default model) and machines kept


def prepare(folder: Path) -> Path | None:
    """Before TensorFlow is imported: this machine's folder under `folder`, holding only
    vouched-for entries; None when the cache must not be used."""
    if any(character.isspace() for character in str(folder)):
        return None  # TF_XLA_FLAGS is split at white space, with no quoting
    try:
        place = folder / machine_key()
        for level in (ensure_private_dir(folder), ensure_private_dir(place)):
            if not _own_and_private(level):
                return None
        os.utime(place)  # in use: the last to go in _keep_newest
        _keep_newest(folder, KEEP)
        _drop_unchecked(place)
    except (OSError, ValueError, ImportError):  # ImportError: TensorFlow's version unknown
        return None
    return place


def xla_flags(place: Path, flags: str) -> str:
    """TF_XLA_FLAGS with the persistent cache in `place`."""
    return f"{flags} --tf_xla_persistent_cache_directory={place}".strip()


def vouch(place: Path) -> None:
    """After a run finished: record every entry now in `place` as good to load."""
    with contextlib.suppress(OSError, ValueError):
        entries = sorted(_entries(place), key=lambda entry: entry.lstat().st_mtime, reverse=True)
        for stale in entries[KEEP:]:
            stale.unlink(missing_ok=True)
        checked = {entry.name: _sha256(entry) for entry in entries[:KEEP]}
        write_file_safely(place / CHECKED, json.dumps(checked).encode("utf-8"), 0o600)


def machine_key() -> str:
    """A short name for this CPU and TensorFlow: what a compiled step is valid for."""
    import platform
    from importlib.metadata import version

    cpu = ""
    with contextlib.suppress(OSError):
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
        cpu = "\n".join(line for line in lines[:40] if line.startswith(("model name", "flags")))
    text = f"{platform.machine()}\n{cpu}\ntensorflow {version('tensorflow')}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _own_and_private(folder: Path) -> bool:
    info = os.stat(folder, follow_symlinks=False)
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _entries(place: Path) -> list[Path]:
    """TensorFlow's entries: regular files, not ours (CHECKED) nor a write in progress."""
    return [
        entry
        for entry in place.iterdir()
        if entry.name != CHECKED
        and not entry.name.startswith(".")
        and stat.S_ISREG(entry.lstat().st_mode)
    ]


def _drop_unchecked(place: Path) -> None:
    try:
        checked = json.loads((place / CHECKED).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        checked = {}
    if not isinstance(checked, dict):
        checked = {}
    for entry in _entries(place):
        if checked.get(entry.name) != _sha256(entry):
            entry.unlink(missing_ok=True)
    for other in place.iterdir():  # links and folders TensorFlow never makes
        if other.name != CHECKED and not stat.S_ISREG(other.lstat().st_mode):
            _remove(other)


def _keep_newest(folder: Path, keep: int) -> None:
    """Remove all but the `keep` most recently changed machine folders (and anything else)."""
    entries = sorted(folder.iterdir(), key=lambda entry: entry.lstat().st_mtime, reverse=True)
    for stale in entries[keep:]:
        _remove(stale)


def _remove(path: Path) -> None:
    import shutil

    if stat.S_ISDIR(path.lstat().st_mode):
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
