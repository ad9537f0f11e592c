"""Opening the app from a command line (plain `attn-tui`, `--open`, `attn-tui review`)."""

from __future__ import annotations

from pathlib import Path


def run_app(content: Path, data: Path, open_id: str | None) -> int:
    """The full-screen app (tui_course.plain.run.start_course decides whether it can run)."""
    from tui_course.ui.startup_gc import paused_for_start_up

    with paused_for_start_up():
        return _run_app(content, data, open_id)


def _run_app(content: Path, data: Path, open_id: str | None) -> int:
    from tui_course.progress.store import StoreError
    from tui_course.ui.app import Settings, make_app

    try:
        app = make_app(Settings(content, data, open_id))
    except (StoreError, OSError) as error:
        from tui_course.commands.common import fail  # argparse's module: not start-up work

        return fail(f"cannot open progress store in {data}: {error}")
    from tui_course.content.models import REVIEW_ID

    if open_id is not None and open_id != REVIEW_ID and app.course.find(open_id) is None:
        app.store.close()
        from tui_course.commands.common import fail

        known = ", ".join(item.id for item in app.items) or "none found"
        return fail(f"error: --open: no lesson, quiz or lab with id '{open_id}' (ids: {known})", 2)
    app.run()
    if app.leaving.left_with is not None:  # SIGTERM, SIGHUP, the terminal gone: all saved, go now
        from tui_course.runtime.hangup import end_process

        end_process(app.leaving.left_with)
    if app.crash is not None:
        from tui_course.runtime.crash import report_crash
        from tui_course.ui.css_cache import forget

        forget(app.settings.data_dir)  # styles read back may be what failed: next start parses
        return report_crash(data, app.crash)
    return app.return_code or 0
