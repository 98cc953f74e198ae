"""GET /api/teams, /api/teams/{name}, /api/teams/schema over HTTP (issue 10): every signed-in user reads."""

from __future__ import annotations

import json

import pytest

from hitl_dashboard.teams.schema import SCHEMA_PATH
from tests.support.api_app import ApiApp

pytestmark = pytest.mark.e2e


def test_any_signed_in_user_reads_the_teams(api_app: ApiApp) -> None:
    for role in ("product_reviewer", "manager"):
        client = api_app.client(api_app.token([role]))
        listed = client.get("/api/teams")
        assert listed.status_code == 200, listed.text
        teams = {t["name"]: t for t in listed.json()}
        assert list(teams) == ["code", "copy", "ops", "auto"]
        assert teams["ops"]["tools"] == {"deploy_to_prod": "always"} and teams["ops"]["source"] == "built-in"
        assert teams["auto"]["task_types"] == ["code", "copy", "ops"]

    code = client.get("/api/teams/code").json()
    assert [a["name"] for a in code["agents"]] == ["planner", "coder"]
    assert code["agents"][1]["system_prompt"].startswith("You are the coder.")
    assert code["task_types"] == {"code": {"producer": "coder", "sign_off": ["security_reviewer", "final_approver"]}}
    assert code["speaker_order"] == {"mode": "planner_then_producer", "planner": "planner"}
    assert client.get("/api/teams/schema").json() == json.loads(SCHEMA_PATH.read_text())

    missing = client.get("/api/teams/nope")
    assert missing.status_code == 404 and missing.json()["detail"] == "no team named 'nope'"
    assert client.get("/api/teams/Not%20A%20Name").status_code == 422


def test_teams_need_a_signed_in_user(api_app: ApiApp) -> None:
    anonymous = api_app.client()
    for path in ("/api/teams", "/api/teams/code", "/api/teams/schema"):
        assert anonymous.get(path).status_code == 401
