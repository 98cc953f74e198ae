"""Browse the audit trail with filters, newest first, keyset-paged by seq."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.permissions import Actor, check_can_read_audit


def list_events(
    uow: UnitOfWork, actor: Actor, *, user: str | None = None, role: str | None = None, action: str | None = None,
    conversation_id: int | None = None, since: datetime | None = None, until: datetime | None = None,
    before_seq: int | None = None, limit: int = 100,
) -> list[AuditEvent]:
    check_can_read_audit(actor)
    query = select(AuditEvent).order_by(AuditEvent.seq.desc()).limit(limit)
    if user:
        query = query.where(AuditEvent.actor == user)
    if role:
        query = query.where(AuditEvent.actor_role == role)
    if action:
        query = query.where(AuditEvent.action == action)
    if conversation_id is not None:
        query = query.where(AuditEvent.conversation_id == conversation_id)
    if since is not None:
        query = query.where(AuditEvent.at >= since)
    if until is not None:
        query = query.where(AuditEvent.at < until)
    if before_seq is not None:
        query = query.where(AuditEvent.seq < before_seq)
    return list(uow.session.exec(query))
