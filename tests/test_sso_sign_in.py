"""Single sign-on over HTTP, in-process (the FastAPI app through Starlette's TestClient) against a
real OpenID Connect provider on 127.0.0.1 (tests/support/oidc_provider.py): users created with their
mapped roles, roles re-read at every sign-in, deep links, and every refusal (provider error, replayed
or foreign state, wrong issuer or audience, expired token) as a clear page that is audited."""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent, SsoAttempt, User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.sso import provider as sso_provider
from hitl_dashboard.settings import reset_settings_cache
from tests.support.oidc_provider import CLIENT_ID, OidcProvider, running_provider

APP_URL = "http://testserver"
# The provider (test-only) still builds its tokens through authlib's deprecated jose module.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def idp() -> Iterator[OidcProvider]:
    with running_provider() as provider:
        yield provider


@pytest.fixture
def client(sqlite_url: str, idp: OidcProvider, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    for name, value in {**idp.settings(), "PUBLIC_URL": APP_URL}.items():
        monkeypatch.setenv(name, value)
    reset_settings_cache()
    sso_provider.forget_provider()
    from hitl_dashboard.api.app import create_api

    with TestClient(create_api(), base_url=APP_URL, follow_redirects=False) as test_client:
        yield test_client
    sso_provider.forget_provider()


def new_subject(idp: OidcProvider, *groups: str, name: str = "") -> tuple[str, str]:
    """A provider user with these groups: (subject, preferred username)."""
    subject, username = f"sub-{uuid.uuid4().hex[:10]}", name or f"sso-{uuid.uuid4().hex[:6]}"
    idp.set_user(subject, preferred_username=username, name=username.title(), groups=list(groups))
    return subject, username


def begin(client: TestClient, next_path: str = "") -> str:
    """The app's redirect to the provider's authorization page (the state cookie is now set)."""
    response = client.get("/auth/sso/start", params={"next": next_path} if next_path else None)
    assert response.status_code == 303, response.text
    return response.headers["location"]


def callback_path(location: str) -> str:
    parts = urlsplit(location)
    assert f"{parts.scheme}://{parts.netloc}" == APP_URL
    return f"{parts.path}?{parts.query}"


def sign_in(client: TestClient, idp: OidcProvider, subject: str, next_path: str = ""):
    return client.get(callback_path(idp.approve(begin(client, next_path), subject)))


def user(username: str) -> User | None:
    with UnitOfWork() as uow:
        return uow.session.exec(select(User).where(User.username == username)).first()


def events(action: str) -> list[AuditEvent]:
    with UnitOfWork() as uow:
        return list(uow.session.exec(select(AuditEvent).where(AuditEvent.action == action).order_by(AuditEvent.id)))


def refusal_reasons() -> list[str]:
    return [e.details["reason"] for e in events("user.sign_in_failed") if e.details.get("method") == "sso"]


def test_first_sign_in_creates_the_user_with_mapped_roles_and_a_cookie(client: TestClient, idp: OidcProvider):
    subject, username = new_subject(idp, "hitl-security", "hitl-unmapped")
    authorize = begin(client)
    query = parse_qs(urlsplit(authorize).query)
    assert query["client_id"] == [CLIENT_ID] and query["code_challenge_method"] == ["S256"]
    assert query["code_challenge"] and query["nonce"] and query["state"]
    response = client.get(callback_path(idp.approve(authorize, subject)))
    assert response.status_code == 303 and response.headers["location"] == "/"
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("hitl_sign_in="))
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie  # http here
    created = user(username)
    assert created is not None and created.roles == ["security_reviewer"]
    assert (created.oidc_issuer, created.oidc_subject) == (idp.issuer, subject)
    assert [e.actor for e in events("user.created") if e.details["username"] == username] == ["sso"]
    signed_in = [e for e in events("user.signed_in") if e.actor == username]
    assert [e.details["method"] for e in signed_in] == ["sso"]
    # The cookie authenticates the API's reads.
    assert client.get("/api/conversations").status_code == 200


def test_roles_follow_the_groups_at_every_sign_in(client: TestClient, idp: OidcProvider):
    subject, username = new_subject(idp, "hitl-security", "hitl-product")
    assert sign_in(client, idp, subject).status_code == 303
    assert user(username).roles == ["product_reviewer", "security_reviewer"]
    idp.set_user(subject, preferred_username=username, groups=["hitl-product"])  # removed from hitl-security
    assert sign_in(client, idp, subject).status_code == 303
    assert user(username).roles == ["product_reviewer"]
    change = [e for e in events("user.roles_changed") if e.details["username"] == username]
    assert [(e.actor, e.details["after"]) for e in change] == [("sso", ["product_reviewer"])]
    idp.set_user(subject, preferred_username=username, groups=["hitl-unmapped"])  # no role left: refused
    refused = sign_in(client, idp, subject)
    assert refused.status_code == 403 and "no role in this app" in refused.text
    assert refusal_reasons()[-1] == "no_role"


