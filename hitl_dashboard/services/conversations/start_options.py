"""What the new-conversation form offers: task types, team templates with their agents, the
default gate policy of a template, the tools that can need approval, the default model. The teams
are their newest versions (services/teams/versions.py): what a conversation started now gets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.conversations.conversations import TASK_TYPES
from hitl_dashboard.services.teams import versions
from hitl_dashboard.settings import get_settings
from hitl_dashboard.teams.catalogue import catalogue
from hitl_dashboard.teams.model import TeamDefinition

TASK_TYPE_ORDER = ("code", "copy", "ops", "auto")
PROVIDERS = ("scripted", "openai")


def task_types() -> list[str]:
    return [t for t in TASK_TYPE_ORDER if t in TASK_TYPES]


def _teams(actor: Actor) -> dict[str, TeamDefinition]:
    """The teams of the workspace the actor acts in."""
    return {name: team for name, (_, team) in versions.list_current(actor).items()}


def file_template_names() -> list[str]:
    """The teams of the team files, without the database: for menus built when the pages are
    compiled (a team that exists only as a saved version is missing there until it has a file)."""
    return list(catalogue().teams)


@dataclass(frozen=True)
class FormChoices:
    templates: dict[str, list[str]]  # every team with its agents, for the template menu
    tools: list[str]  # every team's tool names (two teams may each have their own tool of one name)
    policy: dict[str, Any]  # the policy start_conversation would apply to `template` with no gate_policy


def form_choices(actor: Actor, template: str, task_type: str) -> FormChoices:
    """What the form shows for a template, from one read of the workspace's teams."""
    teams = _teams(actor)
    found = teams.get(template) or teams[_default_template(teams, "auto")]
    effective = found.fixed_task_type or (task_type if task_type != "auto" else "code")
    return FormChoices({name: list(team.agent_names) for name, team in teams.items()},
                       sorted({name for team in teams.values() for name in team.tools}),
                       found.default_policy(effective).to_dict())


def default_template(actor: Actor, task_type: str) -> str:
    """The team named like the task type if there is one, else the first that serves several types."""
    return _default_template(_teams(actor), task_type)


def _default_template(teams: dict[str, TeamDefinition], task_type: str) -> str:
    if task_type in teams:
        return task_type
    routing = [n for n, team in teams.items() if team.fixed_task_type is None]
    return routing[0] if routing else next(iter(teams))


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
