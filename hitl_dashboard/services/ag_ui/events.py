"""Stored rows as AG-UI events (the ag-ui-protocol package's models). Every function here is a pure
function of its rows: the same rows always give the same events, which is what lets a client resume
from an event id (domain/ag_ui_cursor.py)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.core.events import TextMessageRole

from hitl_dashboard.db.models import Conversation, Message, ReviewRequest, ToolCall
from hitl_dashboard.domain.enums import ConversationStatus, MessageKind
from hitl_dashboard.domain.token_deltas import deltas

REVIEW_WAITING = "hitl.review_waiting"
# An agent's turn is the assistant speaking; a reviewer's decision note is the human side.
_ROLES: dict[str, TextMessageRole] = {MessageKind.TEXT: "assistant", MessageKind.DECISION: "user"}


def _ms(at: datetime | None) -> int | None:
    return int(at.timestamp() * 1000) if at else None


def thread_id(conversation_id: int) -> str:
    return f"conversation-{conversation_id}"


def run_id(conversation_id: int) -> str:
    # The whole conversation is one run: a pause for review does not end it (no coroutine waits,
    # but the work is not finished); it finishes when the conversation is approved or aborted.
    return f"conversation-{conversation_id}-run"


def message_id(message: Message) -> str:
    return f"conversation-{message.conversation_id}-message-{message.seq}"


def run_started(conversation: Conversation) -> RunStartedEvent:
    return RunStartedEvent(thread_id=thread_id(conversation.id), run_id=run_id(conversation.id),
                           timestamp=_ms(conversation.created_at))


def run_finished(conversation: Conversation) -> RunFinishedEvent:
    outcome = (RunFinishedSuccessOutcome() if conversation.status == ConversationStatus.APPROVED
               else RunFinishedCancelledOutcome())
    return RunFinishedEvent(thread_id=thread_id(conversation.id), run_id=run_id(conversation.id),
                            result={"status": conversation.status, "reason": conversation.status_reason},
                            outcome=outcome, timestamp=_ms(conversation.updated_at))


def message_events(message: Message) -> list[BaseEvent]:
    """Start, the text in token-sized deltas that add up to the stored message, end. Messages are
    stored whole at the end of each turn, so this is how a stored message streams."""
    mid, at = message_id(message), _ms(message.created_at)
    start = TextMessageStartEvent(message_id=mid, role=_ROLES.get(message.kind, "system"),
                                  name=message.source, timestamp=at)
    content: list[BaseEvent] = [TextMessageContentEvent(message_id=mid, delta=piece, timestamp=at)
                                for piece in deltas(message.content)]
    return [start, *content, TextMessageEndEvent(message_id=mid, timestamp=at)]


def tool_call_events(call: ToolCall) -> list[BaseEvent]:
    """A tool call an agent asked for that waits for (or had) a human's approval: the arguments the
    agent proposed. What ran, and its result, follow as a transcript message."""
    cid, at = f"conversation-{call.conversation_id}-tool-call-{call.id}", _ms(call.created_at)
    arguments = json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)
    return [ToolCallStartEvent(tool_call_id=cid, tool_call_name=call.tool_name, timestamp=at),
            ToolCallArgsEvent(tool_call_id=cid, delta=arguments, timestamp=at),
            ToolCallEndEvent(tool_call_id=cid, timestamp=at)]


def review_waiting(review: ReviewRequest, url: str) -> CustomEvent:
    """A review request waiting for a human; deciding it needs its id, version and content hash."""
    return CustomEvent(name=REVIEW_WAITING, timestamp=_ms(review.created_at), value={
        "review_id": review.id, "conversation_id": review.conversation_id, "kind": review.kind,
        "role": review.required_role, "reason": review.reason, "subject": review.subject_label,
        "risk_flags": list(review.risk_flags or []), "version": review.version, "content_hash": review.content_hash,
        "due_at": review.due_at.isoformat() if review.due_at else None, "url": url})


def state_snapshot(state: dict[str, Any]) -> StateSnapshotEvent:
    return StateSnapshotEvent(snapshot=state)
