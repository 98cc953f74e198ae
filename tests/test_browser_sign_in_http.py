"""Browser sign-ins over HTTP, in-process (Starlette's TestClient on the FastAPI app): the password
form, the HttpOnly cookie and when it is Secure, cross-site requests refused (Origin, Sec-Fetch-Site,
CSRF token), sign out everywhere, idle and absolute expiry, and password sign-in turned off."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlmodel import select

from hitl_dashboard.db.models import ApiToken, AuditEvent, User, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.browser_sign_ins import csrf_token_for
from hitl_dashboard.services.auth.users import create_user
from tests.support.in_process_api import in_process_api

APP_URL = "http://testserver"
SAME_SITE = {"Origin": APP_URL, "Sec-Fetch-Site": "same-origin"}
FOREIGN = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
PASSWORD = "pw-browser"
STATE_CHANGING = "/api/conversations/999999/retry"  # admins only; 404 for this id once past the sign-in checks


def app_client(monkeypatch: pytest.MonkeyPatch, **settings: str) -> contextlib.AbstractContextManager[TestClient]:
    return in_process_api(monkeypatch, {"PUBLIC_URL": APP_URL, **settings}, base_url=APP_URL,
                          follow_redirects=False)


@pytest.fixture
def client(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    with app_client(monkeypatch) as test_client:
        yield test_client


def admin() -> str:
    name = f"adm-{uuid.uuid4().hex[:6]}"
    create_user(username=name, password=PASSWORD, roles=["admin"])
    return name


def password_sign_in(client: TestClient, username: str, next_path: str = "", headers: dict | None = None):
    return client.post("/auth/sign-in", data={"username": username, "password": PASSWORD, "next": next_path},
                       headers=SAME_SITE if headers is None else headers)


def signed_in(client: TestClient, username: str) -> str:
    response = password_sign_in(client, username)
    assert response.status_code == 303, response.text
    return client.cookies["hitl_sign_in"]


def audited(action: str) -> list[AuditEvent]:
    with UnitOfWork() as uow:
        return list(uow.session.exec(select(AuditEvent).where(AuditEvent.action == action)))


def test_password_sign_in_sets_an_http_only_cookie_and_follows_the_deep_link(client: TestClient):
    name = admin()
    response = password_sign_in(client, name, next_path="/audit?action=user.signed_in")
    assert response.status_code == 303 and response.headers["location"] == "/audit?action=user.signed_in"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("hitl_sign_in=hitl_") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Path=/" in cookie and "Secure" not in cookie
    assert [e.details["method"] for e in audited("user.signed_in") if e.actor == name] == ["password"]
    assert client.get("/api/conversations").status_code == 200  # the API takes the cookie for reads


def test_a_wrong_password_or_a_foreign_deep_link_goes_back_to_the_form(client: TestClient):
    name = admin()
    wrong = client.post("/auth/sign-in", data={"username": name, "password": "nope", "next": "/queue"},
                        headers=SAME_SITE)
    assert wrong.status_code == 303 and wrong.headers["location"] == "/login?error=bad_credentials&next=%2Fqueue"
    assert "set-cookie" not in wrong.headers
    foreign = password_sign_in(client, name, next_path="https://evil.example/")
    assert foreign.headers["location"] == "/"


def test_a_cross_site_sign_in_form_is_refused(client: TestClient):
    name = admin()
    for headers in (FOREIGN, {"Origin": "null"}, {"Sec-Fetch-Site": "same-site"}):
        refused = password_sign_in(client, name, headers=headers)
        assert refused.status_code == 403 and "did not come from this site" in refused.text
    assert not [e for e in audited("user.signed_in") if e.actor == name]


def test_state_changing_calls_with_the_cookie_need_this_site_and_its_csrf_token(client: TestClient):
    token = signed_in(client, admin())
    no_token = client.post(STATE_CHANGING, headers=SAME_SITE)
    assert no_token.status_code == 403 and "CSRF" in no_token.json()["detail"]
    foreign = client.post(STATE_CHANGING, headers={**FOREIGN, "X-CSRF-Token": csrf_token_for(token)})
    assert foreign.status_code == 403
    wrong = client.post(STATE_CHANGING, headers={**SAME_SITE, "X-CSRF-Token": csrf_token_for("hitl_other")})
    assert wrong.status_code == 403
    allowed = client.post(STATE_CHANGING, headers={**SAME_SITE, "X-CSRF-Token": csrf_token_for(token)})
    assert allowed.status_code == 404  # past the sign-in checks: the conversation does not exist


def test_a_cross_site_form_cannot_sign_out_everywhere(client: TestClient):
    name = admin()
    token = signed_in(client, name)
    refused = client.post("/auth/sign-out-everywhere", data={"csrf": ""}, headers=FOREIGN)
    assert refused.status_code == 403
    refused = client.post("/auth/sign-out-everywhere", data={"csrf": csrf_token_for(token)}, headers=FOREIGN)
    assert refused.status_code == 403
    assert client.get("/api/conversations").status_code == 200
    assert not audited("user.signed_out_everywhere")


def test_sign_out_everywhere_ends_every_browser_of_that_user_only(client: TestClient, monkeypatch):
    name, other = admin(), admin()
    with app_client(monkeypatch) as second, app_client(monkeypatch) as bystander:
        first_token, second_token = signed_in(client, name), signed_in(second, name)
        signed_in(bystander, other)
        response = client.post("/auth/sign-out-everywhere", data={"csrf": csrf_token_for(first_token)},
                               headers=SAME_SITE)
        assert response.status_code == 303 and response.headers["location"] == "/login?notice=signed_out_everywhere"
        assert not client.cookies.get("hitl_sign_in")
        second.cookies.set("hitl_sign_in", second_token)
        assert second.get("/api/conversations").status_code == 401
        assert bystander.get("/api/conversations").status_code == 200
    [event] = audited("user.signed_out_everywhere")
    assert event.actor == name and event.details["ended"] == 2


def test_sign_out_ends_this_sign_in(client: TestClient):
    token = signed_in(client, admin())
    response = client.post("/auth/sign-out", data={"csrf": csrf_token_for(token)}, headers=SAME_SITE)
    assert response.headers["location"] == "/login?notice=signed_out"
    client.cookies.set("hitl_sign_in", token)
    assert client.get("/api/conversations").status_code == 401


@pytest.mark.parametrize("column", ["last_used_at", "expires_at"])
def test_an_idle_or_too_old_sign_in_ends(client: TestClient, column: str):
    token = signed_in(client, admin())
    assert client.get("/api/conversations").status_code == 200
    # Idle: last used longer ago than SIGN_IN_IDLE_MINUTES (60); too old: past SIGN_IN_MAX_HOURS.
    moved = utcnow() - timedelta(minutes=61) if column == "last_used_at" else utcnow() - timedelta(seconds=1)
    with UnitOfWork() as uow:
        uow.session.exec(update(ApiToken).where(ApiToken.kind == "session").values({column: moved}))
        uow.commit()
    assert client.get("/api/conversations").status_code == 401
    assert token == client.cookies["hitl_sign_in"]


def test_the_cookie_is_secure_over_https_and_behind_a_trusted_proxy(sqlite_url, monkeypatch):
    name = admin()
    with app_client(monkeypatch, PUBLIC_URL="https://review.example", TRUSTED_PROXY_HOPS="0") as https_app:
        https_app.base_url = "https://review.example"
        response = password_sign_in(https_app, name, headers={"Origin": "https://review.example"})
        assert "Secure" in response.headers["set-cookie"]
    with app_client(monkeypatch, TRUSTED_PROXY_HOPS="1") as proxied:
        behind = password_sign_in(proxied, name, headers={**SAME_SITE, "X-Forwarded-Proto": "https"})
        assert "Secure" in behind.headers["set-cookie"]
    with app_client(monkeypatch, TRUSTED_PROXY_HOPS="0") as direct:  # a client's own header is not believed
        spoofed = password_sign_in(direct, name, headers={**SAME_SITE, "X-Forwarded-Proto": "https"})
        assert "Secure" not in spoofed.headers["set-cookie"]


def test_password_sign_in_can_be_turned_off(sqlite_url, monkeypatch):
    name = admin()
    sso = {"OIDC_ISSUER": "https://idp.example", "OIDC_CLIENT_ID": "hitl", "OIDC_CLIENT_SECRET": "secret-123456"}
    with app_client(monkeypatch, PASSWORD_SIGN_IN="false", **sso) as client:
        response = password_sign_in(client, name)
        assert response.headers["location"] == "/login?error=password_off"
    assert not client.cookies.get("hitl_sign_in")
    with UnitOfWork() as uow:
        assert uow.session.exec(select(User).where(User.username == name)).one().password_hash  # untouched
