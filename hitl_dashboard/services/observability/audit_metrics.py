"""Decision, SLA-breach and escalation metrics, counted from the audit events a transaction commits.

Every state change writes its audit event in the same transaction (DESIGN.md), so watching the
events flushed and counting them once that transaction commits counts every decision and every
overdue request exactly once, whichever service, process or edge did it, with no hook in the
decision path itself. db/audit.py tells of a transaction's events at its commit (on PostgreSQL, as
they go to audit_outbox, to be linked into the chain afterwards by another session): they are counted
in the transaction that made them (where its review request is already loaded: no query), never
again in the linker's."""

from __future__ import annotations

from sqlalchemy.orm import Session

from hitl_dashboard.db.audit import observe_written
from hitl_dashboard.db.models import AuditEvent, ReviewRequest
from hitl_dashboard.observability import metrics
from hitl_dashboard.observability.on_commit import on_commit

DECISION_ACTIONS = ("decision.recorded", "decision.override")
OVERDUE_ACTIONS = ("review.escalated", "review.expired")


def _written(session: Session, events: list[AuditEvent]) -> None:
    for e in events:
        _count(session, e)


def _count(session: Session, e: AuditEvent) -> None:
    if e.action in DECISION_ACTIONS:
        role = e.actor_role or "unknown"
        on_commit(session, metrics.decision, str(e.details.get("action", "unknown")), role,
                  _waited_s(session, e))
    elif e.action in OVERDUE_ACTIONS:
        on_commit(session, metrics.overdue, str(e.details.get("role", "unknown")),
                  e.details.get("to") if e.action == "review.escalated" else None)


def _waited_s(session: Session, e: AuditEvent) -> float | None:
    if e.review_request_id is None:
        return None
    with session.no_autoflush:  # the decision path loaded the request: usually no query at all
        request = session.get(ReviewRequest, e.review_request_id)
    if request is None or request.created_at is None:
        return None
    return (e.at - request.created_at).total_seconds()


def install() -> None:
    """Idempotent."""
    observe_written(_written)
