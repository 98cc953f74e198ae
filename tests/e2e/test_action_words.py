"""Words that match the action (issue 32), in Chromium: a tool card asks for the reason for denying
and counts its calls from "call 1"; Abort asks first, and once aborted the sign-off steps read
"aborted" and "not needed" (never "pending"); a fold of one unchanged line reads "Expand 1 line"."""

from __future__ import annotations

import hashlib
import re

from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from hitl_dashboard.db.models import CodeRevision, Conversation
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, open_reviews, sign_in, start, wait_for, waiting_for_security_review

MODULE = "app/retry.py"


def _open(browser: Browser, app: RunningApp, username: str, cid: int) -> Page:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    sign_in(page, app, username)
    page.goto(f"{app.base_url}/conversations/{cid}")
    expect(page.locator(".review-card")).to_have_count(1, timeout=30_000)
    return page


def test_a_tool_card_asks_why_it_is_denied_and_counts_calls_from_one(app_server: RunningApp, browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="wtool")
    starter = make_user(app_server, "final_approver", prefix="wtdev")
    cid = start(app_server, starter, "Deploy ledger-api v3.1.0 to production", task_type="ops")
    [review] = wait_for(lambda: open_reviews(app_server, cid), what="the deploy_to_prod approval")
    page = _open(browser, app_server, reviewer, cid)
    card = page.locator(".review-card")
    expect(card).to_contain_text("deploy_to_prod (call 1)")  # this conversation's first call
    expect(page.locator(f"label[for='decision-instructions-{review.id}']")).to_have_text(
        "Reason for denying (the agent reads it)")
    expect(page.locator(f"#decision-instructions-{review.id}")).to_have_attribute(
        "placeholder", "Why should this call not run?")
    expect(page.locator(f"#decide-revise-{review.id}")).to_have_text("Deny")


def test_abort_asks_first_then_the_sign_off_reads_aborted_and_not_needed(app_server: RunningApp, browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="wabort")
    waiting = waiting_for_security_review(app_server, "Add retry with backoff to the abort-confirmed mailer")
    cid, review = waiting.cid, waiting.review
    page = _open(browser, app_server, reviewer, cid)
    steps = page.locator(".signoff-step")
    expect(steps).to_have_count(2)
    expect(steps.first).to_contain_text("pending")

    page.fill(f"#decision-reason-{review.id}", "the mailer is being retired")
    dialog = page.get_by_role("alertdialog")
    page.click(f"#decide-abort-{review.id}")
    expect(dialog).to_contain_text("Abort this conversation?")
    dialog.locator(".confirm-cancel").click()  # changed their mind: nothing happens
    expect(dialog).to_have_count(0)
    expect(page.locator("#status-banner")).to_contain_text("Waiting for security review")

    page.click(f"#decide-abort-{review.id}")
    page.click(f"#confirm-abort-{review.id}")
    expect(page.locator("#status-banner")).to_contain_text("Aborted", timeout=20_000)
    expect(steps.first).to_contain_text("aborted")
    assert [steps.nth(i).get_attribute("data-state") for i in range(2)] == ["aborted", "not needed"]
    expect(page.locator("#signoff")).not_to_contain_text("pending")
    with UnitOfWork(app_server.engine) as uow:
        assert uow.session.get(Conversation, cid).status == "aborted"


def _one_line_changed(app: RunningApp, cid: int) -> None:
    """r2 of the module with its 5th line changed: the diff shows 3 unchanged lines above the change
    and folds the one line before them."""
    with UnitOfWork(app.engine) as uow:
        first = uow.session.exec(select(CodeRevision).where(
            CodeRevision.conversation_id == cid, CodeRevision.key == MODULE)).one()
        lines = first.content.split("\n")
        lines[4] += "  # changed in r2"
        content = "\n".join(lines)
        uow.session.add(CodeRevision(
            conversation_id=cid, message_id=first.message_id, key=MODULE, number=first.number + 1,
            language=first.language, content=content, content_hash=hashlib.sha256(content.encode()).hexdigest()))
        uow.commit()


def test_a_fold_of_one_line_says_expand_1_line(app_server: RunningApp, browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="wfold")
    cid = waiting_for_security_review(app_server, "Add retry with exponential backoff to the fold reporter").cid
    _one_line_changed(app_server, cid)
    page = _open(browser, app_server, reviewer, cid)
    module = page.locator(f"#diff .diff-file[data-key='{MODULE}']")
    expect(module.locator(".diff-fold-message").first).to_have_text("Expand 1 line ...")
    expect(module).not_to_contain_text(re.compile(r"Expand 1 lines"))
