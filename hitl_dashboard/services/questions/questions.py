"""Ask the producing agent a question without deciding: the review stays open and claimed by the
same reviewer. The question and the answer are rows, transcript messages (kinds "question" and
"answer") and audit events; the agent answers beside the team (agents/questions.py), drained by
the runner loop like the analyses, so a slow model never holds up a web request."""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import update
from sqlmodel import Session, select

from hitl_dashboard.agents.questions import QuestionContext, answer_question
from hitl_dashboard.agents.team_session import model_specs
from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import Conversation, Message, ReviewQuestion, ReviewRequest, User, utcnow
from hitl_dashboard.domain.decisions import MAX_TEXT
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, ReviewKind, ReviewStatus, SubjectType
from hitl_dashboard.domain.errors import Conflict, InvalidInput, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.text_cuts import cut_visibly
from hitl_dashboard.services.audit.audit_context import revisions_under_review
from hitl_dashboard.services.background_round import BackgroundRound
from hitl_dashboard.services.live import live
from hitl_dashboard.services.reviews.claims import get_request
from hitl_dashboard.services.teams.versions import pinned
from hitl_dashboard.services.transactions import reading, transaction
from hitl_dashboard.settings import get_settings

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 3
ROUND_SIZE = 4


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
        request = get_request(uow, review_id)
        _check_can_ask(actor, request)
        conversation = session.get(Conversation, request.conversation_id)
        agent = pinned(conversation).producer(conversation.task_type)
        question = ReviewQuestion(review_request_id=request.id, conversation_id=conversation.id,
                                  asker_id=actor.user_id, agent=agent, key=(key or None) and key[:255],
                                  line=line if key else None, question=text)
        session.add(question)
        session.flush()
        about = f" about {question.key} line {question.line}" if question.line else ""
        _note(session, conversation, actor.username, "question",
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


def _note(session: Session, conversation: Conversation, source: str, kind: str, text: str) -> None:
    session.add(Message(conversation_id=conversation.id, seq=conversation.next_seq, source=source[:64], kind=kind,
                        content=text))
    conversation.next_seq += 1
    session.add(conversation)


async def answer_open_questions(limit: int = ROUND_SIZE) -> int:
    answered = 0
    for question_id, context, spec in _claim(limit):
        try:
            text, prompt_tokens, completion_tokens = await answer_question(spec, context)
            status = "answered"
        except Exception as exc:  # noqa: BLE001 - the reviewer sees that the agent could not answer
            log.warning("question %s: the agent could not answer: %s", question_id, exc)
            text, prompt_tokens, completion_tokens, status = f"(the agent could not answer: {exc})", 0, 0, "failed"
        if _store_answer(question_id, cut_visibly(text, MAX_TEXT), status, prompt_tokens, completion_tokens):
            answered += 1
    return answered


def _claim(limit: int) -> list:
    from hitl_dashboard.services.runner.runner import default_model_spec  # the runner's model settings

    now = utcnow()
    until = now + timedelta(seconds=2 * get_settings().model_timeout_s + 30)
    claimed = []
    with transaction() as uow:
        session = uow.session
        due = session.exec(
            select(ReviewQuestion).where(
                (ReviewQuestion.status == "open")
                | ((ReviewQuestion.status == "answering") & (ReviewQuestion.claim_expires_at < now)))
            .order_by(ReviewQuestion.id).limit(limit)
        ).all()
        for q in due:
            if q.attempts >= MAX_ATTEMPTS:
                q.status, q.answer, q.answered_at = "failed", "(the agent could not answer: interrupted)", now
                session.add(q)
                continue
            won = session.exec(
                update(ReviewQuestion).where(ReviewQuestion.id == q.id, ReviewQuestion.attempts == q.attempts)
                .values(status="answering", attempts=q.attempts + 1, claim_expires_at=until)
            ).rowcount == 1
            if not won:
                continue
            conversation = session.get(Conversation, q.conversation_id)
            request = session.get(ReviewRequest, q.review_request_id)
            files = []
            if request.subject_type == SubjectType.CODE_REVISION:
                files = [(r.key, r.content) for r in revisions_under_review(session, request)[0]]
            elif request.subject_type == SubjectType.MESSAGE:
                message = session.get(Message, request.subject_id)
                files = [("message", message.content)] if message else []
            reviewer = session.get(User, q.asker_id)
            specs = model_specs(pinned(conversation).agent_names, conversation.model_routing or {},
                                default_model_spec())
            context = QuestionContext(q.agent, conversation.task, files, q.question,
                                      reviewer.username if reviewer else "a reviewer", q.key, q.line)
            claimed.append((q.id, context, specs.get(q.agent) or default_model_spec()))
    return claimed


def _store_answer(question_id: int, text: str, status: str, prompt_tokens: int, completion_tokens: int) -> bool:
    with transaction() as uow:
        session = uow.session
        q = session.get(ReviewQuestion, question_id)
        if q is None or q.status != "answering":
            return False
        q.status, q.answer, q.answered_at = status, text, utcnow()
        session.add(q)
        conversation = session.get(Conversation, q.conversation_id)
        conversation.prompt_tokens += prompt_tokens
        conversation.completion_tokens += completion_tokens
        _note(session, conversation, q.agent, "answer", f"ANSWER to question #{q.id}: {text}")
        append_audit(session, actor=q.agent, action="review.question_answered", conversation_id=q.conversation_id,
                     review_request_id=q.review_request_id,
                     details={"question_id": q.id, "status": status, "answer": text})
        conversation_id = q.conversation_id
    live.publish_turn(conversation_id)
    return True


def questions_of(session: Session, review_ids: list[int]) -> dict[int, list[ReviewQuestion]]:
    found: dict[int, list[ReviewQuestion]] = {}
    if review_ids:
        for q in session.exec(select(ReviewQuestion).where(ReviewQuestion.review_request_id.in_(review_ids))
                              .order_by(ReviewQuestion.id)):
            found.setdefault(q.review_request_id, []).append(q)
    return found


def review_questions(actor: Actor, review_id: int) -> list[ReviewQuestion]:
    """For the API: the thread of one review. Every signed-in user may read every conversation."""
    with reading() as uow:
        get_request(uow, review_id)
        return questions_of(uow.session, [review_id]).get(review_id, [])


def questions_details(session: Session, request: ReviewRequest) -> dict:
    """The audit details a decision adds: the questions asked on this review and their answers."""
    thread = questions_of(session, [request.id]).get(request.id, [])
    if not thread:
        return {}
    return {"questions": [{"id": q.id, "question": q.question, "key": q.key, "line": q.line, "status": q.status,
                           "answer": q.answer} for q in thread]}


# For the runner loop, beside the webhook deliveries: never holds up the agents' turns (a hanging
# analyser or a slow model only holds up its own round, up to its timeout).
start_question_round = BackgroundRound("question", answer_open_questions).start
