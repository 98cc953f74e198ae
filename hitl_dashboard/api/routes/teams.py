"""GET /api/teams, /api/teams/schema, /api/teams/{name}, /api/teams/{name}/versions: the team
definitions, for every signed-in user. A team file holds no secret (a key value is refused when it
is read), so all of it is shown. PUT /api/teams/{name}: an admin saves a new version."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from hitl_dashboard.api.deps import CurrentActor
from hitl_dashboard.api.errors import COMMON_RESPONSES, NOT_FOUND
from hitl_dashboard.api.schemas.teams import (
    SavedTeamPublic,
    TeamFileIn,
    TeamName,
    TeamSummaryPublic,
    TeamVersionPublic,
)
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.services.teams import team_queries
from hitl_dashboard.teams.model import TeamDefinition

VERSION_HEADER = "X-Team-Version"
router = APIRouter(prefix="/teams", tags=["teams"], responses=COMMON_RESPONSES, route_class=StrictJsonRoute)


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
def get_team(name: TeamName, actor: CurrentActor, response: Response) -> dict[str, Any]:
    """The whole definition: agents and prompts, models (keys by environment variable name only),
    tools and their approval modes, speaker order, task types with sign-off chains, gates, SLAs.
    The body is a team file (PUT takes it back as it is); the number of the version it is, as
    on the admin page, is in the X-Team-Version header."""
    number, document = team_queries.versioned_team_document(actor, name)
    response.headers[VERSION_HEADER] = str(number)
    return document


@router.get("/{name}/versions", response_model=list[TeamVersionPublic], responses=NOT_FOUND)
def list_versions(name: TeamName, actor: CurrentActor) -> list[TeamVersionPublic]:
    """Every version, newest first. A conversation runs on the version it started on to its end."""
    return [TeamVersionPublic.model_validate(v, from_attributes=True) for v in team_queries.team_versions(actor, name)]


@router.put("/{name}", response_model=SavedTeamPublic)
def save_team(name: TeamName, body: TeamFileIn, actor: CurrentActor) -> SavedTeamPublic:
    """Admins: the file becomes the team's newest version (a new team if the name is new).
    422 names the first bad field and lists every problem; nothing is saved then. An unchanged
    file makes no version. Every new version is in the audit trail with the fields it changed."""
    team_queries.check_declared_name(body.yaml, name)
    version, created = team_queries.save_team(actor, body.yaml, origin="api")
    return SavedTeamPublic(version=TeamVersionPublic.model_validate(version, from_attributes=True), created=created)
