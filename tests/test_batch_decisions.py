"""Batch decisions (issue 42), through the service on SQLite and PostgreSQL: each review of a batch
is decided on its own, with every check a single decision makes, and its own idempotency key; a
stale, foreign, unknown or not-allowed review is refused with its reason while the others go
through; the same batch sent again applies nothing twice; a bad batch is refused whole."""

from __future__ import annotations

import pytest

from hitl_dashboard.db.models import Decision
from hitl_dashboard.domain.batch_decisions import MAX_BATCH, BatchItem, batch_command, item_key
from hitl_dashboard.domain.errors import InvalidInput, MalformedRequest
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.conversations.conversations import StartCommand, start_conversation
from hitl_dashboard.services.reviews import claims
from hitl_dashboard.services.reviews.batch_decide import decide_batch
from hitl_dashboard.services.workspaces import workspaces
from tests.support.db_state import audit_events, count, decisions, review, snapshot
from tests.support.flow import actor, conversation, decide_as, make_people, only_open_review, start, work

HASH = "a" * 64


@pytest.fixture
def people(db_url, monkeypatch):
    monkeypatch.setenv("SCRIPTED_DELAY_MS", "0")
    make_people()
    users.create_user(username="grace", password="pw-grace", roles=["security_reviewer"])


def _security_reviews(n: int, as_user: str = "frank") -> list[int]:
    cids = [start(f"Add rate limiting to endpoint number {i}", as_user=as_user) for i in range(n)]
    work()
    return [only_open_review(cid).id for cid in cids]


def _items(review_ids: list[int]) -> list[BatchItem]:
    return [BatchItem(r, review(r).version, review(r).content_hash) for r in review_ids]


def _state(review_id: int) -> tuple:
    """A review as it stands, and its decisions."""
    request = review(review_id)
    return request.status, request.version, request.assignee_id, [d.id for d in decisions(review_id)]


def test_a_batch_decides_each_review_once_and_refuses_the_stale_one_with_its_reason(people):
    ids = _security_reviews(4)
    items = _items(ids)  # what alice was shown
    stale = ids[2]
    decide_as("grace", stale, "approve")  # decided by someone else after alice loaded her queue
    command = batch_command("approve", items, "batch-1")

    outcome = decide_batch(actor("alice"), command)
    assert [r.review_id for r in outcome.results] == ids  # in the order sent
    assert (outcome.count("decided"), outcome.count("refused")) == (3, 1)
    [refused] = [r for r in outcome.results if r.status == "refused"]
    assert (refused.review_id, refused.refusal) == (stale, "conflict")
    assert "closed" in refused.reason and "grace" in refused.reason, refused.reason
    mine = [d for d in decisions() if d.reviewer_id == actor("alice").user_id]
    assert sorted(d.review_request_id for d in mine) == sorted(set(ids) - {stale})
    # Each decision has its own key, derived from the batch's.
    assert {d.idempotency_key for d in mine} == {item_key("batch-1", command.action, d.review_request_id)
                                                 for d in mine}
    assert all(review(r).status == "decided" for r in ids)
    recorded = len(audit_events("decision.recorded"))
    after_first = [snapshot(r) for r in ids]

    again = decide_batch(actor("alice"), command)  # the same batch again: nothing applied twice
    assert (again.count("decided"), again.count("replayed"), again.count("refused")) == (0, 3, 1)
    assert {r.decision_id for r in again.results if r.status == "replayed"} == {d.id for d in mine}
    assert [snapshot(r) for r in ids] == after_first
    assert len(audit_events("decision.recorded")) == recorded
    assert count(Decision) == len(mine) + 1  # alice's three and grace's one


