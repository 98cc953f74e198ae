"""GET /api/teams, /api/teams/schema, /api/teams/{name}: the team definitions, for every signed-in
user. A team file holds no secret (a key value is refused when it is read), so all of it is shown."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from hitl_dashboard.api.deps import CurrentActor
from hitl_dashboard.api.errors import COMMON_RESPONSES, NOT_FOUND
from hitl_dashboard.api.schemas.teams import TeamName, TeamSummaryPublic
from hitl_dashboard.services.teams import team_queries
from hitl_dashboard.teams.model import TeamDefinition

router = APIRouter(prefix="/teams", tags=["teams"], responses=COMMON_RESPONSES)


@router.get("", response_model=list[TeamSummaryPublic])
def list_teams(actor: CurrentActor) -> list[TeamSummaryPublic]:
    """The teams this server runs: built-in ones first, then those of TEAMS_DIR."""
    return [TeamSummaryPublic.model_validate(t, from_attributes=True) for t in team_queries.list_teams(actor)]


# Before /{name}: "schema" would otherwise be read as a team's name (a name no team may take).
@router.get("/schema", response_model=dict[str, Any])
def schema(actor: CurrentActor) -> dict[str, Any]:
    """The JSON Schema of a team file (also published as docs/team.schema.json)."""
    return team_queries.team_schema()


@router.get("/{name}", response_model=TeamDefinition, responses=NOT_FOUND)
def get_team(name: TeamName, actor: CurrentActor) -> dict[str, Any]:
    """The whole definition: agents and prompts, models (keys by environment variable name only),
    tools and their approval modes, speaker order, task types with sign-off chains, gates, SLAs."""
    return team_queries.team_document(actor, name)
