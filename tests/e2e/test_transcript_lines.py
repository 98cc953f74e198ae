"""Every line of the transcript readable, in Chromium, on a phone and on a desktop: a tool call and a
tool result with a line far longer than the window show their last characters on screen (wrapped, or
in a box the reader can scroll), as plain text (not highlighted as code); and markdown keeps the line
breaks the agent wrote."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from hitl_dashboard.db.models import Conversation, Message
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.layout_checks import horizontal_overflow
from tests.e2e.support import make_user, sign_in, waiting_for_security_review

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 900}
# No space to break at: a hash, a URL or base64 in the arguments is the hard case.
CALL = 'deploy_to_prod({"artifact": "' + "a1b2c3d4" * 40 + '", "environment": "production"}) END-OF-CALL'
RESULT = ("deploy_to_prod: 2026-12-04T16:00:00Z INFO " + "step=verify;" * 30 + " END-OF-RESULT\n"
          "second line of the log")
MARKDOWN = "Plan:\nFirst line of the plan\nSecond line of the plan\n\nA **new** paragraph."

# Where the last `count` characters of `needle` inside `root` are drawn, after scrolling every
# scrollable box that holds them to its end (what a reader does to reach them): their box and the
# box of the innermost ancestor that clips (or the window).
_LAST_CHARS_JS = """([root, needle, count]) => {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.textContent.indexOf(needle);
    if (at < 0) continue;
    for (let a = node.parentElement; a && a !== document.body; a = a.parentElement) {
      if (a.scrollWidth > a.clientWidth && getComputedStyle(a).overflowX !== 'visible') a.scrollLeft = a.scrollWidth;
    }
    const range = document.createRange();
    range.setStart(node, at + needle.length - count);
    range.setEnd(node, at + needle.length);
    const r = range.getBoundingClientRect();
    let clip = {left: 0, right: document.documentElement.clientWidth};
    for (let a = node.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') {
        const b = a.getBoundingClientRect();
        clip = {left: Math.max(clip.left, b.left), right: Math.min(clip.right, b.right)};
      }
    }
    return {left: r.left, right: r.right, width: r.width, clip};
  }
  return null;
}"""

# The vertical middle of where `needle` is drawn (one line of text).
_LINE_OF_JS = """([root, needle]) => {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.textContent.indexOf(needle);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + needle.length);
    const rects = [...range.getClientRects()];
    return rects.length ? (rects[0].top + rects[0].bottom) / 2 : null;
  }
  return null;
}"""


def _add_messages(app: RunningApp, cid: int, *messages: tuple[str, str, str]) -> list[int]:
    """Stored as the runner stores them (the conversation waits for review: no runner writes meanwhile)."""
    seqs = []
    with UnitOfWork(app.engine) as uow:
        conversation = uow.session.get(Conversation, cid)
        for source, kind, content in messages:
            uow.session.add(Message(conversation_id=cid, workspace_id=conversation.workspace_id,
                                    seq=conversation.next_seq, source=source, kind=kind, content=content))
            seqs.append(conversation.next_seq)
            conversation.next_seq += 1
        uow.session.add(conversation)
        uow.commit()
    return seqs


@pytest.fixture(scope="module")
def conversation(app_server: RunningApp) -> tuple[str, int, list[int]]:
    reader = make_user(app_server, "security_reviewer", prefix="lines")
    cid = waiting_for_security_review(app_server, "Deploy the statement export").cid
    seqs = _add_messages(app_server, cid, ("operator", "tool_call", CALL), ("operator", "tool_result", RESULT),
                         ("planner", "text", MARKDOWN))
    return reader, cid, seqs


def _assert_end_on_screen(card: Locator, needle: str, what: str) -> None:
    end = card.page.evaluate(_LAST_CHARS_JS, [card.element_handle(), needle, 6])
    assert end, f"{what}: {needle!r} is not in the page"
    assert end["width"] > 0, f"{what}: its last characters are not drawn"
    assert end["left"] >= end["clip"]["left"] - 1 and end["right"] <= end["clip"]["right"] + 1, \
        f"{what}: its last characters are cut off: {end}"


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1400"])
def test_tool_calls_and_results_show_their_last_characters_as_plain_text(
        app_server: RunningApp, page: Page, conversation: tuple[str, int, list[int]], viewport: dict) -> None:
    reader, cid, (call_seq, result_seq, _) = conversation
    page.set_viewport_size(viewport)
    sign_in(page, app_server, reader)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    call, result = (page.locator(f".message[data-seq='{seq}']") for seq in (call_seq, result_seq))
    expect(call).to_contain_text("END-OF-CALL", timeout=30_000)
    expect(result).to_contain_text("second line of the log")

    for card, text, needle in ((call, CALL, "END-OF-CALL"), (result, RESULT, "END-OF-RESULT")):
        card.scroll_into_view_if_needed()
        body = card.locator("pre")
        assert body.evaluate("el => el.textContent") == text  # every character, in the tool's own lines
        # Plain text: no highlighter's coloured spans or code markup inside.
        assert body.locator("*").count() == 0, body.inner_html()[:200]
        _assert_end_on_screen(card, needle, f"{card} at {viewport['width']} px")
    assert horizontal_overflow(page) == 0


def test_markdown_keeps_the_agents_line_breaks(app_server: RunningApp, page: Page,
                                               conversation: tuple[str, int, list[int]]) -> None:
    reader, cid, (_, _, text_seq) = conversation
    page.set_viewport_size(DESKTOP)  # room for both lines on one: only a kept break puts them apart
    sign_in(page, app_server, reader)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    body = page.locator(f".message[data-seq='{text_seq}'] .message-body")
    expect(body).to_contain_text("Second line of the plan", timeout=30_000)
    body.scroll_into_view_if_needed()  # drawn: .message skips laying out cards off screen (app.css)
    handle = body.element_handle()
    lines = [page.evaluate(_LINE_OF_JS, [handle, text]) for text in
             ("Plan:", "First line of the plan", "Second line of the plan", "A ")]
    assert None not in lines, lines
    assert lines == sorted(lines) and len(set(lines)) == 4, f"lines drawn at {lines}"
    expect(body.locator("strong")).to_have_text("new")  # still markdown
