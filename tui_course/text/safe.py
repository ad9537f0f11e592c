"""Text from content files, file names and students is shown as text, never obeyed.

Course content comes from teachers and from students' copies. A terminal obeys
escape sequences (an OSC 0 retitles it, an OSC 52 writes the clipboard), bidi
controls reorder what is shown, zero-width characters hide text, and Textual
parses markup in the palette and in notifications (`[@click=app.quit]` runs an
action). Every string that comes from outside the program passes through one of
the functions here on its way to Textual, Rich or the terminal.

Pure: no Textual or Rich import, so the content and CLI layers can use it.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

# C0 controls except tab and newline, DEL and C1 (CSI, OSC, ST... as single code points).
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f"
# Unicode format characters (category Cf): bidi embeddings, overrides and isolates
# (U+202A-202E, U+2066-2069), marks (U+200E/200F, U+061C), zero-width space, joiners
# and word joiner (U+200B-200D, U+2060), the BOM, tag characters, soft hyphen.
# tests/unit/test_safe_text.py checks this list against unicodedata.
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_UNSAFE = re.compile(f"[{_CONTROLS}{_FORMAT}]")
# Lone surrogates come from file names that are not UTF-8 (os.fsdecode); they
# cannot be written to a UTF-8 terminal at all, so they become U+FFFD.
_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_BREAKS = re.compile("\r\n|[\r\u2028\u2029]")
_SPACES = re.compile("[\t\n]")
_KEPT_SPACES = str.maketrans("", "", "\t\n")  # what clean() keeps, taken out to test the rest


def clean(text: str) -> str:
    """Remove control and invisible formatting characters; keep newlines and tabs.

    CR LF, a lone CR and the Unicode line/paragraph separators become a newline.
    """
    if text.isprintable() or text.translate(_KEPT_SPACES).isprintable():
        return text  # no Cc, Cf, Cs, Zl or Zp character but tab and newline: most text
    text = _LINE_BREAKS.sub("\n", text)
    text = _UNSAFE.sub("", text)
    return _SURROGATE.sub("\ufffd", text)


def one_line(text: str) -> str:
    """clean() for a title, a name or a palette entry: newlines and tabs become spaces."""
    return _SPACES.sub(" ", clean(text))


def plain_text(text: object) -> str:
    """Anything printed by the CLI: its str(), cleaned, so no escape byte reaches the terminal."""
    return clean(str(text))


def path_text(path: str | PurePath) -> str:
    """A file name as one printable line (names may hold ESC, newlines or non-UTF-8 bytes)."""
    return one_line(path.as_posix() if isinstance(path, PurePath) else path)


def escape_markup(text: str) -> str:
    """Textual content markup that shows `text` literally.

    Textual's own `markup.escape` leaves `[$accent]` and `[A]` as tags; a backslash
    before every `[` makes the markup parser see no tag at all, and it turns each
    `\\[` back into `[` (a test round-trips random bracket soup through the parser).
    """
    return text.replace("[", "\\[")


def markup_line(text: str) -> str:
    """One line of untrusted text for a place that parses markup (palette titles and help)."""
    return escape_markup(one_line(text))


def visible(text: str) -> str:
    """One line where every character clean() would drop is written as its \\uXXXX code,
    so an error message can show what was hidden in a name."""
    spaced = _SPACES.sub(" ", _LINE_BREAKS.sub("\n", text))
    shown = _UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", spaced)
    return _SURROGATE.sub("\ufffd", shown)


def clean_deep(value: Any) -> Any:
    """clean() every string in parsed TOML, keys included (escapes like \\u001b arrive here)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [clean_deep(item) for item in value]
    if isinstance(value, dict):
        return {clean(key): clean_deep(item) for key, item in value.items()}
    return value
