"""What an external request's caller waits for, read from the state decisions left behind.

Steps (inside a caller's transaction): `outcome` reads it; `conversation_settled` is what the one
decision path (services/reviews/decide.py), the SLA escalation and an admin's abort call when an
external conversation reaches its end, so the callback is queued in the same transaction."""

from __future__ import annotations

from sqlmodel import Session, col, select

from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.models import Conversation, Decision, ToolCall, User
from hitl_dashboard.domain.enums import Action, ConversationStatus
from hitl_dashboard.domain.external import EXTERNAL, TOOL_CALL, ExternalOutcome, LastDecision, outcome_of
from hitl_dashboard.domain.standing_rules import rule_actor_name
from hitl_dashboard.services.external_outcomes.callbacks import queue_callback


def is_external(conversation: Conversation) -> bool:
    return conversation.origin == EXTERNAL


def request_of(session: Session, conversation_id: int) -> ExternalRequest | None:
    return session.exec(select(ExternalRequest).where(ExternalRequest.conversation_id == conversation_id)).first()


def tool_call_of(session: Session, conversation_id: int) -> ToolCall | None:
    return session.exec(select(ToolCall).where(ToolCall.conversation_id == conversation_id)
                        .order_by(col(ToolCall.id)).limit(1)).first()


def outcome(session: Session, row: ExternalRequest, conversation: Conversation) -> ExternalOutcome:
    call = tool_call_of(session, conversation.id) if row.kind == TOOL_CALL else None
    # A standing rule's decision has no reviewer: it is named as the rule (domain/standing_rules).
    last = session.exec(select(Decision, User.username).outerjoin(User, col(User.id) == col(Decision.reviewer_id))
                        .where(Decision.conversation_id == conversation.id)
                        .order_by(col(Decision.id).desc()).limit(1)).first()
    decision = LastDecision(last[0].action, last[0].reason, last[0].instructions,
                            last[1] or rule_actor_name(last[0].rule_id or 0)) if last else None
    return outcome_of(kind=row.kind, conversation_status=conversation.status,
                      status_reason=conversation.status_reason, call_status=call.status if call else None,
                      approved_arguments=call.approved_arguments if call else None, decision=decision)


def conversation_settled(session: Session, conversation: Conversation) -> None:
    """Step: an external conversation ended (decided, denied, overdue, aborted): tell its caller."""
    if not is_external(conversation):
        return
    row = request_of(session, conversation.id)
    if row is not None:
        session.flush()  # the decision's own changes, so the outcome reads them
        queue_callback(session, row, outcome(session, row, conversation))


def end_status(action: str) -> ConversationStatus:
    """An external conversation has no agents to resume: a decided tool call ends it."""
    return ConversationStatus.APPROVED if action == Action.APPROVE else ConversationStatus.ABORTED
