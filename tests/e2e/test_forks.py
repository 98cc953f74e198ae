"""Time travel in the browser: a reviewer forks a conversation from the coder's turn with new
instructions, lands on the fork, watches it run live, and compares the fork's new revision with the
parent's; the parent's page lists the fork. The fork dialog labels every input and can fork from an
edited copy of the turn's message; "Replay from here" runs a turn again as a new conversation, audited."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent, Conversation, Message
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, open_reviews, sign_in, start, wait_for

TASK = "Add retry with exponential backoff to the payments client"
INSTRUCTIONS_LABEL = "New instructions for the agents (optional)"
TARGET_LABEL = "Agent the instructions are for"
MESSAGE_LABEL = "This turn's message (edit it to fork from your version)"

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


def test_fork_from_a_turn_with_instructions_and_watch_it_run(app_server: RunningApp, browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="sec")
    starter = make_user(app_server, "product_reviewer", prefix="dev")
    cid = start(app_server, starter, "Add retry with exponential backoff to the payments client")
    wait_for(lambda: open_reviews(app_server, cid), what="the security review")

    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    sign_in(page, app_server, reviewer)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    coder = page.locator('.message[data-source="coder"]')
    expect(coder).to_have_count(1)
    expect(page.locator("#fork-tree")).to_have_count(0)  # neither forked nor a fork

    coder.locator(".fork-from-here").click()
    page.fill("#fork-instructions", "add a timeout to every call")
    page.locator("#fork-target").click()
    page.get_by_role("option", name="coder", exact=True).click()
    page.click("#fork-submit")

    expect(page.locator("#fork-error")).to_have_count(0)
    page.wait_for_url(re.compile(rf"/conversations/(?!{cid}/?$)\d+/?$"), timeout=20_000)
    fork_id = int(page.url.rstrip("/").rsplit("/", 1)[-1])
    expect(page.locator("#fork-tree")).to_contain_text("Forked from")
    expect(page.locator("#fork-tree")).to_contain_text(f"#{cid}")
    # The fork runs live: its instructions, then the coder's new turn, without a reload.
    expect(page.locator('.message[data-source="coder"]')).to_have_count(2, timeout=30_000)
    expect(page.locator(".message").filter(has_text="FORK of")).to_have_count(1)
    # r1 came from the parent (same content, same hash); r2 is the fork's own.
    expect(page.locator("#diff")).to_contain_text("app/retry.py r2", timeout=20_000)
    expect(page.locator("#diff")).to_contain_text("timeout")

    # The fork's r2 against the parent's r1, picked from the parent's revisions.
    page.locator("#fork-compare-parent").click()
    page.get_by_role("option", name=f"#{cid} app/retry.py r1", exact=True).click()
    page.locator("#fork-compare-own").click()
    page.get_by_role("option", name="app/retry.py r2", exact=True).click()
    expect(page.locator("#fork-compare-diff")).to_contain_text("parent: app/retry.py r1")
    expect(page.locator("#fork-compare-diff")).to_contain_text("this fork: app/retry.py r2")
    expect(page.locator("#fork-compare-diff")).to_contain_text("timeout")

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
    starter = make_user(app_server, "product_reviewer", prefix="dev")
    cid = start(app_server, starter, TASK)
    wait_for(lambda: open_reviews(app_server, cid), what="the security review")
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
    starter = make_user(app_server, "product_reviewer", prefix="dev")
    cid = start(app_server, starter, TASK)
    wait_for(lambda: open_reviews(app_server, cid), what="the security review")

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
