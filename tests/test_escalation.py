"""Overdue review requests: escalated to the admin queue exactly once (however many runners look,
in threads or in separate processes), or the conversation aborted when its policy says so."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import update

from hitl_dashboard.db.models import Conversation, ReviewRequest, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import ReviewKind, SubjectType
from hitl_dashboard.services.audit import audit
from hitl_dashboard.services.reviews.escalation import escalate_overdue
from hitl_dashboard.services.reviews.review_requests import Subject, open_request
from hitl_dashboard.settings import reset_settings_cache
from tests.conftest import run_cli
from tests.support.db_state import audit_events, review, reviews_of, use_cheap_passwords
from tests.support.flow import conversation, decide_as, make_people, only_open_review, queue, start, work

CODE_TASK = "Write a function that parses CSV rows"
OPS_TASK = "Deploy billing-api v1.2.3 to production"


@pytest.fixture
def people(db_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    make_people()
    return db_url


def _make_overdue(review_id: int) -> None:
    with UnitOfWork() as uow:
        uow.session.exec(update(ReviewRequest).where(ReviewRequest.id == review_id)
                         .values(due_at=utcnow() - timedelta(minutes=5)))
        uow.commit()


def _escalate() -> list[int]:
    return escalate_overdue()


def _assert_escalated_once(old_id: int) -> ReviewRequest:
    old = review(old_id)
    assert old.status == "escalated" and old.closed_at is not None
    [new] = [r for r in reviews_of(old.conversation_id) if r.escalated_from_id == old_id]
    assert (new.kind, new.required_role, new.rule, new.status) == (old.kind, "admin", "escalated", "pending")
    assert (new.subject_type, new.subject_id, new.content_hash) == (old.subject_type, old.subject_id,
                                                                      old.content_hash)
    assert new.due_at > utcnow(), "the escalated request must not be overdue itself"
    assert f"{old.required_role} review overdue since" in new.reason
    [event] = audit_events("review.escalated", review_id=old_id)
    assert (event.actor, event.details["to"]) == ("sla", "admin")
    assert conversation(old.conversation_id).status == "awaiting_review"
    assert [r.id for r in reviews_of(old.conversation_id) if r.status in ("pending", "claimed")] == [new.id]
    return new


def test_an_overdue_request_escalates_to_admin_exactly_once_keeping_its_kind(people):
    code, ops = start(CODE_TASK), start(OPS_TASK, task_type="ops")
    work()
    signoff, tool = only_open_review(code), only_open_review(ops)
    assert (signoff.kind, tool.kind) == (ReviewKind.SIGNOFF, ReviewKind.TOOL_CALL)
    _make_overdue(signoff.id)
    _make_overdue(tool.id)

    assert sorted(_escalate()) == sorted([signoff.id, tool.id])
    assert _escalate() == []  # a second pass (another tick, another runner) finds nothing

    escalated = {old: _assert_escalated_once(old) for old in (signoff.id, tool.id)}
    assert {i.id for i in queue("erin", "admin")} == {r.id for r in escalated.values()}
    assert queue("alice", "security_reviewer") == []
    # The admin decides the escalated tool call as its required role: no override needed.
    decide_as("erin", escalated[tool.id].id, "approve")
    assert conversation(ops).status == "running"
    assert audit.verify(None).ok


def test_two_runners_escalating_at_once_escalate_once(people, monkeypatch):
    # A real deadline this time: the security SLA is ~0.36 s.
    monkeypatch.setenv("SLA_HOURS_SECURITY_REVIEWER", "0.0001")
    reset_settings_cache()
    code = start(CODE_TASK)
    work()
    overdue = only_open_review(code)
    assert overdue.due_at - overdue.created_at < timedelta(seconds=1)
    time.sleep(max(0.0, (overdue.due_at - utcnow()).total_seconds()) + 0.05)

    barrier, handled = threading.Barrier(2), []

    def runner():
        barrier.wait()
        handled.append(_escalate())

    threads = [threading.Thread(target=runner) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(handled) == [[], [overdue.id]]
    _assert_escalated_once(overdue.id)
    assert len(audit_events("review.requested", conversation_id=code)) == 2  # the original and the escalation


def test_with_on_overdue_abort_the_conversation_is_aborted_and_its_requests_dismissed(people):
    code = start(CODE_TASK, on_overdue="abort")
    work()
    overdue = only_open_review(code)
    # A second open request on the same conversation (a keyword gate) must not outlive the abort.
    with UnitOfWork() as uow:
        other = open_request(uow.session, uow.session.get(Conversation, code), kind=ReviewKind.GATE,
                             role="security_reviewer", rule="keyword", reason="'rm -rf' in coder's message",
                             subject=Subject(SubjectType.MESSAGE, 1, "message #3 by coder", "0" * 64))
        uow.commit()
    _make_overdue(overdue.id)

    assert _escalate() == [overdue.id]
    assert _escalate() == []

    c = conversation(code)
    assert (c.status, c.status_reason) == ("aborted", "security_reviewer review was overdue (policy: abort)")
    assert c.next_input is None
    assert {r.id: r.status for r in reviews_of(code)} == {overdue.id: "expired", other.id: "dismissed"}
    assert [e.review_request_id for e in audit_events("review.expired")] == [overdue.id]
    assert [e.review_request_id for e in audit_events("review.dismissed")] == [other.id]
    assert len(audit_events("conversation.aborted", conversation_id=code)) == 1
    assert audit_events("review.escalated") == []
    assert queue("erin", "admin") == [] and queue("alice", "security_reviewer") == []


def test_an_overdue_escalated_request_aborts_there_is_nobody_above_admin(people):
    code = start(CODE_TASK)
    work()
    first = only_open_review(code)
    _make_overdue(first.id)
    _escalate()
    escalated = only_open_review(code)
    _make_overdue(escalated.id)
    assert _escalate() == [escalated.id]
    assert review(escalated.id).status == "expired"
    assert conversation(code).status == "aborted"
    assert "admin review was overdue" in conversation(code).status_reason


def test_the_cli_worker_escalates_what_an_earlier_process_left_overdue(people):
    code = start(CODE_TASK)
    # Process 1 runs the agents with a ~0.36 s security SLA, opens the review and exits.
    first = json.loads(run_cli("--json", "worker", "--until-idle",
                               env={"SLA_HOURS_SECURITY_REVIEWER": "0.0001"}).stdout)
    assert (first["runs"], first["escalated"]) == (1, [])
    overdue = only_open_review(code)
    time.sleep(max(0.0, (overdue.due_at - utcnow()).total_seconds()) + 0.05)

    # Process 2, after the "restart", knows nothing but the database.
    second = json.loads(run_cli("--json", "worker", "--until-idle").stdout)
    assert second["escalated"] == [overdue.id]
    assert _escalate() == []  # and nobody escalates it again
    _assert_escalated_once(overdue.id)
