"""One runner per conversation: a lease row with expiry, taken and renewed by conditional UPDATEs
(safe on SQLite and PostgreSQL alike; a dead runner's lease simply expires)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import or_, update
from sqlmodel import Session, col, select

from hitl_dashboard.db.models import Conversation, utcnow
from hitl_dashboard.domain.enums import ConversationStatus
from hitl_dashboard.observability import metrics
from hitl_dashboard.observability.on_commit import on_commit


def runnable_ids(session: Session, limit: int = 20) -> list[int]:
    now = utcnow()
    query = (
        select(Conversation.id)
        .where(
            Conversation.status == ConversationStatus.RUNNING,
            or_(col(Conversation.lease_expires_at).is_(None), col(Conversation.lease_expires_at) < now),
        )
        .order_by(col(Conversation.updated_at))
        .limit(limit)
    )
    return list(session.exec(query))


def try_take(session: Session, conversation_id: int, owner: str, seconds: float) -> bool:
    now = utcnow()
    holder = session.exec(select(Conversation.lease_owner).where(Conversation.id == conversation_id)).first()
    result = session.exec(
        update(Conversation)
        .where(
            col(Conversation.id) == conversation_id,
            col(Conversation.status) == ConversationStatus.RUNNING,
            or_(col(Conversation.lease_expires_at).is_(None), col(Conversation.lease_expires_at) < now),
        )
        .values(lease_owner=owner, lease_expires_at=now + timedelta(seconds=seconds))
    )
    if result.rowcount == 1 and holder not in (None, owner):  # an expired lease of a runner that died
        on_commit(session, metrics.lease_takeover)
    return result.rowcount == 1


def renew(session: Session, conversation_id: int, owner: str, seconds: float) -> bool:
    """False once the lease is gone: expired and taken over, or cleared by an admin's abort."""
    result = session.exec(
        update(Conversation)
        .where(col(Conversation.id) == conversation_id, col(Conversation.lease_owner) == owner,
               col(Conversation.status) == ConversationStatus.RUNNING)
        .values(lease_expires_at=utcnow() + timedelta(seconds=seconds))
    )
    return result.rowcount == 1


def renew_held(conversation: Conversation | None, owner: str, seconds: float) -> bool:
    """`renew` for a row already read under lock (one statement less per turn: the new expiry is
    written with the turn's other changes to the row)."""
    if (conversation is None or conversation.lease_owner != owner
            or conversation.status != ConversationStatus.RUNNING):
        return False
    conversation.lease_expires_at = utcnow() + timedelta(seconds=seconds)
    return True


def release(session: Session, conversation_id: int, owner: str) -> None:
    session.exec(
        update(Conversation)
        .where(col(Conversation.id) == conversation_id, col(Conversation.lease_owner) == owner)
        .values(lease_owner=None, lease_expires_at=None)
    )


def any_running(session: Session) -> bool:
    """A running conversation that some runner holds or will take: not one backing off after crashes
    (no owner, expiry in the future), which `run_turns_until_idle` must not wait minutes for."""
    query = select(Conversation.id).where(
        Conversation.status == ConversationStatus.RUNNING,
        or_(col(Conversation.lease_owner).is_not(None), col(Conversation.lease_expires_at).is_(None),
            col(Conversation.lease_expires_at) < utcnow()),
    ).limit(1)
    return session.exec(query).first() is not None
