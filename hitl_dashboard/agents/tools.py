"""The tools agents may call: resolved from the teams' tool declarations (a Python function by
import path), with their argument schemas, validation and the real call.
No AutoGen here; agents/tool_approval.py wraps these for the agents."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, get_type_hints

from pydantic import BaseModel, Field, ValidationError, create_model

from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.settings import get_settings
from hitl_dashboard.teams.model import TeamDefinition, ToolDef


class DeployArgs(BaseModel):
    service: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9-]*$")
    version: str = Field(pattern=r"^v?\d+\.\d+\.\d+$")
    environment: Literal["staging", "production"] = "production"


async def deploy_to_prod(args: DeployArgs) -> str:
    """Simulated deployment target. It appends to a deploy log (DEPLOY_LOG_PATH) so that
    tests and demos can see, outside the database, how often a deploy really ran."""
    deployment_id = f"dep-{uuid.uuid4().hex[:8]}"
    log_path = get_settings().deploy_log_path
    if log_path:
        with open(log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"deployment_id": deployment_id, **args.model_dump()}) + "\n")
    return f"Deployed {args.service} {args.version} to {args.environment} (deployment {deployment_id})."


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    args_model: type[BaseModel]
    run: Callable[[Any], Awaitable[str]]
    definition: ToolDef


class ToolUnavailable(ValueError):
    """A declared tool cannot be set up (a bad import path...)."""


def team_tool(team: TeamDefinition, name: str) -> ToolSpec:
    """The tool `name` as the team (the version a conversation runs on) declares it."""
    definition = team.tools.get(name)
    if definition is None:
        raise InvalidInput(f"team '{team.name}' has no tool '{name}'", "tool")
    if definition.mcp is not None:
        from hitl_dashboard.agents import mcp_tools  # autogen-ext's MCP adapters: loaded for MCP tools only

        args_model, run, described = mcp_tools.spec_parts(name, definition)
    else:
        args_model, run, described = _spec(name, definition.function, definition.description)
    return ToolSpec(name, described, args_model, run, definition)


async def prepare_tools(team: TeamDefinition) -> None:
    """Before a team is built: reads the schemas of its MCP tools from their servers (once per
    process). A server that is down fails here, with its reason, before any agent speaks."""
    for name, definition in team.tools.items():
        if definition.mcp is not None:
            from hitl_dashboard.agents import mcp_tools

            await mcp_tools.prepare(name, definition)


def declared_parameters(name: str, definition: ToolDef) -> dict[str, Any] | None:
    """The JSON Schema of the tool's arguments, as far as it is known without running anything:
    a Python function's from its signature; an MCP tool's only once a conversation of this
    process has read it from its server (None before: a check never starts or reaches a server).
    ToolUnavailable when the function cannot be imported or has an untyped parameter."""
    if definition.mcp is not None:
        from hitl_dashboard.agents import mcp_tools

        return mcp_tools.known_parameters(name, definition)
    return _spec(name, definition.function, definition.description)[0].model_json_schema()


# By what makes the tool (a version of a team that changed only a tool's approval mode shares it).
@lru_cache(maxsize=256)
def _spec(name: str, function: str | None, description: str | None) -> tuple[type[BaseModel], Any, str]:
    assert function is not None
    found = _import(function)
    args_model, run = _adapt(name, found)
    doc = (inspect.getdoc(found) or "").split("\n\n")[0].replace("\n", " ")
    return args_model, run, description or doc or name


def _import(path: str) -> Callable[..., Any]:
    module_name, _, attribute = path.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise ToolUnavailable(f"cannot import tool function {path}: {exc}") from exc
    if not callable(found):
        raise ToolUnavailable(f"{path} is not a function")
    return found


def _adapt(name: str, function: Callable[..., Any]) -> tuple[type[BaseModel], Callable[[Any], Awaitable[str]]]:
    """One parameter typed with a pydantic model: that model is the schema. Otherwise the schema
    is built from the parameters' type hints (as AutoGen's FunctionTool does) and they are passed by name."""
    hints = get_type_hints(function)
    parameters = list(inspect.signature(function).parameters.values())
    if len(parameters) == 1 and isinstance(hints.get(parameters[0].name), type) \
            and issubclass(hints[parameters[0].name], BaseModel):
        return hints[parameters[0].name], lambda args: _call(function, args)
    fields: dict[str, Any] = {}
    for parameter in parameters:
        if parameter.name not in hints:
            raise ToolUnavailable(f"tool '{name}': parameter {parameter.name} has no type hint")
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (hints[parameter.name], default)
    model = create_model(f"{name}_args", **fields)
    return model, lambda args: _call(function, **args.model_dump())


async def _call(function: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    if inspect.iscoroutinefunction(function):
        result = await function(*args, **kwargs)
    else:  # a blocking function must not stall the event loop other conversations run on
        result = await asyncio.to_thread(function, *args, **kwargs)
    return result if isinstance(result, str) else json.dumps(result, default=str)


def validate_tool_args(team: TeamDefinition, tool_name: str, arguments: Any) -> dict[str, Any]:
    """Check arguments against the schema of the team's tool; InvalidInput lists every field problem."""
    definition = team.tools.get(tool_name)
    if definition is not None and definition.mcp is not None:
        from hitl_dashboard.agents import mcp_tools

        mcp_tools.prepare_blocking(tool_name, definition)  # the schema, from the server, once per process
    spec = team_tool(team, tool_name)
    if not isinstance(arguments, dict):
        raise InvalidInput("tool arguments must be a JSON object", "edited_args")
    try:
        return spec.args_model.model_validate(arguments).model_dump()
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"invalid arguments for {tool_name}: {problems}", "edited_args") from exc


async def execute_tool(team: TeamDefinition, tool_name: str, arguments: dict[str, Any]) -> str:
    """An approved call, run by the platform: AutoGen's own execute_tool span marks it (imported
    here: only the runner, which has AutoGen loaded already, runs tools)."""
    from autogen_core import trace_tool_span

    await prepare_tools(team)
    spec = team_tool(team, tool_name)
    with trace_tool_span(tool_name, tool_description="approved by a reviewer, run once by the platform"):
        return await spec.run(spec.args_model.model_validate(arguments))
