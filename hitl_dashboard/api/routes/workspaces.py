"""/api/workspaces (issue 41): the workspaces the caller is in; the instance admin creates, renames
and archives them; a workspace admin manages its members. A workspace the caller is not in is
answered 404, as if it did not exist."""

from __future__ import annotations

from fastapi import APIRouter, status

from hitl_dashboard.api.deps import CurrentActor
from hitl_dashboard.api.errors import COMMON_RESPONSES, CONFLICT, NOT_FOUND
from hitl_dashboard.api.schemas.workspaces import (
    MemberPublic,
    MemberRoles,
    Username,
    WorkspaceIn,
    WorkspacePublic,
    WorkspaceRename,
    WorkspaceSlug,
)
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.services.workspaces import workspaces

router = APIRouter(prefix="/workspaces", tags=["workspaces"], responses=COMMON_RESPONSES, route_class=StrictJsonRoute)


def _public(row) -> WorkspacePublic:  # noqa: ANN001 - a Workspace row
    return WorkspacePublic.model_validate(row, from_attributes=True)


@router.get("", response_model=list[WorkspacePublic])
def list_workspaces(actor: CurrentActor, include_archived: bool = False) -> list[WorkspacePublic]:
    """The workspaces you are in (the instance admin: all), by name."""
    return [_public(w) for w in workspaces.list_workspaces(actor, include_archived=include_archived)]


@router.post("", response_model=WorkspacePublic, status_code=status.HTTP_201_CREATED, responses=CONFLICT)
def create_workspace(body: WorkspaceIn, actor: CurrentActor) -> WorkspacePublic:
    """The instance admin only. The new workspace starts with the built-in teams and no members."""
    return _public(workspaces.create_workspace(actor, slug=body.slug, name=body.name))


@router.patch("/{slug}", response_model=WorkspacePublic, responses=NOT_FOUND)
def rename_workspace(slug: WorkspaceSlug, body: WorkspaceRename, actor: CurrentActor) -> WorkspacePublic:
    """The instance admin only; the slug (and every link) stays."""
    return _public(workspaces.rename_workspace(actor, slug, name=body.name))


@router.post("/{slug}/archive", response_model=WorkspacePublic, responses=NOT_FOUND)
def archive_workspace(slug: WorkspaceSlug, actor: CurrentActor) -> WorkspacePublic:
    """The instance admin only: its history stays readable to its members; nothing new starts there."""
    return _public(workspaces.archive_workspace(actor, slug))


@router.get("/{slug}/members", response_model=list[MemberPublic], responses=NOT_FOUND)
def list_members(slug: WorkspaceSlug, actor: CurrentActor) -> list[MemberPublic]:
    """Its workspace admins and the instance admin."""
    return [MemberPublic.model_validate(m, from_attributes=True) for m in workspaces.list_members(actor, slug)]


@router.put("/{slug}/members/{username}", response_model=MemberPublic, responses=NOT_FOUND)
def set_member(slug: WorkspaceSlug, username: Username, body: MemberRoles, actor: CurrentActor) -> MemberPublic:
    """Adds the user with these roles, or sets their roles there. Audited in the workspace."""
    member = workspaces.set_member(actor, slug, username=username, roles=list(body.roles))
    return MemberPublic.model_validate(member, from_attributes=True)


@router.delete("/{slug}/members/{username}", response_model=MemberPublic, responses=NOT_FOUND)
def remove_member(slug: WorkspaceSlug, username: Username, actor: CurrentActor) -> MemberPublic:
    """Their open pages lose the workspace within seconds, on every worker."""
    return MemberPublic.model_validate(workspaces.remove_member(actor, slug, username=username), from_attributes=True)
