"""Who may claim and decide what, enforced by the services: every role x every action x every
kind of review request, the four-eyes rule, admin overrides, and who may read the audit trail.

A refused attempt must leave no trace: the request stays open at the same version, no Decision
row, no transcript message, no audit event."""

from __future__ import annotations

import sqlite3

import pytest

from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.migrations import upgrade_to_head
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.domain.errors import Conflict, InvalidInput, PermissionDenied
from hitl_dashboard.services.audit import audit
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.reviews import claims
from hitl_dashboard.services.reviews.decide import decide
from hitl_dashboard.settings import reset_settings_cache
from tests.support.db_state import (
    audit_events,
    decisions,
    review,
    reviews_of,
    snapshot,
    tool_call,
    use_cheap_passwords,
)
from tests.support.flow import (
    actor,
    conversation,
    decide_as,
    make_people,
    messages,
    only_open_review,
    open_reviews,
    start,
    work,
)

USER_OF_ROLE = {
    "security_reviewer": "alice",
    "product_reviewer": "bob",
    "final_approver": "carol",
    "manager": "dave",
    "admin": "erin",
}
ROLES = list(USER_OF_ROLE)
# The kinds of review request the scripted teams open, and the role each one needs.
KINDS = {"security_signoff": "security_reviewer", "final_signoff": "final_approver", "tool_call": "security_reviewer"}
DECIDE_ACTIONS = ["approve", "revise", "abort", "skip"]
DECISION_TEXT = {"revise": {"instructions": "add a timeout to every network call"},
                 "abort": {"reason": "the task leaks credentials"}}
OVERRIDE_REASON = "on-call cover: the security team is offline"


def _decision(action: str, **extra) -> DecisionInput:
    return DecisionInput(Action(action), **DECISION_TEXT.get(action, {}), **extra)


def _build_scenario() -> dict[str, int]:
    """frank (security + product + final roles) starts three conversations; erin (admin) one."""
    make_people()
    security = start("Write a function that parses CSV rows")
    final = start("Add a cache with a TTL to the price lookup")
    ops = start("Deploy billing-api v1.2.3 to production", task_type="ops")
    by_admin = start("Add a token bucket rate limiter", as_user="erin")
    work()
    decide_as("alice", only_open_review(final).id, "approve")
    ids = {
        "security_signoff": only_open_review(security).id,
        "final_signoff": only_open_review(final).id,
        "tool_call": only_open_review(ops).id,
        "admin_initiated": only_open_review(by_admin).id,
    }
    for kind, role in KINDS.items():
        request = review(ids[kind])
        expected_kind = "tool_call" if kind == "tool_call" else "signoff"
        assert (request.kind, request.required_role, request.status) == (expected_kind, role, "pending")
    return ids


@pytest.fixture(scope="module")
def scenario_template(tmp_path_factory):
    """Built once per module (users, four conversations run to their first review), then copied
    per test: the matrix has ~100 cases and each one needs the same starting point."""
    path = tmp_path_factory.mktemp("permissions") / "template.db"
    url = f"sqlite:///{path}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DATABASE_URL", url)
        mp.setenv("SCRIPTED_DELAY_MS", "0")
        use_cheap_passwords(mp)
        reset_settings_cache()
        upgrade_to_head()
        ids = _build_scenario()
        get_engine(url).dispose()
    reset_settings_cache()
    return path, ids


@pytest.fixture
def scenario(scenario_template, tmp_path, monkeypatch):
    template, ids = scenario_template
    target = tmp_path / "hitl.db"
    with sqlite3.connect(template) as source, sqlite3.connect(target) as copy:
        source.backup(copy)
    url = f"sqlite:///{target}"
    monkeypatch.setenv("DATABASE_URL", url)
    use_cheap_passwords(monkeypatch)
    reset_settings_cache()
    yield ids
    get_engine(url).dispose()
    reset_settings_cache()


def _decide(name: str, review_id: int, decision: DecisionInput):
    return decide(actor(name), review_id, decision)


def _claim(name: str, review_id: int):
    return claims.claim(actor(name), review_id)


def _assert_refused(error_type, call, review_id: int, *, mentions: str):
    before = snapshot(review_id)
    with pytest.raises(error_type) as refused:
        call()
    assert mentions in str(refused.value)
    assert snapshot(review_id) == before, "a refused request changed something"
    return refused.value


# -- the matrix ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("role", ROLES)
def test_claim_matrix(scenario, role, kind):
    review_id, user = scenario[kind], USER_OF_ROLE[role]
    allowed = role in (KINDS[kind], "admin")
    if not allowed:
        _assert_refused(PermissionDenied, lambda: _claim(user, review_id), review_id, mentions=user)
        return
    before = review(review_id)
    claimed = _claim(user, review_id)
    after = review(review_id)
    assert (after.status, after.assignee_id, after.version) == ("claimed", actor(user).user_id, before.version + 1)
    assert claimed.version == after.version
    [event] = audit_events("review.claimed", review_id=review_id)
    assert event.actor == user


