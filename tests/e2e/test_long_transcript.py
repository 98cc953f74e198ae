"""A long conversation watched live in Chromium: a reviewer keeps the page open while a colleague
sends the work back again and again, and the transcript grows past two of the points where the page
moves its older messages into the settled head (ui/states/feeds.py, SETTLED_EVERY). At every pause,
and after a reload, the page shows each stored message exactly once, in order, with its text; and at
no moment while it grew did it show a message twice, out of order, or skip one."""

from __future__ import annotations

from html.parser import HTMLParser

import httpx
import pytest
from markdown_it import MarkdownIt
from playwright.sync_api import Browser, Page, expect

from hitl_dashboard.db.models import Message
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.conversations.conversation_page import WHOLE_TRANSCRIPT
from hitl_dashboard.services.conversations.conversation_queries import load_messages
from hitl_dashboard.ui.states.feeds import SETTLED_EVERY
from tests.e2e.app_process import RunningApp
from tests.e2e.support import api_token, make_user, open_reviews, sign_in, wait_for, waiting_for_security_review

# Two head moves (after messages 16 and 32) and a few messages beyond the second.
LENGTH = 2 * SETTLED_EVERY + 3
# The kinds the page shows as plain text or code (ui/components/transcript.py, message_body); the
# others are markdown.
VERBATIM = {"tool_call", "tool_result", "decision"}
# CommonMark: the scripted agents write no tables or math, where the page's GFM and KaTeX would differ.
MARKDOWN = MarkdownIt("commonmark")

# Records every distinct list of message seqs the transcript showed, after each DOM change: a
# duplicate or a gap that lasted one render is in it. Lives in the window, so a reload clears it.
WATCH_SEQS = """() => {
  const shown = [];
  window.__shown = shown;
  let last = null;
  const check = () => {
    const seqs = [...document.querySelectorAll('#transcript .message')].map(m => Number(m.dataset.seq));
    const key = seqs.join(',');
    if (key !== last) { last = key; shown.push(seqs); }
  };
  check();
  new MutationObserver(check).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""

# Each card: its seq, author and body (the box's last child: after the header with name and time).
READ_CARDS = """cards => cards.map(m => [
  Number(m.dataset.seq), m.dataset.source, m.lastElementChild.lastElementChild.textContent])"""


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _as_shown(kind: str, text: str) -> str:
    """The characters a reader sees: markdown rendered, whitespace (layout) left out."""
    if kind not in VERBATIM:
        parser = _Text()
        parser.feed(MARKDOWN.render(text))
        text = "".join(parser.parts)
    return "".join(text.split())


def _stored(app: RunningApp, cid: int) -> list[Message]:
    # The query the conversation page itself reads its transcript with, on the app's database.
    with UnitOfWork(app.engine) as uow:
        return load_messages(uow.session, cid, None, limit=WHOLE_TRANSCRIPT)


def _expect_transcript(page: Page, stored: list[Message]) -> None:
    """The page shows exactly the stored messages, in seq order, each with its author and text."""
    cards = page.locator("#transcript .message")
    # Generous: on a busy machine the push can trail the commit by seconds.
    expect(cards).to_have_count(len(stored), timeout=60_000)
    shown = [(seq, source, "".join(body.split())) for seq, source, body in cards.evaluate_all(READ_CARDS)]
    assert shown == [(m.seq, m.source, _as_shown(m.kind, m.content)) for m in stored]


def _paused_again(app: RunningApp, cid: int, decided: int):
    """The next open review: the coder has answered the last one and the conversation waits again."""
    return wait_for(lambda: [r for r in open_reviews(app, cid) if r.id != decided], timeout=120,
                    what="the coder's answer and the next review")


@pytest.mark.slow  # about a minute: sixteen revisions streamed word by word
@pytest.mark.timeout(600)  # sixteen revisions, each streamed word by word; plus the app's start if first
def test_a_watched_transcript_stays_whole_and_in_order_past_the_settled_head(
        app_server: RunningApp, browser: Browser):
    watcher = make_user(app_server, "security_reviewer", prefix="long")
    colleague = make_user(app_server, "security_reviewer", prefix="long2")
    waiting = waiting_for_security_review(app_server, "Add retry with backoff to the ledger client", timeout=120)
    cid, review = waiting.cid, waiting.review

    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    auth = {"Authorization": f"Bearer {api_token(app_server, colleague)}"}
    try:
        sign_in(page, app_server, watcher)
        page.goto(f"{app_server.base_url}/conversations/{cid}")
        stored = _stored(app_server, cid)
        _expect_transcript(page, stored)
        page.evaluate("window.__sameDocument = true")  # gone if the page reloads
        page.evaluate(WATCH_SEQS)

        # The colleague decides over the API (the watching page stays a watcher): each revise adds
        # the decision note and the coder's next revision, pushed to the open page as they are stored.
        with httpx.Client(base_url=app_server.base_url, headers=auth, timeout=30) as client:
            while len(stored) < LENGTH:
                response = client.post(f"/api/reviews/{review.id}/decision", json={
                    "action": "revise", "instructions": f"after message {len(stored)}: explain the retry budget"})
                assert response.status_code == 200, response.text
                [review] = _paused_again(app_server, cid, review.id)
                stored = _stored(app_server, cid)
                # At every pause, so the pauses on either side of each head move (with the scripted
                # team: at 15 and 17 messages, 31 and 33) compare the messages around it, texts too.
                _expect_transcript(page, stored)
        assert page.evaluate("window.__sameDocument === true"), "the page reloaded"

        # Every list the page showed while it grew was the stored transcript up to some message:
        # never a message twice, out of order, skipped, or one the database does not hold.
        seqs = [m.seq for m in stored]
        shown = page.evaluate("window.__shown")
        wrong = [s for s in shown if s != seqs[:len(s)]]
        assert not wrong, f"the page showed {wrong[:3]}; stored: {seqs}"
        # And it watched each head move happen: before and after messages 16 and 32.
        lengths = [len(s) for s in shown]
        for boundary in (SETTLED_EVERY, 2 * SETTLED_EVERY):
            assert min(lengths) <= boundary < max(lengths), (boundary, lengths)

        page.reload()
        _expect_transcript(page, _stored(app_server, cid))
    finally:
        context.close()
