"""What the new-conversation form offers: task types, team templates with their agents, the
default gate policy of a template, the tools that can need approval, the default model."""

from __future__ import annotations

from typing import Any

from hitl_dashboard.services.conversations.conversations import TASK_TYPES
from hitl_dashboard.settings import get_settings
from hitl_dashboard.teams.catalogue import catalogue, find_team, get_team, team_names

TASK_TYPE_ORDER = ("code", "copy", "ops", "auto")
PROVIDERS = ("scripted", "openai")


def task_types() -> list[str]:
    return [t for t in TASK_TYPE_ORDER if t in TASK_TYPES]


def template_names() -> list[str]:
    return team_names()


def template_agents(template: str) -> list[str]:
    found = find_team(template)
    return list(found.agent_names) if found else []


def tool_names() -> list[str]:
    return catalogue().tool_names


def default_template(task_type: str) -> str:
    """The team named like the task type if there is one, else the first that serves several types."""
    if find_team(task_type) is not None:
        return task_type
    routing = [n for n in team_names() if get_team(n).fixed_task_type is None]
    return routing[0] if routing else team_names()[0]


def default_policy(template: str, task_type: str) -> dict[str, Any]:
    """The policy start_conversation would apply with no gate_policy given."""
    found = find_team(template) or get_team(default_template("auto"))
    effective = found.fixed_task_type or (task_type if task_type != "auto" else "code")
    return found.default_policy(effective).to_dict()


def default_model() -> tuple[str, str]:
    """(provider, model) every agent uses unless the form routes it elsewhere."""
    settings = get_settings()
    if settings.model_provider == "openai":
        return "openai", settings.openai_model
    return "scripted", "scripted"


def model_routing(choices: dict[str, tuple[str, str]]) -> dict[str, dict[str, str]]:
    """Only the agents whose provider or model differ from the server's default are routed."""
    default_provider, default_name = default_model()
    routing: dict[str, dict[str, str]] = {}
    for agent, (provider, model) in choices.items():
        model = (model or "").strip()
        if provider == default_provider and model in ("", default_name):
            continue
        routing[agent] = {"provider": provider}
        if model and provider != "scripted":
            routing[agent]["model"] = model
    return routing
