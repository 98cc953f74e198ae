"""Reviewers racing on one review request: exactly one decision applies, everyone else gets a clear
Conflict; an idempotency key applies a decision once however often it is sent. On both databases,
from threads (each with its own unit of work) and from separate CLI processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from sqlmodel import select

from hitl_dashboard.db.models import Message
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.domain.errors import Conflict
from hitl_dashboard.services.audit import audit
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.reviews import claims
from hitl_dashboard.services.reviews.decide import decide
from tests.conftest import ROOT
from tests.support.db_state import (
    audit_events,
    count,
    decisions,
    review,
    reviews_of,
    snapshot,
    use_cheap_passwords,
)
from tests.support.flow import actor, conversation, decide_as, make_people, only_open_review, start, work
from tests.support.races import race

TASK = "Write a function that parses CSV rows"


@pytest.fixture
def people(db_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    make_people()
    users.create_user(username="sam", password="pw-sam", roles=["security_reviewer"])
    return db_url


def _open_security_reviews(n: int) -> list[int]:
    ids = [start(f"{TASK} (#{i})") for i in range(n)]
    work()
    return [only_open_review(c).id for c in ids]


def _decision_messages(conversation_id: int) -> list[Message]:
    with UnitOfWork() as uow:
        return list(uow.session.exec(select(Message).where(Message.conversation_id == conversation_id,
                                                           Message.kind == "decision")))


def _decision_events(review_id: int):
    return [e for e in audit_events(review_id=review_id) if e.action.startswith("decision.")]


def _assert_applied_once(review_id: int, *, by: str, action: str) -> None:
    [row] = decisions(review_id)
    assert (row.reviewer_id, row.action) == (actor(by).user_id, action)
    conversation_id = row.conversation_id
    [note] = _decision_messages(conversation_id)
    assert note.content.startswith(f"{action.upper()} by {by}")
    [event] = _decision_events(review_id)
    assert event.details["decision_id"] == row.id
    c = conversation(conversation_id)
    follow_ups = [r for r in reviews_of(conversation_id) if r.id != review_id]
    if action == "approve":
        assert c.status == "awaiting_review"
        assert [(r.required_role, r.status) for r in follow_ups] == [("final_approver", "pending")]
    else:
        assert c.status == "running" and follow_ups == []
    assert audit.verify(None).ok


def test_two_reviewers_racing_from_threads_one_wins_one_conflicts(people):
    for review_id in _open_security_reviews(3):
        results = race([
            lambda review_id=review_id: decide_as("alice", review_id, "approve"),
            lambda review_id=review_id: decide_as("sam", review_id, "revise", instructions="add a timeout"),
        ])
        conflicts = [r for r in results if isinstance(r, Conflict)]
        wins = [r for r in results if not isinstance(r, Exception)]
        assert len(wins) == 1 and len(conflicts) == 1, results
        assert f"review request {review_id}" in str(conflicts[0])
        winner = "alice" if results[0] is wins[0] else "sam"
        _assert_applied_once(review_id, by=winner, action=wins[0].action)


def _cli_decide(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "hitl_dashboard", "--json", "decide", *args], cwd=ROOT,
                            env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_cli_processes_racing_one_exits_0_the_other_5(people):
    [review_id] = _open_security_reviews(1)
    racers = {
        "alice": _cli_decide(str(review_id), "--as", "alice", "--action", "approve", "--reason", "looks safe"),
        "sam": _cli_decide(str(review_id), "--as", "sam", "--action", "revise", "--instructions", "add a timeout"),
    }
    done = {name: (p.wait(timeout=120), *p.communicate()) for name, p in racers.items()}
    codes = sorted(code for code, _, _ in done.values())
    assert codes == [0, 5], done
    [winner] = [name for name, (code, _, _) in done.items() if code == 0]
    [(_, _, loser_err)] = [v for name, v in done.items() if name != winner]
    error = json.loads(loser_err)
    assert error["error"] == "Conflict" and f"review request {review_id}" in error["message"]
    outcome = json.loads(done[winner][1])
    assert (outcome["review_request_id"], outcome["replayed"]) == (review_id, False)
    _assert_applied_once(review_id, by=winner, action=outcome["action"])


def test_a_repeated_idempotency_key_applies_once(people):
    [review_id] = _open_security_reviews(1)
    first = decide_as("alice", review_id, "approve", idempotency_key="alice-tab-1")
    again = decide_as("alice", review_id, "approve", idempotency_key="alice-tab-1")
    assert (first.replayed, again.replayed) == (False, True)
    assert (again.decision_id, again.action, again.conversation_status) == (
        first.decision_id, "approve", "awaiting_review")
    _assert_applied_once(review_id, by="alice", action="approve")


def test_the_same_key_sent_concurrently_applies_once_and_every_sender_gets_the_outcome(people):
    [review_id] = _open_security_reviews(1)
    results = race([lambda: decide_as("alice", review_id, "approve", idempotency_key="double-click")] * 5)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(r.replayed for r in results) == [False, True, True, True, True]
    assert len({r.decision_id for r in results}) == 1
    _assert_applied_once(review_id, by="alice", action="approve")


def test_a_stale_expected_version_is_a_conflict(people):
    [review_id] = _open_security_reviews(1)
    seen = review(review_id).version  # what alice's page shows
    # Somebody else claims and releases it while alice reads: the request moved on twice.
    claims.claim(actor("sam"), review_id)
    claims.release(actor("sam"), review_id)
    before = snapshot(review_id)
    with pytest.raises(Conflict, match=f"version {seen + 2}, you saw {seen}"):
        decide_as("alice", review_id, "approve", expected_version=seen)
    assert snapshot(review_id) == before and decisions() == []
    assert decide_as("alice", review_id, "approve", expected_version=seen + 2).replayed is False
    _assert_applied_once(review_id, by="alice", action="approve")


def test_twenty_racers_with_distinct_keys_apply_exactly_one_decision(people):
    [review_id] = _open_security_reviews(1)
    for i in range(19):
        users.create_user(username=f"reviewer{i}", password="pw-pw", roles=["security_reviewer"])
    names = ["alice"] + [f"reviewer{i}" for i in range(19)]
    actors = {name: actor(name) for name in names}

    def attempt(name: str):
        return decide(actors[name], review_id, DecisionInput(Action.APPROVE, idempotency_key=f"{name}-key"))

    results = race([lambda name=name: attempt(name) for name in names])
    wins = [(name, r) for name, r in zip(names, results, strict=True) if not isinstance(r, Exception)]
    assert len(wins) == 1, results
    assert all(isinstance(r, Conflict) for r in results if r is not wins[0][1]), results
    assert count(Message, Message.kind == "decision") == 1
    _assert_applied_once(review_id, by=wins[0][0], action="approve")
