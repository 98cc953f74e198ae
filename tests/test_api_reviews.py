"""Review queues, claims and decisions over HTTP: roles (403), unknown ids (404), races and stale
versions (409), malformed decisions (422), idempotent retries."""

from __future__ import annotations

import uuid

import pytest

from tests.support.api_app import ApiApp
from tests.support.api_helpers import assert_refused, start, wait_for_review

pytestmark = pytest.mark.e2e


@pytest.fixture
def people(api_app: ApiApp):
    starter = api_app.client(api_app.token(["product_reviewer"], "starter"))
    alice = api_app.client(api_app.token(["security_reviewer"], "alice"))
    bob = api_app.client(api_app.token(["security_reviewer"], "bob"))
    carol = api_app.client(api_app.token(["final_approver"], "carol"))
    return starter, alice, bob, carol


def test_queue_lists_and_next(api_app: ApiApp, people) -> None:
    starter, alice, _, carol = people
    cid = start(starter)
    review = wait_for_review(alice, cid)
    assert (review["role"], review["status"], review["title"]) == ("security_reviewer", "pending", review["title"])
    assert not review["overdue"]
    # The shared app's queues hold other tests' reviews too (the fuzzer's, in any order): look at this one's.
    mine = {"conversation_id": cid}
    assert [r["id"] for r in alice.get("/api/reviews", params={"role": "security_reviewer", **mine}).json()] == \
        [review["id"]]
    assert [r["id"] for r in alice.get("/api/reviews", params=mine).json()] == [review["id"]]  # every queue she sees
    assert alice.get("/api/reviews", params={"status": "decided", "conversation_id": cid}).json() == []

    nxt = alice.get("/api/reviews/next", params={"role": "security_reviewer", "conversation_id": cid})
    assert nxt.status_code == 200 and nxt.json()["id"] == review["id"]
    empty = carol.get("/api/reviews/next", params={"role": "final_approver", "conversation_id": cid})
    assert empty.status_code == 204 and empty.content == b""


def test_wrong_role_is_403(api_app: ApiApp, people) -> None:
    starter, alice, _, carol = people
    cid = start(starter)
    review = wait_for_review(alice, cid)
    assert_refused(carol.get("/api/reviews", params={"role": "security_reviewer"}),
                   403, "may not claim a security_reviewer review")
    assert_refused(carol.get("/api/reviews/next", params={"role": "security_reviewer"}),
                   403, "may not claim a security_reviewer review")
    assert_refused(carol.post(f"/api/reviews/{review['id']}/claim"), 403, "may not claim a security_reviewer review")
    refused = carol.post(f"/api/reviews/{review['id']}/decision", json={"action": "approve"})
    assert refused.status_code == 403 and "may not" in refused.json()["detail"]


def test_claim_release_and_conflicts(api_app: ApiApp, people) -> None:
    starter, alice, bob, _ = people
    cid = start(starter)
    review = wait_for_review(alice, cid)
    claimed = alice.post(f"/api/reviews/{review['id']}/claim")
    assert claimed.status_code == 200 and claimed.json()["status"] == "claimed"
    assert alice.post(f"/api/reviews/{review['id']}/claim").status_code == 200  # twice is harmless
    taken = bob.post(f"/api/reviews/{review['id']}/claim")
    assert taken.status_code == 409 and "already claimed" in taken.json()["detail"]
    assert_refused(bob.post(f"/api/reviews/{review['id']}/release"), 403, "did not claim review request")
    assert_refused(bob.post(f"/api/reviews/{review['id']}/decision", json={"action": "approve"}),
                   409, "is claimed by another reviewer")
    released = alice.post(f"/api/reviews/{review['id']}/release")
    assert released.status_code == 200 and released.json()["status"] == "pending"
    assert_refused(alice.post(f"/api/reviews/{review['id']}/release"), 409, ", not claimed")  # not claimed any more


def test_decision_errors_and_idempotent_retry(api_app: ApiApp, people) -> None:
    starter, alice, bob, _ = people
    cid = start(starter)
    review = wait_for_review(alice, cid)
    url = f"/api/reviews/{review['id']}/decision"

    assert alice.post("/api/reviews/999999/decision", json={"action": "approve"}).status_code == 404
    for body, field in [({"action": "revise"}, "instructions"), ({"action": "abort"}, "reason"),
                        ({"action": "maybe"}, "action"),
                        ({"action": "approve", "target_agent": "ghost"}, "target_agent"),
                        ({"action": "approve", "edited_args": {"service": "x"}}, "edited_args"),
                        ({"action": "revise", "line_comments": [{"key": "a", "line": 0, "text": "x"}]}, "line")]:
        response = alice.post(url, json=body)
        assert response.status_code == 422, (body, response.text)
        assert any(field in err["loc"] for err in response.json()["detail"]), (body, response.json())
    stale = alice.post(url, json={"action": "approve", "expected_version": review["version"] + 5})
    assert stale.status_code == 409 and "reload" in stale.json()["detail"]

    key = f"key-{uuid.uuid4().hex}"
    first = alice.post(url, json={"action": "approve"}, headers={"Idempotency-Key": key})
    assert first.status_code == 200, first.text
    again = alice.post(url, json={"action": "approve"}, headers={"Idempotency-Key": key})
    assert again.status_code == 200 and again.json()["replayed"] is True
    assert again.json()["decision_id"] == first.json()["decision_id"]
    late = bob.post(url, json={"action": "approve"})
    assert late.status_code == 409 and "APPROVE by alice" in late.json()["detail"]  # who won the race


