"""Read-side queries about conversations (lists, transcripts)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import select

from hitl_dashboard.db.models import CodeRevision, Conversation, Message, ReviewRequest, without_checkpoint
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, ReviewKind
from hitl_dashboard.domain.errors import NotFound
from hitl_dashboard.domain.signoff import progress
from hitl_dashboard.services.reviews.review_requests import signoff_approvals


@dataclass(frozen=True)
class ConversationSummary:
    id: int
    title: str
    task_type: str
    status: str
    status_reason: str | None
    tokens: int
    created_at: datetime


def list_conversations(
    uow: UnitOfWork, *, status: str | None = None, task_type: str | None = None, limit: int = 50, offset: int = 0
) -> list[ConversationSummary]:
    query = select(Conversation).options(*without_checkpoint()).order_by(Conversation.id.desc()).limit(limit).offset(offset)
    if status:
        query = query.where(Conversation.status == status)
    if task_type:
        query = query.where(Conversation.task_type == task_type)
    return [
        ConversationSummary(
            c.id, c.title, c.task_type, c.status, c.status_reason, c.prompt_tokens + c.completion_tokens, c.created_at
        )
        for c in uow.session.exec(query)
    ]


def get_conversation(uow: UnitOfWork, conversation_id: int) -> Conversation:
    conversation = uow.session.get(Conversation, conversation_id, options=without_checkpoint())
    if conversation is None:
        raise NotFound(f"conversation {conversation_id} does not exist")
    return conversation


def transcript(uow: UnitOfWork, conversation_id: int, *, after_seq: int = 0, limit: int = 500) -> list[Message]:
    get_conversation(uow, conversation_id)
    query = (
        select(Message)
        .where(Message.conversation_id == conversation_id, Message.seq > after_seq)
        .order_by(Message.seq)
        .limit(limit)
    )
    return list(uow.session.exec(query))


@dataclass(frozen=True)
class ConversationDetail:
    conversation: Conversation
    progress: list  # list[SignOffStep] for the content currently under sign-off
    open_requests: list  # list[ReviewRequest]
    revisions: list  # list[CodeRevision], oldest first


def conversation_detail(uow: UnitOfWork, conversation_id: int) -> ConversationDetail:
    conversation = get_conversation(uow, conversation_id)
    requests = list(uow.session.exec(
        select(ReviewRequest).where(ReviewRequest.conversation_id == conversation_id).order_by(ReviewRequest.id)
    ))
    open_requests = [r for r in requests if r.status in OPEN_REVIEW_STATUSES]
    signoffs = [r for r in requests if r.kind == ReviewKind.SIGNOFF and r.status != "dismissed"]
    current_hash = signoffs[-1].content_hash if signoffs else None
    steps = progress(conversation.task_type, signoff_approvals(uow.session, conversation_id), current_hash or "")
    revisions = list(uow.session.exec(
        select(CodeRevision).where(CodeRevision.conversation_id == conversation_id)
        .order_by(CodeRevision.key, CodeRevision.number)
    ))
    return ConversationDetail(conversation, steps, open_requests, revisions)
