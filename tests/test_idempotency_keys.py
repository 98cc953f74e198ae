"""Idempotency keys belong to their reviewer and to one exact request; decisions are bound to the
content the reviewer was shown; a reviewer who loses a race is told who won."""

from __future__ import annotations

import pytest

from hitl_dashboard.domain.errors import Conflict, InvalidInput, MalformedRequest
from tests.support.db_state import decisions, review, snapshot
from tests.support.flow import decide_as, make_people, only_open_review, start, work


@pytest.fixture
def people(db_url, monkeypatch):
    monkeypatch.setenv("SCRIPTED_DELAY_MS", "0")
    make_people()


def _security_review(task: str = "Add rate limiting to the login endpoint") -> int:
    cid = start(task)
    work()
    return only_open_review(cid).id


def test_the_same_key_with_another_body_is_refused_and_the_decision_stays(people):
    review_id = _security_review()
    first = decide_as("alice", review_id, "revise", instructions="add a timeout", idempotency_key="k-1")
    after_first = snapshot(review_id)
    with pytest.raises(InvalidInput, match="'k-1' was already used for a different request"):
        decide_as("alice", review_id, "abort", reason="changed my mind", idempotency_key="k-1")
    assert snapshot(review_id) == after_first
    assert [(d.id, d.action) for d in decisions(review_id)] == [(first.decision_id, "revise")]
    # The same body again is a replay of the first answer, not a second decision.
    again = decide_as("alice", review_id, "revise", instructions="add a timeout", idempotency_key="k-1")
    assert again.replayed and again.decision_id == first.decision_id


def test_a_replayed_signoff_skip_is_the_first_answer_though_the_request_stays_open(people):
    """A sign-off skip hands the request back to the queue, so its replay finds it open: the
    reviewer's key, not the request's status, is what tells the replay apart (decide.py inserts the
    row and the unique key refuses the second one)."""
    review_id = _security_review()
    first = decide_as("alice", review_id, "skip", idempotency_key="k-skip")
    after_first = snapshot(review_id)
    assert review(review_id).status == "pending"
    again = decide_as("alice", review_id, "skip", idempotency_key="k-skip")
    assert again.replayed and again.decision_id == first.decision_id
    assert snapshot(review_id) == after_first
    assert [(d.id, d.action) for d in decisions(review_id)] == [(first.decision_id, "skip")]
    with pytest.raises(InvalidInput, match="'k-skip' was already used for a different request"):
        decide_as("alice", review_id, "approve", idempotency_key="k-skip")
    assert snapshot(review_id) == after_first


def test_the_same_key_on_another_review_is_refused_without_naming_it(people):
    first, second = _security_review(), _security_review("Add CSV export to the reports page")
    decide_as("alice", first, "approve", idempotency_key="k-1")
    before = snapshot(second)
    with pytest.raises(InvalidInput) as refused:
        decide_as("alice", second, "approve", idempotency_key="k-1")
    assert f"{first}" not in str(refused.value).replace("k-1", "")
    assert snapshot(second) == before


def test_keys_are_per_reviewer_so_nobody_can_occupy_another_reviewers_key(people):
    alice_review, erin_review = _security_review(), _security_review("Add CSV export to the reports page")
    # erin guesses the key alice's page will use and spends it first on another review.
    decide_as("erin", erin_review, "approve", override_reason="covering", idempotency_key="ui-shared-key")
    outcome = decide_as("alice", alice_review, "approve", idempotency_key="ui-shared-key")
    assert not outcome.replayed and review(alice_review).status == "decided"
    assert {d.review_request_id: d.reviewer_id for d in decisions()}.keys() == {alice_review, erin_review}


@pytest.mark.parametrize("key", ["", "x" * 201, "bad\nkey", "tab\tkey", "space key", "caf\u00e9"])
def test_malformed_keys_are_refused_before_anything_changes(people, key):
    review_id = _security_review()
    before = snapshot(review_id)
    with pytest.raises(MalformedRequest, match="Idempotency-Key"):
        decide_as("alice", review_id, "approve", idempotency_key=key)
    assert snapshot(review_id) == before


def test_a_decision_on_content_the_reviewer_was_not_shown_is_refused(people):
    review_id = _security_review()
    shown = review(review_id).content_hash
    before = snapshot(review_id)
    with pytest.raises(Conflict, match="other content than the one you were shown"):
        decide_as("alice", review_id, "approve", expected_content_hash="0" * 64)
    assert snapshot(review_id) == before and decisions() == []
    decide_as("alice", review_id, "approve", expected_content_hash=shown)
    assert review(review_id).status == "decided"


def test_the_reviewer_who_loses_a_race_is_told_who_decided(people):
    review_id = _security_review()
    decide_as("erin", review_id, "approve", override_reason="alice is away")
    with pytest.raises(Conflict, match=r"APPROVE by erin at \d\d:\d\d:\d\d UTC"):
        decide_as("alice", review_id, "abort", reason="leaks a secret")
