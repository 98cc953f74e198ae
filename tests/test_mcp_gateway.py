"""The MCP gateway (issue 43) over real HTTP on 127.0.0.1, with the official MCP client, in front of
an upstream server of the tests' own (stdio and streamable HTTP) that records what it ran: an
ungated call answers at once and is recorded; a gated one waits (with progress notifications), is
approved with edited arguments and runs upstream once with them; a denial and a revise come back as
tool errors; a cancellation withdraws the review; tokens; another workspace's reviewer."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from mcp import types
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent, Conversation, ReviewRequest
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.domain.errors import NotFound
from hitl_dashboard.services.auth.users import find_actor
from hitl_dashboard.services.external.forwarding import start_forwarding
from hitl_dashboard.services.mcp_gateway.asking import ask
from hitl_dashboard.services.mcp_gateway.catalog import gateway_team
from hitl_dashboard.services.mcp_gateway.records import call_log
from hitl_dashboard.services.reviews.decide import decide
from hitl_dashboard.services.workspaces import workspaces
from tests.support.external_api import person
from tests.support.mcp_gateway_setup import (
    caller,
    gated_world,
    mcp_client,
    requests_of,
    review_of,
    save_gateway_team,
    serving_gateway,
    stdio_upstream,
)
from tests.support.mcp_upstream import ran

EDITED = {"service": "billing", "version": "2.4.2", "replicas": 1}


@pytest.fixture
def gateway(sqlite_url: str):
    with serving_gateway() as base_url:
        yield base_url


@pytest.fixture
def gateway_any_db(db_url: str):
    """The gateway on SQLite and PostgreSQL: for the tests whose subject includes the database (the
    request id's lookup, the locks of forwarding and withdrawing)."""
    with serving_gateway() as base_url:
        yield base_url


def _decide(reviewer: str, review_id: int, action: Action, **kw) -> None:
    decide(find_actor(reviewer), review_id, DecisionInput(action, **kw))


def test_an_ungated_call_answers_at_once_and_is_recorded(gateway: str, tmp_path: Path):
    log = tmp_path / "ran.jsonl"
    team = save_gateway_team({"deploys": stdio_upstream(log)})
    agent, token = caller()

    async def scenario():
        async with mcp_client(f"{gateway}/mcp/{team}", token) as session:
            listed = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(listed) == {"deploy", "status"}
            assert listed["deploy"].inputSchema["required"] == ["service", "version"]
            return await session.call_tool("status", {"service": "billing"})

    result = asyncio.run(scenario())
    assert not result.isError and result.content[0].text == "billing: green"
    assert ran(log) == [{"tool": "status", "service": "billing"}]
    assert requests_of(agent) == []  # no review
    call_log.write()  # what the gateway's background writer does every half second
    with UnitOfWork() as uow:
        [event] = uow.session.exec(select(AuditEvent).where(AuditEvent.action == "mcp.forwarded",
                                                            AuditEvent.actor == agent)).all()
    assert event.details["tool"] == "status" and event.details["arguments"] == {"service": "billing"}


def test_a_gated_call_waits_and_runs_once_with_the_reviewers_edited_arguments(gateway_any_db: str, tmp_path: Path):
    log = tmp_path / "ran.jsonl"
    with gated_world(log) as world:

        async def scenario():
            async with mcp_client(f"{gateway_any_db}/mcp/{world.team}", world.token) as session:
                call = asyncio.create_task(session.call_tool(
                    "deploy", {"service": "billing", "version": "2.4.1", "replicas": 2},
                    progress_callback=world.on_progress))
                review_id = await review_of(world.agent)
                assert not call.done() and ran(log) == []
                await asyncio.to_thread(_decide, world.reviewer, review_id, Action.APPROVE, edited_args=EDITED)
                return await asyncio.wait_for(call, 30)

        result = asyncio.run(scenario())
    assert not result.isError, result
    assert result.content[0].text == "deployed billing 2.4.2 x1"
    assert ran(log) == [{"tool": "deploy", **EDITED}]  # the edited arguments, once
    assert world.progress and "waiting for a reviewer" in (world.progress[0] or "")
    [row] = requests_of(world.agent)
    assert (row.result_status, row.result) == ("ok", "deployed billing 2.4.2 x1")  # in the transcript


def test_a_denial_and_a_revise_are_tool_errors_carrying_the_reason(gateway: str, tmp_path: Path):
    log = tmp_path / "ran.jsonl"
    team = save_gateway_team({"deploys": stdio_upstream(log)})
    agent, token = caller()
    reviewer, _ = person(["security_reviewer"])

    async def answer(action: Action, version: str, **kw) -> types.CallToolResult:
        async with mcp_client(f"{gateway}/mcp/{team}", token) as session:
            asked_before = max((row.id for row in await asyncio.to_thread(requests_of, agent)), default=0)
            call = asyncio.create_task(session.call_tool("deploy", {"service": "billing", "version": version}))
            review_id = await review_of(agent, newer_than=asked_before)
            await asyncio.to_thread(_decide, reviewer, review_id, action, **kw)
            return await asyncio.wait_for(call, 30)

    denied = asyncio.run(answer(Action.REVISE, "9.9.9", reason="change freeze until Monday"))
    assert denied.isError and "change freeze until Monday" in denied.content[0].text
    revise = asyncio.run(answer(Action.REVISE, "3.0.0", instructions="deploy 3.0.1 instead"))
    assert revise.isError and "deploy 3.0.1 instead" in revise.content[0].text
    assert ran(log) == []


def test_a_cancelled_call_withdraws_its_review(gateway_any_db: str, tmp_path: Path):
    team = save_gateway_team({"deploys": stdio_upstream(tmp_path / "ran.jsonl")})
    agent, token = caller()

    async def scenario():
        async with mcp_client(f"{gateway_any_db}/mcp/{team}", token) as session:
            call = asyncio.create_task(session.call_tool("deploy", {"service": "search", "version": "1.0.0"}))
            await review_of(agent)
            assert not call.done()
            request_id = session._request_id - 1  # noqa: SLF001 - the id the client gave the call
            await session.send_notification(types.ClientNotification(types.CancelledNotification(
                params=types.CancelledNotificationParams(requestId=request_id, reason="user pressed Esc"))))
            for _ in range(2000):
                [row] = await asyncio.to_thread(requests_of, agent)
                with UnitOfWork() as uow:
                    status = uow.session.get(Conversation, row.conversation_id).status
                if status == "aborted":
                    return row
                await asyncio.sleep(0.01)
            raise AssertionError("the review was not withdrawn")

    row = asyncio.run(scenario())
    with UnitOfWork() as uow:
        review = uow.session.exec(select(ReviewRequest).where(
            ReviewRequest.conversation_id == row.conversation_id)).one()
        actions = uow.session.exec(select(AuditEvent.action).where(
            AuditEvent.conversation_id == row.conversation_id)).all()
    assert review.status == "dismissed"
    assert "external.withdrawn" in actions


def test_tokens_missing_wrong_and_full_scope_are_refused(gateway: str, tmp_path: Path):
    team = save_gateway_team({"deploys": stdio_upstream(tmp_path / "ran.jsonl")})
    _, full = person(["manager"])
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream"}
    url = f"{gateway}/mcp/{team}"
    missing = httpx.post(url, json=body, headers=headers)
    assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
    wrong = httpx.post(url, json=body, headers={**headers, "Authorization": "Bearer hitl_nope"})
    assert wrong.status_code == 401
    refused = httpx.post(url, json=body, headers={**headers, "Authorization": f"Bearer {full}"})
    assert refused.status_code == 403 and "--scope approvals" in refused.json()["detail"]
    _, token = caller()
    ok = httpx.post(url, json=body, headers={**headers, "Authorization": f"Bearer {token}"})
    assert ok.status_code == 200, ok.text


def test_a_member_of_another_workspace_cannot_decide_the_review(gateway: str, tmp_path: Path):
    team = save_gateway_team({"deploys": stdio_upstream(tmp_path / "ran.jsonl")})
    agent, token = caller()
    stranger, _ = person(["security_reviewer"])
    workspaces.create_workspace(None, slug="elsewhere", name="Elsewhere")
    workspaces.set_member(None, "elsewhere", username=stranger, roles=["security_reviewer"])
    workspaces.remove_member(None, "default", username=stranger)

    async def scenario():
        async with mcp_client(f"{gateway}/mcp/{team}", token) as session:
            call = asyncio.create_task(session.call_tool("deploy", {"service": "billing", "version": "1.2.3"}))
            review_id = await review_of(agent)
            with pytest.raises(NotFound):
                await asyncio.to_thread(_decide, stranger, review_id, Action.APPROVE)
            assert not call.done()
            call.cancel()

    asyncio.run(scenario())


def test_a_call_whose_forwarding_started_before_a_crash_is_not_run_again(gateway_any_db: str, tmp_path: Path):
    """A gateway killed after it recorded "forwarding started" and before the result: the repeat is told
    the outcome is unknown, and upstream does not run a second time (at most once)."""
    log = tmp_path / "ran.jsonl"
    team = save_gateway_team({"deploys": stdio_upstream(log)})
    agent, token = caller()
    reviewer, _ = person(["security_reviewer"])
    arguments = {"service": "billing", "version": "2.4.1"}
    actor = find_actor(agent)
    asked = ask(actor, gateway_team(actor, team), "deploys", "deploy", arguments, None, "crashed client")
    _decide(reviewer, asked.review_id, Action.APPROVE)
    assert start_forwarding(actor, asked.id, by="the gateway that was killed").run

    async def repeat() -> types.CallToolResult:
        async with mcp_client(f"{gateway_any_db}/mcp/{team}", token) as session:
            return await session.call_tool("deploy", arguments)

    result = asyncio.run(repeat())
    assert result.isError and "not run again" in result.content[0].text
    assert ran(log) == [] and len(requests_of(agent)) == 1
    [row] = requests_of(agent)
    assert row.result_status == "error" and "not run again" in row.result  # in the transcript, as failed
    again = asyncio.run(repeat())  # and a further repeat is told the same, from the record
    assert again.isError and again.content[0].text == row.result and ran(log) == []
