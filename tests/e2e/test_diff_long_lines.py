"""Every character of a long diff line can be read without resizing the window (issue 32): a
300-character line scrolls sideways with its half's own scrollbar, visible under the diff, or wraps
when the reviewer asks (a choice this browser remembers across reloads). At 390 px the one-column
diff keeps one line-number gutter."""

from __future__ import annotations

from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.app_process import RunningApp
from tests.e2e.layout_checks import LAST_CHARS_SEEN
from tests.e2e.support import make_user, sign_in, wait_for, waiting_for_security_review
from tests.support.long_conversation import BIG_FILE, LONG_LINE_MARK, grow

# Where the first character of each line of the new half is drawn (x, rounded), lines on screen only.
_FIRST_CHARS = """(codes) => codes.map((code) => {
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  let node = walker.nextNode();
  while (node && !node.textContent.length) node = walker.nextNode();
  if (!node) return null;
  const range = document.createRange();
  range.setStart(node, 0);
  range.setEnd(node, 1);
  const at = range.getBoundingClientRect();
  return at.bottom > 0 && at.top < window.innerHeight ? Math.round(at.left) : null;
}).filter((x) => x !== null)"""


def first_chars(section: Locator) -> list[int]:
    return section.locator("td.right > [class*='content-text']").evaluate_all(_FIRST_CHARS)


CENTERED = "c => { c.scrollIntoView({block: 'center'}); return true; }"


def _open(browser: Browser, app: RunningApp, width: int) -> tuple[Page, Locator, Locator]:
    """The page, the big file's section and the cell of its 300-character line, scrolled to."""
    reviewer = make_user(app, "security_reviewer", prefix="wide")
    cid = waiting_for_security_review(app, "Add retry with backoff to the ledger tables", timeout=120).cid
    grow(app.engine, cid, 3)
    page = browser.new_page(viewport={"width": width, "height": 900})
    sign_in(page, app, reviewer)
    page.goto(f"{app.base_url}/conversations/{cid}")
    big = page.locator(f"#diff .diff-file[data-key='{BIG_FILE}']")
    cell = big.locator("td.right").filter(has_text=LONG_LINE_MARK)
    expect(cell).to_have_count(1, timeout=60_000)  # a 3,000-line diff on a busy machine
    cell.scroll_into_view_if_needed()
    return page, big, cell


def test_a_300_character_line_is_read_to_its_end_by_scrolling_its_half_or_wrapping(
        app_server: RunningApp, browser: Browser):
    page, big, cell = _open(browser, app_server, 1400)
    try:
        assert not cell.evaluate(LAST_CHARS_SEEN)  # wider than its half: the end is a scroll away

        # The new half's scrollbar, visible in the window, scrolls that line to its end.
        bar = big.locator(".diff-pane-scroll[data-pane='right']")
        expect(bar).to_be_visible()
        box = bar.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 900, box
        # A sideways wheel (or trackpad) over the line moves its half's bar, and the line with it.
        before = first_chars(big)
        assert len(set(before)) == 1, before  # the half's lines start aligned
        cell.hover()
        page.mouse.wheel(5000, 0)
        wait_for(lambda: cell.evaluate(LAST_CHARS_SEEN), what="the line's last characters on screen")
        assert bar.evaluate("b => b.scrollLeft") > 0
        # The whole half moved with it, not one line: its other lines scrolled as far.
        # Measured where their first characters are drawn (a computed transform may move nothing).
        after = first_chars(big)
        assert len(set(after)) == 1 and after[0] < before[0], (before, after)
        bar.hover()  # and the bar itself scrolls them back
        page.mouse.wheel(-5000, 0)
        wait_for(lambda: not cell.evaluate(LAST_CHARS_SEEN), what="the line scrolled back")

        # Wrapped on request: the end is on screen with no scrolling, and stays so after a reload.
        page.click("#diff-wrap-toggle")
        expect(page.locator("#diff")).to_have_attribute("data-wrap", "true")
        # Taller now: a reader scrolls down to its end (down only, never sideways).
        wait_for(lambda: cell.evaluate(CENTERED) and cell.evaluate(LAST_CHARS_SEEN), what="the wrapped line's end")
        expect(bar).to_be_hidden()
        page.reload()
        expect(page.locator("#diff")).to_have_attribute("data-wrap", "true")
        wait_for(lambda: cell.evaluate(CENTERED) and cell.evaluate(LAST_CHARS_SEEN),
                 what="the wrapped line's end after a reload")
        page.click("#diff-wrap-toggle")
        expect(page.locator("#diff")).to_have_attribute("data-wrap", "false")
    finally:
        page.close()


def test_the_phone_diff_has_one_line_number_gutter_and_scrolls_its_long_line(
        app_server: RunningApp, browser: Browser):
    page, big, cell = _open(browser, app_server, 390)
    try:
        row = big.locator("tr").filter(has=page.locator("td.right", has_text=LONG_LINE_MARK))
        gutters = row.locator("td[class*='gutter']:not(.finding-gutter)").evaluate_all(
            "cells => cells.filter(c => c.getBoundingClientRect().width > 0).map(c => c.textContent)")
        assert len(gutters) == 1 and gutters[0].strip().isdigit(), gutters  # the new side's number
        bar = big.locator(".diff-pane-scroll[data-pane='left']")  # one column: one bar
        expect(bar).to_be_visible()
        bar.hover()
        page.mouse.wheel(5000, 0)
        wait_for(lambda: cell.evaluate(LAST_CHARS_SEEN), what="the line's end on a phone")
    finally:
        page.close()
