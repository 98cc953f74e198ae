"""The audit trail over HTTP: filtered pages, streamed exports, the chain check; managers only."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta

import pytest

from hitl_dashboard.domain.audit_chain import verify_export
from tests.support.api_app import ApiApp
from tests.support.api_helpers import start

pytestmark = pytest.mark.e2e


def test_audit_filters_and_pages(api_app: ApiApp) -> None:
    username, token = api_app.user(["security_reviewer"], "auditee")
    cid = start(api_app.client(token))
    manager = api_app.client(api_app.token(["manager"]))

    mine = manager.get("/api/audit", params={"user": username}).json()
    # A manager reads the workspace's events; the token is the instance's, for the instance admin.
    assert [e["action"] for e in mine["items"]] == ["conversation.started"]
    admin = api_app.client(api_app.token(["admin"]))
    theirs = admin.get("/api/audit", params={"user": username}).json()
    assert [e["action"] for e in theirs["items"]] == ["conversation.started", "token.created"]  # newest first
    assert mine["items"][0]["conversation_id"] == cid
    by_conversation = manager.get("/api/audit", params={"conversation_id": cid, "action": "conversation.started"})
    assert [e["actor"] for e in by_conversation.json()["items"]] == [username]
    assert manager.get("/api/audit", params={"role": "final_approver", "user": username}).json()["items"] == []

    now = datetime.now(UTC)
    window = {"since": (now - timedelta(minutes=5)).isoformat(), "until": (now + timedelta(minutes=5)).isoformat()}
    assert manager.get("/api/audit", params={**window, "user": username}).json()["items"]
    assert not manager.get("/api/audit", params={"until": "2000-01-01T00:00:00", "user": username}).json()["items"]

    page1 = admin.get("/api/audit", params={"limit": 2}).json()
    assert len(page1["items"]) == 2 and page1["items"][0]["seq"] > page1["items"][1]["seq"]
    page2 = admin.get("/api/audit", params={"limit": 2, "before_seq": page1["next_before_seq"]}).json()
    assert page2["items"][0]["seq"] < page1["items"][1]["seq"]


def test_audit_export_streams_csv_and_jsonl(api_app: ApiApp) -> None:
    start(api_app.client(api_app.token(["security_reviewer"], "exporter")))  # an event of the workspace
    manager = api_app.client(api_app.token(["manager"]))
    with manager.stream("GET", "/api/audit/export", params={"format": "jsonl"}) as response:
        assert response.status_code == 200
        assert "transfer-encoding" in response.headers  # streamed, no Content-Length computed up front
        lines = [line for line in response.iter_lines() if line]
    events = [json.loads(line) for line in lines]
    # Every event has its place; the instance's own (users, tokens) are links only for a manager,
    # and the export verifies as a whole (domain/audit_chain.verify_export).
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    links = [e for e in events if e.get("redacted")]
    assert links and all(set(e) == {"seq", "prev_hash", "hash", "redacted"} for e in links)
    assert any(not e.get("redacted") for e in events)
    assert verify_export(lines).ok
    tampered = [line.replace('"actor": "', '"actor": "x', 1) if '"redacted"' not in line else line for line in lines]
    report = verify_export(tampered)
    assert not report.ok and "altered" in (report.problem or "")
    exported = manager.get("/api/audit/export", params={"format": "csv"})
    assert exported.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    # The CSV holds the workspace's events only: those the JSONL export had in full, and any the app
    # wrote since (the runner goes on with conversations meanwhile).
    last = events[-1]["seq"]
    assert sorted(int(r["seq"]) for r in rows if int(r["seq"]) <= last) == [
        e["seq"] for e in events if not e.get("redacted")]
    assert manager.get("/api/audit/export", params={"format": "xml"}).status_code == 422


def test_audit_verify(api_app: ApiApp) -> None:
    admin = api_app.client(api_app.token(["admin"]))
    report = admin.get("/api/audit/verify")
    assert report.status_code == 200
    assert report.json()["ok"] is True and report.json()["verified_up_to"] > 0
    full = admin.get("/api/audit/verify", params={"full": "true"}).json()
    assert full["ok"] is True and full["full"] is True and full["checked"] == full["verified_up_to"]


def test_reviewers_may_not_read_the_audit_trail(api_app: ApiApp) -> None:
    reviewer = api_app.client(api_app.token(["security_reviewer", "final_approver"]))
    for path in ("/api/audit", "/api/audit/export", "/api/audit/verify"):
        response = reviewer.get(path)
        assert response.status_code == 403, path
        assert "audit" in response.json()["detail"]
