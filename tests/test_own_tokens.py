"""A user's own API tokens, as the /tokens page manages them (services/auth/tokens.py): created,
listed and revoked by their owner only; a cap on how many stay active."""

from __future__ import annotations

import pytest

from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from hitl_dashboard.services.auth import tokens
from hitl_dashboard.services.auth.sign_ins import sign_in
from tests.support.db_state import audit_events, use_cheap_passwords
from tests.support.flow import actor, make_people


@pytest.fixture
def people(db_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    make_people()


def test_own_tokens_are_created_listed_and_revoked_by_their_owner_only(people) -> None:
    alice, erin = actor("alice"), actor("erin")
    row, plaintext = tokens.create_own_token(alice, name="  ci-bot ", ttl_hours=24)
    sign_in("alice", "pw-alice", address="127.0.0.1")  # a session: not an API token, not listed
    assert [(t.id, t.name, t.kind) for t in tokens.own_tokens(alice)] == [(row.id, "ci-bot", "api")]
    assert tokens.own_tokens(erin) == []
    assert tokens.resolve_token(plaintext).username == "alice"

    session_id = max(t.id for t, _ in tokens.list_tokens(username="alice", kind="session"))
    for who, token_id in ((erin, row.id), (alice, session_id), (alice, 999_999)):  # even an admin: not hers
        with pytest.raises(NotFound):
            tokens.revoke_own_token(who, token_id)
    tokens.revoke_own_token(alice, row.id)
    with pytest.raises(PermissionDenied):
        tokens.resolve_token(plaintext)
    assert [e.details["token_id"] for e in audit_events("token.revoked")] == [row.id]
    with pytest.raises(InvalidInput, match="ttl_hours"):
        tokens.create_own_token(alice, name="x", ttl_hours=-1)


def test_active_api_tokens_are_capped(people, monkeypatch) -> None:
    monkeypatch.setattr(tokens, "MAX_ACTIVE_API_TOKENS", 2)
    bob = actor("bob")
    first, _ = tokens.create_own_token(bob, name="a")
    tokens.create_own_token(bob, name="b")
    with pytest.raises(Conflict, match="revoke some"):
        tokens.create_own_token(bob, name="c")
    tokens.revoke_own_token(bob, first.id)
    tokens.create_own_token(bob, name="c")


def test_an_own_token_may_be_limited_to_asking_for_approvals(people) -> None:
    alice = actor("alice")
    _, plaintext = tokens.create_own_token(alice, name="agent", scope="approvals")
    assert tokens.resolve_token(plaintext).scope == "approvals"
    with pytest.raises(InvalidInput, match="scope"):
        tokens.create_own_token(alice, name="agent", scope="root")
