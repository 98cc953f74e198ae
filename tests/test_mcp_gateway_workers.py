"""The MCP gateway behind several web workers (MCP_GATEWAY_SESSIONS): two instances of the app, each
with its own gateway (two GatewayHttp objects: two workers), served on two ports of 127.0.0.1 against
one database, and the official MCP client whose HTTP transport sends each request to the other worker
in turn, as a round-robin proxy does.

Stateless: initialize, the tool list, an ungated call and a gated call that waits (progress
notifications on its own stream) and is approved, all on alternating workers, upstream run once; the
client's cancel cannot reach the waiting call; a dropped request ends its waiting handler, leaves the
review open, and the approved call runs once, when the client repeats it; dropped while the approved
call runs upstream, the call still ends and is recorded, once. Stateful: the same
alternation is answered 404 "Session not found", which is why the setting exists. And its default."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import anyio.to_thread
import httpx
import pytest
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.shared.exceptions import McpError
from sqlmodel import select

from hitl_dashboard.db.models import Conversation, ReviewRequest
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.domain.errors import ConfigurationError
from hitl_dashboard.gateway.http import GatewayHttp
from hitl_dashboard.gateway.upstreams import Upstream
from hitl_dashboard.services.auth.users import find_actor
from hitl_dashboard.services.reviews.decide import decide
from hitl_dashboard.settings import get_settings, reset_settings_cache
from tests.support.mcp_gateway_setup import gated_world, requests_of, review_of
from tests.support.mcp_upstream import ran
from tests.support.served_asgi import served_apis

ARGUMENTS = {"service": "billing", "version": "2.4.1", "replicas": 2}
DEPLOYED = "deployed billing 2.4.1 x2"


class RoundRobin(httpx.AsyncBaseTransport):
    """Each request to the next worker in turn, whatever it carries (no sticky sessions); what each
    worker answered is kept: (worker, method, status)."""

    def __init__(self, base_urls: list[str]) -> None:
        self.workers = [httpx.URL(url) for url in base_urls]
        self.inner = httpx.AsyncHTTPTransport()
        self.turn = 0
        self.answered: list[tuple[int, str, int]] = []
        self.refusals: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        worker = self.turn % len(self.workers)
        self.turn += 1
        target = self.workers[worker]
        request.url = request.url.copy_with(host=target.host, port=target.port)
        request.headers["host"] = f"{target.host}:{target.port}"
        response = await self.inner.handle_async_request(request)
        self.answered.append((worker, request.method, response.status_code))
        if response.status_code == 404:
            self.refusals.append((await response.aread()).decode())
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


@contextlib.asynccontextmanager
async def round_robin_session(base_urls: list[str], team: str, token: str) -> AsyncIterator[
        tuple[ClientSession, RoundRobin]]:
    proxy = RoundRobin(base_urls)
    http = httpx.AsyncClient(transport=proxy, headers={"Authorization": f"Bearer {token}"},
                             timeout=httpx.Timeout(30, read=300))
    async with http, streamable_http_client(f"{base_urls[0]}/mcp/{team}", http_client=http) as (read, write, _), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session, proxy


async def until(found: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + 30
    while not found():
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.01)


def _approve(reviewer: str, review_id: int) -> None:
    decide(find_actor(reviewer), review_id, DecisionInput(Action.APPROVE))


@pytest.fixture
def stateless_workers(db_url: str, monkeypatch) -> list[str]:
    monkeypatch.setenv("MCP_GATEWAY_SESSIONS", "stateless")
    with served_apis(2, lifespan="on") as base_urls:
        yield base_urls


@pytest.fixture
def stateless_workers_sqlite(sqlite_url: str, monkeypatch) -> list[str]:
    monkeypatch.setenv("MCP_GATEWAY_SESSIONS", "stateless")
    with served_apis(2, lifespan="on") as base_urls:
        yield base_urls


def test_stateless_every_request_is_served_by_whichever_worker_gets_it(stateless_workers: list[str],
                                                                        tmp_path: Path):
    log = tmp_path / "ran.jsonl"
    with gated_world(log) as world:

        async def scenario():
            async with round_robin_session(stateless_workers, world.team, world.token) as (session, proxy):
                listed = sorted(tool.name for tool in (await session.list_tools()).tools)
                status = await session.call_tool("status", {"service": "billing"})
                call = asyncio.create_task(session.call_tool("deploy", ARGUMENTS,
                                                             progress_callback=world.on_progress))
                review_id = await review_of(world.agent)
                # A progress notification reached the client on the waiting call's own stream.
                await until(lambda: world.progress, "a progress notification")
                assert not call.done() and ran(log) == [{"tool": "status", "service": "billing"}]
                await asyncio.to_thread(_approve, world.reviewer, review_id)
                return listed, status, await asyncio.wait_for(call, 30), proxy

        listed, status, deployed, proxy = asyncio.run(scenario())
    assert listed == ["deploy", "status"]
    assert not status.isError and status.content[0].text == "billing: green"
    assert not deployed.isError and deployed.content[0].text == DEPLOYED
    assert "waiting for a reviewer" in (world.progress[0] or "")
    assert ran(log) == [{"tool": "status", "service": "billing"}, {"tool": "deploy", **ARGUMENTS}]  # once each
    # initialize, notifications/initialized, tools/list, two tools/call: every one on the other worker
    # than the one before, every one answered (no session: no GET stream, no DELETE).
    assert [worker for worker, _, _ in proxy.answered] == [0, 1, 0, 1, 0]
    assert all(method == "POST" and code in (200, 202) for _, method, code in proxy.answered), proxy.answered
    [row] = requests_of(world.agent)
    assert (row.result_status, row.result) == ("ok", DEPLOYED)
    assert "MCP client `unknown`" in (row.context or "")  # the client's initialize went to another request


def test_stateless_a_client_cancel_cannot_reach_the_waiting_call(stateless_workers_sqlite: list[str],
                                                                 tmp_path: Path):
    """notifications/cancelled is a request of its own: the worker that gets it has no session and no
    call of that id, so the review is not withdrawn and the call goes on waiting."""
    log = tmp_path / "ran.jsonl"
    with gated_world(log) as world:

        async def scenario():
            async with round_robin_session(stateless_workers_sqlite, world.team, world.token) as (session, proxy):
                call = asyncio.create_task(session.call_tool("deploy", ARGUMENTS))
                review_id = await review_of(world.agent)
                request_id = session._request_id - 1  # noqa: SLF001 - the id the client gave the call
                before = len(proxy.answered)
                await session.send_notification(types.ClientNotification(types.CancelledNotification(
                    params=types.CancelledNotificationParams(requestId=request_id, reason="user pressed Esc"))))
                # Accepted, by a worker that has no session and no call of that id.
                await until(lambda: ("POST", 202) in [answer[1:] for answer in proxy.answered[before:]],
                            "the cancel was answered")
                assert not call.done()
                await asyncio.to_thread(_approve, world.reviewer, review_id)
                return await asyncio.wait_for(call, 30)

        result = asyncio.run(scenario())
    assert not result.isError and result.content[0].text == DEPLOYED
    assert ran(log) == [{"tool": "deploy", **ARGUMENTS}]


def test_stateless_a_dropped_request_ends_the_wait_and_a_repeat_runs_the_approved_call_once(
        stateless_workers_sqlite: list[str], tmp_path: Path, caplog: pytest.LogCaptureFixture):
    """The client goes away while its call waits: the MCP package closes that request's server session
    and cancels the handler (nobody waits any more), the review stays open; approved afterwards, nothing
    runs; the client's repeat of the call (on either worker) finds the approved review and runs it, once;
    a further repeat gets the recorded result."""
    caplog.set_level(logging.INFO, logger="hitl_dashboard.services.mcp_gateway.gated")
    log = tmp_path / "ran.jsonl"
    with gated_world(log) as world:

        async def wait_then_drop() -> int:
            async with round_robin_session(stateless_workers_sqlite, world.team, world.token) as (session, _):
                call = asyncio.create_task(session.call_tool("deploy", ARGUMENTS))
                review_id = await review_of(world.agent)
                call.cancel()
            # Leaving the client closed its connections: the call's request (its SSE stream) is gone.
            await until(lambda: any("stopped waiting for approval" in r.getMessage() for r in caplog.records),
                        "the waiting handler ended")
            return review_id

        async def repeat() -> types.CallToolResult:
            async with round_robin_session(stateless_workers_sqlite, world.team, world.token) as (session, _):
                return await session.call_tool("deploy", ARGUMENTS)

        review_id = asyncio.run(wait_then_drop())
        [row] = requests_of(world.agent)
        with UnitOfWork() as uow:
            assert uow.session.get(Conversation, row.conversation_id).status != "aborted"  # not withdrawn
            assert uow.session.exec(select(ReviewRequest.status).where(
                ReviewRequest.id == review_id)).one() == "pending"
        _approve(world.reviewer, review_id)
        assert ran(log) == [] and requests_of(world.agent)[0].result_status is None  # nobody waits: nothing ran
        first = asyncio.run(repeat())
        # The upstream's own result (with its structured content): this repeat ran it.
        assert not first.isError and first.content[0].text == DEPLOYED and first.structuredContent is not None
        again = asyncio.run(repeat())
    assert not again.isError and again.content[0].text == DEPLOYED and again.structuredContent is None  # recorded
    assert ran(log) == [{"tool": "deploy", **ARGUMENTS}]  # once
    [row] = requests_of(world.agent)
    assert (row.result_status, row.result) == ("ok", DEPLOYED)


def test_stateless_a_request_dropped_while_its_approved_call_runs_upstream_still_records_it(
        stateless_workers_sqlite: list[str], tmp_path: Path, monkeypatch):
    """Dropped after the forwarding started: the handler is cancelled, but the upstream call (shielded)
    runs to its end and its result is recorded, so the repeat gets that record and nothing runs twice."""
    forwarding, release, terminated = threading.Event(), threading.Event(), threading.Event()
    call_upstream, terminate = Upstream.call, StreamableHTTPServerTransport.terminate

    async def held_call(self, tool: str, arguments: dict):
        if tool == "deploy":
            forwarding.set()
            await anyio.to_thread.run_sync(release.wait)  # until the test lets it go on
        return await call_upstream(self, tool, arguments)

    async def noted_terminate(self) -> None:
        if forwarding.is_set():  # the only request then in flight is the call's
            terminated.set()
        await terminate(self)

    monkeypatch.setattr(Upstream, "call", held_call)
    monkeypatch.setattr(StreamableHTTPServerTransport, "terminate", noted_terminate)
    log = tmp_path / "ran.jsonl"
    with gated_world(log) as world:

        async def approve_then_drop() -> None:
            async with round_robin_session(stateless_workers_sqlite, world.team, world.token) as (session, _):
                call = asyncio.create_task(session.call_tool("deploy", ARGUMENTS))
                await asyncio.to_thread(_approve, world.reviewer, await review_of(world.agent))
                await until(forwarding.is_set, "the approved call went upstream")
                call.cancel()
            await until(terminated.is_set, "the worker closed the dropped request")

        async def repeat() -> types.CallToolResult:
            async with round_robin_session(stateless_workers_sqlite, world.team, world.token) as (session, _):
                return await session.call_tool("deploy", ARGUMENTS)

        asyncio.run(approve_then_drop())
        release.set()
        asyncio.run(until(lambda: requests_of(world.agent)[0].result_status, "the result was recorded"))
        again = asyncio.run(repeat())
    assert not again.isError and again.content[0].text == DEPLOYED and again.structuredContent is None  # recorded
    assert ran(log) == [{"tool": "deploy", **ARGUMENTS}]  # once
    [row] = requests_of(world.agent)
    assert (row.result_status, row.result) == ("ok", DEPLOYED)


def test_stateful_sessions_break_when_requests_alternate_between_workers(sqlite_url: str, monkeypatch,
                                                                         tmp_path: Path):
    """Why the setting exists: a stateful session lives in the worker that opened it; the other worker
    answers its requests 404 "Session not found", and the client's calls fail."""
    monkeypatch.setenv("MCP_GATEWAY_SESSIONS", "stateful")
    with gated_world(tmp_path / "ran.jsonl") as world, served_apis(2, lifespan="on") as base_urls:

        async def scenario() -> RoundRobin:
            async with round_robin_session(base_urls, world.team, world.token) as (session, proxy):
                with pytest.raises(McpError, match="Session terminated"):
                    for _ in range(4):  # consecutive requests: one of them lands on the other worker
                        await session.list_tools()
                return proxy

        proxy = asyncio.run(scenario())
    assert proxy.answered[0] == (0, "POST", 200)  # initialize: the session opens on worker 0
    assert any(worker == 1 and code == 404 for worker, _, code in proxy.answered), proxy.answered
    assert proxy.refusals and all("Session not found" in body for body in proxy.refusals)


