"""The MCP gateway served by the real app (Reflex prod, as `make run` serves it: the gateway's
session manager runs as a Reflex lifespan task): a team saved through the API names the stdio MCP
server the operator allows as its upstream; an MCP agent (the official client) calls a gated tool
over streamable HTTP at /mcp/<team> and waits; a reviewer edits the arguments and approves in
Chromium; the upstream server receives the edited arguments exactly once and the agent its answer."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid

import httpx
import yaml
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from playwright.sync_api import Browser, expect
from sqlmodel import select

from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.models import ReviewRequest, User
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import api_token, make_user, sign_in, wait_for


def _team_yaml(name: str, command: list[str]) -> str:
    return yaml.safe_dump({
        "name": name, "description": "Fronts the deploy server.",
        "agents": [{"name": "operator", "description": "Deploys", "system_prompt": "Deploy.", "model": "offline"}],
        "models": {"offline": {"provider": "scripted"}}, "speaker_order": {"mode": "round_robin"},
        "task_types": {"ops": {"producer": "operator", "sign_off": ["final_approver"]}},
        "gateway": {"servers": {"deploys": {"transport": "stdio", "command": command[0], "args": command[1:],
                                            "approvals": {"deploy": {"approval": "always"}}}}},
    }, sort_keys=False)


def _review_of(app: RunningApp, username: str) -> int | None:
    with UnitOfWork(app.engine) as uow:
        user_id = uow.session.exec(select(User.id).where(User.username == username)).one()
        row = uow.session.exec(select(ExternalRequest).where(ExternalRequest.caller_id == user_id)).first()
        if row is None:
            return None
        return uow.session.exec(select(ReviewRequest.id).where(
            ReviewRequest.conversation_id == row.conversation_id)).first()


def _calls(app: RunningApp, service: str) -> list[dict]:
    if not app.mcp_calls_log.exists():
        return []
    return [call for call in map(json.loads, app.mcp_calls_log.read_text().splitlines()) if call["service"] == service]


def test_an_mcp_agents_gated_call_is_approved_in_chromium_with_edited_arguments_and_runs_once(
        app_server: RunningApp, browser: Browser):
    team = f"gw-{uuid.uuid4().hex[:6]}"
    admin = make_user(app_server, "admin", prefix="gwadmin")
    # The instance admin is in every workspace: once another test of the shared app made one, a new
    # team must name where it goes (the agent and the reviewer are the default workspace's).
    saved = httpx.put(f"{app_server.base_url}/api/teams/{team}", params={"workspace": "default"},
                      json={"yaml": _team_yaml(team, app_server.mcp_command_line())},
                      headers={"Authorization": f"Bearer {api_token(app_server, admin)}"}, timeout=30)
    assert saved.status_code == 200, saved.text
    agent = make_user(app_server, "manager", prefix="claude")
    token = api_token(app_server, agent, name="claude code", scope="approvals")
    reviewer = make_user(app_server, "security_reviewer", prefix="sec")
    service = f"billing-{uuid.uuid4().hex[:6]}"
    edited = {"service": service, "version": "2.4.2", "environment": "staging"}
    answer: list[types.CallToolResult | BaseException] = []

    async def agent_calls() -> types.CallToolResult:
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http, \
                streamable_http_client(f"{app_server.base_url}/mcp/{team}", http_client=http) as (read, write, _), \
                ClientSession(read, write) as session:
            await session.initialize()
            assert [tool.name for tool in (await session.list_tools()).tools] == ["deploy"]
            return await session.call_tool("deploy", {"service": service, "version": "2.4.1"})

    def run() -> None:
        try:
            answer.append(asyncio.run(agent_calls()))
        except BaseException as exc:  # noqa: BLE001 - reported below
            answer.append(exc)

    calling = threading.Thread(target=run, daemon=True)
    calling.start()
    review_id = wait_for(lambda: _review_of(app_server, agent) or (answer and -1), timeout=60,
                         what="the gated call's review")
    assert review_id != -1, answer
    assert not answer and _calls(app_server, service) == []  # it waits; nothing ran

    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    sign_in(page, app_server, reviewer)
    row = page.locator(".queue-row").filter(has_text=agent)
    expect(row).to_have_count(1)
    expect(row.locator(".external-badge")).to_have_text("external")
    row.locator(".queue-title").click()
    page.wait_for_url("**/conversations/*")
    expect(page.locator("#external-request")).to_contain_text("claude code")
    page.locator(f"#tool-args-{review_id}").fill(json.dumps(edited, indent=2))
    expect(page.locator(".args-edited")).to_be_visible()
    page.locator(f"#decide-approve-{review_id}").click()
    calling.join(60)
    assert answer and isinstance(answer[0], types.CallToolResult), answer
    result = answer[0]
    assert not result.isError and result.content[0].text == f"MCP deployed {service} 2.4.2 to staging"
    assert _calls(app_server, service) == [edited]  # the edited arguments, exactly once
    expect(page.locator("#conversation-transcript")).to_contain_text(f"MCP deployed {service} 2.4.2 to staging")
