"""Signing in in Chromium, through the OpenID Connect provider (tests/support/oidc_provider.py, which
the shared app trusts) and with a password: deep links survive both, the sign-in lives only in an
HttpOnly cookie, a cross-site form cannot change anything, sign out everywhere and expiry end it,
and a browser still holding the old localStorage sign-in is signed out once with a message."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from urllib.parse import quote

from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlalchemy import update
from sqlmodel import select

from hitl_dashboard.db.models import ApiToken, AuditEvent, User, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.users import actor_of
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, sign_in, start
from tests.support.oidc_provider import OidcProvider

COOKIE = "hitl_sign_in"


def sso_sign_in(page: Page, subject: str) -> None:
    """From the sign-in page, through the provider's own page, back to the app."""
    page.click("#sso-sign-in")
    page.fill("input[name=sub]", subject)
    page.get_by_role("button", name="Authorize").click()


def roles_of(app: RunningApp, username: str) -> list[str]:
    """The instance's roles and those held in any workspace (the map's bare roles: in default)."""
    with UnitOfWork(app.engine) as uow:
        user = uow.session.exec(select(User).where(User.username == username)).one()
        return sorted(set(actor_of(user).roles))


def sign_in_cookie(context: BrowserContext) -> dict:
    [cookie] = [c for c in context.cookies() if c["name"] == COOKIE]
    return cookie


def test_single_sign_on_keeps_the_deep_link_and_maps_groups_to_roles(
        app_server: RunningApp, oidc_provider: OidcProvider, browser: Browser) -> None:
    author = make_user(app_server, "product_reviewer", prefix="author")
    cid = start(app_server, author, "Add a health check endpoint")
    subject, username = f"sub-{uuid.uuid4().hex[:8]}", f"sso-{uuid.uuid4().hex[:6]}"
    oidc_provider.set_user(subject, preferred_username=username, groups=["hitl-security", "hitl-product"])
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    page.wait_for_url(re.compile(rf"/login\?next={re.escape(quote(f'/conversations/{cid}', safe=''))}$"))
    sso_sign_in(page, subject)
    page.wait_for_url(f"**/conversations/{cid}")
    expect(page.locator("#signed-in-user")).to_have_text(username)
    assert roles_of(app_server, username) == ["product_reviewer", "security_reviewer"]

    # The sign-in is an HttpOnly cookie only: no script on the page can read it anywhere.
    cookie = sign_in_cookie(context)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and cookie["value"].startswith("hitl_")
    readable = page.evaluate("""() => document.cookie + JSON.stringify(Object.entries(localStorage))
                                      + JSON.stringify(Object.entries(sessionStorage))""")
    assert cookie["value"] not in readable and COOKIE not in readable

    # Removed from a group at the provider: that role is gone at the next sign-in.
    oidc_provider.set_user(subject, preferred_username=username, groups=["hitl-product"])
    page.click("#sign-out")
    page.wait_for_url(re.compile(r"/login\?notice=signed_out$"))
    sso_sign_in(page, subject)
    page.wait_for_url(re.compile(r"/(queue|conversations)$"))
    assert roles_of(app_server, username) == ["product_reviewer"]
    context.close()


def test_a_deep_link_survives_a_password_sign_in(app_server: RunningApp, page: Page) -> None:
    manager = make_user(app_server, "manager", prefix="mgr")
    page.context.clear_cookies(name=COOKIE)
    page.goto(f"{app_server.base_url}/audit?action=user.signed_in")
    page.wait_for_url(re.compile(r"/login\?next="))
    sign_in_from_here = page.url
    page.fill("#username", manager)
    page.fill("#password", "e2e-password")
    page.click("#sign-in")
    page.wait_for_url(re.compile(r"/audit\?action=user\.signed_in$"))
    expect(page.locator("#signed-in-user")).to_have_text(manager)
    assert "next=%2Faudit%3Faction%3Duser.signed_in" in sign_in_from_here


