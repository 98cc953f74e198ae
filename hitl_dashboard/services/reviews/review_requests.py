"""Opening and closing review requests; every change is audited in the same transaction."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import AuditEvent, Conversation, Decision, ReviewRequest, User, utcnow
from hitl_dashboard.db.rows import one_of
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, Action, ReviewKind, ReviewStatus
from hitl_dashboard.domain.signoff import Approval
from hitl_dashboard.domain.sla import due_at
from hitl_dashboard.domain.stored_values import short_label
from hitl_dashboard.services.teams.versions import pinned
from hitl_dashboard.services.webhooks import webhooks
from hitl_dashboard.settings import get_settings

# The roles whose review queues the session's transaction changed (session.info), so the live
# refresh after the commit reloads only those queues.
QUEUES_TOUCHED = "hitl_queues_touched"


def touch_queue(session: Session, role: str) -> None:
    session.info.setdefault(QUEUES_TOUCHED, set()).add(role)


def touched_queues(session: Session) -> tuple[str, ...]:
    return tuple(sorted(session.info.get(QUEUES_TOUCHED, ())))


@dataclass(frozen=True)
class Subject:
    type: str  # message | code_revision | tool_call
    id: int
    label: str
    content_hash: str


def open_request(
    session: Session,
    conversation: Conversation,
    *,
    kind: str,
    role: str,
    rule: str,
    reason: str,
    subject: Subject,
    risk_flags: list[str] | None = None,
    actor: str = "runner",
    escalated_from_id: int | None = None,
) -> ReviewRequest:
    now = utcnow()
    request = ReviewRequest(
        conversation_id=conversation.id,
        workspace_id=conversation.workspace_id,
        kind=kind,
        required_role=role,
        rule=rule,
        reason=reason,
        risk_flags=risk_flags or [],
        subject_type=subject.type,
        subject_id=subject.id,
        subject_label=short_label(subject.label),
        content_hash=subject.content_hash,
        due_at=due_at(now, role, _sla_hours(conversation)),
        escalated_from_id=escalated_from_id,
        created_at=now,
    )
    session.add(request)
    session.flush()
    touch_queue(session, role)
    append_audit(
        session,
        actor=actor,
        action="review.requested",
        conversation_id=conversation.id,
        review_request_id=request.id,
        content_hash=subject.content_hash,
        details={"kind": kind, "role": role, "rule": rule, "reason": reason, "subject": subject.label},
    )
    webhooks.review_requested(session, request, conversation)
    return request


def dismiss_open_requests(session: Session, conversation_id: int, *, actor: str, why: str,
                          keep_id: int | None = None) -> int:
    open_requests = session.exec(_OPEN_REQUESTS, params={"conversation_id": conversation_id}).all()
    count = 0
    for request in open_requests:
        if request.id == keep_id:
            continue
        request.status, request.closed_at = ReviewStatus.DISMISSED, utcnow()
        request.version += 1
        session.add(request)
        touch_queue(session, request.required_role)
        append_audit(session, actor=actor, action="review.dismissed", conversation_id=conversation_id,
                     review_request_id=request.id, content_hash=request.content_hash, details={"why": why})
        count += 1
    return count


# Built once (issue 33: a revision's decision built it each time), with plain parameters (db/rows.py one_of).
_OPEN_REQUESTS = select(ReviewRequest).where(
    ReviewRequest.conversation_id == bindparam("conversation_id"),
    one_of(col(ReviewRequest.status), OPEN_REVIEW_STATUSES))


def signoff_approvals(session: Session, conversation_id: int) -> list[Approval]:
    """Every approval of a sign-off request in the conversation, with the content it approved."""
    rows = session.exec(
        select(Decision.role, Decision.content_hash)
        .join(ReviewRequest, col(ReviewRequest.id) == Decision.review_request_id)
        .where(Decision.conversation_id == conversation_id, Decision.action == Action.APPROVE,
               ReviewRequest.kind == ReviewKind.SIGNOFF)
    ).all()
    return [Approval(role, digest) for role, digest in rows]


def closed_how(session: Session, request: ReviewRequest) -> str:
    """Why a request is no longer open, for the reviewer who lost a race: who did what, when."""
    decision = session.exec(
        select(Decision).where(Decision.review_request_id == request.id).order_by(col(Decision.id).desc()).limit(1)
    ).first()
    decided = decision if decision is not None and request.status == ReviewStatus.DECIDED else None
    who = session.get(User, decided.reviewer_id) if decided and decided.reviewer_id is not None else None
    if decided is not None and decided.rule_id is not None:  # no person: a standing rule decided it
        return describe_closed(request, decision, f"standing rule {decided.rule_id} (automatically)", None)
    dismissal = None
    if request.status == ReviewStatus.DISMISSED:
        dismissal = session.exec(
            select(AuditEvent.actor, AuditEvent.details)
            .where(AuditEvent.review_request_id == request.id, AuditEvent.action == "review.dismissed")
            .order_by(col(AuditEvent.seq).desc()).limit(1)
        ).first()
    return describe_closed(request, decision, who.username if who else None, dismissal)


def describe_closed(request: ReviewRequest, decision: Decision | None, reviewer: str | None,
                    dismissal: tuple[str, Mapping[str, Any] | None] | None) -> str:
    """closed_how's wording, from rows the caller read: the request's latest decision, its
    reviewer's name, and the (actor, details) of its latest review.dismissed event."""
    if decision is not None and request.status == ReviewStatus.DECIDED:
        when = decision.created_at.strftime("%H:%M:%S UTC")
        return f"{decision.action.upper()} by {reviewer or 'a reviewer'} at {when}"
    if request.status == ReviewStatus.DISMISSED:
        if dismissal is None:
            return "dismissed"
        actor, details = dismissal
        return f"dismissed ({(details or {}).get('why')}) by {actor}"
    return f"it is {request.status}"


def _sla_hours(conversation: Conversation) -> dict[str, float]:
    """The server's SLA per role, overridden by what the conversation's team (its version) declares."""
    return get_settings().sla_hours() | pinned(conversation).sla_hours
