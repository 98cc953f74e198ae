"""What the Rules page's "New rule" form offers: the teams of the caller's workspace, their tools, and
for each tool its declared scalar arguments (each a condition row, empty). A tool whose arguments
cannot be read yet (an MCP tool no conversation has listed) is offered with none: create_rule then
says why no rule can be made for it, beside the tool."""

from __future__ import annotations

from hitl_dashboard.agents.tools import ToolUnavailable, declared_parameters
from hitl_dashboard.db.memberships import resolve_workspace
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.rule_forms import ConditionInput, json_type
from hitl_dashboard.services.teams import versions
from hitl_dashboard.services.transactions import transaction
from hitl_dashboard.teams.model import TeamDefinition

ToolChoices = dict[str, list[ConditionInput]]  # tool -> its condition rows


def rule_form_choices(actor: Actor, workspace: str | None = None) -> dict[str, ToolChoices]:
    """team -> tool -> condition rows, for the workspace the caller acts in (its members read it)."""
    with transaction() as uow:  # versions.current_teams may record the team files' versions
        found = resolve_workspace(uow.session, actor, workspace)
        teams = versions.current_teams(uow.session, found.id)
        return {name: _tools(team) for name, (_, team) in teams.items() if team.tools}


def _tools(team: TeamDefinition) -> ToolChoices:
    choices: ToolChoices = {}
    for tool, definition in sorted(team.tools.items()):
        try:
            schema = declared_parameters(tool, definition) or {}
        except (ToolUnavailable, TypeError, ValueError, NameError):
            schema = {}
        rows = [ConditionInput(name, kind, "", kept=True)
                for name, declared in (schema.get("properties") or {}).items()
                if (kind := json_type(declared))]
        choices[tool] = rows
    return choices
