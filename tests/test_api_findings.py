"""GET /api/conversations/{id}/revisions/{rid}/findings over HTTP (issue 14)."""

from __future__ import annotations

import time

import pytest

from tests.support.api_app import ApiApp
from tests.support.api_helpers import start, wait_for_review

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
