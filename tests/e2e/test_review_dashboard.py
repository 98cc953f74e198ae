"""What reviewers do all day, in Chromium against the running app."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from hitl_dashboard.db.models import Decision
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, open_reviews, sign_in, start, wait_for, waiting_for_security_review


def test_security_reviewer_revises_then_two_sign_offs_approve(app_server: RunningApp, browser: Browser,
                                                              screenshot_dir: Path):
    security = make_user(app_server, "security_reviewer", prefix="sec")
    final = make_user(app_server, "final_approver", prefix="fin")
    title = "Add retry with exponential backoff to the invoice sync"
    cid = waiting_for_security_review(app_server, title).cid

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sign_in(page, app_server, security)
    # Only the roles this user holds: one tab, the security queue.
    expect(page.locator("#role-tabs button")).to_have_count(1)
    expect(page.locator("#tab-security_reviewer")).to_be_visible()
    row = page.locator(".queue-row").filter(has_text=title)
    expect(row).to_contain_text("app/retry.py r1")
    row.locator(".claim-button").click()
    expect(row.locator(".assignee")).to_have_text(security)
    page.screenshot(path=str(screenshot_dir / "queue.png"))

    row.locator(".queue-title").click()
    page.wait_for_url(f"**/conversations/{cid}")
    expect(page.locator("#status-banner")).to_contain_text("Waiting for security review")
    expect(page.locator("#diff")).to_contain_text("def call_with_retry")

    # Comment on line 5 of the new file, then send REVISE @coder with instructions.
    page.locator("#diff").get_by_text("5", exact=True).first.click()
    page.fill("#line-comment-text", "name the constant MAX_RETRIES")
    page.click("#add-line-comment")
    expect(page.locator(".line-comment")).to_contain_text("name the constant MAX_RETRIES")
    page.fill("[id^='decision-instructions-']", "add a timeout to every call")
    page.wait_for_timeout(800)  # typing is sent after a short debounce
    page.reload()  # the pending decision survives a reload
    expect(page.locator("[id^='decision-instructions-']")).to_have_value("add a timeout to every call")
    expect(page.locator(".line-comment")).to_have_count(1)
    page.locator("[id^='decision-target-']").click()
    page.get_by_role("option", name="@coder").click()
    page.click(".decide-revise")

    # The coder's new revision streams in live, then the diff shows the change.
    expect(page.locator("#typing-indicator")).to_contain_text("coder", timeout=20_000)
    expect(page.locator(".message[data-source='coder']")).to_have_count(2, timeout=30_000)
    expect(page.locator("#diff")).to_contain_text("timeout", timeout=10_000)
    expect(page.locator("#diff")).to_contain_text("app/retry.py r2")
    decision_note = page.locator(f".message[data-source='{security}']")
    expect(decision_note).to_contain_text("line 5: name the constant MAX_RETRIES")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(screenshot_dir / "conversation.png"))

    page.click(".decide-approve")
    expect(page.locator(".signoff-step").first).to_contain_text("approved")

    # The final approver, in another browser context, finds it in the final queue.
    final_page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    sign_in(final_page, app_server, final)
    row = final_page.locator(".queue-row").filter(has_text=title)
    expect(row).to_contain_text("app/retry.py r2")
    row.locator(".queue-title").click()
    final_page.dblclick(".decide-approve")  # a double click records one decision (checked below)
    expect(final_page.locator("#status-banner")).to_contain_text("Approved")
    expect(page.locator("#status-banner")).to_contain_text("Approved")  # live in the first browser too

    with UnitOfWork(app_server.engine) as uow:
        actions = [(d.action, d.role) for d in uow.session.exec(
            select(Decision).where(Decision.conversation_id == cid).order_by(Decision.id))]
    assert actions == [("revise", "security_reviewer"), ("approve", "security_reviewer"),
                       ("approve", "final_approver")]


def test_two_browsers_watch_the_same_conversation_live(app_server: RunningApp, browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="watch")
    other = make_user(app_server, "security_reviewer", prefix="watch2")
    cid = waiting_for_security_review(app_server, "Add input validation to the signup form").cid
    pages = []
    for name in (reviewer, other):
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        sign_in(page, app_server, name)
        page.goto(f"{app_server.base_url}/conversations/{cid}")
        expect(page.locator(".message")).to_have_count(3)
        pages.append(page)
    pages[0].fill("[id^='decision-instructions-']", "add type hints")
    pages[0].click(".decide-revise")
    for page in pages:  # neither reloads: the decision and the coder's new turn arrive live
        expect(page.locator(".message")).to_have_count(5, timeout=30_000)
        expect(page.locator(".message").last).to_contain_text("type hints")


def forge_approval(page: Page, review) -> str:
    """Rewrite an innocent event on the websocket into DecisionState.submit; returns the frame sent."""
    sent: list[str] = []

    def rewrite(ws):
        server = ws.connect_to_server()

        def to_server(message):
            if isinstance(message, str) and "toggle_split" in message and not sent:
                prefix, _, body = message.partition(",")  # socket.io: '42/_event,["event", {...}]'
                frame = json.loads(body)
                frame[1]["name"] = frame[1]["name"].replace(
                    "conversation_page____conversation_page_state.toggle_split", "decision____decision_state.submit")
                frame[1]["payload"] = {"review_id": review.id, "version": review.version,
                                       "content_hash": review.content_hash, "action": "approve"}
                message = prefix + "," + json.dumps(frame)
                sent.append(message)
            server.send(message)

        ws.on_message(to_server)

    page.route_web_socket(re.compile(".*_event.*"), rewrite)
    page.reload()
    expect(page.locator(".review-card")).to_be_visible()
    page.get_by_role("button", name="Unified").click()
    frame = wait_for(lambda: sent and sent[0], what="the forged event to be sent")
    assert "decision_state.submit" in frame and '"action": "approve"' in frame
    return frame


def decisions_on(app: RunningApp, cid: int) -> int:
    with UnitOfWork(app.engine) as uow:
        return len(uow.session.exec(select(Decision).where(Decision.conversation_id == cid)).all())


def test_product_reviewer_cannot_decide_a_security_request(app_server: RunningApp, browser: Browser):
    product = make_user(app_server, "product_reviewer", prefix="prod")
    security = make_user(app_server, "security_reviewer", prefix="sec")
    starter = make_user(app_server, "final_approver", prefix="dev")
    waiting = waiting_for_security_review(app_server, "Add audit logging to the billing API", starter=starter)
    cid, review = waiting.cid, waiting.review

    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    sign_in(page, app_server, product)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    expect(page.locator(".review-card")).to_contain_text("Security review")
    expect(page.locator(".cannot-decide")).to_be_visible()
    expect(page.locator(".decide-approve")).to_have_count(0)

    forge_approval(page, review)
    time.sleep(1.5)
    [still_open] = open_reviews(app_server, cid)
    assert (still_open.id, still_open.version, still_open.status) == (review.id, review.version, "pending")
    assert decisions_on(app_server, cid) == 0

    # Control: the very same forged frame from a security reviewer is applied, so the
    # refusal above came from the server's permission check, not from a broken forgery.
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    sign_in(page, app_server, security)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    forge_approval(page, review)
    wait_for(lambda: decisions_on(app_server, cid) == 1, what="the security reviewer's approval")


def test_agent_markup_renders_as_inert_text(app_server: RunningApp, page: Page):
    from hitl_dashboard.db.models import Conversation, Message

    viewer = make_user(app_server, "security_reviewer", prefix="xss")
    cid = waiting_for_security_review(app_server, "Summarise the incident").cid
    hostile = ('<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
               '<a href="javascript:window.__pwned=3">click me</a> [link](javascript:window.__pwned=4) '
               '<iframe src="javascript:alert(1)"></iframe>')
    with UnitOfWork(app_server.engine) as uow:
        conversation = uow.session.get(Conversation, cid)
        uow.session.add(Message(conversation_id=cid, workspace_id=conversation.workspace_id, seq=conversation.next_seq,
                                source="coder", kind="text", content=hostile))
        conversation.next_seq += 1
        uow.session.add(conversation)
        uow.commit()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    sign_in(page, app_server, viewer)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    message = page.locator(".message").last
    expect(message).to_contain_text("<script>window.__pwned = 1</script>")
    for link in page.locator("#transcript a").all():
        assert not (link.get_attribute("href") or "").lower().startswith("javascript:")
    assert page.locator("#transcript script, #transcript img, #transcript iframe").count() == 0
    page.locator("#transcript").get_by_text("click me").first.click()
    page.wait_for_timeout(500)
    assert page.evaluate("window.__pwned") is None and dialogs == []


def test_queue_updates_live_for_new_requests_and_claims(app_server: RunningApp, browser: Browser):
    first = make_user(app_server, "security_reviewer", prefix="q1")
    second = make_user(app_server, "security_reviewer", prefix="q2")
    starter = make_user(app_server, "product_reviewer", prefix="dev")
    pages = []
    for name in (first, second):
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        sign_in(page, app_server, name)
        pages.append(page)
    title = "Harden the password reset flow"
    start(app_server, starter, title)  # the in-app runner opens a security review: no reload needed
    rows = [page.locator(".queue-row").filter(has_text=title) for page in pages]
    for row in rows:
        expect(row).to_be_visible(timeout=30_000)
    rows[0].locator(".claim-button").click()
    expect(rows[1].locator(".assignee")).to_have_text(first)  # the other reviewer sees the claim live
    expect(rows[1].locator(".claim-button")).to_have_count(0)
    pages[1].fill("#queue-search", "no such title")
    expect(rows[1]).to_have_count(0)
    expect(pages[0].locator(".queue-row").filter(has_text=title)).to_be_visible()


def test_admin_finds_escalated_requests_in_the_admin_queue(app_server: RunningApp, page: Page):
    from datetime import timedelta

    from hitl_dashboard.db.models import ReviewRequest, utcnow
    from hitl_dashboard.services.reviews.escalation import escalate_overdue_in

    admin = make_user(app_server, "admin", prefix="adm")
    title = "Rotate the webhook signing secrets"
    review = waiting_for_security_review(app_server, title).review
    with UnitOfWork(app_server.engine) as uow:
        overdue = uow.session.get(ReviewRequest, review.id)
        overdue.due_at = utcnow() - timedelta(minutes=5)
        uow.session.add(overdue)
        uow.commit()
    # The app's own escalation sweep runs in its process too and may get there first (and another
    # test's overdue review may be escalated by either): what counts is that this one is escalated.
    with UnitOfWork(app_server.engine) as uow:
        escalate_overdue_in(uow)
        uow.commit()
    with UnitOfWork(app_server.engine) as uow:
        assert uow.session.get(ReviewRequest, review.id).status == "escalated"
    sign_in(page, app_server, admin)
    page.click("#tab-admin")
    row = page.locator(".queue-row").filter(has_text=title)
    expect(row).to_contain_text("escalated")
    expect(row.locator(".queue-reason")).to_contain_text("security_reviewer review overdue")
