"""What the user's terminal can show, judged from the locale the user set."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

# Set (to "1") by `attn-tui --ascii`, or by the user: the terminal shows ASCII only.
ASCII_ENV = "ATTN_TUI_ASCII"


def locale_is_utf8(env: Mapping[str, str] | None = None, utf8_mode: bool | None = None) -> bool:
    """True when LC_ALL, LC_CTYPE or LANG (first one set) names UTF-8, and ATTN_TUI_ASCII
    (set by --ascii) is not "1": callers use this to choose glyphs over ASCII.

    Python itself turns a C locale into LC_CTYPE=C.UTF-8 (PEP 538) and UTF-8
    mode (PEP 540), so stdout's encoding says nothing about the terminal; a
    C.UTF-8 LC_CTYPE is only trusted when Python did not switch to UTF-8 mode.
    """
    env = os.environ if env is None else env
    if env.get(ASCII_ENV) == "1":
        return False
    coerced = sys.flags.utf8_mode if utf8_mode is None else utf8_mode
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(name, "")
        if name == "LC_CTYPE" and value == "C.UTF-8" and coerced:
            continue
        if value:
            return "utf-8" in value.lower() or "utf8" in value.lower()
    return False
