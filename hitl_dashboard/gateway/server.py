"""The gateway's MCP server (mcp.server.lowlevel.Server): lists the upstream tools of the caller's
team and forwards each call, at once when it needs no approval, through a review when it does
(services/mcp_gateway). Who calls, for which team: the connection's Binding (HTTP: found by http.py
for each request; stdio: the one of the process)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from anyio.abc import TaskGroup
from mcp import types
from mcp.server.lowlevel import Server

from hitl_dashboard.domain.errors import DomainError
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.gateway.upstreams import Upstream, UpstreamPool, UpstreamUnavailable
from hitl_dashboard.services.mcp_gateway.catalog import GatewayTeam, gateway_team, known_gateway_team
from hitl_dashboard.services.mcp_gateway.gated import THREADS, Answer, GatedCall, run_gated
from hitl_dashboard.services.mcp_gateway.names import public_names
from hitl_dashboard.services.mcp_gateway.records import ForwardedCall, call_log

logger = logging.getLogger(__name__)
BINDING_KEY = "hitl.gateway"  # where http.py leaves the request's Binding in the ASGI scope
PROGRESS_EVERY_S = 5.0


@dataclass(frozen=True)
class Binding:
    actor: Actor
    team: str
    workspace: str | None = None


@dataclass(frozen=True)
class Route:
    upstream: Upstream
    tool: types.Tool  # as the upstream lists it


class Gateway:
    def __init__(self, default: Callable[[], Binding] | None = None) -> None:
        self.default = default  # stdio: the process's one caller and team
        self.server: Server = Server("hitl-dashboard-gateway")
        self.pool: UpstreamPool | None = None
        self.server.list_tools()(self._list_tools)
        self.server.call_tool(validate_input=False)(self._call_tool)  # upstream (or the review) checks them

    def start(self, group: TaskGroup) -> None:
        self.pool = UpstreamPool(group)

    def stop(self) -> None:
        if self.pool is not None:
            self.pool.close()

    def _binding(self) -> Binding:
        request = self.server.request_context.request
        if request is not None:
            return request.scope[BINDING_KEY]
        assert self.default is not None, "a gateway request without its caller"
        return self.default()

    async def _routes(self, binding: Binding) -> tuple[GatewayTeam, dict[str, Route]]:
        team = known_gateway_team(binding.actor, binding.team, binding.workspace)
        if team is None:
            team = await anyio.to_thread.run_sync(gateway_team, binding.actor, binding.team, binding.workspace,
                                                  limiter=THREADS)
        assert self.pool is not None, "the gateway was not started"
        upstreams = {name: self.pool.get(team.workspace_id, team.name, name, server)
                     for name, server in team.gateway.servers.items()}
        listed: dict[str, dict[str, types.Tool]] = {}
        for name, upstream in upstreams.items():
            try:
                listed[name] = {tool.name: tool for tool in await upstream.tools()}
            except UpstreamUnavailable as exc:  # the other servers' tools are still offered
                logger.warning("mcp gateway: %s", exc)
                if len(upstreams) == 1:
                    raise
        names = public_names({name: list(tools) for name, tools in listed.items()})
        return team, {public: Route(upstreams[server], listed[server][tool])
                      for public, (server, tool) in names.items()}

    async def _list_tools(self) -> list[types.Tool]:
        _, routes = await self._routes(self._binding())
        # No outputSchema: a repeat of a call that ran is answered with its recorded text (gated.py), which
        # a client would check against it and refuse.
        return [route.tool.model_copy(update={"name": name, "outputSchema": None}) for name, route in routes.items()]

    async def _call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        binding = self._binding()
        try:
            team, routes = await self._routes(binding)
        except (DomainError, UpstreamUnavailable) as exc:
            return _error(str(exc))
        route = routes.get(name)
        if route is None:
            return _error(f"no tool '{name}' on this gateway; list the tools to see what team {team.name} offers")
        server = team.gateway.servers[route.upstream.name]
        if not server.needs_approval(route.tool.name, arguments):
            return await self._forward(binding, team, route, arguments)
        return _answer(await self._gated(binding, team, route, arguments))

    async def _forward(self, binding: Binding, team: GatewayTeam, route: Route,
                       arguments: dict[str, Any]) -> types.CallToolResult:
        started = time.perf_counter()
        try:
            result = await route.upstream.call(route.tool.name, arguments)
        except Exception as exc:  # noqa: BLE001 - the upstream's failure is this call's answer
            result = _error(f"the upstream server failed: {type(exc).__name__}: {exc}")
        call_log.note(ForwardedCall(
            actor=binding.actor.username, token=binding.actor.token_name, workspace_id=team.workspace_id,
            team=team.name, server=route.upstream.name, tool=route.tool.name, arguments=arguments,
            is_error=bool(result.isError), ms=(time.perf_counter() - started) * 1000, client=self._client()))
        return result

    async def _gated(self, binding: Binding, team: GatewayTeam, route: Route, arguments: dict[str, Any]) -> Answer:
        context = self.server.request_context
        token = context.meta.progressToken if context.meta is not None else None
        # The session's own record of this request: it says whether the client cancelled it (a
        # notifications/cancelled), which a dropped connection or the gateway stopping does not. With
        # stateless sessions the session serves this request alone, so a cancel (a request of its own)
        # never reaches it.
        responder = context.session._in_flight.get(context.request_id)  # noqa: SLF001
        sent = {"count": 0, "at": 0.0}

        async def progress(view) -> None:
            now = time.monotonic()
            if token is None or now - sent["at"] < PROGRESS_EVERY_S:
                return
            sent["count"] += 1
            sent["at"] = now
            try:
                await context.session.send_progress_notification(
                    token, progress=sent["count"], message=f"waiting for a reviewer: {view.url}",
                    related_request_id=str(context.request_id))
            except Exception:  # noqa: BLE001 - a client gone quiet still gets its review; the wait goes on
                logger.debug("mcp gateway: a progress notification was not sent", exc_info=True)

        async def upstream(approved: dict[str, Any]) -> tuple[Any, str, bool]:
            result = await route.upstream.call(route.tool.name, approved)
            return result, _text(result), bool(result.isError)

        call = GatedCall(binding.actor, team, route.upstream.name, route.tool.name, arguments,
                         route.tool.inputSchema, self._client())
        try:
            return await run_gated(call, upstream, progress, lambda: responder is not None and responder.cancelled)
        except DomainError as exc:  # the review could not be asked for (arguments against the schema...)
            return Answer(str(exc), True)

    def _client(self) -> str:
        params = self.server.request_context.session.client_params
        info = params.clientInfo if params is not None else None
        return f"{info.name} {info.version}" if info is not None else "unknown"


def _text(result: types.CallToolResult) -> str:
    return "\n".join(block.text if isinstance(block, types.TextContent) else f"[{block.type}]"
                     for block in result.content)


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=True)


def _answer(answer: Answer) -> types.CallToolResult:
    if isinstance(answer.result, types.CallToolResult):
        return answer.result
    return types.CallToolResult(content=[types.TextContent(type="text", text=answer.text)], isError=answer.is_error)
