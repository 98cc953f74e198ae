"""Time travel in the browser: a reviewer forks a conversation from the coder's turn with new
instructions, lands on the fork and watches its coder answer live (the OpenAI stub holds that answer
until the page is open), then compares the fork's new revision with the parent's, line by line; the
fork dialog labels every input and can fork from an edited copy of the turn's message; "Replay from
here" runs a turn again as a new conversation, audited."""

from __future__ import annotations

import re
import threading

from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent, Conversation, Message
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, open_reviews, sign_in, wait_for, waiting_for_security_review
from tests.support.openai_stub import GatedStreamReply, OpenAIStub

TASK = "Add retry with exponential backoff to the payments client"
CODER_ON_STUB = {"coder": {"provider": "openai"}}
PARENT_CODE = """import time


def call_with_retry(call, attempts=5):
    for attempt in range(attempts):
        try:
            return call()
        except ConnectionError:
            time.sleep(0.2 * 2 ** attempt)
    return call()
"""
FORK_CODE = """import time


def call_with_retry(call, attempts=5, timeout=5.0):
    for attempt in range(attempts):
        try:
            return call(timeout=timeout)
        except ConnectionError:
            time.sleep(0.2 * 2 ** attempt)
    return call(timeout=timeout)
"""
PARENT_REPLY = f"Implementation of app/retry.py:\n\n```python\n# file: app/retry.py\n{PARENT_CODE}```\n\n" \
               "CONFIDENCE: 0.8\nReady for review."
FORK_REPLY = f"Revision 2 of app/retry.py, with a timeout on every call:\n\n```python\n# file: app/retry.py\n" \
             f"{FORK_CODE}```\n\nCONFIDENCE: 0.9\nReady for review."
INSTRUCTIONS_LABEL = "New instructions for the agents (optional)"
TARGET_LABEL = "Agent the instructions are for"
MESSAGE_LABEL = "This turn's message (edit it to fork from your version)"

# Records the .message rows present when it is installed, and every row added after (no reload: a
# reload would drop window.__rows).
WATCH_ROWS = """() => {
  const seqs = () => [...document.querySelectorAll('.message')].map(m => [m.dataset.seq, m.dataset.source]);
  const rec = {atInstall: seqs().map(([seq]) => seq), added: []};
  window.__rows = rec;
  new MutationObserver(() => {
    for (const [seq, source] of seqs()) {
      if (!rec.atInstall.includes(seq) && !rec.added.some(a => a.seq === seq)) rec.added.push({seq, source});
    }
  }).observe(document.body, {subtree: true, childList: true});
}"""
# Every control of the dialog and the visible text of the labels tied to it (<label for>, aria-labelledby).
DIALOG_LABELS = """(dialog) => [...dialog.querySelectorAll('textarea, input, select, [role=combobox]')]
  .filter(el => el.getAttribute('aria-hidden') !== 'true' && el.type !== 'hidden')
  .map(el => {
    const own = [...(el.labels || [])].map(l => l.innerText.trim());
    const ids = (el.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean);
    const referred = ids.map(id => (document.getElementById(id)?.innerText || '').trim());
    return {id: el.id, labels: [...new Set([...own, ...referred])].filter(Boolean)};
  })"""


def _page(browser: Browser, app: RunningApp, username: str) -> Page:
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    sign_in(page, app, username)
    return page


def _id_of(page: Page, parent_id: int) -> int:
    page.wait_for_url(re.compile(rf"/conversations/(?!{parent_id}/?$)\d+/?$"), timeout=20_000)
    return int(page.url.rstrip("/").rsplit("/", 1)[-1])


def _messages(app: RunningApp, conversation_id: int) -> list[Message]:
    with UnitOfWork(app.engine) as uow:
        return list(uow.session.exec(select(Message).where(Message.conversation_id == conversation_id)
                                     .order_by(Message.seq)))


def _audit(app: RunningApp, action: str, conversation_id: int) -> list[AuditEvent]:
    with UnitOfWork(app.engine) as uow:
        return list(uow.session.exec(select(AuditEvent).where(AuditEvent.action == action,
                                                              AuditEvent.conversation_id == conversation_id)))


