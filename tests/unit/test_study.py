"""The app's session bookkeeping without the app: the class folder's outbox."""

from __future__ import annotations

from tui_course.study import Outbox


def test_the_outbox_keeps_what_could_not_be_read_until_it_is_sent() -> None:
    outbox = Outbox()
    assert outbox.with_owed(["b"]) == ["b"]
    outbox.unread(outbox.with_owed(["b"]))
    assert outbox.with_owed(["a"]) == ["a", "b"]
    outbox.sent()
    assert outbox.with_owed(["c"]) == ["c"]
