"""POST/GET /api/conversations, GET /api/conversations/{id}, and the admin's abort and retry."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Query, status

from hitl_dashboard.api.deps import CurrentActor
from hitl_dashboard.api.errors import COMMON_RESPONSES, CONFLICT, NOT_FOUND
from hitl_dashboard.api.schemas.common import IdPath, Limit, Offset
from hitl_dashboard.api.schemas.conversations import (
    AbortCreate,
    ConversationCreate,
    ConversationPublic,
    ConversationSummaryPublic,
    RevisionPublic,
    SignOffStepPublic,
    SuggestionPublic,
)
from hitl_dashboard.api.schemas.findings import ReviewFindingsPublic, RevisionAnalysisPublic
from hitl_dashboard.api.schemas.reviews import ReviewPublic
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.domain.enums import ConversationStatus, TaskType
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.conversations import conversation_list, conversation_queries
from hitl_dashboard.services.conversations.conversation_list import ConversationFilter
from hitl_dashboard.services.conversations.conversations import (
    StartCommand,
    abort_conversation,
    retry_conversation,
    start_conversation,
)
from hitl_dashboard.services.findings.queries import revisions_findings
from hitl_dashboard.services.findings.review_flags import review_findings_reading

# An ISO day and nothing else: a bare date type would also take "0" (a Unix timestamp) as 1970-01-01.
DAY = r"^\d{4}-\d{2}-\d{2}$"


def _day(text: str | None, field: str) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        raise InvalidInput(f"{field}: not a calendar day ({text})", field) from None


# PostgreSQL refuses a NUL in any text it is sent: a 422 here, not a 500 from the driver.
NO_NUL = r"^[^\x00]*$"
router = APIRouter(prefix="/conversations", tags=["conversations"], responses=COMMON_RESPONSES,
                   route_class=StrictJsonRoute)


def conversation_public(actor: Actor, conversation_id: int) -> ConversationPublic:
    detail = conversation_queries.conversation_detail(actor, conversation_id)
    c = detail.conversation
    flags = {r: ReviewFindingsPublic(**f.as_dict())
             for r, f in review_findings_reading([r.id for r in detail.open_requests]).items()}
    return ConversationPublic(
        id=c.id, title=c.title, task=c.task, task_type=c.task_type, template=c.template, status=c.status,
        status_reason=c.status_reason, initiator_id=c.initiator_id, on_overdue=c.on_overdue,
        gate_policy=c.gate_policy, prompt_tokens=c.prompt_tokens, completion_tokens=c.completion_tokens,
        created_at=c.created_at, updated_at=c.updated_at, team_version=detail.team_version,
        parent_id=c.parent_id, parent_turn=c.parent_turn, origin=c.origin, turns=c.checkpoint_version,
        signoff=[SignOffStepPublic(role=s.role, approved=s.approved) for s in detail.progress],
        open_reviews=[ReviewPublic.model_validate(r).model_copy(update={"findings": flags.get(r.id)})
                      for r in detail.open_requests],
        revisions=[_with_analysis(r, found)
                   for r, found in zip(detail.revisions, revisions_findings(detail.revisions), strict=True)],
        suggestions=[SuggestionPublic(
            decision_id=s.decision_id, reviewer=s.reviewer, key=s.key, line=s.line, end_line=s.end_line,
            lines=list(s.lines), text=s.text, revision=s.revision, next_revision=s.next_revision,
            state=s.outcome.state.value, detail=s.outcome.detail, applied_at_line=s.outcome.line,
        ) for s in detail.suggestions],
    )


def _with_analysis(revision, found) -> RevisionPublic:
    analysis = RevisionAnalysisPublic(**found.analysis_dict())
    return RevisionPublic.model_validate(revision).model_copy(update={"analysis": analysis})


@router.post("", status_code=status.HTTP_201_CREATED, response_model=ConversationPublic)
def start(body: ConversationCreate, actor: CurrentActor) -> ConversationPublic:
    """Start a conversation; the agents begin at once (the runner picks it up)."""
    command = StartCommand(
        task=body.task, task_type=body.task_type, title=body.title, template=body.template,
        gate_policy=body.gate_policy.model_dump(exclude_unset=True) if body.gate_policy else None,
        model_routing={agent: route.model_dump(exclude_none=True) for agent, route in body.model_routing.items()},
        on_overdue=body.on_overdue,
    )
    conversation = start_conversation(actor, command)
    return conversation_public(actor, conversation.id)


@router.get("", response_model=list[ConversationSummaryPublic])
def list_conversations(
    actor: CurrentActor,
    status: Annotated[ConversationStatus | None, Query()] = None,
    task_type: Annotated[TaskType | None, Query()] = None,
    initiator: Annotated[str | None, Query(max_length=64, pattern=NO_NUL,
                                           description="username of who started it")] = None,
    q: Annotated[str | None, Query(max_length=200, pattern=NO_NUL,
                                   description="words that must all be in the title or task")] = None,
    created_from: Annotated[str | None, Query(pattern=DAY, description="first UTC day, inclusive: 2030-03-10")] = None,
    created_to: Annotated[str | None, Query(pattern=DAY, description="last UTC day, inclusive: 2030-03-10")] = None,
    limit: Limit = 50, offset: Offset = 0,
) -> list[ConversationSummaryPublic]:
    """Newest first, filtered; every filter given must hold."""
    filters = ConversationFilter(
        status=status.value if status else None, task_type=task_type.value if task_type else None,
        initiator=initiator, text=q, created_from=_day(created_from, "created_from"),
        created_to=_day(created_to, "created_to"),
    )
    rows = conversation_list.list_conversations(actor, filters, limit=limit, offset=offset)
    return [ConversationSummaryPublic(**row.__dict__) for row in rows]


@router.get("/{conversation_id}", response_model=ConversationPublic, responses=NOT_FOUND)
def get_conversation(conversation_id: IdPath, actor: CurrentActor) -> ConversationPublic:
    """Status, sign-off progress for the content under review, open review requests, revisions."""
    return conversation_public(actor, conversation_id)


@router.post("/{conversation_id}/abort", response_model=ConversationPublic, responses={**NOT_FOUND, **CONFLICT})
def abort(conversation_id: IdPath, body: AbortCreate, actor: CurrentActor) -> ConversationPublic:
    """Admins: stop the conversation in any state (running, awaiting review, failed); open reviews are
    dismissed and a runner in the middle of a turn stops without storing it. 409 if already finished."""
    abort_conversation(actor, conversation_id, body.reason)
    return conversation_public(actor, conversation_id)


@router.post("/{conversation_id}/retry", response_model=ConversationPublic, responses={**NOT_FOUND, **CONFLICT})
def retry(conversation_id: IdPath, actor: CurrentActor) -> ConversationPublic:
    """Admins: a failed conversation resumes from its last checkpoint. 409 unless it is failed."""
    retry_conversation(actor, conversation_id)
    return conversation_public(actor, conversation_id)
