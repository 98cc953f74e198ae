"""Embedded mode (one web worker, no Redis): an admin deactivates a reviewer on /admin/users and
reactivates them; the reviewer's open page goes to sign-in at once, their API token is refused, and
after the reactivation they sign in again. (Two workers with Redis: tests/e2e/test_hosted_live.py.)"""

from __future__ import annotations

import httpx
from playwright.sync_api import Browser, expect

from tests.e2e.app_process import RunningApp
from tests.e2e.support import LOGIN_PAGE, PASSWORD, api_token, make_user, sign_in


def test_deactivated_reviewer_is_signed_out_and_reactivated(app_server: RunningApp, browser: Browser):
    admin = make_user(app_server, "admin", prefix="adm")
    reviewer = make_user(app_server, "security_reviewer", prefix="leaver")
    token = api_token(app_server, reviewer)
    pages = {}
    for name in (admin, reviewer):
        pages[name] = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        sign_in(pages[name], app_server, name)
    pages[reviewer].goto(f"{app_server.base_url}/conversations")
    expect(pages[reviewer].locator("#session-watch")).to_be_attached()

    users_page = pages[admin]
    users_page.click("#nav-users")
    row = users_page.locator(f".user-row[data-username='{reviewer}']")
    row.locator(".deactivate-user").click()
    users_page.click("#confirm-status")
    pages[reviewer].wait_for_url(LOGIN_PAGE, timeout=10_000)
    expect(row).to_contain_text("deactivated")
    refused = httpx.get(f"{app_server.base_url}/api/conversations", headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 401

    # Signing in again gets the answer a wrong password gets.
    pages[reviewer].fill("#username", reviewer)
    pages[reviewer].fill("#password", PASSWORD)
    pages[reviewer].click("#sign-in")
    expect(pages[reviewer].get_by_text("unknown user or wrong password")).to_be_visible()

    row.locator(".reactivate-user").click()
    users_page.click("#confirm-status")
    expect(row.locator(".deactivate-user")).to_be_visible()
    sign_in(pages[reviewer], app_server, reviewer)
    assert httpx.get(f"{app_server.base_url}/api/conversations",
                     headers={"Authorization": f"Bearer {token}"}).status_code == 401  # old tokens stay revoked
