"""A long line that is only added (every line of a new file, or a line inserted into a changed file)
is read to its end by scrolling sideways, at 1400 px and at 390 px (issue 44). The diff draws such a
line as an inline <ins> of its own, not as a changed line's word pieces: its width read 0 where the
scroll helper measured the lines, so no scrollbar appeared, and a transform does not move an inline
box, so nothing scrolled it either."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.app_process import RunningApp
from tests.e2e.layout_checks import end_is_seen
from tests.e2e.support import add_revision, make_user, sign_in, wait_for, waiting_for_security_review

NEW_FILE, CHANGED_FILE = "app/wide_new.py", "app/wide_changed.py"
NEW_END, ADDED_END = "END-OF-THE-NEW-FILE-LINE", "END-OF-THE-ADDED-LINE"
SHORT = [f"STEP_{n} = {n}" for n in range(1, 13)]


def _long(end: str) -> str:
    return "LEDGER_COLUMNS = (" + ", ".join(f"'column_{n:03d}'" for n in range(24)) + ")  # " + end


def _open(browser: Browser, app: RunningApp, width: int) -> Page:
    """A conversation waiting for its security review whose code holds a new file with a long line
    and a changed file whose longest line is an added one; its page, at `width`."""
    reviewer = make_user(app, "security_reviewer", prefix="added")
    cid = waiting_for_security_review(app, "Add retry with backoff to the ledger tables", timeout=120).cid
    add_revision(app, cid, NEW_FILE, "\n".join(SHORT[:5] + [_long(NEW_END)] + SHORT[5:]) + "\n")
    add_revision(app, cid, CHANGED_FILE, "\n".join(SHORT) + "\n")
    add_revision(app, cid, CHANGED_FILE, "\n".join(SHORT[:6] + [_long(ADDED_END)] + SHORT[6:]) + "\n")
    page = browser.new_page(viewport={"width": width, "height": 900})
    sign_in(page, app, reviewer)
    page.goto(f"{app.base_url}/conversations/{cid}")
    return page


def _read_to_the_end(page: Page, key: str, end: str, pane: str) -> None:
    """The line ending in `end` is cut at first; a sideways wheel over it, then its half's bar
    (visible in the window), bring its last characters on screen and take them away again."""
    section = page.locator(f"#diff .diff-file[data-key='{key}']")
    cell = section.locator("td.right").filter(has_text=end)
    expect(cell).to_have_count(1)
    cell.scroll_into_view_if_needed()
    wait_for(lambda: not end_is_seen(cell), what=f"{key}: the long line cut at its half's edge")
    bar = section.locator(f".diff-pane-scroll[data-pane='{pane}']")
    expect(bar).to_be_visible()
    box = bar.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 900, box
    cell.hover()
    page.mouse.wheel(5000, 0)
    wait_for(lambda: end_is_seen(cell), what=f"{key}: the long line's end after a wheel over it")
    bar.hover()
    page.mouse.wheel(-5000, 0)
    wait_for(lambda: not end_is_seen(cell), what=f"{key}: the long line scrolled back by its bar")
    page.mouse.wheel(5000, 0)
    wait_for(lambda: end_is_seen(cell), what=f"{key}: the long line's end after scrolling its bar")


@pytest.mark.parametrize("width", [1400, 390])
def test_an_added_long_line_is_read_to_its_end(app_server: RunningApp, browser: Browser, width: int):
    page = _open(browser, app_server, width)
    try:
        # A new file is one column (one bar, the left one); a changed file has two halves where
        # there is room, and the added line is in the new (right) one.
        _read_to_the_end(page, NEW_FILE, NEW_END, "left")
        _read_to_the_end(page, CHANGED_FILE, ADDED_END, "right" if width >= 768 else "left")
    finally:
        page.close()
