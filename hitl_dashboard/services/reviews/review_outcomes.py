"""How the recent review requests of a conversation ended, for the decision panel: who decided
what and when, an override with its reason, and for a tool call what really ran."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select

from hitl_dashboard.db.models import AuditEvent, Decision, ReviewRequest, ToolCall, User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, ReviewKind, ReviewStatus, ToolCallStatus
from hitl_dashboard.services.reviews.review_requests import describe_closed
from hitl_dashboard.services.reviews.tool_decisions import describe_arguments


@dataclass(frozen=True)
class ReviewOutcome:
    review_id: int
    kind: str
    role: str
    subject: str
    outcome: str  # "APPROVE by erin at 12:01:02 UTC", "dismissed (revision requested) by alice"
    override_reason: str  # "" unless an admin decided instead of the role
    tool: str  # for a tool call: what runs / ran, with the edited arguments beside the proposed ones


def recent_outcomes(uow: UnitOfWork, conversation_id: int, *, limit: int = 6) -> list[ReviewOutcome]:
    """Five statements whatever the number of outcomes (the live refresh runs this for every
    change of a watched conversation; one lookup per outcome made it the page's slowest part)."""
    session = uow.session
    closed = session.exec(
        select(ReviewRequest).where(ReviewRequest.conversation_id == conversation_id,
                                    col(ReviewRequest.status).not_in(OPEN_REVIEW_STATUSES))
        .order_by(col(ReviewRequest.closed_at).desc(), col(ReviewRequest.id).desc()).limit(limit)
    ).all()
    if not closed:
        return []
    ids = [r.id for r in closed]
    latest: dict[int, Decision] = {}
    for decision in session.exec(select(Decision).where(col(Decision.review_request_id).in_(ids))
                                 .order_by(col(Decision.id))):
        latest[decision.review_request_id] = decision  # ascending ids: the last one wins
    reviewers = {d.reviewer_id for d in latest.values() if d.reviewer_id is not None}
    names = (dict(session.exec(select(User.id, User.username).where(col(User.id).in_(reviewers))).all())
             if reviewers else {})
    dismissed = [r.id for r in closed if r.status == ReviewStatus.DISMISSED]
    dismissals: dict[int | None, tuple[str, Mapping[str, Any] | None]] = {}
    if dismissed:
        for request_id, actor, details in session.exec(
            select(AuditEvent.review_request_id, AuditEvent.actor, AuditEvent.details)
            .where(col(AuditEvent.review_request_id).in_(dismissed), AuditEvent.action == "review.dismissed")
            .order_by(col(AuditEvent.seq))
        ):
            dismissals[request_id] = (actor, details)
    call_ids = [r.subject_id for r in closed if r.kind == ReviewKind.TOOL_CALL]
    calls = {c.id: c for c in session.exec(select(ToolCall).where(col(ToolCall.id).in_(call_ids)))} if call_ids else {}
    return [_outcome(r, latest.get(r.id), names, dismissals.get(r.id), calls) for r in closed]


def _outcome(request: ReviewRequest, decision: Decision | None, names: dict[int, str],
             dismissal: tuple[str, Mapping[str, Any] | None] | None, calls: dict[int, ToolCall]) -> ReviewOutcome:
    override = decision.override_reason if decision is not None and decision.is_override else ""
    tool = ""
    if request.kind == ReviewKind.TOOL_CALL and request.subject_id in calls:
        tool = _tool_state(calls[request.subject_id])
    reviewer = _decided_by(decision, names)
    return ReviewOutcome(request.id, request.kind, request.required_role, request.subject_label,
                         describe_closed(request, decision, reviewer, dismissal), override or "", tool)


def _decided_by(decision: Decision | None, names: dict[int, str]) -> str | None:
    if decision is None:
        return None
    if decision.reviewer_id is None:  # a standing rule's decision (domain/standing_rules)
        return f"standing rule {decision.rule_id} (automatically)"
    return names.get(decision.reviewer_id)


def _tool_state(call: ToolCall) -> str:
    what = describe_arguments(call)
    if call.status == ToolCallStatus.EXECUTED:
        return f"Ran {what}. Result: {call.result}"
    if call.status == ToolCallStatus.FAILED:
        return f"Tried to run {what}. Result: {call.result}"
    if call.status == ToolCallStatus.DENIED:
        return f"Will not run {what}. {call.result or ''}".strip()
    if call.status == ToolCallStatus.APPROVED:
        return f"Approved to run {what}; waiting for the other calls of this turn or for the runner."
    if call.status == ToolCallStatus.EXECUTING:
        return f"Running {what}."
    return f"{what} is {call.status}."