def test_a_cross_site_form_post_is_refused(app_server: RunningApp, browser: Browser) -> None:
    user = make_user(app_server, "security_reviewer", prefix="victim")
    context = browser.new_context()
    page = context.new_page()
    sign_in(page, app_server, user)
    # A page of another site posts a form at the app, as an attacker's page would.
    attack = f"""<form id="f" method="post" action="{app_server.base_url}/auth/sign-out-everywhere">
                 <input name="csrf" value="guessed"></form><script>document.getElementById('f').submit()</script>"""
    context.route("http://evil.example/**", lambda route: route.fulfill(content_type="text/html", body=attack))
    foreign = context.new_page()
    with foreign.expect_navigation(url=f"{app_server.base_url}/auth/sign-out-everywhere") as navigation:
        foreign.goto("http://evil.example/attack")
    assert navigation.value.status == 403
    expect(foreign.locator("#sign-in-problem")).to_contain_text("did not come from this site")
    with UnitOfWork(app_server.engine) as uow:
        assert not uow.session.exec(select(AuditEvent).where(AuditEvent.action == "user.signed_out_everywhere",
                                                             AuditEvent.actor == user)).first()
    page.reload()
    expect(page.locator("#signed-in-user")).to_have_text(user)  # still signed in
    context.close()


def test_sign_out_everywhere_and_expiry_end_open_browsers(app_server: RunningApp, browser: Browser) -> None:
    user = make_user(app_server, "security_reviewer", prefix="many")
    laptop, phone = browser.new_context(), browser.new_context()
    laptop_page, phone_page = laptop.new_page(), phone.new_page()
    sign_in(laptop_page, app_server, user)
    sign_in(phone_page, app_server, user)
    laptop_page.click("#user-menu")
    laptop_page.click("#sign-out-everywhere")
    laptop_page.wait_for_url(re.compile(r"/login\?notice=signed_out_everywhere$"))
    expect(laptop_page.locator("#sign-in-notice")).to_contain_text("signed out in every browser")
    phone_page.goto(f"{app_server.base_url}/conversations")
    phone_page.wait_for_url(re.compile(r"/login\?notice=expired&next=%2Fconversations$"))
    expect(phone_page.locator("#sign-in-notice")).to_contain_text("Your sign-in has ended")

    # Idle: a sign-in unused for longer than SIGN_IN_IDLE_MINUTES ends too.
    sign_in(phone_page, app_server, user)
    with UnitOfWork(app_server.engine) as uow:
        user_id = uow.session.exec(select(User.id).where(User.username == user)).one()
        uow.session.exec(update(ApiToken).where(ApiToken.user_id == user_id, ApiToken.kind == "session")
                         .values(last_used_at=utcnow() - timedelta(hours=2)))
        uow.commit()
    phone_page.goto(f"{app_server.base_url}/queue")
    phone_page.wait_for_url(re.compile(r"/login\?notice=expired&next=%2Fqueue$"))
    laptop.close()
    phone.close()


def test_an_old_local_storage_sign_in_is_dropped_once_with_a_message(app_server: RunningApp, page: Page) -> None:
    page.context.clear_cookies(name=COOKIE)
    page.goto(f"{app_server.base_url}/login")
    # After the sign-in page's on_load (it enables the button): its state's first delta syncs the
    # LocalStorage var and would otherwise overwrite the key set here.
    expect(page.locator("#sign-in")).to_be_enabled()
    page.evaluate("() => localStorage.setItem('hitl_session', 'hitl_an-old-sign-in')")
    page.goto(f"{app_server.base_url}/queue")
    page.wait_for_url(re.compile(r"/login\?notice=upgraded&next=%2Fqueue$"))
    expect(page.locator("#sign-in-notice")).to_contain_text("was upgraded")
    assert not page.evaluate("() => localStorage.getItem('hitl_session')")  # emptied
