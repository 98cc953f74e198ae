"""Review queues, claiming, and decisions."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Header, Query, Response, status

from hitl_dashboard.api.deps import CurrentActor
from hitl_dashboard.api.errors import COMMON_RESPONSES, CONFLICT, NOT_FOUND
from hitl_dashboard.api.schemas.batch_decisions import (
    BatchDecisionCreate,
    BatchDecisionOutcomePublic,
    BatchItemOutcomePublic,
)
from hitl_dashboard.api.schemas.common import MAX_ID, IdPath, Limit, Offset
from hitl_dashboard.api.schemas.findings import ReviewFindingsPublic
from hitl_dashboard.api.schemas.reviews import (
    DecisionCreate,
    DecisionOutcomePublic,
    ReviewListItemPublic,
    ReviewPublic,
)
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.api.validated import validated_json
from hitl_dashboard.domain.batch_decisions import BatchItem, batch_command
from hitl_dashboard.domain.decisions import DecisionInput, LineComment, check_idempotency_key
from hitl_dashboard.domain.enums import Role, SubjectType
from hitl_dashboard.services.findings.review_flags import review_findings_reading
from hitl_dashboard.services.reviews import claims, review_queries
from hitl_dashboard.services.reviews.batch_decide import decide_batch
from hitl_dashboard.services.reviews.decide import decide

router = APIRouter(prefix="/reviews", tags=["reviews"], responses=COMMON_RESPONSES, route_class=StrictJsonRoute)

# A Literal of the service's own tuple of filters, built at run time: one list of names, unknown to mypy.
StatusFilter = Literal[review_queries.STATUS_FILTERS]  # type: ignore[valid-type]
ConversationFilter = Annotated[int | None, Query(ge=1, le=MAX_ID, description="only this conversation's reviews")]


def _items(items: list[review_queries.ReviewListItem]) -> list[ReviewListItemPublic]:
    """With each code review's findings flag (or why its code was not analysed), as the queue page."""
    flags = review_findings_reading([i.id for i in items if i.subject_type == SubjectType.CODE_REVISION])
    return [ReviewListItemPublic.model_validate(i).model_copy(
        update={"findings": ReviewFindingsPublic(**flags[i.id].as_dict()) if i.id in flags else None}) for i in items]


@router.get("", response_model=list[ReviewListItemPublic])
def list_reviews(
    actor: CurrentActor,
    role: Annotated[Role | None, Query(description="default: every queue you may see")] = None,
    status_: Annotated[StatusFilter, Query(alias="status")] = "open",
    conversation_id: ConversationFilter = None,
    limit: Limit = 50, offset: Offset = 0,
) -> list[ReviewListItemPublic]:
    """Review requests, due first. status=open means pending or claimed."""
    items = review_queries.list_reviews(actor, role=role.value if role else None, status=status_,
                                        conversation_id=conversation_id, limit=limit, offset=offset)
    return _items(items)


@router.get("/next", response_model=ReviewListItemPublic,
            responses={204: {"description": "Nothing is waiting for this role"}})
def next_review(actor: CurrentActor, role: Annotated[Role, Query()],
                conversation_id: ConversationFilter = None):
    """The unclaimed request due first, for a role you hold (admins: any role)."""
    item = review_queries.next_review(actor, role.value, conversation_id=conversation_id)
    if item is None:
        return Response(status_code=status.HTTP_204_NO_CONTENT)
    return _items([item])[0]


@router.post("/{review_id}/claim", response_model=ReviewPublic, responses={**NOT_FOUND, **CONFLICT})
def claim(review_id: IdPath, actor: CurrentActor) -> Response:
    """Take a review request, so other reviewers see it is being worked on."""
    return validated_json(ReviewPublic.model_validate(claims.claim(actor, review_id)))