def _assert_applied(kind: str, action: str, review_id: int, user: str, *, override: bool) -> None:
    """What the reviewer (and the next reviewer, and the auditor) sees after the decision."""
    request = review(review_id)
    conversation_id = request.conversation_id
    [row] = decisions(review_id)
    assert (row.action, row.reviewer_id, row.role) == (action, actor(user).user_id, KINDS[kind])
    assert row.is_override is override
    assert row.override_reason == (OVERRIDE_REASON if override else None)
    [event] = audit_events("decision.override" if override else "decision.recorded", review_id=review_id)
    assert (event.actor, event.details["action"], event.details["decision_id"]) == (user, action, row.id)
    assert not audit_events("decision.recorded" if override else "decision.override", review_id=review_id)
    note = messages(conversation_id)[-1]
    assert (note.kind, note.source) == ("decision", user)
    assert note.content.startswith(f"{action.upper()} by {user}")

    c = conversation(conversation_id)
    still_open = open_reviews(conversation_id)
    if action == "abort":
        assert (c.status, c.status_reason) == ("aborted", DECISION_TEXT["abort"]["reason"])
        assert request.status == "decided" and still_open == []
        return
    if kind == "tool_call":
        call = tool_call(request.subject_id)
        assert request.status == "decided" and still_open == []
        assert c.status == "running"
        if action == "approve":
            assert call.status == "approved" and call.approved_arguments == call.arguments
        else:  # revise and skip both turn the call down; the operator hears why when the runner resumes it
            assert call.status == "denied" and call.approved_arguments is None
            said = DECISION_TEXT.get(action, {}).get("instructions")
            assert call.result and (said is None or said in call.result)
        # The turn's only call is decided: the runner resumes the team with every call's outcome.
        assert c.next_input == {"type": "tool_execution", "tool_call_ids": [call.id]}
        return
    if action == "skip":  # a sign-off skip hands the request back to the queue
        assert (request.status, request.assignee_id) == ("pending", None)
        assert [r.id for r in still_open] == [review_id]
        assert c.status == "awaiting_review"
        return
    assert request.status == "decided"
    if action == "revise":
        assert c.status == "running" and still_open == []
        assert c.next_input["content"].startswith("REVISE @coder")
        assert DECISION_TEXT["revise"]["instructions"] in c.next_input["content"]
    elif kind == "security_signoff":  # approve: the final approver is next, on the same content
        [following] = still_open
        assert (following.kind, following.required_role, following.rule) == ("signoff", "final_approver", "signoff")
        assert following.content_hash == request.content_hash
        assert c.status == "awaiting_review"
    else:  # approve of the last sign-off
        assert (c.status, c.status_reason) == ("approved", "every required role approved") and still_open == []


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("action", DECIDE_ACTIONS)
@pytest.mark.parametrize("role", ROLES)
def test_decide_matrix(scenario, role, action, kind):
    """Everyone offers an override reason: it only matters (and is only recorded) for an admin
    who lacks the required role."""
    review_id, user, required = scenario[kind], USER_OF_ROLE[role], KINDS[kind]
    decision = _decision(action, override_reason=OVERRIDE_REASON)
    if role != required and role != "admin":
        _assert_refused(PermissionDenied, lambda: _decide(user, review_id, decision), review_id, mentions=user)
        return
    outcome = _decide(user, review_id, decision)
    assert (outcome.action, outcome.review_request_id, outcome.replayed) == (action, review_id, False)
    _assert_applied(kind, action, review_id, user, override=role != required)


# -- the rules around the matrix ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("action", DECIDE_ACTIONS)
def test_admin_override_without_a_reason_is_refused(scenario, action, kind):
    for missing in (None, "   "):
        error = _assert_refused(InvalidInput, lambda missing=missing: _decide(
                                    "erin", scenario[kind], _decision(action, override_reason=missing)),
                                scenario[kind], mentions="override needs a reason")
        assert error.field == "override_reason"


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("action", ["approve", "skip"])
def test_initiator_may_not_sign_off_own_conversation_even_holding_the_role(scenario, action, kind):
    # frank started every conversation in the scenario and holds all three reviewer roles.
    assert KINDS[kind] in actor("frank").roles
    for attempt in (_decision(action), _decision(action, override_reason=OVERRIDE_REASON)):
        _assert_refused(PermissionDenied, lambda attempt=attempt: _decide("frank", scenario[kind], attempt),
                        scenario[kind], mentions="frank started this conversation")


