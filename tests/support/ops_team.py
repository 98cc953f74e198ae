"""An ops team whose operator has one tool, deploy_to_prod, as the team tests write it: the tool (a
function, or an MCP server) and the operator's model vary, the rest is the built-in ops team's shape."""

from __future__ import annotations

from typing import Any

import yaml


def stdio_deploy_tool(command: list[str], env_from: dict[str, str] | None = None) -> dict[str, Any]:
    """deploy_to_prod served by a stdio MCP server started with `command`, always approved by a person."""
    return {"mcp": {"transport": "stdio", "command": command[0], "args": command[1:], "tool": "deploy",
                    "env_from": env_from or {}},
            "approval": "always"}


def ops_team_yaml(name: str, tool: dict[str, Any], *, model: dict[str, Any] | None = None,
                  description: str = "Deploys.", gated: bool = True) -> str:
    """gated: a person looks when the operator is done and its deploy_to_prod calls wait (gates)."""
    team: dict[str, Any] = {
        "name": name,
        "description": description,
        "agents": [
            {"name": "planner", "description": "Plans", "system_prompt": "Start with 'TASK TYPE: ops'.",
             "model": "offline"},
            {"name": "operator", "description": "Deploys", "system_prompt": "Deploy with deploy_to_prod.",
             "model": "main" if model else "offline", "tools": ["deploy_to_prod"]},
        ],
        "models": {"offline": {"provider": "scripted"}, **({"main": model} if model else {})},
        "tools": {"deploy_to_prod": tool},
        "speaker_order": {"mode": "planner_then_producer", "planner": "planner"},
        "task_types": {"ops": {"producer": "operator", "sign_off": ["final_approver"]}},
    }
    if gated:
        team["gates"] = {"mode": "on_done", "tools": ["deploy_to_prod"]}
    return yaml.safe_dump(team, sort_keys=False)