@router.post("/{review_id}/release", response_model=ReviewPublic, responses={**NOT_FOUND, **CONFLICT})
def release(review_id: IdPath, actor: CurrentActor) -> ReviewPublic:
    """Give a claimed request back to the queue."""
    return ReviewPublic.model_validate(claims.release(actor, review_id))


IdempotencyKey = Annotated[str | None, Header(
    alias="Idempotency-Key", description="1-200 printable ASCII characters, no spaces; yours alone",
    json_schema_extra={"pattern": "^[!-~]{1,200}$", "minLength": 1, "maxLength": 200})]


@router.post("/batch-decisions", response_model=BatchDecisionOutcomePublic,
             responses={400: COMMON_RESPONSES[400] | {
                 "description": "Malformed Idempotency-Key, or the body is not readable JSON"}})
def batch_decision(body: BatchDecisionCreate, actor: CurrentActor,
                   idempotency_key: IdempotencyKey = None) -> Response:
    """Approve or deny up to 100 reviews in one request (docs/api.md). Each is decided on its own, as by
    POST /reviews/{id}/decision, with every check that makes; the answer says which were decided and
    why any were refused (a review of another workspace, or none, is `not_found`). The Idempotency-Key
    is required: sending the same batch again applies nothing twice (those reviews answer `replayed`).
    An empty batch, a review named twice or a missing key is a 422 and decides nothing."""
    check_idempotency_key(idempotency_key)
    command = batch_command(body.action, [BatchItem(r.review_id, r.expected_version, r.expected_content_hash)
                                          for r in body.reviews], idempotency_key, body.reason)
    outcome = decide_batch(actor, command)
    return validated_json(BatchDecisionOutcomePublic(
        action=outcome.action, decided=outcome.count("decided"), replayed=outcome.count("replayed"),
        refused=outcome.count("refused"),
        results=[BatchItemOutcomePublic(
            review_id=r.review_id, status=r.status, refusal=r.refusal or None, reason=r.reason or None,
            decision_id=r.decision_id, conversation_id=r.conversation_id,
            conversation_status=r.conversation_status) for r in outcome.results],
    ))


@router.post("/{review_id}/decision", response_model=DecisionOutcomePublic,
             responses={**NOT_FOUND, **CONFLICT, 400: COMMON_RESPONSES[400] | {
                 "description": "Malformed Idempotency-Key, or the body is not readable JSON"}})
def decision(
    review_id: IdPath, body: DecisionCreate, actor: CurrentActor,
    # The pattern is documented, not enforced here: a malformed key must be a 400 with a clear
    # message (check_idempotency_key), not FastAPI's 422.
    idempotency_key: IdempotencyKey = None,
) -> Response:
    """Approve, revise, abort or skip; approve with your own version of the code (edited_files) or the
    message (edited_text) under review. The same Idempotency-Key twice with the same body applies the
    decision once (the second answer has replayed=true); with another body it is a 422. A malformed
    key is a 400. A stale expected_version or expected_content_hash is a 409."""
    check_idempotency_key(idempotency_key)
    decision_input = DecisionInput(
        action=body.action, reason=body.reason, instructions=body.instructions, target_agent=body.target_agent,
        edited_args=body.edited_args, edited_files=body.edited_files, edited_text=body.edited_text,
        line_comments=tuple(LineComment(c.key, c.line, c.text, tuple(c.suggestion) if c.suggestion is not None
                                        else None, c.end_line) for c in body.line_comments),
        idempotency_key=idempotency_key, expected_version=body.expected_version,
        override_reason=body.override_reason, expected_content_hash=body.expected_content_hash,
    )
    outcome = decide(actor, review_id, decision_input)
    return validated_json(DecisionOutcomePublic(
        decision_id=outcome.decision_id, review_id=outcome.review_request_id,
        conversation_id=outcome.conversation_id, action=outcome.action,
        conversation_status=outcome.conversation_status, next_review_id=outcome.next_review_id,
        replayed=outcome.replayed,
    ))
