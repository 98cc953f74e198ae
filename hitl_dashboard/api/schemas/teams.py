"""Team definitions (issue 10): the list, and the name in a path."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path
from pydantic import BaseModel

TeamName = Annotated[str, Path(pattern=r"^[a-z][a-z0-9_-]{0,39}$", description="the team's name")]


class TeamSummaryPublic(BaseModel):
    name: str
    description: str
    agents: list[str]
    task_types: list[str]
    tools: dict[str, str]  # tool name -> approval mode: always | never | when
    speaker_order: str
    source: str  # "built-in" or the file it was read from
