"""The gateway tests' world: a team whose gateway section fronts the test upstream (stdio and
streamable HTTP), a caller with an approvals token, reviewers, the gateway served over real HTTP
(create_api under uvicorn on a free port, its lifespan on), and the official MCP client."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import yaml
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from sqlmodel import select

from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.models import ReviewRequest
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.users import create_user, find_actor
from hitl_dashboard.services.teams import team_queries
from hitl_dashboard.settings import reset_settings_cache
from tests.e2e.app_process import ROOT, free_port
from tests.support.external_api import person

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


@contextlib.contextmanager
def serving_gateway() -> Iterator[str]:
    """The real API app (and its gateway) over real HTTP in this process, lifespan on; its base URL."""
    import uvicorn

    reset_settings_cache()
    from hitl_dashboard.api.app import create_api

    server = uvicorn.Server(uvicorn.Config(create_api(), host="127.0.0.1", port=free_port(), log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "the gateway did not start"
            time.sleep(0.01)
        yield f"http://127.0.0.1:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(10)
        reset_settings_cache()


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
        return list(uow.session.exec(select(ExternalRequest).where(ExternalRequest.caller_id == actor.user_id)))


def open_review(username: str) -> int | None:
    """The review of the caller's newest request, once it exists."""
    rows = requests_of(username)
    if not rows:
        return None
    with UnitOfWork() as uow:
        return uow.session.exec(select(ReviewRequest.id).where(
            ReviewRequest.conversation_id == rows[-1].conversation_id)).first()
