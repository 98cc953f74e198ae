"""Overdue review requests escalate (or abort the conversation), exactly once: the conditional
UPDATE on the request's version decides which runner gets to do it, across restarts too.

`escalate_overdue` is the use case the runner loop and the CLI worker call; `escalate_overdue_in`
does the work inside a caller's transaction (a test on another process's database needs it)."""

from __future__ import annotations

from sqlalchemy import update
from sqlmodel import col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import Conversation, ReviewRequest, review_is_open, utcnow, without_checkpoint
from hitl_dashboard.db.rows import get_existing
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, ConversationStatus, ReviewStatus
from hitl_dashboard.domain.sla import escalation_target
from hitl_dashboard.services.external_outcomes.outcomes import conversation_settled
from hitl_dashboard.services.reviews.review_requests import Subject, dismiss_open_requests, open_request
from hitl_dashboard.services.transactions import transaction
from hitl_dashboard.services.webhooks import webhooks


def escalate_overdue(*, limit: int = 200) -> list[int]:
    """Returns the ids of the requests this call escalated or expired."""
    with transaction() as uow:
        return escalate_overdue_in(uow, limit=limit)


def escalate_overdue_in(uow: UnitOfWork, *, limit: int = 200) -> list[int]:
    now = utcnow()
    overdue = uow.session.exec(
        select(ReviewRequest)
        .where(review_is_open(), ReviewRequest.due_at < now)  # ix_reviews_open_due: overdue rows only
        .order_by(col(ReviewRequest.due_at)).limit(limit)
    ).all()
    handled = []
    for request in overdue:
        # The conversation first, then its requests, as a decision and the runner lock them
        # (PostgreSQL: FOR UPDATE), so an escalation and a decision never wait for each other in a cycle.
        conversation = get_existing(uow.session, Conversation, request.conversation_id,
                                    options=without_checkpoint(), with_for_update=True)
        target = escalation_target(request.required_role)
        abort = conversation.on_overdue == "abort" or target is None
        new_status = ReviewStatus.EXPIRED if abort else ReviewStatus.ESCALATED
        won = uow.session.exec(
            update(ReviewRequest)
            .where(col(ReviewRequest.id) == request.id, col(ReviewRequest.version) == request.version,
                   col(ReviewRequest.status).in_(OPEN_REVIEW_STATUSES))
            .values(status=new_status, version=ReviewRequest.version + 1, closed_at=now)
        ).rowcount == 1
        if not won:
            continue
        handled.append(request.id)
        append_audit(uow.session, actor="sla", action=f"review.{new_status}", conversation_id=conversation.id,
                     review_request_id=request.id, content_hash=request.content_hash,
                     details={"due_at": request.due_at.isoformat(), "role": request.required_role, "to": target})
        webhooks.review_escalated(uow.session, request, None if abort else target)
        if abort or target is None:  # no target: abort already (said again for the type checker)
            dismiss_open_requests(uow.session, conversation.id, actor="sla", why="review deadline passed")
            conversation.status = ConversationStatus.ABORTED
            conversation.status_reason = f"{request.required_role} review was overdue (policy: abort)"
            conversation.next_input = None
            uow.session.add(conversation)
            append_audit(uow.session, actor="sla", action="conversation.aborted",
                         conversation_id=conversation.id, details={"reason": conversation.status_reason})
            webhooks.conversation_finished(uow.session, conversation)
            conversation_settled(uow.session, conversation)  # an external caller hears it was denied
            continue
        open_request(
            uow.session, conversation, kind=request.kind, role=target, rule="escalated",
            reason=f"{request.required_role} review overdue since {request.due_at:%Y-%m-%d %H:%M} UTC: "
                   f"{request.reason}",
            subject=Subject(request.subject_type, request.subject_id, request.subject_label, request.content_hash),
            risk_flags=list(request.risk_flags), actor="sla", escalated_from_id=request.id,
        )
    return handled
