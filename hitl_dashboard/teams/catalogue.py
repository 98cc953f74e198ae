"""The teams this process knows: the built-in files next to this module plus, if set, the files
in TEAMS_DIR. Loaded once, at start-up (a bad file stops the start with its error)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from hitl_dashboard.domain.errors import InvalidInput, NotFound
from hitl_dashboard.settings import get_settings
from hitl_dashboard.teams.loading import load_team_file
from hitl_dashboard.teams.model import TeamDefinition

BUILTIN_DIR = Path(__file__).resolve().parent
_reads = itertools.count(1)


@dataclass(frozen=True)
class TeamCatalogue:
    teams: dict[str, TeamDefinition]
    sources: dict[str, str]  # team name -> the file it came from
    # Which read of the files this is, unique in the process: what has been done for a read (its
    # versions stored in a database) is remembered by this, never by id(), which a later read can
    # reuse once this one is gone.
    read: int = field(default_factory=lambda: next(_reads), compare=False)


def _files() -> list[Path]:
    files = sorted(BUILTIN_DIR.glob("*.yaml"))
    extra = get_settings().teams_dir
    if extra is not None:
        if not extra.is_dir():
            raise InvalidInput(f"TEAMS_DIR {extra} is not a directory", "TEAMS_DIR")
        files += sorted(extra.glob("*.yaml")) + sorted(extra.glob("*.yml"))
    return files


def load_catalogue() -> TeamCatalogue:
    teams: dict[str, TeamDefinition] = {}
    sources: dict[str, str] = {}
    for path in _files():
        team = load_team_file(path)
        if team.name in teams:
            raise InvalidInput(f"{path}: team '{team.name}' is already defined in {sources[team.name]}", "name")
        teams[team.name] = team
        sources[team.name] = str(path)
    # Single-task teams first (code, copy, ops), then the routing ones; by name within each.
    order = sorted(teams, key=lambda n: (teams[n].fixed_task_type is None, n))
    return TeamCatalogue({n: teams[n] for n in order}, sources)


@lru_cache(maxsize=1)
def catalogue() -> TeamCatalogue:
    return load_catalogue()


def reset_catalogue() -> None:
    catalogue.cache_clear()


def team_names() -> list[str]:
    return list(catalogue().teams)


def find_team(name: str | None) -> TeamDefinition | None:
    return catalogue().teams.get(name or "")


def get_team(name: str) -> TeamDefinition:
    team = find_team(name)
    if team is None:
        raise NotFound(f"no team named '{name}'")
    return team

