"""The diff panel in Chromium (issue 15): every file of the code under review on one page, each
foldable with a "viewed" mark that survives a reload; changed words highlighted whole; the split
view fits its panel (the new side is never cut off, a long line scrolls with its half); a new file
is one column (no empty old half)."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, expect
from sqlmodel import select

from hitl_dashboard.db.models import CodeRevision
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.layout_checks import end_is_seen
from tests.e2e.support import add_revision, make_user, sign_in, wait_for, waiting_for_security_review

MODULE = "app/retry.py"
TESTS = "tests/test_retry.py"
LONG_LINE = "RETRYABLE_STATUS_CODES = (" + ", ".join(str(400 + n) for n in range(80)) + ")"


def _second_revision(app: RunningApp, cid: int) -> None:
    """r2 of the module: one word renamed on one line, and a line far wider than the panel added."""
    with UnitOfWork(app.engine) as uow:
        first = uow.session.exec(select(CodeRevision).where(
            CodeRevision.conversation_id == cid, CodeRevision.key == MODULE)).one()
    content = first.content.replace("    last_error = None", "    first_error = None", 1) + "\n" + LONG_LINE + "\n"
    add_revision(app, cid, MODULE, content, language=first.language)


def test_all_files_viewed_marks_word_highlights_and_fit(app_server: RunningApp, browser: Browser,
                                                        screenshot_dir: Path):
    reviewer = make_user(app_server, "security_reviewer", prefix="dsec")
    task = "Add retry with exponential backoff to the ledger export, with tests"
    cid = waiting_for_security_review(app_server, task).cid
    _second_revision(app_server, cid)

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    sign_in(page, app_server, reviewer)
    page.goto(f"{app_server.base_url}/conversations/{cid}")

    # Every file, each in its own section with its header and its diff.
    sections = page.locator("#diff .diff-file")
    expect(sections).to_have_count(2)
    module, tests = (page.locator(f"#diff .diff-file[data-key='{key}']") for key in (MODULE, TESTS))
    expect(module.locator(".diff-file-header")).to_contain_text(f"{MODULE} r1 → {MODULE} r2")
    expect(module).to_contain_text("def call_with_retry")
    expect(tests.locator(".diff-file-header")).to_contain_text("(nothing before) → " + TESTS + " r1")
    expect(tests).to_contain_text("def test_public_api_exists")

    # A new file has no old half beside it: one column, its code from the left of the panel.
    expect(tests.locator("th")).to_have_text(TESTS + " r1 (new file)")
    expect(tests.locator("td.left")).to_have_count(0)
    first_code = tests.locator("td.right > [class*='content-text']").first.bounding_box()
    tests_panel = tests.locator(".diff-file-body").bounding_box()
    assert first_code["x"] < tests_panel["x"] + tests_panel["width"] / 4, (first_code, tests_panel)
    expect(module.locator("td.left").first).to_be_visible()  # a changed file keeps its two halves
    # Its line numbers are the new side's: a comment on one needs no "older revision" note.
    tests.locator("td").filter(has_text=re.compile(r"^2$")).first.click()
    expect(page.locator("#line-comment-form")).to_contain_text(f"{TESTS} line 2")
    expect(page.locator("#line-comment-form")).not_to_contain_text("older revision")
    page.locator("#line-comment-form").get_by_role("button", name="Cancel").click()

    # Word level: the renamed word is marked whole, its unchanged neighbours ("_error", " = None") not.
    changed = module.locator("tr").filter(has_text="first_error = None")
    expect(changed.locator("td.right ins")).to_have_text(["first_error"])
    expect(changed.locator("td.left del")).to_have_text(["last_error"])

    # The split view fits its panel: the new side's right edge is inside it, also on the long line,
    # which scrolls inside its half instead of widening the table.
    panel = module.locator(".diff-file-body").bounding_box()
    long_row = module.locator("tr").filter(has_text="RETRYABLE_STATUS_CODES")
    new_side = long_row.locator("td.right")
    box = new_side.bounding_box()
    assert box["x"] + box["width"] <= panel["x"] + panel["width"] + 1, (box, panel)
    assert box["x"] > panel["x"] + panel["width"] / 3  # and it is the right-hand half
    assert new_side.evaluate("td => td.scrollWidth > td.clientWidth")  # the rest is a scroll away
    assert new_side.evaluate("td => getComputedStyle(td.firstElementChild).whiteSpace") == "pre"
    # ... with the new half's own scrollbar, which a keyboard reaches too (tests/e2e/test_diff_long_lines.py)
    expect(module.locator(".diff-pane-scroll[data-pane='right']")).to_have_attribute("tabindex", "0")
    expect(module.locator(".diff-pane-scroll[data-pane='right']")).to_be_visible()
    # ... and which brings that line's end on screen: a bar that some other line made visible would not.
    new_side.scroll_into_view_if_needed()
    assert not end_is_seen(new_side)
    new_side.hover()
    page.mouse.wheel(5000, 0)
    wait_for(lambda: end_is_seen(new_side), what="the long added line's end")
    page.mouse.wheel(-5000, 0)
    wait_for(lambda: not end_is_seen(new_side), what="the long line scrolled back")
    page.locator("#diff").screenshot(path=str(screenshot_dir / "diff-files.png"))

    # A line comment still starts from a line number of that file.
    changed.locator("td").filter(has_text=re.compile(r"^15$")).last.click()
    expect(page.locator("#line-comment-form")).to_contain_text(f"{MODULE} line 15")
    page.locator("#line-comment-form").get_by_role("button", name="Cancel").click()

    # Mark the test file viewed: it folds; after a reload the mark and the fold are still there.
    tests.locator(".diff-file-viewed").click()
    expect(tests).to_have_attribute("data-viewed", "true")
    expect(tests.locator("table")).to_have_count(0)
    expect(module).to_have_attribute("data-viewed", "false")
    page.reload()
    expect(tests).to_have_attribute("data-viewed", "true")
    expect(tests.locator(".diff-file-viewed")).to_have_attribute("data-state", "checked")
    expect(tests.locator("table")).to_have_count(0)
    expect(module.locator("table")).to_have_count(1)
    # A viewed file still opens on demand.
    tests.locator(".diff-file-toggle").click()
    expect(tests).to_contain_text("def test_public_api_exists")
    # The mark belongs to this reviewer: another reviewer in the same browser starts unmarked.
    other = make_user(app_server, "security_reviewer", prefix="dsec2")
    page.click("#sign-out")
    sign_in(page, app_server, other)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    expect(tests).to_have_attribute("data-viewed", "false")
