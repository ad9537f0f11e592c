"""Make untrusted text safe to draw: content must never drive the terminal."""

from __future__ import annotations

import re
from typing import Any

# C0 controls except tab and newline, DEL, and the C1 range (which includes CSI).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_control(text: str) -> str:
    """Remove control characters (ESC included); keep tabs and newlines."""
    return _CONTROL.sub("", text.replace("\r\n", "\n"))


def strip_control_deep(value: Any) -> Any:
    """strip_control applied to every string inside parsed TOML (escapes like \\u001b included)."""
    if isinstance(value, str):
        return strip_control(value)
    if isinstance(value, list):
        return [strip_control_deep(item) for item in value]
    if isinstance(value, dict):
        return {key: strip_control_deep(item) for key, item in value.items()}
    return value
