"""Ask the producing agent a question without deciding: the review stays open and claimed by the
same reviewer. The question and the answer are rows, transcript messages (kinds "question" and
"answer") and audit events; the agent answers beside the team (answering.py), drained by the
runner like the analyses, so a slow model never holds up a web request. A question the agent's
model failed to answer can be asked again (retry_question) by whoever may ask."""

from __future__ import annotations

from sqlmodel import Session, col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.lookups import get_request
from hitl_dashboard.db.models import Conversation, Message, ReviewRequest
from hitl_dashboard.db.questions_models import ReviewQuestion
from hitl_dashboard.db.rows import get_existing
from hitl_dashboard.domain.decisions import MAX_TEXT
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, ReviewKind, ReviewStatus
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.external_outcomes.outcomes import is_external
from hitl_dashboard.services.live import live
from hitl_dashboard.services.teams.versions import pinned
from hitl_dashboard.services.transactions import reading, transaction


def ask_question(actor: Actor, review_id: int, text: str, *, key: str | None = None,
                 line: int | None = None) -> ReviewQuestion:
    """Who may decide the review may ask about it (its role, or an admin); a review claimed by
    someone else is theirs. Nothing about the review changes."""
    text = (text or "").strip()
    if not text:
        raise InvalidInput("write a question first", "question")
    if len(text) > MAX_TEXT:
        raise InvalidInput(f"the question is longer than {MAX_TEXT} characters", "question")
    if line is not None and (not key or line < 1):
        raise InvalidInput("a question about a line names its file and a line number from 1", "line")
    with transaction() as uow:
        session = uow.session
        request, actor = get_request(uow, review_id, actor)
        _check_can_ask(actor, request)
        conversation = get_existing(session, Conversation, request.conversation_id)
        if is_external(conversation):  # its work was produced elsewhere: no agent of ours knows it
            raise InvalidInput("an external request has no agent here to ask; ask its caller (the link on the "
                               "page) or revise with instructions", "question")
        agent = pinned(conversation).producer(conversation.task_type)
        question = ReviewQuestion(review_request_id=request.id, conversation_id=conversation.id,
                                  asker_id=actor.user_id, agent=agent, key=(key or None) and key[:255],
                                  line=line if key else None, question=text)
        session.add(question)
        session.flush()
        about = f" about {question.key} line {question.line}" if question.line else ""
        note(session, conversation, actor.username, "question",
              f"QUESTION #{question.id} to @{agent}{about} (review #{request.id}): {text}")
        append_audit(session, actor=actor.username, actor_role=request.required_role,
                     action="review.question_asked", conversation_id=conversation.id, review_request_id=request.id,
                     content_hash=request.content_hash,
                     details={"question_id": question.id, "agent": agent, "question": text, "key": question.key,
                              "line": question.line})
    live.publish_turn(question.conversation_id)
    return question


def _check_can_ask(actor: Actor, request: ReviewRequest) -> None:
    if request.status not in OPEN_REVIEW_STATUSES:
        raise Conflict(f"review request {request.id} is closed; questions are for open reviews")
    if request.kind == ReviewKind.TOOL_CALL:
        raise InvalidInput("questions are about produced work; a tool call's arguments are shown as they are",
                           "question")
    if not (actor.has(request.required_role) or actor.is_admin):
        raise PermissionDenied(f"{actor.username} may not ask questions on a {request.required_role} review")
    if request.status == ReviewStatus.CLAIMED and request.assignee_id != actor.user_id and not actor.is_admin:
        raise Conflict(f"review request {request.id} is claimed by another reviewer")


def retry_question(actor: Actor, review_id: int, question_id: int) -> ReviewQuestion:
    """Ask a question again that the agent's model failed to answer (it was down, or answered
    garbage). Who may ask may retry; the review must still be open, and nothing about it changes."""
    with transaction() as uow:
        session = uow.session
        request, actor = get_request(uow, review_id, actor)
        question = session.get(ReviewQuestion, question_id)
        if question is None or question.review_request_id != request.id:
            raise NotFound(f"question {question_id} is not on review request {review_id}")
        _check_can_ask(actor, request)
        if question.status != "failed":
            raise Conflict(f"question {question_id} is {question.status}; only a failed question is asked again")
        failure = question.error
        question.status, question.attempts, question.error, question.answered_at = "open", 0, None, None
        session.add(question)
        append_audit(session, actor=actor.username, actor_role=request.required_role,
                     action="review.question_retried", conversation_id=question.conversation_id,
                     review_request_id=request.id, content_hash=request.content_hash,
                     details={"question_id": question.id, "agent": question.agent, "failure": failure})
    live.publish_turn(question.conversation_id)
    return question


def note(session: Session, conversation: Conversation, source: str, kind: str, text: str,
         model: str | None = None) -> None:
    """A question or an answer in the transcript (an answer names the model that wrote it)."""
    session.add(Message(conversation_id=conversation.id, workspace_id=conversation.workspace_id,
                        seq=conversation.next_seq, source=source[:64], kind=kind,
                        content=text, model=model))
    conversation.next_seq += 1
    session.add(conversation)


def questions_of(session: Session, review_ids: list[int]) -> dict[int, list[ReviewQuestion]]:
    found: dict[int, list[ReviewQuestion]] = {}
    if review_ids:
        for q in session.exec(select(ReviewQuestion).where(col(ReviewQuestion.review_request_id).in_(review_ids))
                              .order_by(col(ReviewQuestion.id))):
            found.setdefault(q.review_request_id, []).append(q)
    return found


def review_questions(actor: Actor, review_id: int) -> list[ReviewQuestion]:
    """For the API: the thread of one review, for every member of its workspace."""
    with reading() as uow:
        get_request(uow, review_id, actor)
        return questions_of(uow.session, [review_id]).get(review_id, [])


def questions_details(session: Session, request: ReviewRequest) -> dict:
    """The audit details a decision adds: the questions asked on this review and their answers."""
    thread = questions_of(session, [request.id]).get(request.id, [])
    if not thread:
        return {}
    return {"questions": [{"id": q.id, "question": q.question, "key": q.key, "line": q.line, "status": q.status,
                           "answer": q.answer, "error": q.error, "model": q.model} for q in thread]}