def test_fork_from_a_turn_with_instructions_and_watch_it_run(app_server: RunningApp, browser: Browser,
                                                            openai_stub: OpenAIStub):
    reviewer = make_user(app_server, "security_reviewer", prefix="sec")
    openai_stub.enqueue(PARENT_REPLY)  # the parent's coder; the planner stays scripted
    cid = waiting_for_security_review(app_server, TASK, model_routing=CODER_ON_STUB).cid

    page = _page(browser, app_server, reviewer)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    coder = page.locator('.message[data-source="coder"]')
    expect(coder).to_have_count(1)
    expect(page.locator("#fork-tree")).to_have_count(0)  # neither forked nor a fork

    # The fork's coder (on the stub too: a fork keeps its parent's model routing) streams its first
    # words, then waits for the test: its message cannot exist before the fork's page is open.
    gate = threading.Event()
    openai_stub.enqueue(GatedStreamReply(FORK_REPLY, gate, before_gate=3, word_delay_s=0.01))
    try:
        coder.locator(".fork-from-here").click()
        page.get_by_label(INSTRUCTIONS_LABEL).fill("add a timeout to every call")
        page.get_by_role("combobox", name=TARGET_LABEL).click()
        page.get_by_role("option", name="coder", exact=True).click()
        page.click("#fork-submit")

        expect(page.locator("#fork-error")).to_have_count(0)
        fork_id = _id_of(page, cid)
        expect(page.locator("#fork-tree")).to_contain_text("Forked from")
        expect(page.locator("#fork-tree")).to_contain_text(f"#{cid}")
        expect(page.locator(".message").filter(has_text="FORK of")).to_have_count(1)
        # Live: the new answer streams on this open page, and is not stored yet.
        expect(page.locator(".streaming-text")).to_contain_text("Revision 2 of", timeout=30_000)
        expect(page.locator('.message[data-source="coder"]')).to_have_count(1)
        page.evaluate(WATCH_ROWS)
        assert [m.source for m in _messages(app_server, fork_id)][-1] != "coder"
        gate.set()

        # The coder's new message shows up on the page that was already open, without a reload.
        expect(page.locator('.message[data-source="coder"]')).to_have_count(2, timeout=30_000)
        new_coder = [m for m in _messages(app_server, fork_id) if m.source == "coder"][-1]
        rows = page.evaluate("window.__rows")
        assert str(new_coder.seq) not in rows["atInstall"]
        assert {"seq": str(new_coder.seq), "source": "coder"} in rows["added"], rows
    finally:
        gate.set()
    # r1 came from the parent (same content, same hash); r2 is the fork's own.
    expect(page.locator("#diff")).to_contain_text("app/retry.py r2", timeout=20_000)

    # The fork's r2 against the parent's r1, picked from the parent's revisions: they differ, and the
    # changed lines show as removed on the parent's side and added on the fork's.
    page.locator("#fork-compare-parent").click()
    page.get_by_role("option", name=f"#{cid} app/retry.py r1", exact=True).click()
    page.locator("#fork-compare-own").click()
    page.get_by_role("option", name="app/retry.py r2", exact=True).click()
    compare = page.locator("#fork-compare-diff")
    expect(compare).to_contain_text("parent: app/retry.py r1")
    expect(compare).to_contain_text("this fork: app/retry.py r2")
    added = compare.locator("td.right[class*='diff-added']")
    removed = compare.locator("td.left[class*='diff-removed']")
    expect(added.filter(has_text="def call_with_retry(call, attempts=5, timeout=5.0):")).to_be_visible()
    expect(removed.filter(has_text="def call_with_retry(call, attempts=5):")).to_be_visible()
    expect(added.filter(has_text="return call(timeout=timeout)")).to_have_count(2)
    expect(removed.filter(has_text="return call()")).to_have_count(2)
    expect(compare.locator("td.left").filter(has_text="timeout")).to_have_count(0)  # the parent had none
    # Lines both have are not marked.
    unchanged = compare.locator("td.right").filter(has_text="for attempt in range(attempts):")
    expect(unchanged).to_have_count(1)
    expect(unchanged).not_to_have_class(re.compile("diff-added"))

    with UnitOfWork(app_server.engine) as uow:
        fork = uow.session.get(Conversation, fork_id)
        forks = list(uow.session.exec(select(Conversation).where(Conversation.parent_id == cid)))
    assert (fork.parent_id, fork.parent_turn, fork.origin) == (cid, 2, "fork")
    assert [f.id for f in forks] == [fork_id]
    wait_for(lambda: open_reviews(app_server, fork_id), what="the fork's own security review")
    assert [r.required_role for r in open_reviews(app_server, cid)] == ["security_reviewer"]  # parent untouched

    page.goto(f"{app_server.base_url}/conversations/{cid}")
    expect(page.locator("#fork-tree")).to_contain_text(f"#{fork_id} fork after turn 2")


