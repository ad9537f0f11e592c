"""Where the app keeps its files. Nothing is created at import, only on first use."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "attn-tui"
DATA_DIR_ENV = "ATTN_TUI_DATA_DIR"
CONTENT_DIR_ENV = "ATTN_TUI_CONTENT_DIR"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """--data-dir wins, then $ATTN_TUI_DATA_DIR, then the platform's user data dir."""
    chosen = override or os.environ.get(DATA_DIR_ENV) or platformdirs.user_data_dir(APP_NAME)
    return Path(chosen).expanduser()


def ensure_private_dir(path: Path) -> Path:
    """Create the directory if needed and make it readable by its owner only (0700)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.chmod(0o700)
    return path


def default_content_dir() -> Path:
    """The shipped course: inside the installed package, or the repo's top level."""
    env = os.environ.get(CONTENT_DIR_ENV)
    if env:
        return Path(env).expanduser()
    packaged = Path(__file__).parent / "_content"
    if (packaged / "lessons").is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent
