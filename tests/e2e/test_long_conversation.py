"""A 500-message conversation with a 3,000-line file in two revisions, opened and approved in
Chromium at 1400 px (issue 33). The page opens on the newest messages; older ones arrive as the
reader scrolls the transcript up, until the first, each exactly once and in order; the diff of the
big file shows its changes with the unchanged lines folded; and the review is approved. Seeded
straight in the database (tests/support/long_conversation.py), not by 500 model turns."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from hitl_dashboard.services.conversations.transcript_window import OLDER_PAGE
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, record_frames, sign_in, state_deltas, wait_for, waiting_for_security_review
from tests.support.long_conversation import BIG_FILE, FILE_LINES, grow

MESSAGES = 500
SHOWN_SEQS = "() => [...document.querySelectorAll('#transcript .message')].map(m => Number(m.dataset.seq))"


@pytest.mark.timeout(300)
def test_a_500_message_conversation_opens_on_its_newest_pages_back_and_is_approved(
        app_server: RunningApp, browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="longc")
    cid = waiting_for_security_review(app_server, "Add retry with backoff to the ledger tables", timeout=120).cid
    seqs = grow(app_server.engine, cid, MESSAGES)
    assert len(seqs) > MESSAGES

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        sign_in(page, app_server, reviewer)
        frames = record_frames(page)
        page.goto(f"{app_server.base_url}/conversations/{cid}")

        # The newest message first, on screen; only a window of the newest ones at the start.
        newest = page.locator(f"#transcript .message[data-seq='{seqs[-1]}']")
        expect(newest).to_be_visible(timeout=30_000)
        expect(newest).to_contain_text(f"Message {seqs[-1]}.")
        first_shown = page.evaluate(SHOWN_SEQS)
        assert first_shown == seqs[-len(first_shown):] and len(first_shown) < 100, first_shown

        # Approve is there and enabled beside it.
        approve = page.locator(".decide-approve")
        expect(approve).to_be_enabled()

        # The big file's diff: its changed lines, the unchanged ones folded (far fewer rows than lines).
        big = page.locator(f"#diff .diff-file[data-key='{BIG_FILE}']")
        expect(big).to_contain_text("'weight_kg'")
        assert big.locator("tr").count() < FILE_LINES / 5

        # Scrolling the transcript up brings older pages until the first message; never one twice.
        older = page.locator("#transcript-older")
        for _ in range(MESSAGES):
            if older.count() == 0:
                break
            before = page.evaluate(SHOWN_SEQS)
            # As a reader's scroll up would: the button comes into view and the page asks for more.
            page.evaluate("document.getElementById('transcript-older')?.scrollIntoView()")
            wait_for(lambda before=before: page.evaluate(SHOWN_SEQS) != before or older.count() == 0,  # noqa: B023
                     what="an older page")
        # Each older page was sent alone, each message once: not the whole history again with every page.
        sent = [len(rows) for delta in state_deltas(frames) for name, fields in delta.items()
                if "transcript_history" in name for rows in fields.values() if isinstance(rows, list)]
        assert sent and max(sent) <= OLDER_PAGE and sum(sent) < len(seqs), sent
        shown = page.evaluate(SHOWN_SEQS)
        assert shown == seqs, f"missing {sorted(set(seqs) - set(shown))[:5]}, shown {len(shown)} of {len(seqs)}"

        approve.click()
        expect(page.locator(".signoff-step").first).to_contain_text("approved", timeout=30_000)
    finally:
        page.close()
