"""Sessions with the upstream MCP servers, kept open (a stdio server is started once, not once per
call): each is held by a task of the gateway's task group, and opened again at the next call after
it broke. A call that fails on a broken session is not retried (it may have run)."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import anyio
import httpx
from anyio.abc import TaskGroup, TaskStatus
from mcp import ClientSession, types
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from hitl_dashboard.settings_mcp import passed_variables
from hitl_dashboard.teams.tool_model import McpServerDef

logger = logging.getLogger(__name__)
CONNECT_TIMEOUT_S = 20.0


class UpstreamUnavailable(RuntimeError):
    """The upstream server could not be started or reached."""


async def _open(server: McpServerDef, stack: contextlib.AsyncExitStack) -> tuple[Any, Any]:
    """The transport's (read, write) streams, kept open by `stack`."""
    if server.transport == "stdio":
        assert server.command is not None
        params = StdioServerParameters(command=server.command, args=list(server.args),
                                       env={**get_default_environment(), **passed_variables(server.env_from)})
        read, write = await stack.enter_async_context(stdio_client(params))
    elif server.transport == "sse":
        assert server.url is not None
        headers = passed_variables(server.headers_env)
        read, write = await stack.enter_async_context(sse_client(server.url, headers=headers))
    else:
        assert server.url is not None
        client: httpx.AsyncClient = await stack.enter_async_context(
            create_mcp_http_client(headers=passed_variables(server.headers_env)))
        read, write, _ = await stack.enter_async_context(streamable_http_client(server.url, http_client=client))
    return read, write


class Upstream:
    def __init__(self, name: str, server: McpServerDef, group: TaskGroup) -> None:
        self.name, self.server, self._group = name, server, group
        self._session: ClientSession | None = None
        self._tools: list[types.Tool] | None = None
        self._close = anyio.Event()
        self._opening = anyio.Lock()

    async def session(self) -> ClientSession:
        async with self._opening:
            if self._session is None:
                try:
                    with anyio.fail_after(CONNECT_TIMEOUT_S):
                        await self._group.start(self._hold)
                except Exception as exc:  # noqa: BLE001 - any failure to start or reach it is the upstream's
                    where = self.server.command if self.server.transport == "stdio" else self.server.url
                    raise UpstreamUnavailable(f"upstream server '{self.name}' ({self.server.transport} {where}): "
                                              f"{type(exc).__name__}: {exc}") from None
            assert self._session is not None
            return self._session

    async def _hold(self, *, task_status: TaskStatus[None]) -> None:
        """Opens the session, hands it over, and keeps it until closed or broken."""
        self._close = anyio.Event()
        started = False
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await _open(self.server, stack)
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                self._tools = (await session.list_tools()).tools
                self._session = session
                started = True
                task_status.started()
                await self._close.wait()
        except Exception:
            if not started:
                raise
            logger.warning("mcp gateway: the session with upstream %s broke", self.name, exc_info=True)
        finally:
            self._session, self._tools = None, None

    async def tools(self) -> list[types.Tool]:
        await self.session()
        return list(self._tools or [])

    async def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        session = await self.session()
        request = types.ClientRequest(types.CallToolRequest(params=types.CallToolRequestParams(name=tool,
                                                                                              arguments=arguments)))
        try:
            # Not ClientSession.call_tool: it checks the result against the tool's output schema with a fresh
            # jsonschema validator each time (3-4 ms); the gateway hands the result on as it came.
            return await session.send_request(request, types.CallToolResult)
        except Exception:
            self._close.set()  # a broken session: the next call opens a new one
            raise

    def close(self) -> None:
        self._close.set()


class UpstreamPool:
    """One Upstream per (team version's workspace, team, server name, definition)."""

    def __init__(self, group: TaskGroup) -> None:
        self._group = group
        self._upstreams: dict[tuple[int, str, str, str], Upstream] = {}

    def get(self, workspace_id: int, team: str, name: str, server: McpServerDef) -> Upstream:
        key = (workspace_id, team, name, server.model_dump_json())
        found = self._upstreams.get(key)
        if found is None:
            found = self._upstreams[key] = Upstream(name, server, self._group)
        return found

    def close(self) -> None:
        for upstream in self._upstreams.values():
            upstream.close()
