"""/tokens and /webhooks in Chromium against the shared app: a user's own API token made, used over
real HTTP and revoked; a webhook added, tested against a receiver on 127.0.0.1, its delivery listed
with the response code, its secret rotated, then removed. Secrets show once and never again."""

from __future__ import annotations

import json
import uuid

import httpx
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import text

from hitl_dashboard.services.webhooks.webhook_payloads import verify_signature
from tests.e2e.app_process import RunningApp, free_port
from tests.e2e.layout_checks import horizontal_overflow, overflowing
from tests.e2e.support import make_user, make_workspace, sign_in, wait_for
from tests.e2e.test_accessibility import unnamed_controls, violations
from tests.support.webhook_receiver import Receiver


def _signed_in_page(browser: Browser, app: RunningApp, *roles: str, prefix: str = "tok") -> tuple[Page, str]:
    name = make_user(app, *roles, prefix=prefix)
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    sign_in(page, app, name, lands_on="**/queue*" if set(roles) & {"security_reviewer", "admin"} else "**/conv*")
    return page, name


def _api(app: RunningApp, token: str) -> httpx.Response:
    return httpx.get(f"{app.base_url}/api/conversations", headers={"Authorization": f"Bearer {token}"}, timeout=30)


def test_a_user_creates_uses_and_revokes_an_api_token(app_server: RunningApp, browser: Browser):
    page, name = _signed_in_page(browser, app_server, "security_reviewer")
    page.click("#nav-tokens")  # from the header
    page.wait_for_url("**/tokens")
    expect(page.locator("#no-tokens")).to_be_visible()
    page.fill("#token-name", "ci-bot")
    page.click("#token-expiry")
    page.get_by_role("option", name="7 days", exact=True).click()
    page.click("#create-token")
    field = page.locator("#new-token-value")
    wait_for(lambda: field.input_value().startswith("hitl_"), 15, "the new token in its field")
    token = field.input_value()
    expect(page.locator("#new-token-value-panel")).to_be_visible()
    row = page.locator(".token-row")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("ci-bot")
    expect(row.locator(".token-state")).to_have_text("active")
    assert token.startswith(row.get_attribute("data-prefix").rstrip("…"))
    assert violations(page) == [] and unnamed_controls(page)[1] == []

    assert _api(app_server, token).status_code == 200  # real HTTP, as this user

    page.reload()  # shown once: a reload shows it no more, and it never was in the page's state
    expect(page.locator(".token-row")).to_have_count(1)
    expect(page.locator("#new-token-value-panel")).to_be_hidden()
    assert page.locator("#new-token-value").input_value() == ""
    assert token not in page.content()
    expect(page.locator(".token-row .token-last-used")).not_to_have_text("never")  # the call above used it
    page.locator(".revoke-token").click()
    expect(page.locator(".token-row .token-state")).to_have_text("revoked")
    expect(page.locator(".revoke-token")).to_have_count(0)
    refused = _api(app_server, token)
    assert refused.status_code == 401 and "revoked" in refused.text
    with app_server.engine.connect() as db:
        actions = [r[0] for r in db.execute(text("SELECT action FROM audit_events WHERE actor = :u ORDER BY seq"),
                                            {"u": name})]
    assert "token.created" in actions and "token.revoked" in actions


def test_an_admins_header_with_every_link_fits_1280_px(app_server: RunningApp, browser: Browser):
    """The widest header there is: the instance admin's (every link), a workspace switcher (another
    workspace exists, with a long name) and a 64-character user name. The CI run of stop 46 found it 21 px
    too wide once another test had made a second workspace in the shared app."""
    long_name = "Payments and infrastructure agents of the whole organisation"
    make_workspace(app_server, "payments", name=long_name)
    page, admin = _signed_in_page(browser, app_server, "admin", prefix="a" * 57)
    assert len(admin) == 64
    page.click("#nav-webhooks")
    page.wait_for_url("**/webhooks")
    expect(page.locator("#workspace-switcher")).to_be_visible()
    assert horizontal_overflow(page) == 0, overflowing(page)
    page.click("#workspace-switcher")
    page.get_by_role("option", name=long_name).click()
    expect(page.locator("#workspace-switcher")).to_contain_text("Payments")
    assert horizontal_overflow(page) == 0, overflowing(page)
    expect(page.locator("#signed-in-user")).to_be_visible()  # cut to fit, not pushed off the window
    # A tablet's window: the header is a menu there, and the page still fits.
    page.set_viewport_size({"width": 1024, "height": 800})
    expect(page.locator("#nav-menu")).to_be_visible()
    expect(page.locator("#nav-webhooks")).to_be_hidden()
    assert horizontal_overflow(page) == 0, overflowing(page)


