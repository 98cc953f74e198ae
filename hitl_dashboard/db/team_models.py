"""Team versions (issue 10): every saved team definition, immutable. A conversation pins the
version it started on (conversations.team_version_id) and keeps it to the end."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from hitl_dashboard.db.models import utcnow


class TeamVersion(SQLModel, table=True):
    __tablename__ = "team_versions"
    __table_args__ = (
        UniqueConstraint("workspace_id", "team", "number", name="uq_team_versions_workspace_team_number"),
    )
    id: int = Field(default=None, primary_key=True)
    workspace_id: int  # a team's name is its workspace's
    team: str = Field(max_length=40, index=True)
    number: int  # 1, 2, 3... per team of a workspace
    definition: str = Field(sa_column=Column(Text, nullable=False))  # the team file (YAML), as saved
    content_hash: str = Field(max_length=64)  # of the definition: a save that changes nothing is no version
    origin: str = Field(max_length=8)  # file (read from a team file) | import (CLI) | api | browser
    source: str = Field(default="", max_length=300)  # the file it came from, for origin file
    created_by: int | None = Field(default=None, foreign_key="users.id")  # None: read from a file
    created_at: datetime = Field(default_factory=utcnow)
