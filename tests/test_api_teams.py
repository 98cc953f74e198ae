"""GET /api/teams, /api/teams/{name}, /api/teams/schema over HTTP (issue 10): every signed-in user reads."""

from __future__ import annotations

import json

import pytest
import yaml

from hitl_dashboard.teams.schema import SCHEMA_PATH
from tests.support.api_app import ApiApp
from tests.support.api_helpers import assert_refused, team_restored
from tests.support.invalid_rules import BAD_TEAMS, bad_team_file, named

pytestmark = pytest.mark.e2e


def test_any_signed_in_user_reads_the_teams(api_app: ApiApp) -> None:
    for role in ("product_reviewer", "manager"):
        client = api_app.client(api_app.token([role]))
        listed = client.get("/api/teams")
        assert listed.status_code == 200, listed.text
        teams = {t["name"]: t for t in listed.json()}
        # The app is shared by the session's API tests, some of which save teams of their own.
        assert [name for name in teams if name in ("code", "copy", "ops", "auto")] == ["code", "copy", "ops", "auto"]
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


@pytest.fixture
def admin(api_app: ApiApp):
    """An admin of the shared app; the code team is put back as it was after the test."""
    client = api_app.client(api_app.token(["admin"], name="team-admin"))
    with team_restored(client, "code"):
        yield client


def test_an_admin_saves_a_version_over_http_and_bad_files_name_their_field(api_app: ApiApp, admin) -> None:
    reviewer = api_app.client(api_app.token(["security_reviewer"]))
    data = reviewer.get("/api/teams/code").json()
    before = [v["number"] for v in reviewer.get("/api/teams/code/versions").json()]

    data["sla_hours"] = {"security_reviewer": 3}
    text = yaml.safe_dump(data, sort_keys=False)
    assert_refused(reviewer.put("/api/teams/code", json={"yaml": text}), 403,
                   "only an admin of the workspace may save a team")
    saved = admin.put("/api/teams/code", json={"yaml": text})
    assert saved.status_code == 200, saved.text
    version = saved.json()["version"]
    assert saved.json()["created"] and version["number"] == before[0] + 1
    assert version["created_by"].startswith("team-admin")
    assert admin.put("/api/teams/code", json={"yaml": text}).json()["created"] is False  # unchanged: no version
    listed = {t["name"]: t for t in reviewer.get("/api/teams").json()}
    assert (listed["code"]["version"], listed["code"]["source"]) == (version["number"], "api")
    assert reviewer.get("/api/teams/code").json()["sla_hours"] == {"security_reviewer": 3.0}

    data["sla_hours"] = {"security_reviewer": -1}
    bad = admin.put("/api/teams/code", json={"yaml": yaml.safe_dump(data)})
    assert bad.status_code == 422
    [problem] = bad.json()["detail"]
    assert problem["loc"] == ["body", "sla_hours.security_reviewer"] and "greater than 0" in problem["msg"]
    renamed = admin.put("/api/teams/copy", json={"yaml": text})
    assert renamed.status_code == 422 and renamed.json()["detail"][0]["msg"] == "the file is team 'code', not 'copy'"
    broken = admin.put("/api/teams/code", json={"yaml": "name: code\nagents: [planner,\n  description: x\n"})
    assert broken.status_code == 422 and "is not valid YAML at line 4, column 1: expected ',' or ']'" in (
        broken.json()["detail"][0]["msg"])  # where it breaks, as the editor in the browser marks it
    assert [v["number"] for v in reviewer.get("/api/teams/code/versions").json()][0] == version["number"]


def test_put_refuses_each_bad_rule_naming_it(api_app: ApiApp) -> None:
    admin = api_app.client(api_app.token(["admin"], name="rules-admin"))
    got = admin.get("/api/teams/ops")
    newest = admin.get("/api/teams/ops/versions").json()[0]["number"]
    assert got.headers["X-Team-Version"] == str(newest)  # the body stays a team file PUT takes back
    base = yaml.safe_dump(got.json(), sort_keys=False)
    for bad in BAD_TEAMS:
        refused = admin.put("/api/teams/ops", json={"yaml": bad_team_file(base, bad)})
        assert refused.status_code == 422, (bad.kind, refused.text)
        assert named(bad, refused.json()["detail"][0]["msg"]), (bad.kind, refused.text)
    assert admin.get("/api/teams/ops/versions").json()[0]["number"] == newest


def test_a_conversation_names_the_team_version_it_runs_on(api_app: ApiApp) -> None:
    client = api_app.client(api_app.token(["product_reviewer"]))
    newest = client.get("/api/teams/ops/versions").json()[0]["number"]
    started = client.post("/api/conversations", json={"task": "Deploy billing-api v2.4.1 to staging",
                                                      "task_type": "ops", "template": "ops"})
    assert started.status_code == 201, started.text
    assert started.json()["team_version"] == newest
    assert client.get(f"/api/conversations/{started.json()['id']}").json()["team_version"] == newest
