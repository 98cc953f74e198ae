"""A long message streaming in: the typing card stops growing at a window of a few lines and keeps the
newest text in view, so the page does not move under the reviewer with every chunk (and Chromium
repaints the window, not the page); the window is reachable by keyboard, and the stored message
replaces it in full."""

from __future__ import annotations

import threading

from playwright.sync_api import Browser, expect

from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, sign_in, start
from tests.support.openai_stub import GatedStreamReply, OpenAIStub

LINES = [f"line-{i:02d} of the plan, long enough to read." for i in range(40)]
PLAN = "Plan:\n" + "\n".join(LINES) + "\nEND-OF-PLAN"
SHOWN_BEFORE_GATE = 30 * 9  # words: the first 30 lines, then the stub waits for the test

WINDOW = r"""() => {
  const box = document.querySelector('.streaming-text');
  const r = box.getBoundingClientRect();
  const em = parseFloat(getComputedStyle(box).fontSize);
  // Where the newest streamed word is drawn, against the window's own visible box.
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  let node, last = null;
  while ((node = walker.nextNode())) if (/line-\d\d/.test(node.data)) last = node;
  const at = last.data.search(/line-\d\d(?![\s\S]*line-\d\d)/);
  const range = document.createRange();
  range.setStart(last, at); range.setEnd(last, at + 7);
  const word = range.getBoundingClientRect();
  return {height: r.height, em, scrollHeight: box.scrollHeight, clientHeight: box.clientHeight,
          wordTop: word.top, wordBottom: word.bottom, top: r.top, bottom: r.bottom,
          newest: last.data.slice(at, at + 7), tabIndex: box.tabIndex, label: box.getAttribute('aria-label'),
          page: document.documentElement.scrollHeight};
}"""


def test_a_long_stream_scrolls_inside_a_bounded_window(app_server: RunningApp, browser: Browser,
                                                       openai_stub: OpenAIStub):
    gate = threading.Event()
    openai_stub.enqueue(GatedStreamReply(PLAN, gate, before_gate=SHOWN_BEFORE_GATE, word_delay_s=0.005))
    reviewer = make_user(app_server, "security_reviewer", prefix="window")
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    try:
        sign_in(page, app_server, reviewer)
        cid = start(app_server, reviewer, "Add retry with backoff to the ledger client",
                    model_routing={"planner": {"provider": "openai"}})
        page.goto(f"{app_server.base_url}/conversations/{cid}")
        expect(page.locator(".streaming-text")).to_contain_text("line-29", timeout=30_000)
        shown = page.evaluate(WINDOW)
        # Bounded: about 12 lines of its text, though 30 have streamed; the rest scrolls inside.
        assert shown["height"] <= 12.5 * shown["em"], shown
        assert shown["scrollHeight"] > shown["clientHeight"] * 1.5, shown
        # The newest line is in view inside the window, without the reviewer scrolling.
        assert shown["newest"] >= "line-29", shown
        assert shown["top"] - 1 <= shown["wordTop"] and shown["wordBottom"] <= shown["bottom"] + 1, shown
        assert shown["tabIndex"] == 0 and shown["label"], shown

        gate.set()
        message = page.locator(".message", has_text="END-OF-PLAN")
        expect(message).to_have_count(1, timeout=30_000)
        # The stored message is the whole text, not a window of it.
        expect(message).to_contain_text("line-00 of the plan")
        expect(message).to_contain_text("line-39 of the plan")
    finally:
        context.close()
