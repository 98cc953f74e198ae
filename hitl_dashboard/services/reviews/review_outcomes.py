"""How the recent review requests of a conversation ended, for the decision panel: who decided
what and when, an override with its reason, and for a tool call what really ran."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import select

from hitl_dashboard.db.models import Decision, ReviewRequest, ToolCall
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, ReviewKind, ToolCallStatus
from hitl_dashboard.services.reviews.review_requests import closed_how
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
    closed = uow.session.exec(
        select(ReviewRequest).where(ReviewRequest.conversation_id == conversation_id,
                                    ReviewRequest.status.not_in(OPEN_REVIEW_STATUSES))
        .order_by(ReviewRequest.closed_at.desc(), ReviewRequest.id.desc()).limit(limit)
    ).all()
    return [_outcome(uow, r) for r in closed]


def _outcome(uow: UnitOfWork, request: ReviewRequest) -> ReviewOutcome:
    decision = uow.session.exec(
        select(Decision).where(Decision.review_request_id == request.id).order_by(Decision.id.desc()).limit(1)
    ).first()
    override = decision.override_reason if decision is not None and decision.is_override else ""
    tool = ""
    if request.kind == ReviewKind.TOOL_CALL:
        tool = _tool_state(uow.session.get(ToolCall, request.subject_id))
    return ReviewOutcome(request.id, request.kind, request.required_role, request.subject_label,
                         closed_how(uow.session, request), override or "", tool)


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
