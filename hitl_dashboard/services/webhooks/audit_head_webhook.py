"""The audit anchor's webhook sink (docs/audit.md): each committed head of the audit chain as the
event `audit.head`, when AUDIT_ANCHOR_SINKS includes webhook. The delivery is queued inside the
committing transaction (before_commit), like every other webhook event: it is sent only if the
commit succeeds, and survives a crash. The file and log sinks publish after the commit
(services/audit/audit_anchor.py)."""

from __future__ import annotations

from sqlalchemy import event
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session

from hitl_dashboard.db.audit import link_pending, pending_head
from hitl_dashboard.db.models import utcnow
from hitl_dashboard.services.webhooks.webhooks import enqueue_event
from hitl_dashboard.settings import get_settings

WEBHOOK_EVENT = "audit.head"


def _before_commit(session: Session) -> None:
    link_pending(session)  # normally done already by db/audit's own listener, registered first
    head = pending_head(session)
    if head is None or "webhook" not in get_settings().anchor_sinks():
        return
    seq, hash_ = head
    enqueue_event(session, WEBHOOK_EVENT, f"{WEBHOOK_EVENT}:{seq}",
                  {"seq": seq, "hash": hash_, "at": utcnow().isoformat()})


def install() -> None:
    """Idempotent. On SQLAlchemy's Session class: sqlmodel's sessions, which every unit of work opens, included."""
    if not event.contains(OrmSession, "before_commit", _before_commit):
        event.listen(OrmSession, "before_commit", _before_commit)
