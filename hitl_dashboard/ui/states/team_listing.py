"""What the admin teams page lists (issues 10 and 30): every team with its newest version, and the
model clients a team's model may use (those this server can build, and any other the team names)."""

from __future__ import annotations

import dataclasses

from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.teams import team_checks, team_queries
from hitl_dashboard.services.teams.model_choices import usable_providers
from hitl_dashboard.ui.views.formatting import stamp
from hitl_dashboard.ui.views.team_form import ModelRow


@dataclasses.dataclass
class TeamRow:
    name: str = ""
    version: int = 0
    source: str = ""
    saved_by: str = ""
    saved_at: str = ""
    # What today's checks find wrong with its newest version (saved before them: it still runs).
    problems: list[str] = dataclasses.field(default_factory=list)


def team_rows(actor: Actor) -> list[TeamRow]:
    broken = team_checks.saved_team_problems(actor)
    return [TeamRow(t.name, t.version, t.source, t.saved_by or "", stamp(t.saved_at), broken.get(t.name, []))
            for t in team_queries.list_teams(actor)]


def provider_choices(models: list[ModelRow]) -> list[list[str]]:
    """[provider, label]: the clients this server can build, and any other a model of the team names."""
    known = [list(pair) for pair in usable_providers()]
    listed = {value for value, _ in known}
    others = dict.fromkeys(m.provider for m in models if m.provider and m.provider not in listed)
    return known + [[provider, provider.rsplit(".", 1)[-1]] for provider in others]
