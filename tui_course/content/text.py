"""Make untrusted text safe to draw: content must never drive the terminal.

The rules live in tui_course.text.safe; these names stay for the content and
training layers that already use them.
"""

from __future__ import annotations

from tui_course.text.safe import clean as strip_control
from tui_course.text.safe import clean_deep as strip_control_deep

__all__ = ["strip_control", "strip_control_deep"]
