"""The gateway over stdio, for MCP clients that only start local servers: `python -m hitl_dashboard
mcp serve --team <team>` with HITL_TOKEN (an approvals-scope token) and DATABASE_URL (the product's
database, which this process uses directly, in process, as the CLI does: no web server is needed,
and the reviews, audit and webhooks are the same rows the web app serves).

The token is checked at start (a wrong, revoked or full-scope one stops it with a clear message) and
again every RECHECK_S while it serves, so a revoked token or a deactivated user stops working."""

from __future__ import annotations

import time

import anyio
from mcp.server.stdio import stdio_server

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.gateway.running import running
from hitl_dashboard.gateway.server import Binding, Gateway
from hitl_dashboard.services.mcp_gateway.callers import FullScopeToken, gateway_caller
from hitl_dashboard.services.mcp_gateway.catalog import gateway_team

RECHECK_S = 30.0


class StdioCaller:
    def __init__(self, token: str, team: str, workspace: str | None) -> None:
        self._token, self._team, self._workspace = token, team, workspace
        try:
            self._binding = self._check()
        except FullScopeToken as exc:
            raise FullScopeToken(f"HITL_TOKEN is refused: {exc}") from None
        except PermissionDenied as exc:
            raise PermissionDenied(f"HITL_TOKEN is refused: {exc}") from None
        gateway_team(self._binding.actor, team, workspace)  # an unknown team, or none of a gateway: stop now

    def _check(self) -> Binding:
        self._checked = time.monotonic()
        return Binding(gateway_caller(self._token), self._team, self._workspace)

    def __call__(self) -> Binding:
        if time.monotonic() - self._checked > RECHECK_S:
            self._binding = self._check()
        return self._binding


def serve_stdio(token: str, team: str, workspace: str | None) -> None:
    gateway = Gateway(default=StdioCaller(token, team, workspace))

    async def serve() -> None:
        async with running(gateway), stdio_server() as (read, write):
            await gateway.server.run(read, write, gateway.server.create_initialization_options())

    anyio.run(serve)
