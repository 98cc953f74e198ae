"""Tools of an MCP server (issue 10), through autogen-ext's MCP adapters: stdio (a command the
server runs), streamable HTTP or SSE (a URL). The agent never calls the server itself: it holds
the approval wrapper (agents/tool_approval.py) with the tool's schema, and the call runs once,
through the platform, after a reviewer approved it (or at once when its approval mode says so).

A tool's schema is read from its server once per process and kept (prepare). Each call opens its
own session to the server, as autogen-ext's adapters do. The server gets only the environment
variables its definition passes (env_from), besides the MCP SDK's safe defaults (PATH, HOME...);
header values come from environment variables too, so no secret is in a team file."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from autogen_core import CancellationToken
from autogen_ext.tools.mcp import (
    SseMcpToolAdapter,
    SseServerParams,
    StdioMcpToolAdapter,
    StdioServerParams,
    StreamableHttpMcpToolAdapter,
    StreamableHttpServerParams,
)
from mcp.client.stdio import get_default_environment
from pydantic import BaseModel

from hitl_dashboard.domain.bounded_input import MAX_DEPTH, check_depth
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.text_cuts import cut_visibly
from hitl_dashboard.settings_mcp import MissingVariables, passed_variables
from hitl_dashboard.teams.model import McpServerDef, ToolDef

if TYPE_CHECKING:  # the three adapters' common base; autogen_ext does not export it
    from autogen_ext.tools.mcp._base import McpToolAdapter

CONNECT_TIMEOUT_S = 20.0
_adapters: dict[str, Any] = {}


class McpToolUnavailable(RuntimeError):
    """The server could not be started or reached, or has no such tool."""


def _key(name: str, definition: McpServerDef) -> str:
    return name + "\n" + json.dumps(definition.model_dump(mode="json"), sort_keys=True)


def _variables(mapping: dict[str, str]) -> dict[str, str]:
    try:
        return passed_variables(mapping)
    except MissingVariables as exc:
        raise McpToolUnavailable(str(exc)) from None


def _params(server: McpServerDef):
    if server.transport == "stdio":
        assert server.command is not None
        return StdioServerParams(command=server.command, args=list(server.args),
                                 env={**get_default_environment(), **_variables(server.env_from)},
                                 read_timeout_seconds=CONNECT_TIMEOUT_S)
    headers = _variables(server.headers_env)
    if server.transport == "sse":
        return SseServerParams(url=server.url, headers=headers)
    return StreamableHttpServerParams(url=server.url, headers=headers)


_ADAPTERS: dict[str, type[McpToolAdapter[Any]]] = {
    "stdio": StdioMcpToolAdapter, "sse": SseMcpToolAdapter, "streamable_http": StreamableHttpMcpToolAdapter}


async def prepare(name: str, definition: ToolDef) -> None:
    """Reads the tool's schema from its server (once per process); McpToolUnavailable says why not."""
    assert definition.mcp is not None
    key = _key(name, definition.mcp)
    if key in _adapters:
        return
    server = definition.mcp
    adapter_type = _ADAPTERS[server.transport]
    where = server.command if server.transport == "stdio" else server.url
    try:
        adapter = await asyncio.wait_for(adapter_type.from_server_params(_params(server), server.tool or name),
                                         CONNECT_TIMEOUT_S)
    except McpToolUnavailable:
        raise
    except RecursionError:  # the adapter builds the arguments model from the schema, recursively
        raise McpToolUnavailable(f"MCP tool '{name}' ({server.transport} {where}): its schema is nested more "
                                 f"than {MAX_DEPTH} levels deep (the limit)") from None
    except Exception as exc:  # noqa: BLE001 - any failure to reach the server is this tool's problem
        raise McpToolUnavailable(cut_visibly(f"MCP tool '{name}' ({server.transport} {where}): "
                                             f"{type(exc).__name__}: {exc}", 500)) from None
    try:  # what a reviewer's edited arguments are checked against: bounded like any outside document
        check_depth(adapter.schema, f"MCP tool '{name}' ({server.transport} {where}): its schema")
    except InvalidInput as exc:
        raise McpToolUnavailable(str(exc)) from None
    _adapters[key] = adapter


def prepare_blocking(name: str, definition: ToolDef) -> None:
    """prepare, from synchronous code (a decision validating edited arguments in a web worker)."""
    assert definition.mcp is not None
    if _key(name, definition.mcp) in _adapters:
        return
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # its own event loop, whatever the caller runs
        pool.submit(asyncio.run, prepare(name, definition)).result(timeout=CONNECT_TIMEOUT_S * 2)


def known_parameters(name: str, definition: ToolDef) -> dict[str, Any] | None:
    """The tool's argument schema if this process has read it from the server; None otherwise."""
    assert definition.mcp is not None
    adapter = _adapters.get(_key(name, definition.mcp))
    return None if adapter is None else adapter.args_type().model_json_schema()


def spec_parts(name: str, definition: ToolDef) -> tuple[type[BaseModel], Callable[[Any], Awaitable[str]], str]:
    """(arguments model, run, description) of a prepared tool."""
    assert definition.mcp is not None
    adapter = _adapters.get(_key(name, definition.mcp))
    if adapter is None:
        raise McpToolUnavailable(f"MCP tool '{name}' was not prepared")

    async def run(args: BaseModel) -> str:
        result = await adapter.run_json(args.model_dump(exclude_unset=True), CancellationToken())
        return adapter.return_value_as_string(result)

    return adapter.args_type(), run, definition.description or adapter.description or name