def test_an_admin_adds_tests_rotates_and_removes_a_webhook(app_server: RunningApp, browser: Browser):
    receiver = Receiver(free_port()).start()
    try:
        page, admin = _signed_in_page(browser, app_server, "admin")
        page.click("#nav-webhooks")
        page.wait_for_url("**/webhooks")
        page.fill("#webhook-url", "ftp://nowhere")
        page.click("#event-review-decided")
        page.click("#add-webhook")
        expect(page.locator(".field-error")).to_contain_text("http(s) URL")  # refused; the form keeps its input
        expect(page.locator("#webhook-url")).to_have_value("ftp://nowhere")
        page.fill("#webhook-url", receiver.url)
        page.click("#add-webhook")
        secret_field = page.locator("#webhook-secret-value")
        wait_for(lambda: len(secret_field.input_value()) > 20, 15, "the signing secret in its field")
        secret = secret_field.input_value()
        page.click("#webhook-secret-value-done")
        expect(page.locator("#webhook-secret-value-panel")).to_be_hidden()
        row = page.locator(".webhook-row", has_text=receiver.url)
        expect(row).to_have_count(1)
        webhook_id = row.get_attribute("data-webhook-id")

        row.locator(".test-webhook").click()
        delivery = page.locator(f".delivery-row[data-webhook-id='{webhook_id}']")
        expect(delivery.locator(".delivery-status")).to_have_text("delivered", timeout=20_000)
        expect(delivery.locator(".delivery-code")).to_have_text("200")
        expect(delivery.locator(".delivery-event")).to_have_text("webhook.test")
        # After the "delivered" toast has gone: sonner's toast colours fail axe's contrast rule app-wide.
        expect(page.locator("[data-sonner-toast]")).to_have_count(0, timeout=15_000)
        assert violations(page) == [] and unnamed_controls(page)[1] == []
        [got] = receiver.received
        assert verify_signature(secret, got.body, got.headers["x-hitl-signature"])

        receiver.status = 500  # the next test fails visibly, with the receiver's code
        row.locator(".rotate-secret").click()
        wait_for(lambda: secret_field.input_value() not in ("", secret), 15, "the new signing secret")
        rotated = secret_field.input_value()
        row.locator(".test-webhook").click()
        expect(delivery.first.locator(".delivery-status")).to_have_text("failed", timeout=20_000)
        expect(delivery.first.locator(".delivery-code")).to_have_text("500")
        assert verify_signature(rotated, receiver.received[-1].body, receiver.received[-1].headers["x-hitl-signature"])
        assert not verify_signature(secret, receiver.received[-1].body,
                                    receiver.received[-1].headers["x-hitl-signature"])

        row.locator(".remove-webhook").click()
        page.click("#confirm-remove")
        expect(page.locator(".webhook-row", has_text=receiver.url)).to_have_count(0)
        page.reload()
        expect(page.locator(".webhook-row", has_text=receiver.url)).to_have_count(0)
        assert secret not in page.content() and rotated not in page.content()
        with app_server.engine.connect() as db:
            assert db.execute(text("SELECT active FROM webhooks WHERE id = :i"), {"i": int(webhook_id)}).scalar() \
                in (False, 0)
            # This admin's own events (other tests write webhook events of other shapes to the same log).
            events = db.execute(text("SELECT action, details FROM audit_events WHERE action LIKE 'webhook.%' "
                                     "AND actor = :u"), {"u": admin}).all()
        decoded = [(action, json.loads(details) if isinstance(details, str) else details) for action, details in events]
        actions = {action for action, details in decoded if details.get("webhook_id") == int(webhook_id)}
        assert {"webhook.added", "webhook.tested", "webhook.secret_rotated", "webhook.removed"} <= actions
    finally:
        receiver.stop()
        with app_server.engine.begin() as db:  # a failure midway must not leave the shared app sending to it
            db.execute(text("UPDATE webhooks SET active = false WHERE url = :u"), {"u": receiver.url})


def test_webhooks_page_refuses_non_admins(app_server: RunningApp, browser: Browser):
    page, _ = _signed_in_page(browser, app_server, "manager")
    expect(page.locator("#nav-webhooks")).to_have_count(0)
    page.goto(f"{app_server.base_url}/webhooks")
    expect(page.locator("#access-denied")).to_be_visible()
    expect(page.locator("#add-webhook")).to_have_count(0)


