"""Read-side queries about conversations (lists, details, transcripts).

Every signed-in user may read every conversation: reviewers of any role need the whole context,
so the queries take the actor without refusing anyone (None: the operator at the CLI, or the
server refreshing a feed shared by several viewers). load_messages and load_detail are
steps for other services' transactions (load_conversation is db/lookups.py's)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sqlmodel import Session, col, select

from hitl_dashboard.db.lookups import load_conversation
from hitl_dashboard.db.models import CodeRevision, Conversation, Message, ReviewRequest
from hitl_dashboard.db.team_models import TeamVersion
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, ReviewKind
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.signoff import progress
from hitl_dashboard.services.conversations.suggestions import suggestion_statuses
from hitl_dashboard.services.reviews.review_requests import signoff_approvals
from hitl_dashboard.services.teams.versions import pinned
from hitl_dashboard.services.transactions import reading

TRANSCRIPT_PAGE = 500


def transcript(actor: Actor | None, conversation_id: int, *, after_seq: int = 0, limit: int = 500) -> list[Message]:
    """Messages after `after_seq`, oldest first. NotFound for an unknown conversation."""
    with reading() as uow:
        return load_messages(uow.session, conversation_id, actor, after_seq=after_seq, limit=limit)


def transcript_pages(actor: Actor | None, conversation_id: int, *, after_seq: int = 0,
                     page_size: int = TRANSCRIPT_PAGE) -> Iterator[list[Message]]:
    """Every message after `after_seq`, a page at a time. One short read per page: a slow reader
    (a streamed export) never holds the database for the whole transcript."""
    while True:
        page = transcript(actor, conversation_id, after_seq=after_seq, limit=page_size)
        if page:
            yield page
        if len(page) < page_size:
            return
        after_seq = page[-1].seq


def load_messages(session: Session, conversation_id: int, actor: Actor | None, *, after_seq: int = 0,
                  limit: int = 500) -> list[Message]:
    """Step: see transcript."""
    load_conversation(session, conversation_id, actor)
    query = (
        select(Message)
        .where(Message.conversation_id == conversation_id, Message.seq > after_seq)
        .order_by(col(Message.seq))
        .limit(limit)
    )
    return list(session.exec(query))


@dataclass(frozen=True)
class ConversationDetail:
    conversation: Conversation
    progress: list  # list[SignOffStep] for the content currently under sign-off
    open_requests: list  # list[ReviewRequest]
    revisions: list  # list[CodeRevision], oldest first
    team_version: int | None = None  # the number of the team version it runs on (None: before versions)
    suggestions: list = field(default_factory=list)  # list[SuggestionStatus] (services/conversations/suggestions.py)


def conversation_detail(actor: Actor | None, conversation_id: int) -> ConversationDetail:
    """Status, sign-off progress of the content under review, open review requests, revisions."""
    with reading() as uow:
        return load_detail(uow.session, conversation_id, actor)


def load_detail(session: Session, conversation_id: int, actor: Actor | None) -> ConversationDetail:
    """Step: see conversation_detail."""
    conversation = load_conversation(session, conversation_id, actor)
    steps, open_requests = load_progress(session, conversation)
    revisions = list(session.exec(
        select(CodeRevision).where(CodeRevision.conversation_id == conversation_id)
        .order_by(CodeRevision.key, col(CodeRevision.number))
    ))
    version = session.get(TeamVersion, conversation.team_version_id) if conversation.team_version_id else None
    return ConversationDetail(conversation, steps, open_requests, revisions, version.number if version else None,
                              suggestion_statuses(session, conversation_id, revisions))


def load_progress(session: Session, conversation: Conversation) -> tuple[list, list]:
    """Step: the sign-off progress of the content under review, and the open review requests."""
    requests = list(session.exec(
        select(ReviewRequest).where(ReviewRequest.conversation_id == conversation.id).order_by(col(ReviewRequest.id))
    ))
    open_requests = [r for r in requests if r.status in OPEN_REVIEW_STATUSES]
    signoffs = [r for r in requests if r.kind == ReviewKind.SIGNOFF and r.status != "dismissed"]
    current_hash = signoffs[-1].content_hash if signoffs else None
    chain = pinned(conversation).sign_off(conversation.task_type)
    return progress(chain, signoff_approvals(session, conversation.id), current_hash or ""), open_requests
