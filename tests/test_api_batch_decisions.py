"""POST /api/reviews/batch-decisions (issue 42) over the real API in process, on SQLite and
PostgreSQL: a batch is decided review by review, a refused review says why, the same batch (the same
Idempotency-Key) again applies nothing twice, and a bad batch is refused whole, changing nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from hitl_dashboard.domain.batch_decisions import MAX_BATCH
from hitl_dashboard.services.auth.tokens import create_token
from hitl_dashboard.services.auth.users import find_actor
from tests.support.db_state import decisions, review
from tests.support.external_api import bearer
from tests.support.flow import decide_as, make_people, only_open_review, start, work
from tests.support.in_process_api import in_process_api

URL = "/api/reviews/batch-decisions"


@pytest.fixture
def client(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("SCRIPTED_DELAY_MS", "0")
    monkeypatch.setenv("API_RATE_LIMIT", "100000/minute")
    make_people()
    with in_process_api() as test_client:
        yield test_client


def _token(name: str) -> dict[str, str]:
    return bearer(create_token(user_id=find_actor(name).user_id, name="batch")[1])


def _reviews(n: int) -> list[int]:
    cids = [start(f"Add rate limiting to endpoint {i}") for i in range(n)]
    work()
    return [only_open_review(cid).id for cid in cids]


def _body(ids: list[int], action: str = "approve") -> dict:
    return {"action": action, "reviews": [{"review_id": r, "expected_version": review(r).version,
                                           "expected_content_hash": review(r).content_hash} for r in ids]}


def test_a_batch_over_http_decides_each_and_replays_the_same_batch(client: TestClient) -> None:
    ids = _reviews(3)
    body = _body(ids)
    decide_as("erin", ids[1], "approve", override_reason="covering")  # stale before alice sends
    headers = {**_token("alice"), "Idempotency-Key": "http-batch-1"}
    first = client.post(URL, json=body, headers=headers)
    assert first.status_code == 200, first.text
    answer = first.json()
    assert (answer["action"], answer["decided"], answer["replayed"], answer["refused"]) == ("approve", 2, 0, 1)
    results = {r["review_id"]: r for r in answer["results"]}
    assert results[ids[1]]["refusal"] == "conflict" and "erin" in results[ids[1]]["reason"]
    assert results[ids[0]]["status"] == "decided" and results[ids[0]]["decision_id"]
    again = client.post(URL, json=body, headers=headers).json()
    assert (again["decided"], again["replayed"], again["refused"]) == (0, 2, 1)
    assert {r["decision_id"] for r in again["results"] if r["status"] == "replayed"} == {
        r["decision_id"] for r in answer["results"] if r["status"] == "decided"}
    assert [len(decisions(r)) for r in ids] == [1, 1, 1]


def test_forged_rows_are_refused_and_the_others_go_through(client: TestClient) -> None:
    mine, final_source = _reviews(2)
    final = decide_as("alice", final_source, "approve").next_review_id
    body = {"action": "approve", "reviews": [{"review_id": final}, {"review_id": 987_654}, {"review_id": mine}]}
    answer = client.post(URL, json=body, headers={**_token("alice"), "Idempotency-Key": "forged"}).json()
    assert [(r["status"], r["refusal"]) for r in answer["results"]] == [
        ("refused", "not_allowed"), ("refused", "not_found"), ("decided", None)]
    assert review(final).status == "pending"


# (body, Idempotency-Key, status, part of the message); 5 stands for a real open review's id.
BAD_BATCHES = [
    ({"action": "approve", "reviews": []}, "k1", 422, "the batch is empty"),
    ({"action": "approve", "reviews": [{"review_id": 5}, {"review_id": 5}]}, "k2", 422, "repeated: #5"),
    ({"action": "approve", "reviews": [{"review_id": i} for i in range(1, MAX_BATCH + 2)]}, "k3", 422,
     f"at most {MAX_BATCH} items"),
    ({"action": "abort", "reviews": [{"review_id": 5}]}, "k4", 422, "'approve' or 'deny'"),
    ({"action": "approve", "reviews": [{"review_id": "5"}]}, "k5", 422, "valid integer"),
    ({"action": "approve", "reviews": [{"review_id": 5, "extra": 1}]}, "k6", 422, "Extra inputs"),
    ({"action": "approve", "reviews": [{"review_id": 5}]}, None, 422, "needs an idempotency key"),
    ({"action": "approve", "reviews": [{"review_id": 5}]}, "bad key", 400, "Idempotency-Key"),
]


def test_a_bad_batch_is_refused_whole_and_changes_nothing(client: TestClient) -> None:
    [review_id] = _reviews(1)
    for body, key, status, message in BAD_BATCHES:
        body = {**body, "reviews": [r if r.get("review_id") != 5 else {**r, "review_id": review_id}
                                    for r in body["reviews"]]}
        message = message.replace("#5", f"#{review_id}")
        headers = _token("alice") | ({"Idempotency-Key": key} if key else {})
        answer = client.post(URL, json=body, headers=headers)
        assert answer.status_code == status, (body, answer.text)
        assert message in answer.text, (body, answer.text)
    assert review(review_id).status == "pending" and decisions(review_id) == []


def test_another_role_holder_may_not_batch_into_a_queue_it_does_not_hold(client: TestClient) -> None:
    [review_id] = _reviews(1)
    answer = client.post(URL, json={"action": "deny", "reviews": [{"review_id": review_id}]},
                         headers={**_token("carol"), "Idempotency-Key": "carol-1"}).json()
    assert answer["results"][0]["refusal"] == "not_allowed"
    assert review(review_id).status == "pending"
