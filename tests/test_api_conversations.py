"""Conversations, transcripts, revisions and diffs over HTTP."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.api_app import ApiApp
from tests.support.api_helpers import start, wait_for_review

pytestmark = pytest.mark.e2e


def test_start_list_and_show(api_app: ApiApp) -> None:
    client = api_app.client(api_app.token(["security_reviewer"]))
    created = client.post("/api/conversations", json={
        "task": "Write release notes for 2.0", "task_type": "copy", "title": "Release notes",
        "gate_policy": {"mode": "on_done", "keywords": ["DROP TABLE"]},
        "model_routing": {"copywriter": {"provider": "scripted", "delay_ms": 0}},
    })
    assert created.status_code == 201, created.text
    body = created.json()
    assert (body["title"], body["task_type"], body["template"]) == ("Release notes", "copy", "copy")
    assert body["gate_policy"]["mode"] == "on_done"

    listed = client.get("/api/conversations", params={"task_type": "copy", "limit": 500}).json()
    assert body["id"] in [c["id"] for c in listed]
    assert all(c["task_type"] == "copy" for c in listed)
    assert client.get("/api/conversations", params={"status": "aborted", "task_type": "ops"}).json() == []

    shown = client.get(f"/api/conversations/{body['id']}")
    assert shown.status_code == 200
    assert shown.json()["task"] == "Write release notes for 2.0"


@pytest.mark.parametrize("payload, field", [
    ({"task": "   "}, "task"),
    ({"task": "x", "task_type": "poetry"}, "task_type"),
    ({"task": "x", "unexpected": 1}, "unexpected"),
    ({"task": "nul \u0000 byte"}, "task"),
    ({"task": "x", "gate_policy": {"regex": "("}}, "gate_policy"),
    ({"task": "x", "model_routing": {"coder": {"base_url": "http://evil.example"}}}, "base_url"),
    ({"task": "x", "template": "copy"}, "template"),
])
def test_start_refuses_malformed_bodies_with_field_errors(api_app: ApiApp, payload: dict, field: str) -> None:
    client = api_app.client(api_app.token(["security_reviewer"]))
    response = client.post("/api/conversations", json=payload)
    assert response.status_code == 422, response.text
    assert any(field in err["loc"] for err in response.json()["detail"]), response.json()


def test_invalid_json_is_422_not_500(api_app: ApiApp) -> None:
    client = api_app.client(api_app.token(["security_reviewer"]))
    for raw in (b"{", b'{"task": "\\ud800"}', b"[1, 2]", b"null"):
        response = client.post("/api/conversations", content=raw, headers={"Content-Type": "application/json"})
        assert response.status_code == 422, (raw, response.text)


def test_unknown_ids_are_404(api_app: ApiApp) -> None:
    client = api_app.client(api_app.token(["manager"]))
    for path in ("/api/conversations/999999", "/api/conversations/999999/transcript",
                 "/api/conversations/999999/revisions", "/api/conversations/999999/diff?from=1&to=2"):
        response = client.get(path)
        assert response.status_code == 404, (path, response.text)
        assert "999999" in response.json()["detail"]
    assert client.get("/api/conversations/99999999999").status_code == 422  # beyond any id: not a 500


def test_transcript_pages_and_streams_jsonl(api_app: ApiApp) -> None:
    client = api_app.client(api_app.token(["security_reviewer"]))
    cid = start(client)
    wait_for_review(client, cid)
    first = client.get(f"/api/conversations/{cid}/transcript", params={"limit": 1}).json()
    assert [m["seq"] for m in first["items"]] == [1] and first["next_after_seq"] == 1
    rest = client.get(f"/api/conversations/{cid}/transcript", params={"after_seq": 1, "limit": 100}).json()
    assert [m["source"] for m in rest["items"]] == ["planner", "coder"] and rest["next_after_seq"] is None

    with client.stream("GET", f"/api/conversations/{cid}/transcript", params={"format": "jsonl"}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in response.iter_lines() if line]
    assert [m["seq"] for m in lines] == [1, 2, 3]


def test_revisions_and_diff(api_app: ApiApp) -> None:
    client = api_app.client(api_app.token(["security_reviewer"]))
    cid, other = start(client), start(client)
    review = wait_for_review(client, cid)
    client.post(f"/api/reviews/{review['id']}/decision",
                json={"action": "revise", "instructions": "add a timeout to every call"})
    wait_for_review(client, cid)  # r2 is under review
    revisions = client.get(f"/api/conversations/{cid}/revisions").json()
    assert [(r["key"], r["number"]) for r in revisions] == [("app/retry.py", 1), ("app/retry.py", 2)]
    r1, r2 = revisions[0]["id"], revisions[1]["id"]

    diff = client.get(f"/api/conversations/{cid}/diff", params={"from": r1, "to": r2})
    assert diff.status_code == 200
    body = diff.json()
    assert body["unified_diff"].startswith("--- app/retry.py r1\n+++ app/retry.py r2\n")
    assert (body["before"]["number"], body["after"]["number"]) == (1, 2)
    assert "timeout" in body["after"]["content"] and "timeout" not in body["before"]["content"]
    # A revision of another conversation is not this conversation's: 404, not a leak.
    wait_for_review(client, other)
    foreign = client.get(f"/api/conversations/{other}/revisions").json()[0]["id"]
    assert client.get(f"/api/conversations/{cid}/diff", params={"from": r1, "to": foreign}).status_code == 404
    assert client.get(f"/api/conversations/{cid}/diff", params={"from": r1}).status_code == 422


def test_a_model_the_server_cannot_reach_fails_that_conversation_only(api_app: ApiApp) -> None:
    client = api_app.client(api_app.token(["security_reviewer"]))
    broken = start(client, model_routing={"coder": {"provider": "openai", "model": "gpt-4o-mini"}})
    healthy = start(client)
    wait_for_review(client, healthy)  # the runner went on with the others
    deadline = time.monotonic() + 30
    while client.get(f"/api/conversations/{broken}").json()["status"] != "failed":
        assert time.monotonic() < deadline, "the broken conversation never failed"
        time.sleep(0.2)
    assert "OPENAI_API_KEY" in client.get(f"/api/conversations/{broken}").json()["status_reason"]


def test_list_filters_take_calendar_days_only(api_app: ApiApp) -> None:
    client = api_app.client(api_app.token(["product_reviewer"]))
    for bad in ("0", "2030-02-30", "yesterday", "2030-3-1"):
        response = client.get("/api/conversations", params={"created_to": bad})
        assert response.status_code == 422, (bad, response.text)
    assert client.get("/api/conversations", params={"created_from": "2030-01-01"}).json() == []
    assert client.get("/api/conversations", params={"created_to": "2999-12-31"}).status_code == 200
