"""Append to the audit chain inside the caller's transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlmodel import Session, select

from hitl_dashboard.db.models import AuditEvent, utcnow
from hitl_dashboard.domain.audit_chain import GENESIS, event_hash

# Any constant works; it only has to be the same for every writer.
_AUDIT_LOCK_KEY = 7_317_001
# Where a session keeps the newest (seq, hash) it appended, until its transaction ends; the
# anchor publisher (services/audit_anchor.py) publishes it once the transaction has committed.
PENDING_HEAD = "hitl_audit_pending_head"


def pending_head(session: Session) -> tuple[int, str] | None:
    return session.info.get(PENDING_HEAD)


def forget_pending_head(session: Session) -> tuple[int, str] | None:
    return session.info.pop(PENDING_HEAD, None)


def append_audit(
    session: Session,
    *,
    actor: str,
    action: str,
    actor_role: str | None = None,
    conversation_id: int | None = None,
    review_request_id: int | None = None,
    content_hash: str | None = None,
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    if session.get_bind().dialect.name == "postgresql":
        # Serialise appends so two transactions never chain onto the same predecessor.
        session.exec(text(f"SELECT pg_advisory_xact_lock({_AUDIT_LOCK_KEY})"))
    last = session.exec(select(AuditEvent).order_by(AuditEvent.seq.desc()).limit(1)).first()
    event = AuditEvent(
        seq=(last.seq + 1) if last else 1,
        at=utcnow(),
        actor=actor,
        actor_role=actor_role,
        action=action,
        conversation_id=conversation_id,
        review_request_id=review_request_id,
        content_hash=content_hash,
        details=details or {},
        prev_hash=last.hash if last else GENESIS,
        hash="",
    )
    event.hash = event_hash(event.prev_hash, event.payload())
    session.add(event)
    session.info[PENDING_HEAD] = (event.seq, event.hash)
    return event
