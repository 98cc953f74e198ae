"""An admin stops a conversation from its page, with a reason and a confirmation; everyone watching
sees it end, and a reviewer without the admin role has no such button."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from hitl_dashboard.db.models import Conversation
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, open_reviews, sign_in, waiting_for_security_review


def test_an_admin_aborts_a_waiting_conversation_and_watchers_see_it(app_server: RunningApp, browser: Browser):
    admin = make_user(app_server, "admin", prefix="adm")
    watcher = make_user(app_server, "security_reviewer", prefix="sec")
    cid = waiting_for_security_review(app_server, "Add a password reset flow").cid

    pages = {}
    for name, lands_on in ((admin, "**/queue*"), (watcher, "**/queue*")):
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        sign_in(page, app_server, name, lands_on=lands_on)
        page.goto(f"{app_server.base_url}/conversations/{cid}")
        expect(page.locator(".review-card")).to_have_count(1)
        pages[name] = page
    expect(pages[watcher].locator("#admin-abort")).to_have_count(0)

    button = pages[admin].locator("#admin-abort-button")
    expect(button).to_be_disabled()  # a reason first
    pages[admin].fill("#admin-abort-reason", "the customer cancelled the project")
    button.click()  # asks first: nothing is aborted until the dialog's own button
    expect(pages[admin].get_by_role("alertdialog")).to_contain_text("Abort this conversation?")
    pages[admin].click("#admin-abort-confirm")
    for page in pages.values():  # live, no reload
        expect(page.locator("#status-banner")).to_contain_text("Aborted", timeout=20_000)
        expect(page.locator(".review-card")).to_have_count(0)
    with UnitOfWork(app_server.engine) as uow:
        conversation = uow.session.get(Conversation, cid)
    assert conversation.status == "aborted" and "the customer cancelled the project" in conversation.status_reason
    assert open_reviews(app_server, cid) == []
