"""Deactivating and reactivating users: someone who leaves loses every way in at once.

Deactivation, in one transaction with its audit event: the user is marked inactive, every session
and API token of theirs is revoked (so an API call gets 401 at once, on every worker: each request
resolves its token in the database), and the reviews they had claimed go back to their queues
(nobody waits on a reviewer who is gone). After the commit their open browser tabs are told to
check their session again (services/live), which sends them to the sign-in page. Their history
(conversations, decisions, audit events) stays as it was.

Reactivation only lets the user sign in again: the revoked tokens stay revoked, so a token that
leaked while its owner was away never comes back to life; they create new ones.

Both refuse to leave the product without an active admin. Every active user's row is locked first
(PostgreSQL; SQLite's writers already take turns), so two admins deactivating each other at the
same time cannot both succeed."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import update
from sqlmodel import col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import ApiToken, ReviewRequest, User, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import ReviewStatus, Role
from hitl_dashboard.domain.errors import Conflict
from hitl_dashboard.domain.permissions import Actor, check_an_admin_remains, check_can_manage_users
from hitl_dashboard.services.auth.users import get_user_by_name, lock_active_admins
from hitl_dashboard.services.live import live
from hitl_dashboard.services.transactions import transaction


@dataclass(frozen=True)
class Deactivated:
    username: str
    user_id: int
    sessions_revoked: int
    api_tokens_revoked: int
    reviews_released: list[int]


def deactivate_user(by: Actor | None, username: str) -> Deactivated:
    """`by` None is the operator at the CLI. Conflict when already inactive or the last active admin."""
    if by is not None:
        check_can_manage_users(by)
    with transaction() as uow:
        user = get_user_by_name(uow, username)
        assert user.id is not None  # read from the database: it has its id
        others_admin = lock_active_admins(uow, excluding=user.id)
        if not user.is_active:
            raise Conflict(f"user '{username}' is already deactivated")
        if Role.ADMIN.value in user.roles:
            check_an_admin_remains(others_admin, f"deactivate '{username}'")
        user.is_active = False
        uow.session.add(user)
        sessions, api_tokens = _revoke_all_tokens(uow, user.id)
        released = _release_claims(uow, user, by)
        released_ids = [r.id for r in released if r.id is not None]
        append_audit(uow.session, actor=_name(by), actor_role="admin" if by else None, action="user.deactivated",
                     details={"username": username, "sessions_revoked": sessions, "api_tokens_revoked": api_tokens,
                              "reviews_released": released_ids})
        result = Deactivated(username, user.id, sessions, api_tokens, released_ids)
    live.publish_sessions_ended(result.user_id)
    for request in released:
        live.publish_turn(request.conversation_id, (request.required_role,))
    return result


def reactivate_user(by: Actor | None, username: str) -> User:
    """The user may sign in again (with new sessions and tokens). Conflict when already active."""
    if by is not None:
        check_can_manage_users(by)
    with transaction() as uow:
        user = get_user_by_name(uow, username)
        if user.is_active:
            raise Conflict(f"user '{username}' is already active")
        user.is_active = True
        uow.session.add(user)
        append_audit(uow.session, actor=_name(by), actor_role="admin" if by else None, action="user.reactivated",
                     details={"username": username})
        return user


def _revoke_all_tokens(uow: UnitOfWork, user_id: int) -> tuple[int, int]:
    """(sessions, API tokens) revoked now; tokens revoked before keep their own revocation time."""
    counts = {}
    for kind in ("session", "api"):
        counts[kind] = uow.session.exec(
            update(ApiToken).where(col(ApiToken.user_id) == user_id, col(ApiToken.kind) == kind,
                                   col(ApiToken.revoked_at).is_(None))
            .values(revoked_at=utcnow()).execution_options(synchronize_session=False)
        ).rowcount
    return counts["session"], counts["api"]


def _release_claims(uow: UnitOfWork, user: User, by: Actor | None) -> list[ReviewRequest]:
    claimed = list(uow.session.exec(
        select(ReviewRequest).where(col(ReviewRequest.assignee_id) == user.id,
                                    col(ReviewRequest.status) == ReviewStatus.CLAIMED)
        .order_by(col(ReviewRequest.id)).with_for_update()
    ))
    for request in claimed:
        request.status, request.assignee_id, request.claimed_at = ReviewStatus.PENDING, None, None
        request.version += 1
        uow.session.add(request)
        append_audit(uow.session, actor=_name(by), action="review.released",
                     conversation_id=request.conversation_id, review_request_id=request.id,
                     details={"reason": f"{user.username} was deactivated"})
    return claimed


def _name(by: Actor | None) -> str:
    return by.username if by else "system"
