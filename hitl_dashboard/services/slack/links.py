"""Which product user a Slack user acts as, per workspace: a mapping managed by the workspace's
admins (CLI `slack link`, the admin API). Only a mapped, active member can decide from Slack, on
that workspace's reviews, with exactly the roles that user holds there.

link_user, unlink_user and list_links are use cases (`actor` None is the operator at the CLI);
linked_actor is a step inside the caller's transaction."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import true
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.memberships import target_workspace
from hitl_dashboard.db.models import User
from hitl_dashboard.db.rows import in_workspaces
from hitl_dashboard.db.slack_models import SlackUserLink
from hitl_dashboard.db.workspace_models import Workspace
from hitl_dashboard.domain.enums import Role
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound
from hitl_dashboard.domain.permissions import Actor, check_can_manage_workspace, require_role
from hitl_dashboard.services.auth.users import actor_of, get_user_by_name
from hitl_dashboard.services.transactions import reading, transaction

# Slack's ids: workspace (team) ids start with T (or E for an Enterprise Grid org), user ids with U or W.
_TEAM_ID = re.compile(r"^[TE][A-Z0-9]{2,31}$")
_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,31}$")


@dataclass(frozen=True)
class SlackLink:
    id: int
    slack_team_id: str
    slack_user_id: str
    username: str
    created_at: datetime
    workspace: str  # the slug of the workspace the link acts in


def _check_ids(slack_team_id: str, slack_user_id: str) -> None:
    if not _TEAM_ID.match(slack_team_id or ""):
        raise InvalidInput("slack_team_id: a Slack workspace id such as T0123ABCD", "slack_team_id")
    if not _USER_ID.match(slack_user_id or ""):
        raise InvalidInput("slack_user_id: a Slack user id such as U0123ABCD", "slack_user_id")


def _managed(actor: Actor | None):  # noqa: ANN202 - a SQL condition
    """The links an actor manages: those of the workspaces it is a workspace admin of (the instance
    admin and the CLI: all)."""
    return true() if actor is None else in_workspaces(col(SlackUserLink.workspace_id),
                                                       actor.workspaces_with(Role.WORKSPACE_ADMIN.value))


def link_user(actor: Actor | None, *, slack_team_id: str, slack_user_id: str, username: str,
              workspace: str | None = None) -> SlackLink:
    """Map a Slack user to the product user `username` in a workspace (`workspace`, else the one the
    actor acts in; the CLI's: default): its clicks on that workspace's reviews act as that user
    there. The user must be a member of it. One link per Slack user and workspace."""
    _check_ids(slack_team_id, slack_user_id)
    with transaction() as uow:
        workspace_id = target_workspace(uow.session, actor, workspace)
        if actor is not None:
            check_can_manage_workspace(actor, workspace_id)
        user = get_user_by_name(uow, username)
        if not actor_of(user).sees(workspace_id):
            raise NotFound(f"{username} is not a member of this workspace: add them first")
        row = SlackUserLink(slack_team_id=slack_team_id, slack_user_id=slack_user_id, user_id=user.id,
                            workspace_id=workspace_id, created_by=actor.user_id if actor else None)
        uow.session.add(row)
        try:
            uow.session.flush()
        except IntegrityError:
            raise Conflict(f"Slack user {slack_team_id}/{slack_user_id} is already linked in this workspace; "
                           "unlink it first") from None
        append_audit(uow.session, actor=actor.username if actor else "system", actor_role=_role(actor),
                     action="slack.user_linked", workspace_id=workspace_id,
                     details={"link_id": row.id, "slack_team_id": slack_team_id,
                              "slack_user_id": slack_user_id, "username": username})
        return SlackLink(row.id, slack_team_id, slack_user_id, username, row.created_at,
                         _slug(uow.session, workspace_id))


def unlink_user(actor: Actor | None, link_id: int) -> None:
    """A link of a workspace the actor does not administer is answered as one that does not exist."""
    if actor is not None:
        require_role(actor, Role.ADMIN.value, Role.WORKSPACE_ADMIN.value, what="manage Slack links")
    with transaction() as uow:
        row = uow.session.exec(select(SlackUserLink).where(SlackUserLink.id == link_id, _managed(actor))).first()
        if row is None:
            raise NotFound(f"Slack link {link_id} does not exist")
        user = uow.session.get(User, row.user_id)
        append_audit(uow.session, actor=actor.username if actor else "system", actor_role=_role(actor),
                     action="slack.user_unlinked", workspace_id=row.workspace_id, details={
                         "link_id": row.id, "slack_team_id": row.slack_team_id, "slack_user_id": row.slack_user_id,
                         "username": user.username if user else None})
        uow.session.delete(row)


def list_links(actor: Actor | None) -> list[SlackLink]:
    """The links of the workspaces the actor administers (`actor` None: the operator's CLI, all)."""
    if actor is not None:
        require_role(actor, Role.ADMIN.value, Role.WORKSPACE_ADMIN.value, what="list Slack links")
    with reading() as uow:
        rows = uow.session.exec(
            select(SlackUserLink, User.username, Workspace.slug)
            .join(User, col(User.id) == col(SlackUserLink.user_id))
            .join(Workspace, col(Workspace.id) == col(SlackUserLink.workspace_id))
            .where(_managed(actor)).order_by(col(SlackUserLink.id)))
        return [SlackLink(link.id, link.slack_team_id, link.slack_user_id, username, link.created_at, slug)
                for link, username, slug in rows]


def linked_actor(session: Session, slack_team_id: str, slack_user_id: str, workspace_id: int | None) -> Actor | None:
    """Step: the active product user this Slack user is linked to in `workspace_id` (a review's),
    acting there only; None when unlinked there, deactivated, or no longer a member of it."""
    if workspace_id is None:
        return None
    user = session.exec(
        select(User).join(SlackUserLink, col(SlackUserLink.user_id) == col(User.id))
        .where(SlackUserLink.slack_team_id == slack_team_id, SlackUserLink.slack_user_id == slack_user_id,
               SlackUserLink.workspace_id == workspace_id)
    ).first()
    if user is None or not user.is_active:
        return None
    actor = actor_of(user)
    return actor.within(workspace_id, "") if actor.sees(workspace_id) else None


def _role(actor: Actor | None) -> str | None:
    if actor is None:
        return None
    return "admin" if actor.is_admin else Role.WORKSPACE_ADMIN.value


def _slug(session: Session, workspace_id: int) -> str:
    workspace = session.get(Workspace, workspace_id)
    return workspace.slug if workspace else ""
