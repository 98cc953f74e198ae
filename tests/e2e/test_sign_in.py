"""Sign-in in Chromium: wrong passwords are refused, then throttled with a message that does not
say whether the account exists; the attempts are in the audit log. The form is posted by the
browser itself (/auth/sign-in), which comes back to /login with the refusal's code."""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.settings import Settings
from tests.e2e.app_process import RunningApp
from tests.e2e.support import PASSWORD, make_user, wait_for

REFUSED = "unknown user or wrong password"
THROTTLED = "Too many failed sign-ins for this account or from this address. Try again in about"
# The default per-account tier: this many failures within a minute, then the wait.
LIMIT = int(Settings.model_fields["sign_in_account_limit"].default.split("/")[0])


def failed_attempts(app: RunningApp, username: str) -> list[AuditEvent]:
    with UnitOfWork(app.engine) as uow:
        events = uow.session.exec(select(AuditEvent).where(AuditEvent.action == "user.sign_in_failed"))
        return [e for e in events if e.details.get("username") == username]


def signed_in_events(app: RunningApp, username: str) -> list[AuditEvent]:
    with UnitOfWork(app.engine) as uow:
        return list(uow.session.exec(
            select(AuditEvent).where(AuditEvent.action == "user.signed_in", AuditEvent.actor == username)))


def attempt(page: Page, app: RunningApp, username: str, password: str, audited_before: int) -> None:
    """One submit; returns once the server has recorded it, so attempts never overtake each other."""
    page.fill("#username", username)
    page.fill("#password", password)
    with page.expect_navigation():  # the browser posts the form itself; the answer is a new page
        page.click("#sign-in")
    wait_for(lambda: len(failed_attempts(app, username)) > audited_before, timeout=20, what="the audited attempt")


def wrong_passwords_until_throttled(page: Page, app: RunningApp, username: str) -> None:
    page.goto(app.base_url + "/login")
    for n in range(LIMIT):
        attempt(page, app, username, "not-the-password", audited_before=n)
        expect(page.get_by_role("alert")).to_have_text(REFUSED)
    attempt(page, app, username, "not-the-password", audited_before=LIMIT)
    expect(page.get_by_role("alert")).to_contain_text(THROTTLED)


def test_wrong_passwords_are_throttled_with_a_message(app_server: RunningApp, browser: Browser) -> None:
    name = make_user(app_server, "security_reviewer", prefix="locked")
    page = browser.new_page()
    wrong_passwords_until_throttled(page, app_server, name)
    # Now even the right password waits: the server's answer brings the browser back to /login.
    page.fill("#username", name)
    page.fill("#password", PASSWORD)
    with page.expect_navigation():
        page.click("#sign-in")
    expect(page).to_have_url(re.compile(r"/login\?error=throttled&retry=\d+$"))
    expect(page.get_by_role("alert")).to_contain_text(THROTTLED)
    assert not signed_in_events(app_server, name)
    reasons = [e.details["reason"] for e in failed_attempts(app_server, name)]
    assert reasons == ["bad_credentials"] * LIMIT + ["throttled"]
    assert all(e.details["address"] == "127.0.0.1" for e in failed_attempts(app_server, name))


def test_an_unknown_name_reads_the_same(app_server: RunningApp, browser: Browser) -> None:
    page = browser.new_page()
    wrong_passwords_until_throttled(page, app_server, f"nobody-{uuid.uuid4().hex[:6]}")
