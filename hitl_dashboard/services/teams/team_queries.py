"""What the CLI and the API say about teams: the list, one team, its file, the schema, and the
check of a team file before it is used. Team files carry no secrets (a key value is refused at
validation), so every signed-in user may read them."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.teams.catalogue import BUILTIN_DIR, catalogue, get_team
from hitl_dashboard.teams.loading import TeamFileInvalid, dump_team, load_team_file
from hitl_dashboard.teams.model import SCRIPTED, SERVER, TeamDefinition
from hitl_dashboard.teams.schema import team_json_schema


@dataclass(frozen=True)
class TeamSummary:
    name: str
    description: str
    agents: list[str]
    task_types: list[str]
    tools: dict[str, str]  # name -> approval mode
    speaker_order: str
    source: str  # "built-in" or the file it was read from

    @classmethod
    def of(cls, team: TeamDefinition, source: str) -> TeamSummary:
        return cls(team.name, team.description, list(team.agent_names), list(team.task_types),
                   {name: tool.approval for name, tool in team.tools.items()}, team.speaker_order.mode, source)


def _source(name: str) -> str:
    path = Path(catalogue().sources[name])
    return "built-in" if path.parent == BUILTIN_DIR else str(path)


def list_teams(actor: Actor | None = None) -> list[TeamSummary]:
    """actor: the signed-in user (any role may read); None for the operator's CLI."""
    return [TeamSummary.of(team, _source(name)) for name, team in catalogue().teams.items()]


def team_document(actor: Actor | None, name: str) -> dict[str, Any]:
    """The whole definition as JSON data (NotFound for an unknown name)."""
    return get_team(name).model_dump(mode="json")


def export_team(actor: Actor | None, name: str) -> str:
    """The team as a YAML file that `teams validate` accepts and that loads to the same team."""
    return dump_team(get_team(name))


def team_schema() -> dict[str, Any]:
    return team_json_schema()


def check_team_file(path: str | Path) -> TeamDefinition:
    """Validate a file as a team: the format, then what the format cannot see: its function tools import."""
    team = load_team_file(path)
    problems: list[str] = []
    for name, tool in team.tools.items():
        if tool.function is not None:
            module, _, attribute = tool.function.partition(":")
            try:
                found = getattr(importlib.import_module(module), attribute)
            except (ImportError, AttributeError) as exc:
                problems.append(f"tools.{name}.function: cannot import {tool.function} ({exc})")
            else:
                if not callable(found):
                    problems.append(f"tools.{name}.function: {tool.function} is not a function")
    for name, model in team.models.items():
        if model.provider not in (SCRIPTED, SERVER):
            module, _, attribute = model.provider.rpartition(".")
            try:
                getattr(importlib.import_module(module), attribute)
            except (ImportError, AttributeError, ValueError) as exc:
                problems.append(f"models.{name}.provider: cannot import {model.provider} ({exc}); "
                                "is its autogen-ext extra installed?")
    if problems:
        raise TeamFileInvalid(str(path), problems, problems[0].split(":")[0])
    return team
