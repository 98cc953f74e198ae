"""API tokens: stored hashed, shown once, refused when unknown, revoked, expired or disabled;
and the operator's CLI for tokens and webhooks."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlmodel import select

from hitl_dashboard.db.models import ApiToken, User, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import InvalidInput, PermissionDenied
from hitl_dashboard.services.auth import tokens
from tests.conftest import run_cli
from tests.support import flow
from tests.support.db_state import use_cheap_passwords


@pytest.fixture
def people(sqlite_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    flow.make_people()


def new_token(name: str, **kw) -> tuple[ApiToken, str]:
    return tokens.create_token(user_id=flow.actor(name).user_id, name="t", **kw)


def resolve(plaintext: str, kind: str | None = None):
    return tokens.resolve_token(plaintext, kind)


def test_tokens_are_stored_hashed_and_resolve_to_their_user(people) -> None:
    row, plaintext = new_token("alice")
    assert plaintext.startswith("hitl_") and len(plaintext) > 40
    assert row.token_hash == tokens.hash_token(plaintext) and plaintext not in row.token_hash
    assert plaintext.startswith(row.prefix) and len(row.prefix) < 16
    actor = resolve(plaintext)
    assert actor.username == "alice" and actor.has("security_reviewer")
    with UnitOfWork() as uow:
        assert uow.session.get(ApiToken, row.id).last_used_at is not None


@pytest.mark.parametrize("bad", ["", "hitl_", "hitl_nope", "Bearer hitl_x", "x" * 1000])
def test_unknown_tokens_are_refused(people, bad: str) -> None:
    with pytest.raises(PermissionDenied, match="unknown, revoked or expired"):
        resolve(bad)


def test_revoked_expired_wrong_kind_and_disabled_are_refused(people) -> None:
    row, plaintext = new_token("alice")
    bob, erin = flow.actor("bob"), flow.actor("erin")
    with pytest.raises(PermissionDenied):  # bob may not revoke alice's token
        tokens.revoke_token(bob, row.id)
    tokens.revoke_token(erin, row.id)  # an admin may
    with pytest.raises(PermissionDenied):
        resolve(plaintext)

    session_row, session_token = new_token("bob", kind="session", ttl_hours=1)
    assert resolve(session_token, "session").username == "bob"
    with pytest.raises(PermissionDenied):
        resolve(session_token, "api")
    with UnitOfWork() as uow:
        uow.session.get(ApiToken, session_row.id).expires_at = utcnow() - timedelta(seconds=1)
        uow.commit()
    with pytest.raises(PermissionDenied):
        resolve(session_token)

    _, carol_token = new_token("carol")
    with UnitOfWork() as uow:
        uow.session.exec(select(User).where(User.username == "carol")).one().is_active = False
        uow.commit()
    with pytest.raises(PermissionDenied, match="disabled"):
        resolve(carol_token)


def test_create_token_validates(people) -> None:
    with pytest.raises(InvalidInput):
        tokens.create_token(user_id=1, name="x", kind="forever")
    with pytest.raises(InvalidInput):
        tokens.create_token(user_id=1, name="x", ttl_hours=0)


def test_cli_tokens_and_webhooks(people) -> None:
    created = json.loads(run_cli("--json", "tokens", "create", "alice", "--name", "ci bot").stdout)
    assert created["token"].startswith("hitl_") and created["user"] == "alice"
    assert resolve(created["token"]).username == "alice"
    listed = json.loads(run_cli("--json", "tokens", "list", "--user", "alice").stdout)
    assert [(t["id"], t["name"], t["revoked"]) for t in listed] == [(created["id"], "ci bot", False)]
    assert created["token"] not in json.dumps(listed)  # the plaintext is shown once only
    run_cli("tokens", "revoke", str(created["id"]))
    assert json.loads(run_cli("--json", "tokens", "list").stdout)[0]["revoked"] is True
    assert run_cli("tokens", "revoke", "9999", check=False).returncode == 3

    hook = json.loads(run_cli("--json", "webhooks", "add", "http://127.0.0.1:9/hook", "--event", "review.requested",
                              "--event", "review.decided", "--format", "slack").stdout)
    assert hook["secret"] and hook["events"] == ["review.decided", "review.requested"]
    listed = json.loads(run_cli("--json", "webhooks", "list").stdout)
    assert listed == [{"id": hook["id"], "url": "http://127.0.0.1:9/hook", "events": hook["events"],
                       "format": "slack", "active": True}]
    assert run_cli("webhooks", "add", "file:///etc/passwd", "--event", "review.decided", check=False).returncode == 2
