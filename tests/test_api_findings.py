"""GET /api/conversations/{id}/revisions/{rid}/findings over HTTP (issue 14)."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import text

from tests.support.api_app import ApiApp
from tests.support.api_helpers import assert_refused, start, wait_for_review

pytestmark = pytest.mark.e2e


def _analysed(client, cid: int, rid: int, timeout_s: float = 60) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        body = client.get(f"/api/conversations/{cid}/revisions/{rid}/findings").json()
        if body["status"] not in ("pending", "running"):
            return body
        time.sleep(0.2)
    raise AssertionError(f"revision {rid} was not analysed within {timeout_s} s")


def test_findings_of_a_revision(api_app: ApiApp) -> None:
    client = api_app.client(api_app.token(["security_reviewer"]))
    cid = start(client, "Write a helper to run a shell command",
                gate_policy={"mode": "never", "min_finding_severity": "high"})
    review = wait_for_review(client, cid)
    assert review["rule"] == "findings"
    rid = client.get(f"/api/conversations/{cid}/revisions").json()[0]["id"]
    body = _analysed(client, cid, rid)
    assert body["status"] == "analysed" and body["file"] == "app/shell_runner.py"
    rules = {(f["analyser"], f["rule"], f["severity"], f["line"]) for f in body["findings"]}
    assert ("bandit", "B602", "high", 7) in rules and ("ruff", "F401", "low", 2) in rules
    assert client.get(f"/api/conversations/{cid}/revisions/999999/findings").status_code == 404
    assert client.get(f"/api/conversations/999999/revisions/{rid}/findings").status_code == 404


def test_a_question_over_http(api_app: ApiApp) -> None:
    owner = api_app.client(api_app.token(["product_reviewer"]))
    reviewer = api_app.client(api_app.token(["security_reviewer"]))
    cid = start(owner, "Write a helper to run a shell command")
    review = wait_for_review(reviewer, cid)
    asked = reviewer.post(f"/api/reviews/{review['id']}/questions",
                          json={"question": "Why shell=True?", "key": "app/shell_runner.py", "line": 7})
    assert asked.status_code == 201, asked.text
    assert_refused(owner.post(f"/api/reviews/{review['id']}/questions", json={"question": "?"}),
                   403, "may not ask questions on a security_reviewer review")
    deadline = time.monotonic() + 60
    while (thread := reviewer.get(f"/api/reviews/{review['id']}/questions").json())[0]["status"] != "answered":
        assert time.monotonic() < deadline, thread
        time.sleep(0.2)
    assert "shell=True" in thread[0]["answer"] and thread[0]["agent"] == "coder"
    still = reviewer.get("/api/reviews", params={"role": "security_reviewer", "conversation_id": cid}).json()
    assert [(r["id"], r["status"]) for r in still] == [(review["id"], "pending")]


def test_a_failed_question_is_retried_over_http_by_whoever_may_ask(api_app: ApiApp) -> None:
    owner = api_app.client(api_app.token(["product_reviewer"]))
    reviewer = api_app.client(api_app.token(["security_reviewer"]))
    cid = start(owner, "Write a helper to run a shell command")
    review = wait_for_review(reviewer, cid)
    asked = reviewer.post(f"/api/reviews/{review['id']}/questions", json={"question": "Why shell=True?"}).json()
    thread = f"/api/reviews/{review['id']}/questions"
    answered = _question_settles(reviewer, thread)
    assert answered["status"] == "answered" and answered["model"] == "scripted" and answered["error"] is None
    retry = f"{thread}/{asked['id']}/retry"
    assert_refused(reviewer.post(retry), 409, "only a failed question is asked again")
    with api_app.running.engine.begin() as connection:  # the scripted model never fails: a failure as stored
        connection.execute(text("UPDATE review_questions SET status = 'failed', answer = NULL, "
                                "error = 'model endpoint down' WHERE id = :id"), {"id": asked["id"]})
    assert _question_settles(reviewer, thread)["error"] == "model endpoint down"
    assert_refused(owner.post(retry),
                   403, "may not ask questions on a security_reviewer review")  # who may not ask may not retry
    assert reviewer.post(f"{thread}/999999/retry").status_code == 404
    again = reviewer.post(retry)
    assert again.status_code == 200 and again.json()["status"] == "open", again.text
    answered = _question_settles(reviewer, thread)
    assert answered["status"] == "answered" and "shell=True" in answered["answer"]


def _question_settles(client, thread: str, timeout_s: float = 60) -> dict:
    deadline = time.monotonic() + timeout_s
    while (first := client.get(thread).json()[0])["status"] in ("open", "answering"):
        assert time.monotonic() < deadline, first
        time.sleep(0.2)
    return first
