"""A web admin does not own the server (issue 45): a team saved through PUT /api/teams/{name} may
run only the stdio MCP command lines the operator lists (MCP_STDIO_COMMANDS, compared whole) and
pass on only the variables it lists (MCP_ALLOWED_ENV); a workspace admin is held to the same. The
CLI import, run by the operator, may name any. A web-saved version the rule now refuses fails its
conversation before its command starts."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

from hitl_dashboard.services.auth.tokens import create_token
from hitl_dashboard.services.auth.users import create_user
from hitl_dashboard.services.teams import versions
from hitl_dashboard.services.workspaces import workspaces
from tests.conftest import run_cli
from tests.support import flow
from tests.support.in_process_api import in_process_api
from tests.support.ops_team import ops_team_yaml, stdio_deploy_tool

SERVER = str(Path(__file__).parent / "support" / "mcp_deploy_server.py")
ALLOWED = {"MCP_STDIO_COMMANDS": json.dumps({"deploys": [sys.executable, SERVER]}),
           "MCP_ALLOWED_ENV": "MCP_DEPLOY_LOG"}


def team_text(name: str, command: list[str], env_from: dict[str, str] | None = None) -> str:
    return ops_team_yaml(name, stdio_deploy_tool(command, env_from), description="Deploys through an MCP server.",
                         gated=False)


def _token(roles: list[str], workspace_id: int | None = None) -> dict[str, str]:
    user = create_user(username=f"u-{uuid.uuid4().hex[:8]}", password="pw-secret", roles=roles,
                       workspace_id=workspace_id)
    return {"Authorization": f"Bearer {create_token(user_id=user.id, name='t')[1]}"}


def _refusal(response) -> str:
    assert response.status_code == 422, response.text
    [problem] = response.json()["detail"]
    assert problem["loc"][1].startswith("tools.deploy_to_prod.mcp."), problem
    return problem["msg"]


def test_the_api_saves_only_the_command_lines_and_variables_the_operator_allows(sqlite_url, monkeypatch) -> None:
    alpha = workspaces.create_workspace(None, slug="alpha", name="Alpha")
    admins = {"instance": _token(["admin"]), "workspace": _token(["workspace_admin"], alpha.id)}
    with in_process_api(monkeypatch, ALLOWED) as api:
        for who, headers in admins.items():
            def put(name: str, text: str, headers=headers):
                return api.put(f"/api/teams/{name}?workspace=alpha", json={"yaml": text}, headers=headers)

            shell = _refusal(put("shell", team_text("shell", ["/bin/sh", "-c", "id > /tmp/owned"])))
            assert "`/bin/sh -c 'id > /tmp/owned'` is not one the operator allows" in shell, who
            assert f"the allowed ones (MCP_STDIO_COMMANDS) are deploys: `{sys.executable} {SERVER}`" in shell
            # The whole command line: allowing `python server.py` does not allow python with other arguments.
            other = _refusal(put("other", team_text("other", [sys.executable, "-c", "import os; os.system('id')"])))
            assert "is not one the operator allows" in other
            longer = _refusal(put("longer", team_text("longer", [sys.executable, SERVER, "--log", "/tmp/x"])))
            assert "is not one the operator allows" in longer
            secret = _refusal(put("secret", team_text("secret", [sys.executable, SERVER],
                                                      {"TOKEN": "SLACK_SIGNING_SECRET"})))
            assert "may not pass the server's variable(s) SLACK_SIGNING_SECRET" in secret
            assert "the allowed ones (MCP_ALLOWED_ENV) are MCP_DEPLOY_LOG" in secret
            for name in ("shell", "other", "longer", "secret"):  # nothing of them was saved
                assert api.get(f"/api/teams/{name}?workspace=alpha", headers=headers).status_code == 404

            saved = put(f"deploys-{who}", team_text(f"deploys-{who}", [sys.executable, SERVER],
                                                    {"MCP_DEPLOY_LOG": "MCP_DEPLOY_LOG"}))
            assert saved.status_code == 200, saved.text
            assert saved.json()["version"]["origin"] == "api"


def test_with_nothing_configured_the_web_may_run_no_stdio_command(sqlite_url, monkeypatch) -> None:
    with in_process_api(monkeypatch) as api:
        refused = _refusal(api.put("/api/teams/shell", json={"yaml": team_text("shell", [sys.executable, SERVER])},
                                   headers=_token(["admin"])))
    assert "none is allowed: the operator lists them in MCP_STDIO_COMMANDS" in refused


def test_the_operators_cli_import_may_run_any_command(sqlite_url, tmp_path: Path) -> None:
    flow.make_people()
    path = tmp_path / "shell.yaml"
    path.write_text(team_text("shell", ["/bin/sh", "-c", "echo operator"], {"HOME_THERE": "HOME"}))
    result = run_cli("teams", "import", str(path), "--as", "erin")
    assert "team 'shell' version 1 saved" in result.stdout
    assert versions.versions(None, "shell")[0].origin == "import"


def test_a_web_saved_version_the_rule_refuses_fails_before_its_command_runs(sqlite_url, tmp_path: Path) -> None:
    """As a version saved before the rule, or naming a server the operator has since removed."""
    flow.make_people()
    marker = tmp_path / "ran"
    versions.save_team(flow.actor("erin"), team_text("shell", ["/bin/sh", "-c", f"touch {marker}"]), origin="api")
    cid = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops", template="shell")
    flow.work()
    failed = flow.conversation(cid)
    assert failed.status == "failed", failed.status_reason
    assert "the team was saved from the web and names what the operator does not allow" in failed.status_reason
    assert f"/bin/sh -c 'touch {marker}'" in failed.status_reason and not marker.exists()


def test_the_gateways_upstream_servers_are_held_to_the_same_list(sqlite_url, monkeypatch) -> None:
    """The MCP gateway's section (issue 43) names stdio servers too: a web-saved one runs only what is listed."""
    from tests.support.mcp_gateway_setup import gateway_team

    def gateway(command: list[str]) -> str:
        return gateway_team("gw", {"deploys": {"transport": "stdio", "command": command[0], "args": command[1:]}})

    with in_process_api(monkeypatch, ALLOWED) as api:
        headers = _token(["admin"])
        refused = api.put("/api/teams/gw", json={"yaml": gateway(["/bin/sh", "-c", "id"])}, headers=headers)
        assert refused.status_code == 422, refused.text
        [problem] = refused.json()["detail"]
        assert problem["loc"][1] == "gateway.servers.deploys.command"
        assert "is not one the operator allows" in problem["msg"]
        saved = api.put("/api/teams/gw", json={"yaml": gateway([sys.executable, SERVER])}, headers=headers)
        assert saved.status_code == 200, saved.text