def test_idempotency_keys_compare_the_request_and_belong_to_their_user(api_app: ApiApp, people) -> None:
    starter, alice, bob, _ = people
    review = wait_for_review(alice, start(starter))
    url = f"/api/reviews/{review['id']}/decision"
    key = f"key-{uuid.uuid4().hex}"
    first = alice.post(url, json={"action": "revise", "instructions": "add a timeout"},
                       headers={"Idempotency-Key": key})
    assert first.status_code == 200, first.text
    reused = alice.post(url, json={"action": "abort", "reason": "no"}, headers={"Idempotency-Key": key})
    assert reused.status_code == 422, reused.text
    assert "already used for a different request" in reused.json()["detail"][0]["msg"]
    # The first decision stands: the same key with the same body still answers with the revise.
    same = alice.post(url, json={"action": "revise", "instructions": "add a timeout"},
                       headers={"Idempotency-Key": key})
    assert same.status_code == 200 and same.json()["replayed"] is True, same.text
    assert (same.json()["decision_id"], same.json()["action"]) == (first.json()["decision_id"], "revise")

    # bob's key is his own: the same string as alice's key touches nothing of hers.
    other = wait_for_review(bob, start(starter))
    mine = bob.post(f"/api/reviews/{other['id']}/decision", json={"action": "approve"},
                    headers={"Idempotency-Key": key})
    assert mine.status_code == 200 and mine.json()["replayed"] is False, mine.text

    for bad in ["", "x" * 201, "has space", "tab\tkey"]:
        response = alice.post(url, json={"action": "approve"}, headers={"Idempotency-Key": bad})
        assert response.status_code == 400, (bad, response.text)
        assert "Idempotency-Key" in response.json()["detail"]


def test_a_decision_names_the_content_it_was_made_on(api_app: ApiApp, people) -> None:
    starter, alice, _, _ = people
    review = wait_for_review(alice, start(starter))
    url = f"/api/reviews/{review['id']}/decision"
    wrong = alice.post(url, json={"action": "approve", "expected_content_hash": "0" * 64})
    assert wrong.status_code == 409 and "other content" in wrong.json()["detail"]
    assert alice.post(url, json={"action": "approve", "expected_content_hash": "xyz"}).status_code == 422
    right = alice.post(url, json={"action": "approve", "expected_content_hash": review["content_hash"]})
    assert right.status_code == 200, right.text


def test_approve_with_my_changes_over_http(api_app: ApiApp, people) -> None:
    starter, alice, _, carol = people
    cid = start(starter)
    review = wait_for_review(alice, cid)
    url, base = f"/api/reviews/{review['id']}/decision", f"/api/conversations/{cid}"
    (agent,) = alice.get(f"{base}/revisions").json()
    content = alice.get(f"{base}/diff", params={"from": agent["id"], "to": agent["id"]}).json()["after"]["content"]
    edited = content.replace("MAX_ATTEMPTS = 5", "MAX_ATTEMPTS = 3")
    assert edited != content
    for body, status, says in [
        ({"edited_files": {agent["key"]: content}}, 422, "same as the proposal"),
        ({"edited_files": {"app/elsewhere.py": edited}}, 422, "not a file of this revision"),
        ({"edited_files": {agent["key"]: "x" * 200_001}}, 422, ""),
        ({"edited_files": {agent["key"]: edited}, "expected_version": review["version"] + 1}, 409, "changed"),
    ]:
        refused = alice.post(url, json={"action": "approve", **body})
        assert refused.status_code == status and says in refused.text, refused.text
    wrong_role = carol.post(url, json={"action": "approve", "edited_files": {agent["key"]: edited}})
    assert wrong_role.status_code == 403
    done = alice.post(url, json={"action": "approve", "edited_files": {agent["key"]: edited},
                                 "expected_version": review["version"],
                                 "expected_content_hash": review["content_hash"]})
    assert done.status_code == 200, done.text

    mine = alice.get(f"{base}/revisions").json()[-1]
    assert (mine["key"], mine["number"]) == (agent["key"], 2) and isinstance(mine["author_id"], int)
    assert agent["author_id"] is None
    final = wait_for_review(carol, cid, role="final_approver")
    assert final["id"] == done.json()["next_review_id"] and final["content_hash"] != review["content_hash"]
    diff = carol.get(f"{base}/diff", params={"from": agent["id"], "to": mine["id"]}).json()["unified_diff"]
    assert "-MAX_ATTEMPTS = 5" in diff and "+MAX_ATTEMPTS = 3" in diff