@pytest.mark.parametrize(("env", "sessions"), [
    ({}, "stateful"),  # one web worker (the embedded setup)
    ({"WEB_WORKERS": "3"}, "stateless"),
    ({"GRANIAN_WORKERS": "2"}, "stateless"),
    ({"REDIS_URL": "redis://cache:6379/0"}, "stateless"),  # scripts/common.sh: 2 x CPUs + 1 workers
    ({"REDIS_URL": "redis://cache:6379/0", "WEB_WORKERS": "1"}, "stateless"),  # several containers (compose.yaml)
    ({"WEB_WORKERS": "4", "MCP_GATEWAY_SESSIONS": "stateful"}, "stateful"),  # the operator's choice wins
    ({"MCP_GATEWAY_SESSIONS": "stateless"}, "stateless"),
])
def test_the_sessions_default_follows_the_web_tier(monkeypatch, env: dict[str, str], sessions: str):
    for name in ("WEB_WORKERS", "GRANIAN_WORKERS", "REDIS_URL", "MCP_GATEWAY_SESSIONS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    reset_settings_cache()
    try:
        assert get_settings().mcp_gateway_sessions == sessions
        assert GatewayHttp().manager.stateless is (sessions == "stateless")
    finally:
        reset_settings_cache()


def test_an_unknown_sessions_mode_is_refused_naming_the_choices(monkeypatch):
    monkeypatch.setenv("MCP_GATEWAY_SESSIONS", "sticky")
    reset_settings_cache()
    try:
        with pytest.raises(ConfigurationError, match="MCP_GATEWAY_SESSIONS.*'stateful' or 'stateless'"):
            get_settings()
    finally:
        reset_settings_cache()
