"""Everything the conversation page shows, read in one transaction so the parts agree with each
other: the conversation, its transcript, sign-off progress, open reviews (with their assignee
and tool call), recently closed reviews and the code revisions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hitl_dashboard.db.models import CodeRevision, Conversation, Message, ReviewRequest, ToolCall, User
from hitl_dashboard.domain.enums import ReviewKind, SubjectType
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.conversations.conversation_queries import load_detail, load_messages
from hitl_dashboard.services.conversations.transcript_window import load_window
from hitl_dashboard.services.findings.queries import RevisionFindings, findings_of
from hitl_dashboard.services.findings.review_flags import review_findings
from hitl_dashboard.services.questions.questions import questions_of
from hitl_dashboard.services.reviews.review_outcomes import ReviewOutcome, recent_outcomes
from hitl_dashboard.services.teams.versions import pinned
from hitl_dashboard.services.transactions import reading

WHOLE_TRANSCRIPT = 100_000


@dataclass(frozen=True)
class OpenReview:
    request: ReviewRequest
    assignee: str  # username of whoever claimed it, "" while unclaimed
    tool_call: ToolCall | None  # the call waiting for approval, for a tool-call review


@dataclass(frozen=True)
class ConversationPage:
    conversation: Conversation
    agents: list[str]  # of the conversation's team template, in speaking order
    messages: list[Message]
    progress: list  # list[SignOffStep] for the content currently under sign-off
    open_reviews: list[OpenReview]
    outcomes: list[ReviewOutcome]
    revisions: list[CodeRevision]  # by key, then number
    findings: Sequence[RevisionFindings] = ()  # one per revision, same order (services/findings)
    questions: dict | None = None  # open review id -> its questions to the agent, oldest first
    team_version: int | None = None  # the number of the team version it runs on (None: before versions)
    review_findings: dict | None = None  # open code review id -> ReviewFindings (the queue's flag)
    suggestions: Sequence = ()  # SuggestionStatus of every suggested change (services/conversations/suggestions.py)
    older_messages: int = 0  # with newest_only: how many messages come before `messages`


def conversation_page(actor: Actor | None, conversation_id: int, *, newest_only: bool = False) -> ConversationPage:
    """NotFound for an unknown conversation. Every signed-in user may read every conversation.
    newest_only: the transcript's newest window alone (services/conversations/transcript_window.py)."""
    with reading() as uow:
        detail = load_detail(uow.session, conversation_id, actor)
        if newest_only:
            window = load_window(uow.session, conversation_id, actor)
            messages, older = window.messages, window.older
        else:
            messages, older = load_messages(uow.session, conversation_id, actor, limit=WHOLE_TRANSCRIPT), 0
        open_reviews = [_open_review(uow.session, r) for r in detail.open_requests]
        outcomes = recent_outcomes(uow, conversation_id)
        findings = findings_of(uow.session, detail.revisions)
        questions = questions_of(uow.session, [r.id for r in detail.open_requests])
        flags = review_findings(uow.session, [r.id for r in detail.open_requests
                                              if r.subject_type == SubjectType.CODE_REVISION])
    conversation = detail.conversation
    return ConversationPage(
        conversation=conversation, agents=list(pinned(conversation).agent_names), messages=messages,
        progress=detail.progress, open_reviews=open_reviews, outcomes=outcomes, revisions=detail.revisions,
        findings=findings, questions=questions, team_version=detail.team_version,
        review_findings=flags, suggestions=detail.suggestions, older_messages=older,
    )


def _open_review(session, request: ReviewRequest) -> OpenReview:
    assignee = session.get(User, request.assignee_id).username if request.assignee_id else ""
    call = session.get(ToolCall, request.subject_id) if request.kind == ReviewKind.TOOL_CALL else None
    return OpenReview(request, assignee, call)