def test_the_fork_dialog_labels_its_inputs_and_forks_from_an_edited_message(app_server: RunningApp,
                                                                           browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="sec")
    cid = waiting_for_security_review(app_server, TASK).cid
    [original] = [m for m in _messages(app_server, cid) if m.source == "coder"]

    page = _page(browser, app_server, reviewer)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    page.locator('.message[data-source="coder"] .fork-from-here').click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("After turn 2")
    # Every input has a visible label tied to it, not only a placeholder.
    expect(dialog.get_by_label(MESSAGE_LABEL)).to_be_visible()
    controls = dialog.evaluate(DIALOG_LABELS)
    assert controls == [{"id": "fork-instructions", "labels": [INSTRUCTIONS_LABEL]},
                        {"id": "fork-target", "labels": [TARGET_LABEL]},
                        {"id": "fork-edited-message", "labels": [MESSAGE_LABEL]}], controls
    for label in (INSTRUCTIONS_LABEL, TARGET_LABEL, MESSAGE_LABEL):
        expect(dialog.locator("label", has_text=label)).to_be_visible()
    expect(dialog.get_by_role("combobox", name=TARGET_LABEL)).to_be_visible()

    # The message field starts from the turn's message as the coder wrote it.
    message = dialog.get_by_label(MESSAGE_LABEL)
    expect(message).to_have_value(original.content)
    edited = original.content.replace("# file: app/retry.py\n", "# file: app/retry.py\n# Edited before the fork.\n", 1)
    assert edited != original.content
    message.fill(edited)
    page.click("#fork-submit")

    expect(page.locator("#fork-error")).to_have_count(0)
    fork_id = _id_of(page, cid)
    expect(page.locator('.message[data-source="coder"]').first).to_contain_text("Edited before the fork.")
    copied = [m for m in _messages(app_server, fork_id) if m.source == "coder"][0]
    assert copied.content == edited.strip() and copied.seq == original.seq
    [event] = _audit(app_server, "conversation.forked", fork_id)
    assert (event.actor, event.details["parent"], event.details["turn"], event.details["edited_message"],
            event.details["instructions"]) == (reviewer, cid, 2, True, None)


def test_replay_from_here_runs_the_turn_again_and_is_audited(app_server: RunningApp, browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="sec")
    cid = waiting_for_security_review(app_server, TASK).cid

    page = _page(browser, app_server, reviewer)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    page.locator('.message[data-source="coder"]').get_by_role("button", name="Replay from here").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Replay from here")
    expect(dialog).to_contain_text("Turn 2 runs again")
    page.click("#replay-submit")

    expect(page.locator("#replay-error")).to_have_count(0)
    replay_id = _id_of(page, cid)
    expect(page.locator("#fork-tree")).to_contain_text(f"#{cid}")
    # From the state before the coder's turn: the task and the plan, then the coder answers anew.
    expect(page.locator('.message[data-source="planner"]')).to_have_count(1)
    expect(page.locator('.message[data-source="coder"]')).to_have_count(1, timeout=30_000)

    with UnitOfWork(app_server.engine) as uow:
        replay = uow.session.get(Conversation, replay_id)
    assert (replay.parent_id, replay.parent_turn, replay.origin) == (cid, 1, "replay")
    [event] = _audit(app_server, "conversation.replayed", replay_id)
    assert (event.actor, event.details) == (reviewer, {"parent": cid, "turn": 1})
    wait_for(lambda: open_reviews(app_server, replay_id), what="the replay's own security review")
    assert [r.required_role for r in open_reviews(app_server, cid)] == ["security_reviewer"]  # parent untouched

    page.goto(f"{app_server.base_url}/conversations/{cid}")
    expect(page.locator("#fork-tree")).to_contain_text(f"#{replay_id} replay after turn 1")
