"""A reviewer suggests exact replacement lines on the diff, sends them with a revise, and the next
revision's diff marks the suggestion applied (the scripted coder applies suggestions as written)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent, Decision
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, sign_in, waiting_for_security_review


def test_a_suggestion_sent_with_a_revise_is_marked_applied_in_the_next_revision(app_server: RunningApp,
                                                                                browser: Browser, screenshot_dir: Path):
    security = make_user(app_server, "security_reviewer", prefix="sug")
    cid = waiting_for_security_review(app_server, "Add retry with exponential backoff to the payment client").cid

    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    sign_in(page, app_server, security)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    expect(page.locator("#diff")).to_contain_text("MAX_ATTEMPTS = 5")  # line 5 of app/retry.py r1

    page.locator("#diff").get_by_text("5", exact=True).first.click()
    page.fill("#line-comment-text", "three attempts are enough")
    page.click("#line-comment-suggest")
    # It opens with the line as it reads now, as on GitHub.
    expect(page.locator("#line-comment-suggestion")).to_have_value("MAX_ATTEMPTS = 5")
    page.fill("#line-comment-suggestion", "MAX_ATTEMPTS = 3  # the payment API rate-limits retries")
    page.locator("#line-comment-editor").screenshot(path=str(screenshot_dir / "suggestion-form.png"))
    page.click("#add-line-comment")
    expect(page.locator(".line-comment-suggestion")).to_have_text(
        "MAX_ATTEMPTS = 3  # the payment API rate-limits retries")
    page.click(".decide-revise")

    suggestion = page.locator("#suggestions .suggestion")
    expect(suggestion).to_have_count(1, timeout=30_000)
    expect(suggestion).to_contain_text("app/retry.py line 5")
    expect(suggestion.locator(".suggestion-state")).to_have_text("applied", timeout=30_000)
    expect(suggestion).to_contain_text("r1 → r2")
    expect(suggestion.locator(".suggestion-detail")).to_contain_text("as written")
    expect(page.locator("#diff")).to_contain_text("MAX_ATTEMPTS = 3  # the payment API rate-limits retries")
    expect(page.locator(".message[data-source='coder']").last).to_contain_text(
        "applied the suggested change to app/retry.py line 5 exactly as written")
    page.locator("#suggestions").screenshot(path=str(screenshot_dir / "suggestion-applied.png"))

    with UnitOfWork(app_server.engine) as uow:
        decision = uow.session.exec(select(Decision).where(Decision.conversation_id == cid)).one()
        events = uow.session.exec(select(AuditEvent).where(AuditEvent.conversation_id == cid,
                                                           AuditEvent.action == "decision.recorded")).all()
    [comment] = decision.line_comments or []
    assert comment["suggestion"] == ["MAX_ATTEMPTS = 3  # the payment API rate-limits retries"]
    assert comment["revision_id"] is not None  # pinned to r1 by the server
    [event] = events
    assert event.details["suggestions"][0]["lines"] == comment["suggestion"]
