"""The gateway tests' world: a team whose gateway section fronts the test upstream (stdio and
streamable HTTP), a caller with an approvals token, reviewers, the gateway served over real HTTP
(create_api under uvicorn on a free port, its lifespan on), and the official MCP client."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from sqlmodel import col, select

from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.models import ReviewRequest
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.users import create_user, find_actor
from hitl_dashboard.services.teams import team_queries
from tests.e2e.app_process import ROOT
from tests.support.external_api import person
from tests.support.mcp_upstream import serving_http
from tests.support.served_asgi import served_api

UPSTREAM = ROOT / "tests" / "support" / "mcp_upstream.py"


def gateway_team(name: str, servers: dict[str, Any]) -> str:
    team = {
        "name": name, "description": "Fronts MCP servers.",
        "agents": [{"name": "operator", "description": "Deploys", "system_prompt": "Deploy.", "model": "offline"}],
        "models": {"offline": {"provider": "scripted"}},
        "speaker_order": {"mode": "round_robin"},
        "task_types": {"ops": {"producer": "operator", "sign_off": ["final_approver"]}},
        "gateway": {"servers": servers},
    }
    return yaml.safe_dump(team, sort_keys=False)


def stdio_upstream(log: Path, **approvals: Any) -> dict[str, Any]:
    return {"transport": "stdio", "command": sys.executable, "args": [str(UPSTREAM), "--log", str(log)],
            "approvals": approvals or {"deploy": {"approval": "always"}, "status": {"approval": "never"}}}


def http_upstream(url: str, **approvals: Any) -> dict[str, Any]:
    return {"transport": "streamable_http", "url": url,
            "approvals": approvals or {"deploy": {"approval": "always"}, "status": {"approval": "never"}}}


def save_gateway_team(servers: dict[str, Any], *, admin: str | None = None) -> str:
    """A new team (named uniquely) with this gateway section, saved as the admin's workspace's; its name."""
    if admin is None:
        admin = f"admin-{uuid.uuid4().hex[:8]}"
        create_user(username=admin, password="pw-" + admin, roles=["admin"])
    name = f"gw-{uuid.uuid4().hex[:8]}"
    team_queries.save_team(find_actor(admin), gateway_team(name, servers), origin="import")
    return name


def caller() -> tuple[str, str]:
    return person(["manager"], scope="approvals", name="agent")


@dataclass
class GatedWorld:
    """A team whose gateway fronts an upstream over streamable HTTP (it records what ran in `log`), the
    caller with its approvals token, a reviewer who may approve, and the progress messages received."""
    log: Path
    team: str
    agent: str
    token: str
    reviewer: str
    progress: list[str | None] = field(default_factory=list)

    async def on_progress(self, done: float, total: float | None, message: str | None) -> None:
        self.progress.append(message)


@contextlib.contextmanager
def gated_world(log: Path) -> Iterator[GatedWorld]:
    with serving_http(log) as upstream_url:
        team = save_gateway_team({"deploys": http_upstream(upstream_url)})
        agent, token = caller()
        reviewer, _ = person(["security_reviewer"])
        yield GatedWorld(log, team, agent, token, reviewer)


def serving_gateway() -> contextlib.AbstractContextManager[str]:
    """The real API app (and its gateway) over real HTTP in this process, lifespan on; its base URL."""
    return served_api(lifespan="on")


@contextlib.asynccontextmanager
async def mcp_client(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with create_mcp_http_client(headers=headers) as http, \
            streamable_http_client(url, http_client=http) as (read, write, _), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


def requests_of(username: str) -> list[ExternalRequest]:
    actor = find_actor(username)
    with UnitOfWork() as uow:
        return list(uow.session.exec(select(ExternalRequest).where(ExternalRequest.caller_id == actor.user_id)
                                     .order_by(col(ExternalRequest.id))))


def open_review(username: str, newer_than: int = 0) -> int | None:
    """The review of the caller's newest request, once one newer than request `newer_than` exists."""
    rows = requests_of(username)
    if not rows or rows[-1].id <= newer_than:
        return None
    with UnitOfWork() as uow:
        return uow.session.exec(select(ReviewRequest.id).where(
            ReviewRequest.conversation_id == rows[-1].conversation_id)).first()


async def review_of(username: str, newer_than: int = 0) -> int:
    """The caller's newest review, once the gateway has asked for it (polled: the call is in flight)."""
    for _ in range(3000):
        review_id = await asyncio.to_thread(open_review, username, newer_than)
        if review_id is not None:
            return review_id
        await asyncio.sleep(0.01)
    raise AssertionError("the gated call never became a review")
