"""/api/rules over HTTP, in process (the real FastAPI app over ASGI), on SQLite and PostgreSQL: bad
input is a 422 naming the field, rights are checked (four eyes: 403 for the owner), another
workspace's rule is 404, and an active rule answers an external approval request at once, as the rule."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from hitl_dashboard.services.workspaces import workspaces
from tests.support.external_api import bearer, person
from tests.support.in_process_api import in_process_api


@pytest.fixture
def api(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    with in_process_api(monkeypatch, {"API_RATE_LIMIT": "100000/minute"}) as client:
        yield client


RULE = {"team": "ops", "tool": "deploy_to_prod", "when": [{"argument": "environment", "equals": "staging"}]}


def test_rules_over_http(api: TestClient) -> None:
    _, owner = person(["security_reviewer"])
    _, admin = person(["workspace_admin"])
    _, product = person(["product_reviewer"])

    bad = api.post("/api/rules", json={**RULE, "when": [{"argument": "env", "equals": "staging"}]},
                   headers=bearer(owner))
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["body", "when.0.argument"], bad.text
    bad = api.post("/api/rules", json={**RULE, "when": [{"argument": "environment", "equal": "staging"}]},
                   headers=bearer(owner))
    assert bad.status_code == 422 and "unknown operator 'equal'" in bad.text
    bad = api.post("/api/rules", json={**RULE, "daily_cap": 0}, headers=bearer(owner))
    assert bad.status_code == 422 and "daily_cap" in bad.text
    assert api.post("/api/rules", json=RULE, headers=bearer(product)).status_code == 403

    made = api.post("/api/rules", json={**RULE, "daily_cap": 5}, headers=bearer(owner))
    assert made.status_code == 201, made.text
    rule = made.json()
    assert (rule["state"], rule["when"], rule["daily_cap"]) == ("shadow", "environment == 'staging'", 5)
    assert api.post(f"/api/rules/{rule['id']}/promote", json={}, headers=bearer(owner)).status_code == 403
    assert api.post(f"/api/rules/{rule['id']}/promote", json={}, headers=bearer(admin)).status_code == 422
    promoted = api.post(f"/api/rules/{rule['id']}/promote", json={"override_reason": "staging only"},
                        headers=bearer(admin))
    assert promoted.status_code == 200 and promoted.json()["state"] == "active", promoted.text

    _, caller = person(["manager"], scope="approvals", name="ci")
    asked = api.post("/api/external/approvals", headers=bearer(caller), json={
        "request_id": "stage-1", "team": "ops", "title": "Deploy to staging",
        "tool_call": {"name": "deploy_to_prod",
                      "arguments": {"service": "billing", "version": "2.4.1", "environment": "staging"}}})
    assert asked.status_code == 201, asked.text
    answer = asked.json()
    assert (answer["status"], answer["decided_by"]) == ("approved", f"rule:{rule['id']}"), answer

    shown = api.get(f"/api/rules/{rule['id']}", headers=bearer(owner)).json()
    assert shown["decided"] == 1 and shown["evidence"][0]["mode"] == "active"
    assert [r["id"] for r in api.get("/api/rules", headers=bearer(owner)).json()] == [rule["id"]]
    assert api.get("/api/rules/candidates", headers=bearer(owner)).status_code == 200

    workspaces.create_workspace(None, slug="payments", name="Payments")
    _, stranger = person(["security_reviewer"])
    workspaces.set_member(None, "payments", username=_, roles=["workspace_admin"])
    workspaces.remove_member(None, "default", username=_)
    for path in (f"/api/rules/{rule['id']}",):
        assert api.get(path, headers=bearer(stranger)).status_code == 404
    assert api.post(f"/api/rules/{rule['id']}/revoke", json={}, headers=bearer(stranger)).status_code == 404
    assert api.get("/api/rules/0", headers=bearer(owner)).status_code == 422

    paused = api.post(f"/api/rules/{rule['id']}/pause", json={"reason": "release week"}, headers=bearer(owner))
    assert paused.status_code == 200 and paused.json()["state"] == "paused"


def test_a_rule_on_a_sign_off_gate_over_http(api: TestClient) -> None:
    from pathlib import Path

    from hitl_dashboard.services.auth.users import find_actor
    from hitl_dashboard.services.teams import team_queries

    admin_name, _ = person(["workspace_admin"])
    _, security = person(["security_reviewer"])
    gate = {"team": "code", "task_type": "code", "role": "security_reviewer",
            "when": [{"argument": "file", "equals": "app/rate_limiter.py"}]}
    refused = api.post("/api/rules", json=gate, headers=bearer(security))
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["body", "role"], refused.text
    assert "rules_may_sign_off" in refused.text
    code = (Path(__file__).resolve().parents[1] / "hitl_dashboard" / "teams" / "code.yaml").read_text()
    team_queries.save_team(find_actor(admin_name), code.replace(
        "sign_off: [security_reviewer, final_approver]",
        "sign_off: [security_reviewer, final_approver]\n    rules_may_sign_off: [security_reviewer]"), origin="import")
    bad = api.post("/api/rules", json={**gate, "when": [{"argument": "files", "equals": "a.py"}]},
                   headers=bearer(security))
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["body", "when.0.argument"], bad.text
    made = api.post("/api/rules", json=gate, headers=bearer(security))
    assert made.status_code == 201, made.text
    assert {k: made.json()[k] for k in ("tool", "task_type", "role", "state")} == {
        "tool": "", "task_type": "code", "role": "security_reviewer", "state": "shadow"}