def test_a_workspace_admin_manages_the_webhooks_of_their_workspace_only(app_server: RunningApp, browser: Browser):
    """Issue 41: a workspace admin (no instance role) has the Webhooks page of their workspace: a
    webhook they add is that workspace's, and the default workspace's webhooks are not listed."""
    workspace_id, slug = make_workspace(app_server, "hooks")
    name = make_user(app_server, "workspace_admin", prefix="wsa", workspace_id=workspace_id)
    default_url = f"http://127.0.0.1:9/default-{uuid.uuid4().hex[:6]}"  # never delivered: nothing subscribes
    with app_server.engine.begin() as db:
        db.execute(text("INSERT INTO webhooks (workspace_id, url, events, secret, format, active, created_at) "
                        "VALUES (1, :u, '[\"audit.head\"]', 's', 'json', true, CURRENT_TIMESTAMP)"), {"u": default_url})
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    sign_in(page, app_server, name, lands_on="**/conv*")
    page.click("#nav-webhooks")
    page.wait_for_url("**/webhooks")
    url = f"http://127.0.0.1:9/{slug}"
    page.fill("#webhook-url", url)
    page.click("#event-review-decided")
    page.click("#add-webhook")
    page.click("#webhook-secret-value-done")
    expect(page.locator(".webhook-row", has_text=url)).to_have_count(1)
    expect(page.locator(".webhook-row")).to_have_count(1)  # not the default workspace's, nor other tests'
    with app_server.engine.begin() as db:
        assert db.execute(text("SELECT workspace_id FROM webhooks WHERE url = :u"), {"u": url}).scalar() == workspace_id
        db.execute(text("UPDATE webhooks SET active = false WHERE url IN (:u, :d)"), {"u": url, "d": default_url})


def test_a_workspace_admin_links_and_unlinks_a_slack_user_in_the_browser(app_server: RunningApp, browser: Browser):
    """Slack links on the Webhooks page (until now API and CLI only): a workspace admin links a Slack
    user to a member of their workspace; a bad id is refused next to its field, a non-member is
    refused; another workspace's links are not listed; unlinking asks first, then removes the row."""
    workspace_id, _ = make_workspace(app_server, "slack")
    admin = make_user(app_server, "workspace_admin", prefix="sla", workspace_id=workspace_id)
    member = make_user(app_server, "security_reviewer", prefix="slm", workspace_id=workspace_id)
    outsider = make_user(app_server, "security_reviewer", prefix="slo")  # the default workspace's
    user_id = "U" + uuid.uuid4().hex[:8].upper()
    with app_server.engine.begin() as db:  # a link of the default workspace: never listed here
        db.execute(text("INSERT INTO slack_user_links (slack_team_id, slack_user_id, user_id, workspace_id, "
                        "created_at) SELECT 'T0OTHER', :s, id, 1, CURRENT_TIMESTAMP FROM users WHERE username = :u"),
                   {"s": user_id, "u": outsider})
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    sign_in(page, app_server, admin, lands_on="**/conv*")
    page.click("#nav-webhooks")
    page.wait_for_url("**/webhooks")
    expect(page.locator("#no-slack-links")).to_be_visible()

    page.fill("#slack-link-slack-team-id", "T0123ABCD")
    page.fill("#slack-link-slack-user-id", "not-an-id")
    page.fill("#slack-link-username", member)
    page.click("#link-slack-user")
    expect(page.locator(".field-error", has_text="a Slack user id such as U0123ABCD")).to_be_visible()
    page.fill("#slack-link-slack-user-id", user_id)
    page.fill("#slack-link-username", outsider)
    page.click("#link-slack-user")
    expect(page.locator("#slack-link-error")).to_contain_text("is not a member of this workspace")
    page.fill("#slack-link-username", member)
    page.click("#link-slack-user")
    row = page.locator(".slack-link-row")
    expect(row).to_have_count(1)
    expect(row).to_contain_text(f"T0123ABCD / {user_id}")
    expect(row.locator(".slack-link-member")).to_have_text(member)
    with app_server.engine.connect() as db:
        assert db.execute(text("SELECT workspace_id FROM slack_user_links WHERE slack_team_id = 'T0123ABCD' "
                               "AND slack_user_id = :s"), {"s": user_id}).scalar() == workspace_id

    row.locator(".unlink-slack-user").click()
    page.locator("[id^=confirm-unlink-]").click()
    expect(page.locator(".slack-link-row")).to_have_count(0)
    expect(page.locator("#no-slack-links")).to_be_visible()
    with app_server.engine.connect() as db:
        links = db.execute(text("SELECT workspace_id FROM slack_user_links WHERE slack_user_id = :s"),
                           {"s": user_id}).scalars().all()
    assert links == [1]  # only the default workspace's link is left
