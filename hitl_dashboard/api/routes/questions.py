"""Questions to the producing agent on an open review, without deciding it (issue 14)."""

from __future__ import annotations

from fastapi import APIRouter, status

from hitl_dashboard.api.deps import CurrentActor
from hitl_dashboard.api.errors import COMMON_RESPONSES, CONFLICT, NOT_FOUND
from hitl_dashboard.api.schemas.common import IdPath
from hitl_dashboard.api.schemas.findings import QuestionCreate, QuestionPublic
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.services.questions import questions

router = APIRouter(prefix="/reviews/{review_id}/questions", tags=["reviews"],
                   responses={**COMMON_RESPONSES, **NOT_FOUND}, route_class=StrictJsonRoute)


@router.get("", response_model=list[QuestionPublic])
def list_questions(review_id: IdPath, actor: CurrentActor) -> list[QuestionPublic]:
    """The review's thread, oldest first; an answer arrives when the agent has written it (poll)."""
    return [QuestionPublic.model_validate(q) for q in questions.review_questions(actor, review_id)]


@router.post("", response_model=QuestionPublic, status_code=status.HTTP_201_CREATED, responses=CONFLICT)
def ask(review_id: IdPath, body: QuestionCreate, actor: CurrentActor) -> QuestionPublic:
    """Ask the agent that produced the work. The review stays open and claimed by whoever holds it;
    409 if it is closed or claimed by someone else; 403 without the review's role."""
    asked = questions.ask_question(actor, review_id, body.question, key=body.key, line=body.line)
    return QuestionPublic.model_validate(asked)


@router.post("/{question_id}/retry", response_model=QuestionPublic, responses=CONFLICT)
def retry(review_id: IdPath, question_id: IdPath, actor: CurrentActor) -> QuestionPublic:
    """Ask a failed question again (the agent's model was down or failed). Who may ask may retry:
    403 without the review's role; 409 unless the question failed and the review is open and not
    claimed by someone else; 404 for a question of another review."""
    return QuestionPublic.model_validate(questions.retry_question(actor, review_id, question_id))
