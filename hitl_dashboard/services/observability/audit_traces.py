"""Spans and span events from the audit events a transaction writes (when tracing is on).

- a decision becomes a short "decision <action>" span (reviewer's role, review and conversation
  ids), a child of whatever is current (the API request); the start of a conversation likewise;
- the context of that span is stored with the conversation's next input, so the runner that
  resumes it, in another process, continues the same trace (run_tracing.py);
- every other event (a gate opening a review request, a tool call approved, a claim, an
  escalation) is an event on the current span. A review waiting for days is therefore never an
  open span: it is the event that ended one trace and the decision span that starts the next."""

from __future__ import annotations

from opentelemetry.util.types import AttributeValue
from sqlalchemy import event
from sqlalchemy.orm import Session

from hitl_dashboard.db.audit import observe_written
from hitl_dashboard.db.models import AuditEvent, Conversation
from hitl_dashboard.observability import tracing
from hitl_dashboard.services.observability.audit_metrics import DECISION_ACTIONS

_CARRY = "hitl_trace_carriers"
STARTS_A_CHAIN = (*DECISION_ACTIONS, "conversation.started", "conversation.retried")


def attributes(e: AuditEvent) -> dict[str, AttributeValue]:
    found: dict[str, AttributeValue | None] = {
        "hitl.audit.action": e.action, "hitl.actor": e.actor, "hitl.actor.role": e.actor_role,
        "hitl.conversation.id": e.conversation_id, "hitl.review.id": e.review_request_id}
    for name in ("rule", "role", "to", "tool", "kind"):
        value = e.details.get(name) if isinstance(e.details, dict) else None
        if isinstance(value, (str, int, float, bool)):
            found[f"hitl.{name}"] = value
    return {k: v for k, v in found.items() if v is not None}


def _written(session: Session, events: list[AuditEvent]) -> None:
    # Where the events are made, in the request or run that made them, at its commit (db/audit.py).
    # On PostgreSQL they are linked after the commit by whichever thread's linking round comes
    # first (another request's, another process's), so the linker's copies are never traced: a
    # decision's span would hang under that other request, and its conversation would carry that
    # request's trace to the runner.
    if not tracing.is_on():
        return
    for e in events:
        if e.action in STARTS_A_CHAIN:
            _chain_start(session, e)
        else:
            span = tracing.trace.get_current_span()
            if span.is_recording():
                span.add_event(e.action, attributes(e))


def _chain_start(session: Session, e: AuditEvent) -> None:
    details = e.details if isinstance(e.details, dict) else {}
    name = f"decision {details.get('action', '')}".strip() if e.action in DECISION_ACTIONS else e.action
    attrs = attributes(e)
    if e.action in DECISION_ACTIONS:
        attrs.update({"hitl.decision.action": str(details.get("action", "")),
                      "hitl.reviewer.role": e.actor_role or "", "hitl.override": e.action == "decision.override"})
    span = tracing.tracer().start_span(name, attributes=attrs)
    if e.conversation_id is not None:
        carriers = session.info.setdefault(_CARRY, {})
        carriers[e.conversation_id] = tracing.carrier_of(span)
        _carry(session, e.conversation_id, carriers[e.conversation_id])  # flushed during the commit
    span.end()


def _before_commit(session: Session) -> None:
    """Again at the end: a decision sets the next input after its audit event may have been flushed."""
    for conversation_id, carrier in session.info.get(_CARRY, {}).items():
        _carry(session, conversation_id, carrier)


def _carry(session: Session, conversation_id: int, carrier: dict[str, str]) -> None:
    with session.no_autoflush:
        conversation = session.get(Conversation, conversation_id)
    next_input = conversation.next_input if conversation is not None else None
    if conversation is not None and isinstance(next_input, dict) and next_input.get(tracing.CARRIER_KEY) != carrier:
        # A new dict (not a change inside the old one): the JSON column sees it and the commit writes it.
        conversation.next_input = {**next_input, tracing.CARRIER_KEY: carrier}


def _forget(session: Session, *_) -> None:
    session.info.pop(_CARRY, None)


def _after_transaction_end(session: Session, transaction) -> None:
    if transaction.parent is None:
        _forget(session)


def install() -> None:
    """Idempotent."""
    observe_written(_written)
    for name, listener in (("before_commit", _before_commit), ("after_soft_rollback", _forget),
                           ("after_transaction_end", _after_transaction_end)):
        if not event.contains(Session, name, listener):
            event.listen(Session, name, listener)
