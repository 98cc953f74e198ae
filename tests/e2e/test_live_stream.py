"""Streamed text in Chromium: every tab watching a conversation sees the message as it streams, in
updates that carry the stream alone (no root/router state, no messages list); a tab opened mid-stream
starts from the text so far; when the message is stored it replaces the typing card in the same
render, once, in every tab (no gap, no duplicate)."""

from __future__ import annotations

import json
import re
import threading

from playwright.sync_api import Browser, Page, expect

from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, record_frames, sign_in, start, state_deltas
from tests.support.openai_stub import GatedStreamReply, OpenAIStub

WORDS = [f"step-{i:02d}" for i in range(30)]
PLAN = "Plan: " + " ".join(WORDS) + " END-OF-PLAN"
BEFORE_GATE = 6  # "Plan:" and step-00 .. step-04 stream, then the stub waits for the test
STREAM_STATE = "stream_feed"

# Records, after every DOM change, whether the plan shows in the typing card, as a stored message,
# or both (a duplicate) or neither once it has been seen (a gap).
WATCH_PLAN = """() => {
  const seen = {typing: false, stored: 0, both: 0, gap: 0, typingTexts: []};
  window.__plan = seen;
  const check = () => {
    const card = [...document.querySelectorAll('.typing-card')].find(c => c.textContent.includes('step-00'));
    const typing = !!card;
    const stored = [...document.querySelectorAll('.message')]
      .filter(m => m.textContent.includes('step-00')).length;
    if (typing) { seen.typing = true; seen.typingTexts.push(card.textContent.length); }
    seen.stored = Math.max(seen.stored, stored);
    if (typing && stored) seen.both += 1;
    if (seen.typing && !typing && !stored) seen.gap += 1;
  };
  check();
  new MutationObserver(check).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def _open(page: Page, app: RunningApp, cid: int) -> None:
    page.goto(f"{app.base_url}/conversations/{cid}")
    expect(page.locator("#conversation-title")).to_be_visible()
    page.evaluate(WATCH_PLAN)


def test_every_tab_sees_the_stream_in_small_updates_then_the_message_once(
        app_server: RunningApp, browser: Browser, openai_stub: OpenAIStub):
    gate = threading.Event()
    openai_stub.enqueue(GatedStreamReply(PLAN, gate, before_gate=BEFORE_GATE, word_delay_s=0.02))
    reviewer = make_user(app_server, "security_reviewer", prefix="watch")
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    first = context.new_page()
    sign_in(first, app_server, reviewer)
    frames = record_frames(first)
    cid = start(app_server, reviewer, "Add retry with backoff to the ledger client",
                model_routing={"planner": {"provider": "openai"}})
    second = context.new_page()
    try:
        for page in (first, second):
            _open(page, app_server, cid)
        # The planner streams its first words and the stub holds the rest: both tabs show them.
        for page in (first, second):
            expect(page.locator(".streaming-text")).to_contain_text("step-04", timeout=30_000)

        # A tab opened now, mid-stream, starts from the text so far.
        late = context.new_page()
        _open(late, app_server, cid)
        expect(late.locator(".streaming-text")).to_contain_text("Plan: step-00 step-01 step-02 step-03 step-04")
        expect(late.locator("#typing-indicator")).to_contain_text("planner")

        gate.set()
        pages = (first, second, late)
        for page in pages:
            # Stored: the message shows once, the typing card no longer shows the plan.
            expect(page.locator(".message", has_text="END-OF-PLAN")).to_have_count(1, timeout=30_000)
        for page in pages:
            # The coder (scripted) follows and the conversation pauses for review: by then every late
            # update has arrived, and the plan is still there exactly once.
            expect(page.locator("#status-banner")).to_contain_text("Waiting for", timeout=60_000)
            expect(page.locator(".message", has_text="END-OF-PLAN")).to_have_count(1)
            expect(page.locator(".typing-card")).to_have_count(0)
            seen = page.evaluate("window.__plan")
            assert seen["typing"], "the tab never showed the plan while it streamed"
            assert seen["stored"] == 1, seen
            assert seen["both"] == 0, f"the plan showed twice (typing card and message) {seen['both']} times"
            assert seen["gap"] == 0, f"the plan vanished before its message showed {seen['gap']} times"
            expect(page.locator("#team-version")).to_have_text(re.compile(r"^team code v\d+$"))
            # Which model wrote each message: the planner was routed to the OpenAI endpoint, the coder not.
            expect(page.locator(".message[data-source='planner'] .message-model")).to_have_text("gpt-4o-mini")
            expect(page.locator(".message[data-source='coder'] .message-model").first).to_have_text("scripted")

        # What the first tab received after the gate opened, while the rest of the plan streamed: every
        # update with streamed text (step-05 on) is StreamFeed alone; only the stored message (its
        # update carries the messages list) comes with other states.
        streamed = [delta for delta in state_deltas(frames) if "step-05" in json.dumps(delta)
                    and not any("messages_rx_state_" in values for values in delta.values())]
        assert len(streamed) >= 3, f"expected several streamed updates, got {len(streamed)}"
        for delta in streamed:
            assert [name.rsplit(".", 1)[-1].rsplit("____", 1)[-1] for name in delta] == [STREAM_STATE], list(delta)
            [values] = delta.values()
            assert set(values) == {f"{name}_rx_state_" for name in (
                "conversation_id", "source", "text", "started", "previous_source", "previous_text", "previous_started")}
        # The plan as each update carries it: as the text streaming, or, once the next agent has begun,
        # as the previous stream (which the tab shows until the plan is stored). Which of the two
        # carries the last chunk depends on whether the next agent's first chunk came within one
        # coalescing interval: either way the whole plan reaches the tab.
        texts = [values["text_rx_state_"] if values["source_rx_state_"] == "planner"
                 else values["previous_text_rx_state_"]
                 for delta in streamed for values in delta.values()
                 if "planner" in (values["source_rx_state_"], values["previous_source_rx_state_"])]
        assert texts[-1] == PLAN  # the trailing update: the last chunk is never held back
        assert all(PLAN.startswith(text) for text in texts)
    finally:
        gate.set()
        context.close()
