"""Tool-call decisions: each call of a turn is decided on its own; the team resumes once.

An agent turn may ask for several tool calls at once (parallel function calls). Each gets its
own review request and is approved (with its own, possibly edited, arguments) or denied on
its own; deciding one never dismisses another. When the last call of the turn is decided the
conversation goes back to the runner, which runs every approved call once and hands the team
one message with every outcome (services/tool_execution)."""

from __future__ import annotations

import json

from sqlmodel import Session, col, select

from hitl_dashboard.db.models import Conversation, ReviewRequest, ToolCall
from hitl_dashboard.db.rows import get_existing
from hitl_dashboard.domain.enums import (
    OPEN_REVIEW_STATUSES,
    Action,
    ConversationStatus,
    ReviewKind,
    ToolCallStatus,
)
from hitl_dashboard.domain.permissions import Actor


def record_tool_decision(session: Session, actor: Actor, conversation: Conversation, request: ReviewRequest,
                         action: Action, why: str | None, edited: dict | None) -> None:
    """Runs after the request itself was marked decided, in the same transaction, which holds the
    conversation's lock (record_decision): a decision of another call of the turn committed before
    this one, or waits until this one has, so exactly one of them finds none left open."""
    call = get_existing(session, ToolCall, request.subject_id)
    if action == Action.APPROVE:
        call.status = ToolCallStatus.APPROVED
        call.approved_arguments = edited if edited is not None else call.arguments
    else:
        call.status = ToolCallStatus.DENIED
        call.result = f"Reviewer {actor.username} says: {why or 'no reason given'}"
    session.add(call)
    if _still_open(session, conversation.id):
        return  # the other calls of this turn wait for their own decisions
    conversation.next_input = {"type": "tool_execution", "tool_call_ids": turn_call_ids(session, call)}
    conversation.status, conversation.status_reason = ConversationStatus.RUNNING, None
    conversation.turns_since_review = 0


def cancel_pending_calls(session: Session, conversation_id: int, *, why: str) -> None:
    """Calls nobody will decide any more (the conversation ended) never run: they read as denied."""
    for call in session.exec(select(ToolCall).where(ToolCall.conversation_id == conversation_id,
                                                    ToolCall.status == ToolCallStatus.PENDING)):
        call.status, call.result = ToolCallStatus.DENIED, f"Not run: {why}."
        session.add(call)


def _still_open(session: Session, conversation_id: int) -> bool:
    return session.exec(
        select(ReviewRequest.id).where(ReviewRequest.conversation_id == conversation_id,
                                       ReviewRequest.kind == ReviewKind.TOOL_CALL,
                                       col(ReviewRequest.status).in_(OPEN_REVIEW_STATUSES)).limit(1)
    ).first() is not None


def turn_call_ids(session: Session, call: ToolCall) -> list[int]:
    if call.turn == 0:  # recorded before calls knew their turn: one call per resume, as then
        return [call.id]
    return list(session.exec(
        select(ToolCall.id).where(ToolCall.conversation_id == call.conversation_id, ToolCall.turn == call.turn)
        .order_by(col(ToolCall.id))
    ))


def describe_call(tool_name: str, proposed: dict, approved: dict | None = None) -> str:
    """'name({...})', with the proposed arguments beside the approved ones when a reviewer edited them."""
    shown = json.dumps(proposed, sort_keys=True)
    if approved is None or approved == proposed:
        return f"{tool_name}({shown})"
    return f"{tool_name}({json.dumps(approved, sort_keys=True)}) [edited by the reviewer; the agent proposed {shown}]"


def describe_arguments(call: ToolCall) -> str:
    return describe_call(call.tool_name, call.arguments, call.approved_arguments)
