"""The gateway over streamable HTTP, mounted by the API app at /mcp: `/mcp/<team>` (optionally
`?workspace=<slug>`), with `Authorization: Bearer <approvals-scope token>` on every request (401
without a valid one, 403 for a full-scope token). Sessions are the MCP package's
(StreamableHTTPSessionManager), each bound to the token's user, so another token cannot use it.

MCP_GATEWAY_SESSIONS picks the manager's mode. Stateful: a session lives in this process's memory, so
its requests must all reach this web worker (another answers 404 "Session not found"). Stateless: each
request is served by a server session of its own and forgotten after it, so any worker serves any
request (progress notifications still travel on the tools/call request's own SSE stream); the price is
that a client's notifications/cancelled, a request of its own, cannot reach the call it names
(docs/mcp-gateway.md, "Several web workers").

The session manager runs in `lifespan()`: the API app's own lifespan (uvicorn, the tests) and the
Reflex app's lifespan task (hitl_dashboard.py) both enter it; only the first one starts it."""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator

import anyio
import anyio.to_thread
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import Receive, Scope, Send

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.gateway.running import running
from hitl_dashboard.gateway.server import BINDING_KEY, Binding, Gateway
from hitl_dashboard.services.auth.tokens import hash_token
from hitl_dashboard.services.mcp_gateway.callers import FullScopeToken, gateway_caller
from hitl_dashboard.services.mcp_gateway.gated import THREADS
from hitl_dashboard.settings import get_settings

logger = logging.getLogger(__name__)
MOUNT = "/mcp"
_TEAM = re.compile(r"^/([a-z][a-z0-9_-]{0,39})/?$")
_WORKSPACE = re.compile(r"(?:^|&)workspace=([a-z0-9][a-z0-9-]{1,39})(?:&|$)")


class GatewayHttp:
    def __init__(self, *, stateless: bool | None = None) -> None:
        self.gateway = Gateway()
        if stateless is None:
            stateless = get_settings().mcp_gateway_sessions == "stateless"
        self.stateless = stateless
        self.manager = StreamableHTTPSessionManager(self.gateway.server, stateless=stateless)
        self._running = False

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        if self._running:  # entered by another lifespan of the same app already
            yield
            return
        self._running = True
        logger.info("mcp gateway: %s sessions (MCP_GATEWAY_SESSIONS)", "stateless" if self.stateless else "stateful")
        async with running(self.gateway), self.manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path, root = scope["path"], scope.get("root_path", "")
        path = path[len(root):] if root and path.startswith(root) else path
        team = _TEAM.match(path.removeprefix(MOUNT) if path.startswith(MOUNT + "/") else path)
        if team is None:
            await _refuse(send, 404, "the gateway serves a team: /mcp/<team>")
            return
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            await _refuse(send, 401, "send an approvals-scope API token as 'Authorization: Bearer <token>'")
            return
        try:
            actor = await anyio.to_thread.run_sync(gateway_caller, token.strip(), limiter=THREADS)
        except FullScopeToken as exc:
            await _refuse(send, 403, str(exc))
            return
        except PermissionDenied as exc:
            await _refuse(send, 401, str(exc))
            return
        workspace = _WORKSPACE.search(scope.get("query_string", b"").decode("latin-1"))
        scope = {**scope, BINDING_KEY: Binding(actor, team.group(1), workspace.group(1) if workspace else None),
                 # The MCP package binds a session to the credential that opened it.
                 "user": AuthenticatedUser(AccessToken(token=hash_token(token.strip()), client_id=str(actor.user_id),
                                                       scopes=[actor.scope]))}
        await self.manager.handle_request(scope, receive, send)


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"detail": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
