"""Single sign-on over HTTP, in-process (the FastAPI app through Starlette's TestClient) against a
real OpenID Connect provider on 127.0.0.1 (tests/support/oidc_provider.py): users created with their
mapped roles, roles re-read at every sign-in, deep links, and every refusal (provider error, replayed
or foreign state, wrong issuer or audience, expired token) as a clear page that is audited."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent, User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.auth.sso import provider as sso_provider
from hitl_dashboard.services.auth.user_status import deactivate_user
from hitl_dashboard.services.workspaces.workspaces import create_workspace
from tests.support.in_process_api import in_process_api
from tests.support.oidc_provider import CLIENT_ID, OidcProvider, new_key, running_provider

APP_URL = "http://testserver"
# The provider (test-only) still builds its tokens through authlib's deprecated jose module.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def idp() -> Iterator[OidcProvider]:
    with running_provider() as provider:
        yield provider


@pytest.fixture
def client(sqlite_url: str, idp: OidcProvider, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    sso_provider.forget_provider()
    with in_process_api(monkeypatch, {**idp.settings(), "PUBLIC_URL": APP_URL}, base_url=APP_URL,
                        follow_redirects=False) as test_client:
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


def held(username: str) -> dict[str, list[str]]:
    """The user's roles per workspace slug (the instance's under "*")."""
    found = user(username)
    assert found is not None
    return dict(users.roles_by_workspace(None).get(found.id, {}))


def test_groups_map_to_roles_in_two_workspaces_read_again_at_every_sign_in(client: TestClient, idp: OidcProvider):
    """OIDC_ROLE_MAP's "slug:role" grants (issue 41): one person, different roles in two workspaces,
    the bare role in the default one; a group mapped to a workspace that does not exist grants nothing."""
    create_workspace(None, slug="payments", name="Payments")
    create_workspace(None, slug="marketing", name="Marketing")
    subject, username = new_subject(idp, "pay-security", "mkt-leads", "hitl-product", "gone-team")
    assert sign_in(client, idp, subject).status_code == 303
    assert held(username) == {"default": ["product_reviewer"], "payments": ["security_reviewer"],
                              "marketing": ["manager", "workspace_admin"]}
    actor = users.find_actor(username)
    assert actor.workspace_id is None and not actor.is_admin
    idp.set_user(subject, preferred_username=username, groups=["mkt-leads"])  # left two groups at the provider
    assert sign_in(client, idp, subject).status_code == 303
    assert held(username) == {"marketing": ["manager", "workspace_admin"]}
    # Through the API: the conversations of marketing only; payments is as if it did not exist.
    assert client.get("/api/conversations", params={"workspace": "marketing"}).status_code == 200
    assert client.get("/api/conversations", params={"workspace": "payments"}).status_code == 404
    idp.set_user(subject, preferred_username=username, groups=["gone-team"])  # maps to no workspace
    refused = sign_in(client, idp, subject)
    assert refused.status_code == 403 and refusal_reasons()[-1] == "no_role"


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
    assert created is not None and created.roles == [] and held(username) == {"default": ["security_reviewer"]}
    assert (created.oidc_issuer, created.oidc_subject) == (idp.issuer, subject)
    assert [e.actor for e in events("user.created") if e.details["username"] == username] == ["sso"]
    signed_in = [e for e in events("user.signed_in") if e.actor == username]
    assert [e.details["method"] for e in signed_in] == ["sso"]
    # The cookie authenticates the API's reads.
    assert client.get("/api/conversations").status_code == 200


def test_roles_follow_the_groups_at_every_sign_in(client: TestClient, idp: OidcProvider):
    subject, username = new_subject(idp, "hitl-security", "hitl-product")
    assert sign_in(client, idp, subject).status_code == 303
    assert held(username) == {"default": ["product_reviewer", "security_reviewer"]}
    idp.set_user(subject, preferred_username=username, groups=["hitl-product"])  # removed from hitl-security
    assert sign_in(client, idp, subject).status_code == 303
    assert held(username) == {"default": ["product_reviewer"]}
    change = [e for e in events("user.roles_changed") if e.details["username"] == username]
    assert [(e.actor, e.details["after"]) for e in change] == [("sso", ["1:product_reviewer"])]
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


def refused_sign_in(client: TestClient, idp: OidcProvider, subject: str, status: int, says: str, reason: str):
    """The callback answers `status` with a page that says `says`, audits `reason`, sets no cookie."""
    refused = sign_in(client, idp, subject)
    assert refused.status_code == status and says in refused.text, refused.text
    assert refusal_reasons()[-1] == reason
    assert not client.cookies.get("hitl_sign_in")


@pytest.mark.parametrize(("change", "reason", "says"), [
    ({"iss": "http://other-provider.example"}, "wrong_issuer", "another identity provider"),
    ({"aud": "another-app"}, "wrong_audience", "issued for another application"),
    ({"exp": -600, "iat": -4200}, "expired_id_token", "has expired"),
    ({"nonce": "not-this-sign-in"}, "wrong_nonce", "does not belong to this sign-in"),
])
def test_an_id_token_with_bad_claims_is_refused(client: TestClient, idp: OidcProvider, change: dict, reason: str,
                                                says: str):
    """Tokens the provider would never issue, from its own token endpoint and signed with its own key:
    the code exchange, the signature and the keys stay real."""
    subject, _ = new_subject(idp, "hitl-security")
    now = int(time.time())
    changed = {k: now + v if k in ("exp", "iat") else v for k, v in change.items()}
    with idp.issuing(lambda genuine: {**genuine, **changed}):
        refused_sign_in(client, idp, subject, 403, says, reason)


@pytest.mark.parametrize("same_kid", [False, True], ids=["unknown-key-id", "the-provider-s-key-id"])
def test_an_id_token_signed_with_a_foreign_key_is_refused(client: TestClient, idp: OidcProvider, same_kid: bool):
    """Genuine claims from the provider's endpoint, signed with a key it never published: under a key id
    it does not list (the app asks for its keys again, then refuses), or under its own key id."""
    subject, username = new_subject(idp, "hitl-security")
    foreign = new_key(idp.own_key().kid if same_kid else None)
    with idp.issuing(lambda genuine: genuine, key=foreign):
        refused_sign_in(client, idp, subject, 403, "could not be verified, so you were not signed in",
                        "invalid_id_token")
    assert user(username) is None


def test_a_provider_that_rotated_its_keys_is_believed_after_the_app_reads_them_again(client: TestClient,
                                                                                   idp: OidcProvider):
    subject, username = new_subject(idp, "hitl-security")
    assert sign_in(client, idp, subject).status_code == 303  # the app now holds the provider's keys
    client.cookies.clear()
    with idp.issuing(lambda genuine: genuine, key=new_key(), publish=True):  # a new key, the old one gone
        rotated = sign_in(client, idp, subject)
    assert rotated.status_code == 303 and rotated.headers["location"] == "/", rotated.text
    assert client.cookies.get("hitl_sign_in")
    assert [e.details["method"] for e in events("user.signed_in") if e.actor == username] == ["sso", "sso"]


@pytest.mark.parametrize("endpoint", ["/oauth2/token", "/jwks"])
def test_a_provider_endpoint_that_fails_is_a_try_again_page_not_a_sign_in(client: TestClient, idp: OidcProvider,
                                                                          endpoint: str):
    subject, username = new_subject(idp, "hitl-security")
    sso_provider.forget_provider()  # the keys are read again for this sign-in
    with idp.failing(endpoint):
        refused_sign_in(client, idp, subject, 502, "could not be reached. Try again in a moment",
                        "provider_unreachable")
    assert user(username) is None
    assert sign_in(client, idp, subject).status_code == 303  # once it answers again, the same person gets in


def test_a_deactivated_user_cannot_sign_in_through_the_provider(client: TestClient, idp: OidcProvider):
    subject, username = new_subject(idp, "hitl-security")
    assert sign_in(client, idp, subject).status_code == 303
    client.cookies.clear()
    deactivate_user(None, username)
    refused_sign_in(client, idp, subject, 403, "Your account is disabled here", "disabled")
    assert user(username).is_active is False
