"""The next events of a conversation's AG-UI stream after a cursor, read from stored rows in one
read transaction (so any web worker continues any stream, and what one pass sends is consistent).

Order within a pass: the run's start, new messages (each as start, deltas, end), new approval-gated
tool calls, a state snapshot when what it shows changed, reviews newly waiting, and the run's end
once the conversation is approved or aborted and everything before it was sent."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ag_ui.core import BaseEvent
from sqlmodel import Session, col, func, select

from hitl_dashboard.db.models import Conversation, Message, ReviewRequest, ToolCall
from hitl_dashboard.domain.ag_ui_cursor import StreamCursor
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, TERMINAL_STATUSES
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.ag_ui import events
from hitl_dashboard.services.conversations.conversation_queries import load_conversation, load_progress
from hitl_dashboard.services.transactions import reading
from hitl_dashboard.services.webhooks.webhooks import review_url

MESSAGES_PER_PASS = 100  # a long transcript is sent over several passes, each a short read


@dataclass(frozen=True)
class Batch:
    events: list[tuple[str, BaseEvent]]  # (event id, event), in order
    cursor: StreamCursor  # after the last of them
    more: bool  # more is already stored: ask again at once
    finished: bool  # the run's end was sent (now or before): the stream is over


def check_readable(actor: Actor, conversation_id: int) -> None:
    """NotFound for an unknown conversation. Every signed-in user may read every conversation
    (services/conversations/conversation_queries.py); the route has already checked the token."""
    with reading() as uow:
        load_conversation(uow.session, conversation_id, actor)


def change_mark(conversation_id: int) -> tuple[Any, ...] | None:
    """One cheap read that changes whenever anything the stream shows changes: a message or tool
    call stored (next_seq, the newest call), the status or a turn, a review opened, claimed, decided or
    closed (their number, the sum of their versions, how many are open). An open stream reads this
    each poll and does a whole pass only when it moved. None: no such conversation."""
    def of_reviews(column: Any, *where: Any) -> Any:
        return (select(column).where(ReviewRequest.conversation_id == conversation_id, *where)
                .scalar_subquery())

    with reading() as uow:
        row = uow.session.exec(select(  # type: ignore[call-overload]  # more columns than sqlmodel types
            Conversation.status, Conversation.status_reason, Conversation.task_type, Conversation.next_seq,
            Conversation.checkpoint_version, Conversation.prompt_tokens, Conversation.completion_tokens,
            of_reviews(func.count(col(ReviewRequest.id))),
            of_reviews(func.coalesce(func.sum(col(ReviewRequest.version)), 0)),
            of_reviews(func.count(col(ReviewRequest.id)), col(ReviewRequest.status).in_(OPEN_REVIEW_STATUSES)),
            select(func.coalesce(func.max(col(ToolCall.id)), 0))
            .where(ToolCall.conversation_id == conversation_id).scalar_subquery(),
        ).where(Conversation.id == conversation_id)).first()
        return tuple(row) if row is not None else None


def next_batch(actor: Actor, conversation_id: int, cursor: StreamCursor) -> Batch:
    with reading() as uow:
        return _Pass(uow.session, conversation_id, cursor, actor).run()


class _Pass:
    def __init__(self, session: Session, conversation_id: int, cursor: StreamCursor, actor: Actor) -> None:
        self.session, self.conversation_id, self.cursor, self.actor = session, conversation_id, cursor, actor
        self.sent: list[tuple[str, BaseEvent]] = []

    def _send(self, event: BaseEvent, **moved: Any) -> None:
        self.cursor = dataclasses.replace(self.cursor, **moved)
        self.sent.append((self.cursor.encode(), event))

    def run(self) -> Batch:
        conversation = load_conversation(self.session, self.conversation_id, self.actor)
        if self.cursor.finished:
            return Batch([], self.cursor, more=False, finished=True)
        if not self.cursor.started:
            self._send(events.run_started(conversation), started=True)
        more = self._messages()
        self._tool_calls()
        self._state(conversation)
        self._reviews()
        if not more and conversation.status in TERMINAL_STATUSES:
            self._send(events.run_finished(conversation), finished=True)
        return Batch(self.sent, self.cursor, more=more, finished=self.cursor.finished)

    def _messages(self) -> bool:
        found = list(self.session.exec(
            select(Message).where(Message.conversation_id == self.conversation_id,
                                  col(Message.seq) >= self.cursor.message_seq)
            .order_by(col(Message.seq)).limit(MESSAGES_PER_PASS + 1)))
        for message in found[:MESSAGES_PER_PASS]:
            first = self.cursor.message_part + 1 if message.seq == self.cursor.message_seq else 0
            sent = events.message_events(message)
            for part, event in enumerate(sent):
                if part < first:
                    continue
                done = part == len(sent) - 1  # its end: the next pass starts after this message
                self._send(event, message_seq=message.seq + 1 if done else message.seq,
                           message_part=-1 if done else part)
        return len(found) > MESSAGES_PER_PASS

    def _tool_calls(self) -> None:
        calls = self.session.exec(
            select(ToolCall).where(ToolCall.conversation_id == self.conversation_id,
                                   col(ToolCall.id) >= self.cursor.tool_call_id).order_by(col(ToolCall.id)))
        for call in calls:
            first = self.cursor.tool_call_part + 1 if call.id == self.cursor.tool_call_id else 0
            sent = events.tool_call_events(call)
            for part, event in enumerate(sent):
                if part < first:
                    continue
                done = part == len(sent) - 1
                self._send(event, tool_call_id=call.id + 1 if done else call.id, tool_call_part=-1 if done else part)

    def _reviews(self) -> None:
        waiting = self.session.exec(
            select(ReviewRequest).where(ReviewRequest.conversation_id == self.conversation_id,
                                        col(ReviewRequest.id) > self.cursor.review_id,
                                        col(ReviewRequest.status).in_(OPEN_REVIEW_STATUSES))
            .order_by(col(ReviewRequest.id)))
        for review in waiting:
            self._send(events.review_waiting(review, review_url(review.id)), review_id=review.id)

    def _state(self, conversation: Conversation) -> None:
        state = _state_of(self.session, conversation)
        digest = hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()[:16]
        if digest != self.cursor.state_hash:
            self._send(events.state_snapshot(state), state_hash=digest)


def _state_of(session: Session, conversation: Conversation) -> dict[str, Any]:
    """What a client shows beside the transcript: status, sign-off progress, the open reviews."""
    steps, open_requests = load_progress(session, conversation)
    return {
        "conversation_id": conversation.id, "title": conversation.title, "task_type": conversation.task_type,
        "status": conversation.status, "status_reason": conversation.status_reason,
        "turns": conversation.checkpoint_version, "prompt_tokens": conversation.prompt_tokens,
        "completion_tokens": conversation.completion_tokens,
        "signoff": [{"role": step.role, "approved": step.approved} for step in steps],
        "open_reviews": [{"review_id": r.id, "kind": r.kind, "role": r.required_role, "status": r.status,
                          "version": r.version, "content_hash": r.content_hash, "subject": r.subject_label}
                         for r in open_requests],
    }
