"""The MCP gateway over stdio (`python -m hitl_dashboard mcp serve`, a real process: the process is
what is tested), with the official MCP client: a gated call approved through the services runs
upstream once with the edited arguments; startup refuses a missing, wrong or full-scope token with a
clear message; and killed while a call waits, then asked again after a restart, it gives one review
and one upstream run (and a third repeat gets the recorded result, not a second run)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.services.auth.users import find_actor
from hitl_dashboard.services.reviews.decide import decide
from tests.e2e.app_process import ROOT
from tests.support.external_api import person
from tests.support.mcp_gateway_setup import caller, requests_of, review_of, save_gateway_team, stdio_upstream
from tests.support.mcp_upstream import ran

EDITED = {"service": "billing", "version": "2.4.2", "replicas": 1}


def _command(team: str) -> list[str]:
    return [sys.executable, "-m", "hitl_dashboard", "mcp", "serve", "--team", team]


@contextlib.asynccontextmanager
async def _gateway(team: str, token: str) -> AsyncIterator[ClientSession]:
    command = _command(team)
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT),
                                   env={**os.environ, "HITL_TOKEN": token, "PYTHONPATH": str(ROOT)})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def _gateway_pid(team: str) -> int:
    """This test's gateway process: a child of this process serving `team`."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                words = (entry / "cmdline").read_bytes().split(b"\0")
                if team.encode() in words and b"serve" in words and (entry / "stat").read_text().split(")")[
                        1].split()[1] == str(os.getpid()):
                    return int(entry.name)
    raise AssertionError("the gateway process is not running")


def _approve(reviewer: str, review_id: int) -> None:
    decide(find_actor(reviewer), review_id, DecisionInput(Action.APPROVE, edited_args=EDITED))


def test_a_gated_call_over_stdio_runs_once_with_the_edited_arguments(sqlite_url: str, tmp_path: Path):
    log = tmp_path / "ran.jsonl"
    team = save_gateway_team({"deploys": stdio_upstream(log)})
    agent, token = caller()
    reviewer, _ = person(["security_reviewer"])

    async def scenario():
        async with _gateway(team, token) as session:
            assert {tool.name for tool in (await session.list_tools()).tools} == {"deploy", "status"}
            status = await session.call_tool("status", {"service": "search"})
            call = asyncio.create_task(session.call_tool("deploy", {"service": "billing", "version": "2.4.1"}))
            await asyncio.to_thread(_approve, reviewer, await review_of(agent))
            return status, await asyncio.wait_for(call, 30)

    status, deployed = asyncio.run(scenario())
    assert status.content[0].text == "search: green"
    assert not deployed.isError and deployed.content[0].text == "deployed billing 2.4.2 x1"
    assert ran(log) == [{"tool": "status", "service": "search"}, {"tool": "deploy", **EDITED}]


@pytest.mark.parametrize("token_kind, code, says", [
    ("missing", 2, "HITL_TOKEN is not set"),
    ("wrong", 4, "HITL_TOKEN is refused: unknown, revoked or expired token"),
    ("full", 4, "HITL_TOKEN is refused: this is a full-scope token"),
])
def test_startup_refuses_a_missing_wrong_or_full_scope_token(sqlite_url: str, tmp_path: Path, token_kind: str,
                                                             code: int, says: str):
    team = save_gateway_team({"deploys": stdio_upstream(tmp_path / "ran.jsonl")})
    token = {"missing": "", "wrong": "hitl_wrong", "full": person(["manager"])[1]}[token_kind]
    done = subprocess.run(_command(team), cwd=ROOT, env={**os.environ, "HITL_TOKEN": token, "PYTHONPATH": str(ROOT)},
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert done.returncode == code, done.stderr
    assert says in done.stderr
    assert done.stdout == ""  # stdout is the protocol's


def test_killed_while_a_call_waits_then_repeated_after_a_restart_gives_one_review_and_one_run(
        sqlite_url: str, tmp_path: Path):
    log = tmp_path / "ran.jsonl"
    team = save_gateway_team({"deploys": stdio_upstream(log)})
    agent, token = caller()
    reviewer, _ = person(["security_reviewer"])
    arguments = {"service": "billing", "version": "2.4.1"}

    killed: list[int] = []

    async def killed_while_waiting() -> None:
        with contextlib.suppress(Exception):  # the client sees its server die
            async with _gateway(team, token) as session:
                call = asyncio.create_task(session.call_tool("deploy", arguments))
                await review_of(agent)
                assert not call.done()
                killed.append(_gateway_pid(team))
                os.kill(killed[0], signal.SIGKILL)
                await asyncio.wait_for(asyncio.gather(call, return_exceptions=True), 30)

    async def repeated_and_approved():
        async with _gateway(team, token) as session:
            call = asyncio.create_task(session.call_tool("deploy", arguments))
            review_id = await review_of(agent)
            await asyncio.to_thread(_approve, reviewer, review_id)
            first = await asyncio.wait_for(call, 30)
            again = await session.call_tool("deploy", arguments)  # after it ran: its recorded result
            return first, again

    asyncio.run(killed_while_waiting())
    first_row = requests_of(agent)
    assert killed and len(first_row) == 1 and ran(log) == []
    first, again = asyncio.run(repeated_and_approved())
    assert [r.id for r in requests_of(agent)] == [r.id for r in first_row]  # one review
    assert first.content[0].text == again.content[0].text == "deployed billing 2.4.2 x1"
    assert ran(log) == [{"tool": "deploy", **EDITED}]  # one upstream run