def test_an_existing_password_user_of_that_name_is_not_taken_over(client: TestClient, idp: OidcProvider):
    from hitl_dashboard.services.auth.users import create_user

    taken = f"taken-{uuid.uuid4().hex[:6]}"
    create_user(username=taken, password="local-password", roles=["admin"])
    subject, _ = new_subject(idp, "hitl-product", name=taken)
    assert sign_in(client, idp, subject).status_code == 303
    assert user(taken).roles == ["admin"] and user(taken).oidc_subject is None
    assert user(f"{taken}-2").oidc_subject == subject


@pytest.mark.parametrize(("next_path", "lands_on"), [
    ("/conversations/7?tab=diff", "/conversations/7?tab=diff"),
    ("//evil.example/x", "/"),
    ("https://evil.example/", "/"),
    ("/\\evil.example", "/"),
    ("/queue\r\nSet-Cookie: x=1", "/"),
])
def test_a_deep_link_survives_only_as_a_path_of_this_site(client: TestClient, idp: OidcProvider, next_path: str,
                                                          lands_on: str):
    subject, _ = new_subject(idp, "hitl-security")
    response = sign_in(client, idp, subject, next_path)
    assert response.status_code == 303 and response.headers["location"] == lands_on


def test_a_replayed_callback_is_refused_with_a_clear_page(client: TestClient, idp: OidcProvider):
    subject, _ = new_subject(idp, "hitl-security")
    callback = callback_path(idp.approve(begin(client), subject))
    state_cookie = client.cookies.get("hitl_sso_state")
    assert client.get(callback).status_code == 303
    client.cookies.set("hitl_sso_state", state_cookie, path="/auth/sso")  # an attacker replays the whole request
    replayed = client.get(callback)
    assert replayed.status_code == 403 and "already used" in replayed.text
    assert replayed.headers["content-type"].startswith("text/html") and "Traceback" not in replayed.text
    assert refusal_reasons()[-1] == "replayed_state"


def test_a_callback_from_another_browser_or_the_provider_s_error_is_refused(client: TestClient, idp: OidcProvider):
    subject, _ = new_subject(idp, "hitl-security")
    callback = callback_path(idp.approve(begin(client), subject))
    client.cookies.clear()  # another browser: it never began this sign-in
    other = client.get(callback)
    assert other.status_code == 403 and "started in another browser" in other.text
    denied = client.get(callback_path(idp.deny(begin(client))))
    assert denied.status_code == 403 and "did not sign you in (access_denied" in denied.text
    assert refusal_reasons()[-2:] == ["other_browser", "provider_error"]
    assert not client.cookies.get("hitl_sign_in")


def _nonce_of(authorization_url: str) -> str:
    state = parse_qs(urlsplit(authorization_url).query)["state"][0]
    with UnitOfWork() as uow:
        attempt = uow.session.exec(select(SsoAttempt).where(
            SsoAttempt.state_hash == hashlib.sha256(state.encode()).hexdigest())).one()
        return attempt.nonce


@pytest.mark.parametrize(("change", "reason", "says"), [
    ({"iss": "http://other-provider.example"}, "wrong_issuer", "another identity provider"),
    ({"aud": "another-app"}, "wrong_audience", "issued for another application"),
    ({"exp": -600, "iat": -4200}, "expired_id_token", "has expired"),
    ({"nonce": "not-this-sign-in"}, "wrong_nonce", "does not belong to this sign-in"),
])
def test_an_id_token_with_bad_claims_is_refused(client: TestClient, idp: OidcProvider,
                                                monkeypatch: pytest.MonkeyPatch, change: dict, reason: str, says: str):
    """Tokens the provider would never issue, signed with its own key: the code exchange answers with
    them instead of the genuine one; signature, keys and everything else stay real."""
    subject, _ = new_subject(idp, "hitl-security")
    authorize = begin(client)
    now = int(time.time())
    claims = {"iss": idp.issuer, "sub": subject, "aud": CLIENT_ID, "iat": now, "exp": now + 300,
              "nonce": _nonce_of(authorize), "groups": ["hitl-security"]}
    claims.update({k: now + v if k in ("exp", "iat") else v for k, v in change.items()})
    monkeypatch.setattr(sso_provider, "exchange_code", lambda *a, **k: {"id_token": idp.signed(claims)})
    refused = client.get(callback_path(idp.approve(authorize, subject)))
    assert refused.status_code == 403 and says in refused.text, refused.text
    assert refusal_reasons()[-1] == reason
    assert not client.cookies.get("hitl_sign_in")