@pytest.mark.parametrize("action", ["approve", "skip"])
def test_initiator_may_not_sign_off_own_conversation_even_as_admin(scenario, action):
    review_id = scenario["admin_initiated"]
    assert actor("erin").is_admin and review(review_id).required_role not in actor("erin").roles
    _assert_refused(PermissionDenied,
                    lambda: _decide("erin", review_id, _decision(action, override_reason=OVERRIDE_REASON)),
                    review_id, mentions="erin started this conversation")
    # ...while somebody else holding the role still can.
    assert _decide("alice", review_id, _decision(action)).action == action


def test_initiator_may_still_ask_for_a_revision_of_own_work(scenario):
    outcome = _decide("frank", scenario["security_signoff"], _decision("revise"))
    assert outcome.conversation_status == "running"
    assert decisions(scenario["security_signoff"])[0].reviewer_id == actor("frank").user_id


def test_admin_who_holds_the_role_decides_without_an_override(scenario):
    users.set_roles(username="erin", roles=["admin", "security_reviewer"], by=actor("erin"))
    _decide("erin", scenario["security_signoff"], _decision("approve"))
    [row] = decisions(scenario["security_signoff"])
    assert (row.is_override, row.override_reason) == (False, None)


def test_a_reviewer_may_not_decide_a_request_claimed_by_another(scenario):
    review_id = scenario["security_signoff"]
    users.create_user(username="sam", password="pw-sam", roles=["security_reviewer"])
    _claim("alice", review_id)
    _assert_refused(Conflict, lambda: _decide("sam", review_id, _decision("approve")), review_id,
                    mentions="claimed by another reviewer")


def test_replaying_someone_elses_idempotency_key_does_not_bypass_permissions(scenario):
    review_id = scenario["security_signoff"]
    _decide("alice", review_id, _decision("approve", idempotency_key="alice-approves-1"))
    with pytest.raises(PermissionDenied):
        _decide("bob", review_id, _decision("approve", idempotency_key="alice-approves-1"))


# -- audit access -------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_audit_trail_is_readable_by_managers_and_admins_only(scenario, role):
    who = actor(USER_OF_ROLE[role])
    every = audit_events()
    # A manager reads their workspace's events; the instance's own (users created) only the admin.
    events = len(every) if role == "admin" else len([e for e in every if e.workspace_id is not None])
    if role in ("manager", "admin"):
        assert 0 < events <= len(every)
        report = audit.verify(who)
        assert report.ok and report.checked == len(every)  # the chain is checked whole, on the server
        lines = "".join(audit.export_lines(who, "jsonl")).splitlines()
        # Every event has its line; another's (the instance's, for a manager) is a link without content.
        assert len(lines) == len(every) and len([line for line in lines if '"redacted"' not in line]) == events
        csv_text = "".join(audit.export_lines(who, "csv"))
        assert len(csv_text.splitlines()) == events + 1
        return
    with pytest.raises(PermissionDenied, match=f"{who.username} may not read the audit trail"):
        audit.verify(who)
    for fmt in ("jsonl", "csv"):
        with pytest.raises(PermissionDenied):
            # Refused when the export is asked for, before a byte is produced: a streaming HTTP
            # response would otherwise already have sent "200 OK".
            audit.export_lines(who, fmt)


# -- the same refusals on both databases ---------------------------------------------------------------


def test_refusals_leave_no_trace_on_both_databases(db_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    make_people()
    conversation_id = start("Write a function that parses CSV rows")
    work()
    review_id = only_open_review(conversation_id).id
    events = len(audit_events())

    _assert_refused(PermissionDenied, lambda: _decide("bob", review_id, _decision("approve")), review_id,
                    mentions="bob may not decide a security_reviewer review")
    _assert_refused(PermissionDenied, lambda: _claim("dave", review_id), review_id, mentions="dave")
    _assert_refused(PermissionDenied, lambda: _decide("frank", review_id, _decision("approve")), review_id,
                    mentions="frank started this conversation")
    _assert_refused(InvalidInput, lambda: _decide("erin", review_id, _decision("abort")), review_id,
                    mentions="override needs a reason")
    assert len(audit_events()) == events and decisions() == []

    outcome = _decide("erin", review_id, _decision("abort", override_reason=OVERRIDE_REASON))
    assert outcome.conversation_status == "aborted"
    [row] = decisions(review_id)
    assert (row.is_override, row.override_reason, row.role) == (True, OVERRIDE_REASON, "security_reviewer")
    [event] = audit_events("decision.override", review_id=review_id)
    assert (event.actor, event.details["override_reason"]) == ("erin", OVERRIDE_REASON)
    assert [r.status for r in reviews_of(conversation_id)] == ["decided"]
    assert audit.verify(actor("dave")).ok
