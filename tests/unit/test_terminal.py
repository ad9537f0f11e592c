from __future__ import annotations

import pytest

from tui_course.runtime.terminal import locale_is_utf8


@pytest.mark.parametrize(
    ("env", "utf8_mode", "expected"),
    [
        ({"LANG": "C", "LC_CTYPE": "C.UTF-8"}, True, False),  # Python coerced a C locale
        ({"LANG": "C", "LC_ALL": "C"}, True, False),
        ({"LANG": "en_US.UTF-8", "LC_CTYPE": "C.UTF-8"}, True, True),
        ({"LANG": "C.UTF-8"}, False, True),
        ({"LC_CTYPE": "C.UTF-8", "LANG": "C"}, False, True),
        ({"LC_ALL": "de_DE.utf8"}, False, True),
        ({"LANG": "POSIX"}, False, False),
        ({}, False, False),
    ],
)
def test_locale_is_utf8(env: dict[str, str], utf8_mode: bool, expected: bool) -> None:
    assert locale_is_utf8(env, utf8_mode) is expected
