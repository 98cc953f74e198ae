"""Append to the audit chain inside the caller's transaction.

append_audit only notes the event on the session; the events are linked into the chain (seq,
prev_hash, hash) and inserted in one go just before the transaction commits (link_pending, a
before_commit listener). So the chain lock, which serialises every writer of the trail, is held
from the link to the commit only: a few milliseconds, not the whole unit of work (issue 12: under
load, decisions queued on it from their first audit append to their commit). The chain stays
gap-free and tamper-evident: each link reads the newest committed event under the lock (PostgreSQL:
an advisory transaction lock; SQLite: BEGIN IMMEDIATE already makes writers take turns), and a
transaction that rolls back inserts nothing."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, text
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm import SessionTransaction
from sqlmodel import Session, select

from hitl_dashboard.db.models import AuditEvent, utcnow
from hitl_dashboard.domain.audit_chain import GENESIS, event_hash

# Any constant works; it only has to be the same for every writer.
_AUDIT_LOCK_KEY = 7_317_001
# Where a session keeps the newest (seq, hash) it appended, until its transaction ends; the
# anchor publisher (services/audit_anchor.py) publishes it once the transaction has committed.
PENDING_HEAD = "hitl_audit_pending_head"
# The events appended in the current transaction, not yet linked into the chain.
PENDING_EVENTS = "hitl_audit_pending_events"


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
    """The event is part of the caller's transaction: it is stored if and only if that commits. Its
    seq, at, prev_hash and hash are set when the transaction commits (read them after the commit)."""
    audit_event = AuditEvent(
        seq=0, at=utcnow(), actor=actor, actor_role=actor_role, action=action, conversation_id=conversation_id,
        review_request_id=review_request_id, content_hash=content_hash, details=details or {},
        prev_hash="", hash="",
    )
    session.info.setdefault(PENDING_EVENTS, []).append(audit_event)
    return audit_event


def link_pending(session: Session) -> None:
    """Link the transaction's events onto the newest committed one and insert them. Runs just before
    the commit (every other change is flushed first, outside the lock); idempotent."""
    events = session.info.pop(PENDING_EVENTS, None)
    if not events:
        return
    session.flush()
    if session.get_bind().dialect.name == "postgresql":
        # Serialise links so two transactions never chain onto the same predecessor; released by the commit.
        session.execute(text(f"SELECT pg_advisory_xact_lock({_AUDIT_LOCK_KEY})"))
    last = session.execute(select(AuditEvent.seq, AuditEvent.hash).order_by(AuditEvent.seq.desc()).limit(1)).first()
    seq, prev = (last[0], last[1]) if last else (0, GENESIS)
    now = utcnow()
    for audit_event in events:
        seq += 1
        audit_event.seq, audit_event.at, audit_event.prev_hash = seq, now, prev
        audit_event.hash = prev = event_hash(prev, audit_event.payload())
        session.add(audit_event)
    session.flush()
    session.info[PENDING_HEAD] = (seq, prev)


def _before_commit(session: OrmSession) -> None:
    link_pending(session)


def _after_soft_rollback(session: OrmSession, previous: SessionTransaction) -> None:
    # The transaction's changes are gone, and so are its events. (A savepoint's rollback keeps them:
    # no service uses savepoints; one that does must drop its own events.)
    if previous.parent is None:
        session.info.pop(PENDING_EVENTS, None)


def _after_transaction_end(session: OrmSession, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # close() without commit ends the transaction without a rollback event
        session.info.pop(PENDING_EVENTS, None)


# On the Session class, at import: whoever can append has imported this module, so no event is left
# unlinked. Registered before services/audit_anchor's listeners, which read the head set here.
for _name, _listener in (("before_commit", _before_commit), ("after_soft_rollback", _after_soft_rollback),
                         ("after_transaction_end", _after_transaction_end)):
    if not event.contains(OrmSession, _name, _listener):
        event.listen(OrmSession, _name, _listener)
