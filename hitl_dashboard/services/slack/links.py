"""Which product user a Slack user acts as: an admin-managed mapping (CLI `slack link`, the admin
API). Only a mapped, active user can decide from Slack, and then with exactly that user's rights.

link_user, unlink_user and list_links are use cases (`actor` None is the operator at the CLI);
linked_actor is a step inside the caller's transaction."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import User
from hitl_dashboard.db.slack_models import SlackUserLink
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound
from hitl_dashboard.domain.permissions import Actor, check_can_manage_users
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


def _check_ids(slack_team_id: str, slack_user_id: str) -> None:
    if not _TEAM_ID.match(slack_team_id or ""):
        raise InvalidInput("slack_team_id: a Slack workspace id such as T0123ABCD", "slack_team_id")
    if not _USER_ID.match(slack_user_id or ""):
        raise InvalidInput("slack_user_id: a Slack user id such as U0123ABCD", "slack_user_id")


def link_user(actor: Actor | None, *, slack_team_id: str, slack_user_id: str, username: str) -> SlackLink:
    """Map a Slack user to the product user `username`; a Slack user maps to one product user."""
    if actor is not None:
        check_can_manage_users(actor)
    _check_ids(slack_team_id, slack_user_id)
    with transaction() as uow:
        user = get_user_by_name(uow, username)
        row = SlackUserLink(slack_team_id=slack_team_id, slack_user_id=slack_user_id, user_id=user.id,
                            created_by=actor.user_id if actor else None)
        uow.session.add(row)
        try:
            uow.session.flush()
        except IntegrityError:
            raise Conflict(f"Slack user {slack_team_id}/{slack_user_id} is already linked; unlink it first") from None
        append_audit(uow.session, actor=actor.username if actor else "system", actor_role="admin" if actor else None,
                     action="slack.user_linked", details={"link_id": row.id, "slack_team_id": slack_team_id,
                                                          "slack_user_id": slack_user_id, "username": username})
        return SlackLink(row.id, slack_team_id, slack_user_id, username, row.created_at)


def unlink_user(actor: Actor | None, link_id: int) -> None:
    if actor is not None:
        check_can_manage_users(actor)
    with transaction() as uow:
        row = uow.session.get(SlackUserLink, link_id)
        if row is None:
            raise NotFound(f"Slack link {link_id} does not exist")
        user = uow.session.get(User, row.user_id)
        append_audit(uow.session, actor=actor.username if actor else "system", actor_role="admin" if actor else None,
                     action="slack.user_unlinked", details={
                         "link_id": row.id, "slack_team_id": row.slack_team_id, "slack_user_id": row.slack_user_id,
                         "username": user.username if user else None})
        uow.session.delete(row)


def list_links(actor: Actor | None) -> list[SlackLink]:
    if actor is not None:
        check_can_manage_users(actor)
    with reading() as uow:
        rows = uow.session.exec(select(SlackUserLink, User.username)
                                .join(User, col(User.id) == col(SlackUserLink.user_id)).order_by(col(SlackUserLink.id)))
        return [SlackLink(link.id, link.slack_team_id, link.slack_user_id, username, link.created_at)
                for link, username in rows]


def linked_actor(session: Session, slack_team_id: str, slack_user_id: str) -> Actor | None:
    """Step: the active product user this Slack user is mapped to, or None (unmapped or deactivated)."""
    user = session.exec(
        select(User).join(SlackUserLink, col(SlackUserLink.user_id) == col(User.id))
        .where(SlackUserLink.slack_team_id == slack_team_id, SlackUserLink.slack_user_id == slack_user_id)
    ).first()
    return actor_of(user) if user is not None and user.is_active else None
