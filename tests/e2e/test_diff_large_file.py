"""A large file's diff (issue 44), in Chromium at 1400 px: a 3,000-line file in two revisions that
differ every 30 lines. The page receives its hunks, not both texts: the first hunk and the last
hunk's changed lines show at their own line numbers, the websocket carries far less than the two
texts, a fold expanded shows its lines at theirs (read from the server then), a suggestion on a
line after a fold targets that line, its box pre-filled with the line's text, and the same holds for
the pair chosen in "Compare"."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Locator, expect

from tests.e2e.app_process import RunningApp
from tests.e2e.support import add_revision, make_user, record_frames, sign_in, waiting_for_security_review
from tests.support.long_conversation import BIG_FILE, spread_revisions


def _row(section: Locator, line: int) -> Locator:
    """The diff's row of the file's line `line` (each line names its own number: ROW_0045 is line 45)."""
    return section.locator("tr").filter(has_text=f"ROW_{line:04d} = ")


def _numbers(row: Locator) -> list[str]:
    """The line numbers the row shows (left, right)."""
    return [text.strip() for text in row.locator("td pre").all_inner_texts() if text.strip().isdigit()]


@pytest.mark.timeout(300)
def test_a_large_diff_sends_its_hunks_and_reads_a_fold_when_expanded(app_server: RunningApp, browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="bigdiff")
    cid = waiting_for_security_review(app_server, "Add retry with backoff to the ledger tables", timeout=120).cid
    old, new = spread_revisions()
    add_revision(app_server, cid, BIG_FILE, old)
    add_revision(app_server, cid, BIG_FILE, new)
    new_lines = new.split("\n")

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        sign_in(page, app_server, reviewer)
        frames = record_frames(page)
        page.goto(f"{app_server.base_url}/conversations/{cid}")
        big = page.locator(f"#diff .diff-file[data-key='{BIG_FILE}']")

        # The first hunk: its changed line 15 and the context around it, at their numbers.
        first = _row(big, 15)
        expect(first).to_contain_text("'weight_kg'", timeout=30_000)
        assert _numbers(first) == ["15", "15"]
        assert _numbers(_row(big, 12)) == ["12", "12"]
        # The last hunk's changed line.
        last = _row(big, 2985)
        last.scroll_into_view_if_needed()
        expect(last).to_be_visible()
        expect(last).to_contain_text("'weight_kg'")
        assert _numbers(last) == ["2985", "2985"]
        expect(_row(big, 30)).to_have_count(0)  # folded: not on the page
        expect(page.locator(".decide-approve")).to_be_enabled()

        # The websocket carried the hunks, far less than the two texts.
        page.wait_for_timeout(1000)
        received = sum(len(frame.encode()) for frame in frames)
        assert received < (len(old) + len(new)) / 3, (received, len(old) + len(new))
        assert "ROW_0030 = " not in "".join(frames)

        # The fold between the first two hunks (lines 19 to 41): expanded, its lines come, numbered.
        fold = big.locator(".diff-fold-message").filter(has_text="Expand 23 lines").first
        fold.scroll_into_view_if_needed()
        fold.click()
        expect(_row(big, 30)).to_contain_text(new_lines[29])
        assert _numbers(_row(big, 30)) == ["30", "30"]
        assert _numbers(_row(big, 41)) == ["41", "41"]
        expect(big).not_to_contain_text("\u22ef")  # no placeholder left on screen

        # A suggestion on line 45 (after that fold): that line, its box pre-filled with its text.
        _row(big, 45).get_by_text("45", exact=True).last.click()
        page.click("#line-comment-suggest")
        expect(page.locator("#line-comment-suggestion")).to_have_value(new_lines[44])
        expect(page.locator("#line-comment-editor")).to_contain_text("Replaces lines 45 to")
        # And on a line the fold brought, line 30 (a click on a line number starts a new comment).
        _row(big, 30).get_by_text("30", exact=True).last.click()
        expect(page.locator("#line-comment-suggestion")).to_have_count(0)
        page.click("#line-comment-suggest")
        expect(page.locator("#line-comment-editor")).to_contain_text("Replaces lines 30 to")
        expect(page.locator("#line-comment-suggestion")).to_have_value(new_lines[29])

        # The same file chosen in "Compare" (its pair read for this tab): hunks and folds the same way,
        # and a fold not read before comes from the revision on the new side (lines 49 to 71).
        page.click("#diff-file")
        page.get_by_role("option", name=BIG_FILE).click()
        expect(big.locator("th").first).to_contain_text("older")
        expect(_row(big, 45)).to_contain_text("'weight_kg'")
        expect(_row(big, 30)).to_have_count(0)  # a viewer of its own: the newest pair's open fold is not
        expect(_row(big, 60)).to_have_count(0)
        fold_after_48 = _row(big, 48).locator("xpath=following-sibling::tr[1]").locator(".diff-fold-message")
        expect(fold_after_48).to_have_text("Expand 23 lines ...")
        fold_after_48.click()
        expect(_row(big, 60)).to_contain_text(new_lines[59])
        assert _numbers(_row(big, 60)) == ["60", "60"]
        expect(big).not_to_contain_text("\u22ef")
    finally:
        page.close()
