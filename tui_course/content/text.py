"""Make untrusted text safe to draw: content must never drive the terminal."""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and the C1 range (which includes CSI).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_control(text: str) -> str:
    """Remove control characters (ESC included); keep tabs and newlines."""
    return _CONTROL.sub("", text.replace("\r\n", "\n"))