def test_a_forged_batch_refuses_what_is_not_the_callers_and_decides_the_rest(people):
    mine, other_role_source, own_work = _security_reviews(3)
    # The next sign-off after a security approval (final_approver) is not alice's role.
    final = decide_as("grace", other_role_source, "approve").next_review_id
    assert final is not None and review(final).required_role == "final_approver"
    elsewhere = workspaces.create_workspace(None, slug="elsewhere", name="Elsewhere")
    users.create_user(username="starter2", password="pw-s", roles=["product_reviewer"], workspace_id=elsewhere.id)
    users.create_user(username="sam", password="pw-sam", roles=["security_reviewer"], workspace_id=elsewhere.id)
    foreign_cid = start_conversation(users.find_actor("starter2"), StartCommand(
        task="Add rate limiting elsewhere", task_type="code", workspace="elsewhere")).id
    work()
    foreign = only_open_review(foreign_cid).id
    missing = 987_654
    before = {r: _state(r) for r in (final, foreign, own_work)}

    # frank started every default-workspace conversation: he may approve none of them (four eyes);
    # alice may approve the security reviews but not the final one, nor anything elsewhere.
    outcome = decide_batch(actor("alice"), batch_command(
        "approve", [BatchItem(final), BatchItem(foreign), BatchItem(missing), BatchItem(mine)], "forged-1"))
    by_id = {r.review_id: r for r in outcome.results}
    assert by_id[mine].status == "decided"
    assert (by_id[final].status, by_id[final].refusal) == ("refused", "not_allowed")
    assert "may not decide a final_approver review" in by_id[final].reason
    # Another workspace's review is answered exactly as one that does not exist.
    assert (by_id[foreign].refusal, by_id[missing].refusal) == ("not_found", "not_found")
    assert by_id[foreign].reason.replace(str(foreign), "N") == by_id[missing].reason.replace(str(missing), "N")
    assert {r: _state(r) for r in (final, foreign, own_work)} == before

    four_eyes = decide_batch(actor("frank"), batch_command("approve", [BatchItem(own_work)], "forged-2"))
    assert (four_eyes.results[0].refusal, review(own_work).status) == ("not_allowed", "pending")
    assert "started this conversation" in four_eyes.results[0].reason


def test_claims_and_versions_are_checked_per_review(people):
    claimed, changed, fine = _security_reviews(3)
    # The claimed one without a version (a claim moves it on too): the claim itself refuses it.
    items = [BatchItem(claimed), *_items([changed, fine])]
    claims.claim(actor("grace"), claimed)  # grace works on it now
    claims.claim(actor("alice"), changed)  # alice's own claim moves the version on
    outcome = decide_batch(actor("alice"), batch_command("approve", items, "versions-1"))
    by_id = {r.review_id: r for r in outcome.results}
    assert (by_id[claimed].refusal, "claimed by another reviewer" in by_id[claimed].reason) == ("conflict", True)
    assert (by_id[changed].refusal, "changed" in by_id[changed].reason) == ("conflict", True)
    assert by_id[fine].status == "decided"
    wrong_hash = decide_batch(actor("alice"), batch_command(
        "approve", [BatchItem(changed, review(changed).version, HASH)], "versions-2"))
    assert "other content" in wrong_hash.results[0].reason


def test_deny_sends_a_review_back_to_its_agents_with_the_reason(people):
    [review_id] = _security_reviews(1)
    cid = review(review_id).conversation_id
    outcome = decide_batch(actor("alice"), batch_command("deny", _items([review_id]), "deny-1",
                                                         reason="  Use the shared limiter  "))
    assert outcome.results[0].status == "decided"
    [decision] = decisions(review_id)
    assert (decision.action, decision.instructions, decision.reason) == (
        "revise", "Use the shared limiter", "Use the shared limiter")
    assert conversation(cid).status == "running"
    [default] = _security_reviews(1)
    decide_batch(actor("alice"), batch_command("deny", [BatchItem(default)], "deny-2"))
    assert decisions(default)[0].instructions == "denied in a batch by alice"


@pytest.mark.parametrize(("action", "items", "key", "message"), [
    ("approve", [], "k", "the batch is empty"),
    ("approve", [BatchItem(i) for i in range(1, MAX_BATCH + 2)], "k", f"at most {MAX_BATCH} reviews"),
    ("approve", [BatchItem(3), BatchItem(4), BatchItem(3)], "k", "repeated: #3"),
    ("delete", [BatchItem(1)], "k", "unknown batch action 'delete'"),
    ("revise", [BatchItem(1)], "k", "unknown batch action"),
    ("approve", [BatchItem(1)], None, "needs an idempotency key"),
    ("approve", [BatchItem(0)], "k", "whole numbers from 1"),
    ("approve", [BatchItem(True)], "k", "whole numbers from 1"),  # type: ignore[arg-type]
    ("approve", [BatchItem("5")], "k", "whole numbers from 1"),  # type: ignore[arg-type]
    ("approve", [BatchItem(2**31)], "k", "whole numbers from 1"),
    ("approve", [BatchItem(1, 0)], "k", "expected version"),
    ("approve", [BatchItem(1, 1, "abc")], "k", "content hash"),
    ("approve", [5], "k", "names a review"),
])
def test_a_bad_batch_is_refused_whole_with_a_clear_message(action, items, key, message):
    with pytest.raises(InvalidInput, match=message):
        batch_command(action, items, key)


def test_a_malformed_batch_key_is_a_malformed_request():
    with pytest.raises(MalformedRequest, match="Idempotency-Key"):
        batch_command("approve", [BatchItem(1)], "has space")
