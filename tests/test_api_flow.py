"""The whole review flow over the HTTP API alone: start a code conversation, poll next for
security, REVISE, poll again (the app's own runner works meanwhile), APPROVE, final APPROVE."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.support.api_app import ApiApp

pytestmark = pytest.mark.e2e
POLL_TIMEOUT_S = 60


def poll_next(client: httpx.Client, role: str, conversation_id: int, *, not_id: int | None = None) -> dict:
    """GET /api/reviews/next until a review for this conversation (other than not_id) is waiting."""
    deadline = time.monotonic() + POLL_TIMEOUT_S
    while time.monotonic() < deadline:
        response = client.get("/api/reviews/next", params={"role": role, "conversation_id": conversation_id})
        assert response.status_code in (200, 204), response.text
        if response.status_code == 200 and response.json()["id"] != not_id:
            return response.json()
        time.sleep(0.2)
    raise AssertionError(f"no {role} review for conversation {conversation_id} within {POLL_TIMEOUT_S} s")


def test_review_flow_over_the_api_alone(api_app: ApiApp) -> None:
    starter = api_app.client(api_app.token(["product_reviewer"], "starter"))
    security = api_app.client(api_app.token(["security_reviewer"], "sec"))
    final = api_app.client(api_app.token(["final_approver"], "final"))

    started = starter.post("/api/conversations", json={
        "task": "Add retry with exponential backoff to the payments client", "task_type": "code"})
    assert started.status_code == 201, started.text
    cid = started.json()["id"]
    assert started.json()["status"] == "running"

    first = poll_next(security, "security_reviewer", cid)
    assert (first["kind"], first["subject_label"]) == ("signoff", "app/retry.py r1")
    revised = security.post(f"/api/reviews/{first['id']}/decision", headers={"Idempotency-Key": f"rev-{cid}"},
                            json={"action": "revise", "target_agent": "coder",
                                  "instructions": "add a timeout to every call",
                                  "line_comments": [{"key": "app/retry.py", "line": 1, "text": "no timeout"}],
                                  "expected_version": first["version"]})
    assert revised.status_code == 200, revised.text
    assert revised.json()["conversation_status"] == "running"

    second = poll_next(security, "security_reviewer", cid, not_id=first["id"])
    assert second["subject_label"] == "app/retry.py r2"
    diff = security.get(f"/api/conversations/{cid}/revisions").json()
    ids = {r["number"]: r["id"] for r in diff if r["key"] == "app/retry.py"}
    changes = security.get(f"/api/conversations/{cid}/diff", params={"from": ids[1], "to": ids[2]}).json()
    assert "+" in changes["unified_diff"] and "timeout" in changes["after"]["content"]

    approved = security.post(f"/api/reviews/{second['id']}/decision", json={"action": "approve"})
    assert approved.status_code == 200, approved.text
    final_review = poll_next(final, "final_approver", cid)
    assert final_review["id"] == approved.json()["next_review_id"]
    done = final.post(f"/api/reviews/{final_review['id']}/decision", json={"action": "approve"})
    assert done.status_code == 200, done.text
    assert done.json()["conversation_status"] == "approved"

    shown = starter.get(f"/api/conversations/{cid}").json()
    assert shown["status"] == "approved"
    assert shown["signoff"] == [{"role": "security_reviewer", "approved": True},
                                {"role": "final_approver", "approved": True}]
    assert shown["open_reviews"] == []
    sources = [m["source"] for m in starter.get(f"/api/conversations/{cid}/transcript").json()["items"]]
    assert sources.count("coder") == 2
