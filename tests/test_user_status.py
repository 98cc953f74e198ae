"""Deactivating and reactivating users (services/auth/user_status.py), on SQLite and PostgreSQL:
every session and API token ends at once, claimed reviews go back to their queues, the history
stays, every change is audited, and the product is never left without an active admin."""

from __future__ import annotations

import json
import threading

import pytest

from hitl_dashboard.db.models import ApiToken, User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import Conflict, NotFound, PermissionDenied
from hitl_dashboard.services.auth import tokens, user_status, users
from hitl_dashboard.services.auth.sign_ins import sign_in
from hitl_dashboard.services.live import live
from hitl_dashboard.services.reviews.claims import claim
from tests.conftest import run_cli
from tests.support.db_state import audit_events, review, use_cheap_passwords
from tests.support.flow import actor, make_people, only_open_review, start, work


@pytest.fixture
def people(db_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    make_people()  # erin is the only admin
    return db_url


class _Ended:
    """A live sink that records whose sessions ended (the web tier pushes those tabs to sign-in)."""

    def __init__(self) -> None:
        self.users: list[int] = []
        self.conversations: list[int] = []

    async def chunk(self, *args) -> None:
        return None

    def changed(self, conversation_id: int, roles=None) -> None:
        self.conversations.append(conversation_id)

    def sessions_ended(self, user_id: int) -> None:
        self.users.append(user_id)


@pytest.fixture
def ended():
    sink = _Ended()
    live.register_sink(sink)
    yield sink
    live.clear_sinks()


def _tokens_of(username: str) -> list[ApiToken]:
    with UnitOfWork() as uow:
        return [t for t, _ in tokens._tokens(uow, user_id=users.get_user_by_name(uow, username).id, kind=None)]


def test_deactivation_ends_sessions_and_tokens_releases_claims_and_keeps_history(people, ended) -> None:
    cid = start("Write a function that parses CSV rows")
    work()
    request = only_open_review(cid)
    claim(actor("alice"), request.id)
    _, api_token = tokens.create_token(user_id=actor("alice").user_id, name="ci")
    session = sign_in("alice", "pw-alice", address="127.0.0.1")
    erin = actor("erin")

    done = user_status.deactivate_user(erin, "alice")

    assert (done.sessions_revoked, done.api_tokens_revoked, done.reviews_released) == (1, 1, [request.id])
    for plaintext in (api_token, session):
        with pytest.raises(PermissionDenied):
            tokens.resolve_token(plaintext)
    assert all(t.revoked_at is not None for t in _tokens_of("alice"))
    released = review(request.id)
    assert (released.status, released.assignee_id, released.version) == ("pending", None, request.version + 2)
    # Same answer as a wrong password: nobody learns from the sign-in page which accounts exist or left.
    with pytest.raises(PermissionDenied, match="unknown user or wrong password"):
        sign_in("alice", "pw-alice", address="127.0.0.1")
    with pytest.raises(PermissionDenied, match="disabled"):
        actor("alice")
    [event] = audit_events("user.deactivated")
    assert (event.actor, event.actor_role) == ("erin", "admin")
    assert event.details == {"username": "alice", "sessions_revoked": 1, "api_tokens_revoked": 1,
                             "reviews_released": [request.id]}
    [release] = audit_events("review.released", review_id=request.id)
    assert release.details == {"reason": "alice was deactivated"}
    assert audit_events("review.claimed", review_id=request.id), "history stays"
    assert ended.users == [done.user_id] and cid in ended.conversations


def test_reactivation_lets_the_user_sign_in_again_but_old_tokens_stay_revoked(people, ended) -> None:
    _, old_token = tokens.create_token(user_id=actor("bob").user_id, name="ci")
    user_status.deactivate_user(actor("erin"), "bob")
    with pytest.raises(Conflict, match="already deactivated"):
        user_status.deactivate_user(actor("erin"), "bob")

    user_status.reactivate_user(actor("erin"), "bob")

    assert tokens.resolve_token(sign_in("bob", "pw-bob", address="127.0.0.1"), "session").username == "bob"
    with pytest.raises(PermissionDenied):
        tokens.resolve_token(old_token)
    with pytest.raises(Conflict, match="already active"):
        user_status.reactivate_user(actor("erin"), "bob")
    assert [(e.actor, e.details) for e in audit_events("user.reactivated")] == [("erin", {"username": "bob"})]


def test_the_last_active_admin_cannot_be_deactivated_or_lose_the_role(people) -> None:
    erin = actor("erin")
    with pytest.raises(Conflict, match="no active admin"):
        user_status.deactivate_user(erin, "erin")  # herself, the only admin
    with pytest.raises(Conflict, match="no active admin"):
        user_status.deactivate_user(None, "erin")  # nor the operator
    with pytest.raises(Conflict, match="no active admin"):
        users.set_roles(username="erin", roles=["manager"], by=erin)
    assert actor("erin").is_admin and not audit_events("user.deactivated")

    users.set_roles(username="dave", roles=["manager", "admin"], by=erin)
    user_status.deactivate_user(erin, "erin")  # now she may: dave remains
    with pytest.raises(PermissionDenied):
        actor("erin")
    with pytest.raises(Conflict, match="no active admin"):
        user_status.deactivate_user(actor("dave"), "dave")
    # A deactivated admin does not count: dave is the last active one.
    with pytest.raises(Conflict, match="no active admin"):
        users.set_roles(username="dave", roles=["manager"], by=actor("dave"))


def test_two_admins_deactivating_each_other_at_once_leave_one(people) -> None:
    users.set_roles(username="dave", roles=["manager", "admin"], by=actor("erin"))
    erin, dave = actor("erin"), actor("dave")
    outcomes: list[object] = []
    barrier = threading.Barrier(2)

    def deactivate(by, name) -> None:
        barrier.wait()
        try:
            outcomes.append(user_status.deactivate_user(by, name))
        except Conflict as exc:
            outcomes.append(exc)

    threads = [threading.Thread(target=deactivate, args=(erin, "dave")),
               threading.Thread(target=deactivate, args=(dave, "erin"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(type(o).__name__ for o in outcomes) == ["Conflict", "Deactivated"]
    with UnitOfWork() as uow:
        assert user_status.lock_active_admins(uow, excluding=None) == 1


def test_unknown_users_and_callers_without_the_admin_role_are_refused(people) -> None:
    with pytest.raises(NotFound, match="'nobody' does not exist"):
        user_status.deactivate_user(actor("erin"), "nobody")
    with pytest.raises(NotFound):
        user_status.reactivate_user(actor("erin"), "nobody")
    for name in ("alice", "dave", "frank"):  # reviewers, a manager: none may
        with pytest.raises(PermissionDenied, match="manage users"):
            user_status.deactivate_user(actor(name), "bob")
    user_status.deactivate_user(actor("erin"), "bob")
    with pytest.raises(PermissionDenied, match="manage users"):
        user_status.reactivate_user(actor("alice"), "bob")
    with UnitOfWork() as uow:
        assert not users.get_user_by_name(uow, "bob").is_active
        assert uow.session.get(User, actor("alice").user_id).is_active
    assert [e.details["username"] for e in audit_events("user.deactivated")] == ["bob"]


def test_cli_deactivates_and_reactivates(people, ended) -> None:
    tokens.create_token(user_id=actor("carol").user_id, name="ci")
    out = json.loads(run_cli("--json", "users", "deactivate", "carol").stdout)
    assert (out["username"], out["api_tokens_revoked"]) == ("carol", 1)
    listed = {u["username"]: u["active"] for u in json.loads(run_cli("--json", "users", "list").stdout)}
    assert listed["carol"] is False and listed["bob"] is True
    assert run_cli("users", "deactivate", "erin", check=False).returncode == 5  # the last admin: a conflict
    assert run_cli("users", "deactivate", "nobody", check=False).returncode == 3
    assert "may sign in again" in run_cli("users", "reactivate", "carol").stdout
    assert [e.actor for e in audit_events("user.deactivated")] == ["system"]
    # A queue read without --as acts as an active holder of the role only (alice and frank hold it).
    for name in ("alice", "frank"):
        user_status.deactivate_user(None, name)
    refused = run_cli("queue", "--role", "security_reviewer", check=False)
    assert refused.returncode == 2 and "no active user holds the role" in refused.stderr + refused.stdout
