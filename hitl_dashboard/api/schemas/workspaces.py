"""Workspaces (issue 41): the slug in a path, what is created or renamed, members and their roles."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import Path
from pydantic import BaseModel, Field

WorkspaceSlug = Annotated[str, Path(pattern=r"^[a-z0-9][a-z0-9-]{1,39}$", description="the workspace's slug")]
Username = Annotated[str, Path(pattern=r"^[a-z0-9][a-z0-9_.-]{1,63}$", description="the member's username")]
WorkspaceRole = Literal["security_reviewer", "product_reviewer", "final_approver", "manager", "workspace_admin"]


class WorkspaceIn(BaseModel):
    slug: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{1,39}$", description="In URLs and API parameters; fixed once made")
    name: str = Field(min_length=1, max_length=100)


class WorkspaceRename(BaseModel):
    name: str = Field(min_length=1, max_length=100)


class WorkspacePublic(BaseModel):
    slug: str
    name: str
    archived_at: datetime | None
    created_at: datetime


class MemberRoles(BaseModel):
    roles: list[WorkspaceRole] = Field(min_length=1, max_length=5, description="The member's roles in the workspace")


class MemberPublic(BaseModel):
    username: str
    display_name: str
    roles: list[str]
    active: bool
