"""The tools agents may call: schemas, validation and the real implementations.
No AutoGen here; agents/tool_approval.py wraps these for the agents."""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.settings import get_settings


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


TOOLS: dict[str, ToolSpec] = {
    "deploy_to_prod": ToolSpec(
        "deploy_to_prod", "Deploy a service version to an environment.", DeployArgs, deploy_to_prod
    ),
}


def validate_tool_args(tool_name: str, arguments: Any) -> dict[str, Any]:
    """Check arguments against the tool's schema; InvalidInput lists every field problem."""
    spec = TOOLS.get(tool_name)
    if spec is None:
        raise InvalidInput(f"unknown tool '{tool_name}'", "tool")
    if not isinstance(arguments, dict):
        raise InvalidInput("tool arguments must be a JSON object", "edited_args")
    try:
        return spec.args_model.model_validate(arguments).model_dump()
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"invalid arguments for {tool_name}: {problems}", "edited_args") from exc


async def execute_tool(tool_name: str, arguments: dict[str, Any]) -> str:
    """An approved call, run by the platform: AutoGen's own execute_tool span marks it (imported
    here: only the runner, which has AutoGen loaded already, runs tools)."""
    from autogen_core import trace_tool_span

    spec = TOOLS[tool_name]
    with trace_tool_span(tool_name, tool_description="approved by a reviewer, run once by the platform"):
        return await spec.run(spec.args_model.model_validate(arguments))
