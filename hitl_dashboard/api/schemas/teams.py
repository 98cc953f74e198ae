"""Team definitions (issue 10): the list, and the name in a path."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import Path
from pydantic import BaseModel, Field

TeamName = Annotated[str, Path(pattern=r"^[a-z][a-z0-9_-]{0,39}$", description="the team's name")]


class TeamFileIn(BaseModel):
    yaml: str = Field(min_length=1, description="The team file (docs/teams.md); its name must be the path's")


class TeamVersionPublic(BaseModel):
    team: str
    number: int
    origin: str = Field(description="file (read from a team file), import (CLI) or api")
    source: str = Field(description="The file, for origin file")
    created_by: str | None = Field(description="Who saved it; null when read from a file")
    created_at: datetime
    content_hash: str


class SavedTeamPublic(BaseModel):
    version: TeamVersionPublic
    created: bool = Field(description="false: the file equals the newest version, so no version was made")


class TeamSummaryPublic(BaseModel):
    name: str
    description: str
    agents: list[str]
    task_types: list[str]
    tools: dict[str, str]  # tool name -> approval mode: always | never | when
    speaker_order: str
    source: str  # where its newest version came from: "built-in", a file's path, "import" or "api"
    version: int  # the newest version's number: conversations started now run on it
    saved_by: str | None
    saved_at: datetime
