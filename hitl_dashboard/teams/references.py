"""Every name a team file uses for another part of itself (an agent, a model, a tool, a scripted
role) must name something that exists. One list, two uses:

- `needed`: without it the team cannot even be built (an agent's model, a producer...). The format
  refuses these (teams/model.py), so no stored version has one.
- the rest (a gate on a tool the team does not have, a scripted role that does not exist) are
  refused where a team is written (services/teams/team_checks.check_team); a version saved
  before this check keeps loading, so a conversation pinned to it still runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hitl_dashboard.domain.names import unknown_name

if TYPE_CHECKING:
    from hitl_dashboard.teams.model import TeamDefinition

# The built-in scripts of the scripted model a `plays` may name (agents/scripted/model.py).
SCRIPTED_PLAYS = ("planner", "coder", "copywriter", "operator")


@dataclass(frozen=True)
class BadReference:
    field: str
    message: str
    needed: bool  # the team cannot be built with it

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


def bad_references(team: TeamDefinition) -> list[BadReference]:
    agents, models, tools = list(team.agent_names), list(team.models), list(team.tools)
    found: list[BadReference] = []

    def check(field: str, name: str, kind: str, allowed: list[str], needed: bool) -> None:
        if name not in allowed:
            found.append(BadReference(field, unknown_name(name, kind, allowed, "of this team"), needed))

    for agent in team.agents:
        check(f"agents.{agent.name}.model", agent.model, "model", models, True)
        for tool in agent.tools:
            check(f"agents.{agent.name}.tools", tool, "tool", tools, True)
    for task_type, spec in team.task_types.items():
        check(f"task_types.{task_type}.producer", spec.producer, "agent", agents, True)
    if team.speaker_order.planner is not None:
        check("speaker_order.planner", team.speaker_order.planner, "agent", agents, True)
    for gated in team.gates.agents or ():
        check("gates.agents", gated, "agent", agents, True)
    for tool in team.gates.tools:
        check("gates.tools", tool, "tool", tools, False)
    for name, model in team.models.items():
        plays = model.config.get("plays")
        if model.provider == "scripted" and plays is not None:
            check(f"models.{name}.config.plays", str(plays), "scripted role", list(SCRIPTED_PLAYS), False)
    return found
