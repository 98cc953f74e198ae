"""Workspaces (issue 41): an organisation's groups, each seeing and deciding only its own work. A
person holds roles per workspace (a membership); the instance admin (users.roles) acts in any."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, SQLModel

from hitl_dashboard.db.models import utcnow

# The workspace the upgrade to 0020 puts every existing row in (and the one a single-group
# deployment keeps using): its slug never changes, so links to it keep working.
DEFAULT_WORKSPACE_SLUG = "default"


class Workspace(SQLModel, table=True):
    __tablename__ = "workspaces"
    id: int = Field(default=None, primary_key=True)
    slug: str = Field(max_length=40, unique=True)  # in URLs and API parameters; fixed once made
    name: str = Field(max_length=100)
    archived_at: datetime | None = None  # archived: read-only history, nothing new starts there
    created_at: datetime = Field(default_factory=utcnow)


class WorkspaceMember(SQLModel, table=True):
    __tablename__ = "workspace_members"
    __table_args__ = (UniqueConstraint("workspace_id", "user_id", name="uq_workspace_members_workspace_user"),)
    id: int = Field(default=None, primary_key=True)
    workspace_id: int = Field(foreign_key="workspaces.id")
    user_id: int = Field(foreign_key="users.id", index=True)
    roles: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
