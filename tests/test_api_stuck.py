"""Issue 8.4 over HTTP, against the real app and its in-process runner (SQLite and PostgreSQL):
a 300-character task no longer loops; a turn the database refuses fails the conversation once with
a clear reason; POST .../retry resumes it after the fix; POST .../abort stops any conversation
(the failed case and a runner stopped mid-turn are in tests/test_stuck_conversations.py)."""

from __future__ import annotations

import time
import uuid

import httpx
import pytest

from tests.support.api_app import ApiApp
from tests.support.api_helpers import assert_refused, start, wait_for_review
from tests.support.db_faults import ERROR, accept_revisions_again, refuse_revisions_named

pytestmark = pytest.mark.e2e
SCRIPTED = {"planner": {"provider": "scripted", "delay_ms": 0}, "coder": {"provider": "scripted", "delay_ms": 0}}


def _wait_for_status(client: httpx.Client, conversation_id: int, status: str, timeout_s: float = 60) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        body = client.get(f"/api/conversations/{conversation_id}").json()
        if body["status"] == status:
            return body
        time.sleep(0.1)
    raise AssertionError(f"conversation {conversation_id} is {body['status']}, not {status}, after {timeout_s} s")


def _audit(client: httpx.Client, conversation_id: int, action: str) -> list[dict]:
    response = client.get("/api/audit", params={"conversation_id": conversation_id, "action": action, "limit": 500})
    assert response.status_code == 200, response.text
    return response.json()["items"]


def test_a_300_character_task_reaches_review_instead_of_looping(api_app: ApiApp) -> None:
    client = api_app.client(api_app.token(["security_reviewer"]))
    conversation_id = start(client, "x" * 300, model_routing=SCRIPTED)
    wait_for_review(client, conversation_id)
    body = client.get(f"/api/conversations/{conversation_id}").json()
    assert body["status"] == "awaiting_review"
    [revision] = body["revisions"]
    assert len(revision["key"]) == 255 and revision["key"].endswith(".py")


def test_a_refused_turn_fails_once_with_a_reason_and_retry_resumes_it_after_the_fix(api_app: ApiApp) -> None:
    admin = api_app.client(api_app.token(["admin", "security_reviewer"]))
    marker = f"refused{uuid.uuid4().hex[:8]}"
    refuse_revisions_named(api_app.running.engine, marker)
    try:
        conversation_id = start(admin, f"Write a {marker} tracker", model_routing=SCRIPTED)
        failed = _wait_for_status(admin, conversation_id, "failed")
        assert failed["status_reason"] == f"storing agent turn 2 failed: {ERROR} (in code_revisions)"
        # The runner went on with other work, and never came back to the failed one.
        wait_for_review(admin, start(admin, "Write a boomerang tracker", model_routing=SCRIPTED))
        assert len(_audit(admin, conversation_id, "conversation.failed")) == 1
        assert _audit(admin, conversation_id, "runner.crashed") == []
        transcript = admin.get(f"/api/conversations/{conversation_id}/transcript").json()["items"]
        assert [m["source"] for m in transcript][1:] == ["planner"]
        reviewer = api_app.client(api_app.token(["security_reviewer"]))
        assert_refused(reviewer.post(f"/api/conversations/{conversation_id}/retry"),
                       403, "may not retry a failed conversation: needs role admin")
    finally:
        accept_revisions_again(api_app.running.engine)

    retried = admin.post(f"/api/conversations/{conversation_id}/retry")
    assert retried.status_code == 200, retried.text
    assert (retried.json()["status"], retried.json()["status_reason"]) == ("running", None)
    wait_for_review(admin, conversation_id)
    assert [r["key"] for r in admin.get(f"/api/conversations/{conversation_id}").json()["revisions"]] == [
        f"app/{marker}_tracker.py"]
    assert_refused(admin.post(f"/api/conversations/{conversation_id}/retry"), 409, ", not failed")


def test_an_admin_aborts_running_and_awaiting_conversations_others_may_not(api_app: ApiApp) -> None:
    admin_name, admin_token = api_app.user(["admin"])
    admin = api_app.client(admin_token)
    reviewer = api_app.client(api_app.token(["security_reviewer"]))

    # Running: the coder's model call takes 30 s, so the abort lands in the middle of the run.
    slow = {**SCRIPTED, "coder": {"provider": "scripted", "delay_ms": 30_000}}
    running = start(reviewer, "Write a boomerang tracker", model_routing=slow)
    assert_refused(reviewer.post(f"/api/conversations/{running}/abort", json={"reason": "x"}),
                   403, "may not abort a conversation: needs role admin")
    assert admin.post(f"/api/conversations/{running}/abort", json={"reason": " "}).status_code == 422
    assert admin.post(f"/api/conversations/{running}/abort", json={}).status_code == 422
    aborted = admin.post(f"/api/conversations/{running}/abort", json={"reason": "wrong repository"})
    assert aborted.status_code == 200, aborted.text
    assert (aborted.json()["status"], aborted.json()["status_reason"]) == (
        "aborted", f"aborted by {admin_name} (admin): wrong repository")

    awaiting = start(reviewer, "Write a boomerang tracker", model_routing=SCRIPTED)
    review = wait_for_review(reviewer, awaiting)
    body = admin.post(f"/api/conversations/{awaiting}/abort", json={"reason": "not needed"}).json()
    assert (body["status"], body["open_reviews"]) == ("aborted", [])
    other_reviewer = api_app.client(api_app.token(["security_reviewer"]))  # not the initiator
    assert_refused(other_reviewer.post(f"/api/reviews/{review['id']}/decision", json={"action": "approve"}),
                   409, "is closed")  # dismissed: nothing to approve

    assert_refused(admin.post(f"/api/conversations/{awaiting}/abort", json={"reason": "again"}),
                   409, "is already aborted; it cannot be aborted")
    assert admin.post("/api/conversations/2147483647/abort", json={"reason": "x"}).status_code == 404
    assert admin.get(f"/api/conversations/{running}").json()["status"] == "aborted"
    assert [e["details"]["was"] for e in _audit(admin, running, "conversation.aborted")] == ["running"]

