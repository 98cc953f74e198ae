"""The whole team in the browser (issue 30). An admin adds a model client, an MCP server's tool and
an agent that holds it to a team of one agent, makes the new agent the producer, saves (version 2),
and a conversation started on the team has the new agent speak and really call the MCP tool. A
broken YAML shows its error at its line and column, beside that line; a field the schema refuses is
marked at the line where it is written; nothing is saved. Each test creates its own team (a name no
other test uses), so nothing here changes what another test sees."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from playwright.sync_api import Page, expect

from tests.e2e.app_process import RunningApp
from tests.e2e.support import api_token, make_user, open_reviews, sign_in, wait_for

MCP_SERVER = Path(__file__).parents[1] / "support" / "mcp_deploy_server.py"
TASK = "Deploy billing-api 2.4.1 to staging"


def one_agent_team(name: str) -> str:
    return yaml.safe_dump({
        "name": name, "description": "Starts with a planner only.",
        "agents": [{"name": "planner", "description": "Plans", "model": "offline",
                    "system_prompt": "Start with 'TASK TYPE: ops', then a short plan."}],
        "models": {"offline": {"provider": "scripted"}},
        "speaker_order": {"mode": "planner_then_producer", "planner": "planner"},
        "task_types": {"ops": {"producer": "planner", "sign_off": ["final_approver"]}},
        "gates": {"mode": "after_agent"},
    }, sort_keys=False)


@pytest.fixture
def admin_api(app_server: RunningApp) -> Iterator[tuple[str, httpx.Client]]:
    name = make_user(app_server, "admin", prefix="editor-admin")
    headers = {"Authorization": f"Bearer {api_token(app_server, name)}"}
    # The instance admin acts in every workspace: its API calls name the one they mean.
    with httpx.Client(base_url=app_server.base_url, headers=headers, params={"workspace": "default"},
                      timeout=30) as api:
        yield name, api


def own_team(api: httpx.Client) -> str:
    """A team only this test uses, at version 1."""
    name = f"editor-{uuid.uuid4().hex[:8]}"
    response = api.put(f"/api/teams/{name}", json={"yaml": one_agent_team(name)})
    assert response.status_code == 200, response.text
    return name


def choose(page: Page, select_id: str, option: str) -> None:
    page.click(f"#{select_id}")
    page.get_by_role("option", name=option, exact=True).click()


def open_team(page: Page, app: RunningApp, admin: str, team: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, app, admin)
    page.goto(f"{app.base_url}/admin/teams?team={team}")
    expect(page.locator("#team-title")).to_have_text(f"{team} · version 1")


def test_an_admin_adds_an_agent_a_model_client_and_an_mcp_tool(
        app_server: RunningApp, page: Page, admin_api: tuple[str, httpx.Client],
        screenshot_dir: Path) -> None:
    admin, api = admin_api
    team = own_team(api)
    calls = app_server.mcp_calls_log  # the server the operator allows (tests/e2e/conftest.py) logs there
    calls_before = calls.read_text().splitlines() if calls.exists() else []
    open_team(page, app_server, admin, team)

    # A model client: the scripted model, following the operator's script.
    page.click("#add-model")
    page.fill("#model-name-1", "ops_model")
    choose(page, "model-provider-1", "Scripted (offline, no key)")
    choose(page, "model-plays-1", "operator")
    # A tool served by an MCP server (stdio), which waits for approval only for production.
    page.click("#add-tool")
    page.fill("#tool-name-0", "deploy_to_prod")
    choose(page, "tool-kind-0", "MCP server tool")
    # The stdio servers a team saved here may run are offered: picking one fills the command line.
    expect(page.locator("#allowed-mcp-servers")).to_contain_text("test-deploys")
    choose(page, "tool-allowed-server-0", "test-deploys")
    expect(page.locator("#tool-command-0")).to_have_value(sys.executable)
    expect(page.locator("#tool-args-0")).to_have_value(f"{MCP_SERVER} --log {calls}")
    page.fill("#tool-server-tool-0", "deploy")
    choose(page, "tool-approval-0", "when")
    page.fill("#tool-when-argument-0", "environment")
    page.fill("#tool-when-value-0", "production")
    # An agent on that model client, holding that tool, and producing the team's work.
    page.click("#add-agent")
    page.fill("#agent-name-1", "releaser")
    page.fill("#agent-description-1", "Releases services")
    page.fill("#agent-prompt-1", "You release services with deploy_to_prod, then report and say DONE.")
    choose(page, "agent-model-1", "ops_model")
    page.click("#agent-1-tool-deploy_to_prod")
    choose(page, "chain-producer-0", "releaser")
    # The schema's refusal shows at the field it concerns: here the new agent's name. Nothing is saved.
    page.fill("#agent-name-1", "the releaser")
    page.click("#save-team")
    expect(page.locator(".field-error[data-key='agents.1.name']")).to_contain_text("should match pattern")
    expect(page.locator("#team-title")).to_have_text(f"{team} · version 1")
    page.locator(".agent-card").nth(1).screenshot(path=str(screenshot_dir / "team-editor-agent.png"))
    page.fill("#agent-name-1", "releaser")

    page.click("#save-team")
    expect(page.locator("#team-saved")).to_contain_text("Saved as version 2")
    expect(page.locator("#team-title")).to_have_text(f"{team} · version 2")
    saved = api.get(f"/api/teams/{team}")
    assert saved.headers["X-Team-Version"] == "2"
    definition = saved.json()
    assert definition["agents"][1] == {"name": "releaser", "description": "Releases services", "model": "ops_model",
                                       "system_prompt": "You release services with deploy_to_prod, then report and "
                                                        "say DONE.", "tools": ["deploy_to_prod"]}
    model, tool = definition["models"]["ops_model"], definition["tools"]["deploy_to_prod"]
    assert (model["provider"], model["config"]) == ("scripted", {"plays": "operator"})
    assert tool["function"] is None and (tool["approval"], tool["when"]["argument"], tool["when"]["equals"]) == (
        "when", "environment", "production")
    assert {k: tool["mcp"][k] for k in ("transport", "command", "args", "tool")} == {
        "transport": "stdio", "command": sys.executable, "args": [str(MCP_SERVER), "--log", str(calls)],
        "tool": "deploy"}

    # A conversation on the new version: the new agent speaks and the MCP server's tool really runs.
    started = api.post("/api/conversations", json={"task": TASK, "template": team, "task_type": "ops"})
    assert started.status_code == 201, started.text
    cid = started.json()["id"]
    wait_for(lambda: open_reviews(app_server, cid), timeout=60, what="the releaser's turn to be reviewed")
    assert [json.loads(line) for line in calls.read_text().splitlines()[len(calls_before):]] == [
        {"service": "billing-api", "version": "2.4.1", "environment": "staging"}]
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    expect(page.locator("#team-version")).to_have_text(f"team {team} v2")
    expect(page.locator("main")).to_contain_text("MCP deployed billing-api 2.4.1 to staging")
    expect(page.locator("main")).to_contain_text("releaser")


def test_a_broken_yaml_shows_its_error_at_its_line_and_column(
        app_server: RunningApp, page: Page, admin_api: tuple[str, httpx.Client], screenshot_dir: Path) -> None:
    admin, api = admin_api
    team = own_team(api)
    open_team(page, app_server, admin, team)
    page.get_by_role("radio", name="YAML").click()
    lines = page.locator("#team-yaml").input_value().splitlines()
    line = lines.index("    provider: scripted") + 1
    lines[line - 1] = "    provider: scripted: yes"  # a second colon: YAML stops at it, column 23
    page.fill("#team-yaml", "\n".join(lines) + "\n")
    page.click("#team-title")  # leaving the text checks it

    mark, message = page.locator(".yaml-mark"), page.locator(".yaml-mark-message")
    expect(mark).to_have_count(1)
    expect(mark).to_have_attribute("data-line", str(line))
    expect(mark).to_have_attribute("data-column", "23")
    expect(message).to_contain_text(f"line {line}, column 23: the file is not valid YAML: mapping values are not "
                                    "allowed here")
    expect(page.locator("#team-problems")).to_contain_text(
        f"the file is not valid YAML at line {line}, column 23: mapping values are not allowed here")
    # Beside the text, on that line: the mark and its message are as high as the line's text.
    box, band, note = (page.locator(s).bounding_box() for s in ("#team-yaml", ".yaml-mark", ".yaml-mark-message"))
    assert box and band and note
    assert abs(band["y"] - (box["y"] + 8 + (line - 1) * 20)) <= 2
    assert abs(note["y"] - band["y"]) <= 2 and note["x"] >= box["x"] + box["width"] - 2
    page.locator("#team-yaml-box").screenshot(path=str(screenshot_dir / "team-editor-yaml-error.png"))

    # A field the schema refuses: marked where it is written, after Save; nothing is saved.
    lines[line - 1] = "    provider: scripted"
    lines.insert(line, "    colour: blue")
    page.fill("#team-yaml", "\n".join(lines) + "\n")
    page.click("#save-team")
    expect(page.locator("#team-problems")).to_contain_text("models.offline.colour: unknown field")
    expect(mark).to_have_attribute("data-line", str(line + 1))
    expect(message).to_contain_text(f"line {line + 1}, column 5: models.offline.colour: unknown field")
    expect(page.locator("#team-title")).to_have_text(f"{team} · version 1")
    assert api.get(f"/api/teams/{team}").headers["X-Team-Version"] == "1"


def test_a_stdio_command_the_operator_did_not_allow_is_refused_naming_the_allowed_ones(
        app_server: RunningApp, page: Page, admin_api: tuple[str, httpx.Client], screenshot_dir: Path) -> None:
    """Issue 45: a web admin pastes a team whose MCP tool runs /bin/sh with the server's secret."""
    admin, api = admin_api
    team = own_team(api)
    open_team(page, app_server, admin, team)
    data = yaml.safe_load(one_agent_team(team))
    data["agents"][0]["tools"] = ["shell"]
    data["tools"] = {"shell": {"mcp": {"transport": "stdio", "command": "/bin/sh", "args": ["-c", "id"],
                                       "env_from": {"SECRET": "SLACK_SIGNING_SECRET"}}}}
    page.get_by_role("radio", name="YAML").click()
    page.fill("#team-yaml", yaml.safe_dump(data, sort_keys=False))
    page.click("#save-team")

    allowed = " ".join(app_server.mcp_command_line())
    problems = page.locator("#team-problems")
    expect(problems).to_contain_text("tools.shell.mcp.command: the stdio command `/bin/sh -c id` is not one the "
                                     "operator allows a team saved from the web to run")
    expect(problems).to_contain_text(f"the allowed ones (MCP_STDIO_COMMANDS) are test-deploys: `{allowed}`")
    expect(problems).to_contain_text("may not pass the server's variable(s) SLACK_SIGNING_SECRET")
    offered = page.locator("#allowed-mcp-servers .allowed-mcp-server")
    expect(offered).to_have_count(1)
    expect(offered).to_have_attribute("data-server", "test-deploys")
    expect(offered).to_contain_text(allowed)
    expect(page.locator("#team-title")).to_have_text(f"{team} · version 1")
    assert api.get(f"/api/teams/{team}").headers["X-Team-Version"] == "1"
    page.locator("#allowed-mcp-servers").screenshot(path=str(screenshot_dir / "team-editor-allowed-mcp.png"))
