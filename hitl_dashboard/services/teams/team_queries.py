"""What the CLI and the API say about teams: the list, one team, its file, the schema, the check
of a team file before it is used, and saving one as a new version. The teams are their newest
versions (services/teams/versions.py). Team files carry no secrets (a key value is refused at
validation), so every signed-in user may read them; only an admin saves."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from hitl_dashboard.domain.bounded_input import load_yaml
from hitl_dashboard.domain.errors import InvalidInput, NotFound
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.teams import versions, web_policy
from hitl_dashboard.services.teams.team_checks import check_team
from hitl_dashboard.services.teams.versions import VersionInfo
from hitl_dashboard.teams.catalogue import BUILTIN_DIR
from hitl_dashboard.teams.loading import dump_team, load_team_file
from hitl_dashboard.teams.model import TeamDefinition
from hitl_dashboard.teams.schema import team_json_schema


@dataclass(frozen=True)
class TeamSummary:
    name: str
    description: str
    agents: list[str]
    task_types: list[str]
    tools: dict[str, str]  # name -> approval mode
    speaker_order: str
    source: str  # where its newest version came from: "built-in", a file's path, "import" or "api"
    version: int  # the newest version's number
    saved_by: str | None  # who saved it (None: read from a file)
    saved_at: datetime

    @classmethod
    def of(cls, team: TeamDefinition, version: VersionInfo) -> TeamSummary:
        return cls(team.name, team.description, list(team.agent_names), list(team.task_types),
                   {name: tool.approval for name, tool in team.tools.items()}, team.speaker_order.mode,
                   _source(version), version.number, version.created_by, version.created_at)


def _source(version: VersionInfo) -> str:
    if version.origin != "file":
        return version.origin
    return "built-in" if Path(version.source).parent == BUILTIN_DIR else version.source


def list_teams(actor: Actor | None = None, workspace: str | None = None) -> list[TeamSummary]:
    """actor: the signed-in user (any member may read its workspace's teams); None for the operator's CLI."""
    return [TeamSummary.of(team, version) for version, team in versions.list_current(actor, workspace).values()]


def _newest_version(actor: Actor | None, name: str, workspace: str | None) -> tuple[VersionInfo, TeamDefinition]:
    found = versions.list_current(actor, workspace).get(name)
    if found is None:
        raise NotFound(f"no team named '{name}'")
    return found


def versioned_team_document(actor: Actor | None, name: str, workspace: str | None = None) -> tuple[int, dict[str, Any]]:
    """(the newest version's number, its whole definition as JSON data); NotFound for an unknown name."""
    version, team = _newest_version(actor, name, workspace)
    return version.number, team.model_dump(mode="json")


def export_team(actor: Actor | None, name: str, workspace: str | None = None) -> str:
    """The team as a YAML file that `teams validate` accepts and that loads to the same team."""
    return dump_team(_newest_version(actor, name, workspace)[1])


def team_versions(actor: Actor | None, name: str, workspace: str | None = None) -> list[VersionInfo]:
    """Newest first: number, where it came from, who saved it and when."""
    return versions.versions(actor, name, workspace)


def read_team_file(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}", "file") from exc


def check_declared_name(text: str, name: str) -> None:
    """A file saved as team `name` must call itself that (InvalidInput at 'name'). A file that cannot
    be read that far passes here: the save reports what is wrong with it."""
    try:
        data = load_yaml(text)
    except InvalidInput:
        return
    declared = data.get("name") if isinstance(data, dict) else None
    if isinstance(declared, str) and declared != name:
        raise InvalidInput(f"the file is team '{declared}', not '{name}'", "name")


def save_team(actor: Actor, text: str, *, origin: str = "api",
              workspace: str | None = None) -> tuple[VersionInfo, bool]:
    """A workspace admin saves a team file as the team's newest version there (checked as `teams
    validate` checks a file); (the version, whether it is new: an unchanged file makes none).
    origin "import" is the CLI's, run by the operator: it may name any stdio MCP command, variable, tool
    function and model; a save from the web ("api", "browser") only those the operator allows
    (services/teams/web_policy.py), checked first (check_team imports the functions and providers it
    names), and its version is checked again before it is used."""
    def check(team: TeamDefinition) -> None:
        if origin not in web_policy.OPERATOR_ORIGINS:
            web_policy.check_web_team(team)
        check_team(team, "the team")

    return versions.save_team(actor, text, origin=origin, check=check, workspace=workspace)


def team_schema() -> dict[str, Any]:
    return team_json_schema()


def check_team_file(path: str | Path) -> TeamDefinition:
    """Validate a file as a team: the format, then what the format cannot see (services/teams/team_checks.py)."""
    return check_team(load_team_file(path), str(path))
