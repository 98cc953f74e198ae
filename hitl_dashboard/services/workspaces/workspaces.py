"""Workspaces and their members. The instance admin creates, renames and archives workspaces; a
workspace admin manages the members of theirs. Every change is audited in the workspace it changes;
a workspace the caller is not in is answered as if it did not exist."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlmodel import Session, col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.memberships import find_workspace as find
from hitl_dashboard.db.memberships import missing_workspace as missing
from hitl_dashboard.db.models import User, utcnow
from hitl_dashboard.db.rows import in_workspaces
from hitl_dashboard.db.workspace_models import DEFAULT_WORKSPACE_SLUG, Workspace, WorkspaceMember
from hitl_dashboard.domain.enums import WORKSPACE_ROLES
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound
from hitl_dashboard.domain.permissions import Actor, check_can_manage_users, check_can_manage_workspace
from hitl_dashboard.services.auth.users import get_user_by_name, put_membership
from hitl_dashboard.services.teams import versions
from hitl_dashboard.services.transactions import reading, transaction

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{1,39}$")
_ROLES = {r.value for r in WORKSPACE_ROLES}


@dataclass(frozen=True)
class Member:
    username: str
    display_name: str
    roles: list[str]
    active: bool


def list_workspaces(actor: Actor | None, *, include_archived: bool = False) -> list[Workspace]:
    """The workspaces the actor is in (the instance admin and the CLI: all), by name."""
    with reading() as uow:
        query = select(Workspace).order_by(col(Workspace.name), col(Workspace.id))
        if actor is not None:
            query = query.where(in_workspaces(Workspace.id, actor.visible_workspaces()))
        if not include_archived:
            query = query.where(col(Workspace.archived_at).is_(None))
        return list(uow.session.exec(query))


def workspace_id(slug: str) -> int:
    """The id of the workspace `slug` (the operator's CLI); NotFound if there is none."""
    with reading() as uow:
        return find(uow.session, None, slug).id


def acting_in(actor: Actor, slug: str) -> Actor:
    """The actor bound to the workspace `slug` (an API request's explicit workspace); NotFound if it
    is not one of theirs."""
    with reading() as uow:
        return actor.within(find(uow.session, actor, slug).id, missing(slug))


def workspace_ids() -> list[int]:
    """Every workspace's id (archived ones too: their queues' tabs may still be open). For the live
    feeds, which look up which workspaces' queue feeds a tab watches."""
    with reading() as uow:
        return list(uow.session.exec(select(Workspace.id).order_by(col(Workspace.id))))


def workspace_choices(actor: Actor) -> list[tuple[int, str, str]]:
    """(id, slug, name) of the workspaces the actor may switch to: theirs, not archived, by name; for
    the instance admin, those it is a member of first, then `default` (where a tab lands when it
    names none: for a single-group deployment, where everything is)."""
    member_of = {workspace_id for workspace_id, _roles in actor.memberships}
    return [(w.id, w.slug, w.name) for w in sorted(
        list_workspaces(actor), key=lambda w: (w.id not in member_of, w.slug != DEFAULT_WORKSPACE_SLUG))]


def create_workspace(actor: Actor | None, *, slug: str, name: str) -> Workspace:
    if actor is not None:
        check_can_manage_users(actor)  # the instance admin
    slug, name = (slug or "").strip(), (name or "").strip()
    if not _SLUG.match(slug):
        raise InvalidInput("slug: 2-40 characters, lower-case letters, digits and '-'", "slug")
    if not 1 <= len(name) <= 100:
        raise InvalidInput("a workspace name is 1-100 characters", "name")
    with transaction() as uow:
        if uow.session.exec(select(Workspace.id).where(Workspace.slug == slug)).first() is not None:
            raise Conflict(f"workspace '{slug}' already exists")
        workspace = Workspace(slug=slug, name=name)
        uow.session.add(workspace)
        uow.session.flush()
        versions.sync_workspace(uow.session, workspace.id)  # it starts with the built-in teams
        _audit(uow.session, actor, workspace, "workspace.created", {"slug": slug, "name": name})
        return workspace


def rename_workspace(actor: Actor | None, slug: str, *, name: str) -> Workspace:
    name = (name or "").strip()
    if not 1 <= len(name) <= 100:
        raise InvalidInput("a workspace name is 1-100 characters", "name")
    with transaction() as uow:
        workspace = find(uow.session, actor, slug)
        if actor is not None:
            check_can_manage_users(actor)
        before, workspace.name = workspace.name, name
        uow.session.add(workspace)
        _audit(uow.session, actor, workspace, "workspace.renamed", {"before": before, "after": name})
        return workspace


def archive_workspace(actor: Actor | None, slug: str) -> Workspace:
    """Archived: its history stays readable to its members; nothing new starts there."""
    with transaction() as uow:
        workspace = find(uow.session, actor, slug)
        if actor is not None:
            check_can_manage_users(actor)
        if workspace.archived_at is None:
            workspace.archived_at = utcnow()
            uow.session.add(workspace)
            _audit(uow.session, actor, workspace, "workspace.archived", {"slug": slug})
            uow.commit()
        return workspace


def set_member(actor: Actor | None, slug: str, *, username: str, roles: list[str]) -> Member:
    """Adds the user to the workspace with `roles`, or changes their roles there."""
    unknown = sorted(set(roles) - _ROLES)
    if unknown or not roles:
        raise InvalidInput(f"roles in a workspace: one or more of {', '.join(sorted(_ROLES))}"
                           + (f" (not {', '.join(unknown)})" if unknown else ""), "roles")
    return _change_member(actor, slug, username, sorted(set(roles)))


def remove_member(actor: Actor | None, slug: str, *, username: str) -> Member:
    return _change_member(actor, slug, username, [])


def _change_member(actor: Actor | None, slug: str, username: str, roles: list[str]) -> Member:
    with transaction() as uow:
        workspace = find(uow.session, actor, slug)
        if actor is not None:
            check_can_manage_workspace(actor, workspace.id)
        user = get_user_by_name(uow, username)
        before = put_membership(uow.session, user_id=user.id, workspace_id=workspace.id, roles=roles)
        if not before and not roles:
            raise NotFound(f"{username} is not a member of workspace '{slug}'")
        action = "workspace.member_removed" if not roles else (
            "workspace.member_added" if not before else "workspace.member_changed")
        _audit(uow.session, actor, workspace, action, {"username": username, "before": before, "after": roles})
        user_id = user.id
        member = Member(user.username, user.display_name, roles, user.is_active)
    # Their open tabs check again now: a tab of a removed member loses the workspace at once.
    from hitl_dashboard.services.live import live

    live.publish_sessions_ended(user_id)
    return member


def list_members(actor: Actor | None, slug: str) -> list[Member]:
    """The members of a workspace with their roles there: its workspace admins and the instance admin."""
    with reading() as uow:
        workspace = find(uow.session, actor, slug)
        if actor is not None:
            check_can_manage_workspace(actor, workspace.id)
        rows = uow.session.exec(select(User, WorkspaceMember.roles).join(
            WorkspaceMember, col(WorkspaceMember.user_id) == User.id)
            .where(WorkspaceMember.workspace_id == workspace.id).order_by(User.username)).all()
        return [Member(user.username, user.display_name, sorted(roles), user.is_active) for user, roles in rows]


def _audit(session: Session, actor: Actor | None, workspace: Workspace, action: str, details: dict) -> None:
    role = None if actor is None else ("admin" if actor.is_admin else "workspace_admin")
    append_audit(session, actor=actor.username if actor else "system", actor_role=role, action=action,
                 workspace_id=workspace.id, details={"workspace": workspace.slug, **details})
