"""Answering open questions: claimed with a conditional UPDATE (several runners may drain at once),
answered by the asked agent's own model client (the pinned team version, the conversation's model
routing), stored with the model's label. A model that cannot answer leaves the question "failed"
with the reason on the thread; whoever may ask may retry it (questions.retry_question)."""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from hitl_dashboard.agents.model_clients import agent_model_specs
from hitl_dashboard.agents.questions import Answer, QuestionContext, answer_question
from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import Conversation, Message, ReviewRequest, User, utcnow
from hitl_dashboard.db.questions_models import ReviewQuestion
from hitl_dashboard.db.rows import get_existing
from hitl_dashboard.domain.enums import SubjectType
from hitl_dashboard.domain.stored_values import MODEL_CHARS, fit_with_hash, storable_text
from hitl_dashboard.services.audit.audit_context import revisions_under_review
from hitl_dashboard.services.background_round import BackgroundRound
from hitl_dashboard.services.live import live
from hitl_dashboard.services.questions.questions import note
from hitl_dashboard.services.teams import web_policy
from hitl_dashboard.services.teams.versions import pinned
from hitl_dashboard.services.transactions import transaction
from hitl_dashboard.settings import get_settings

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 3  # claims that died mid-answer (the runner was killed) before giving up
ROUND_SIZE = 4
TRANSCRIPT_MESSAGES = 60  # the newest messages before the question; agents/questions.py bounds their size


async def answer_open_questions(limit: int = ROUND_SIZE) -> int:
    """Answer up to `limit` open questions; returns how many got an answer or a failure."""
    finished = 0
    for question_id, team, spec, context, refused in _claim(limit):
        if refused:  # fail closed, as the runner: the model of a web-saved version the policy refuses gets nothing
            finished += _store(question_id, Answer("", 0, 0, ""), error=web_policy.refusal(refused))
            continue
        try:
            answer = await answer_question(team, spec, context)
        except Exception as exc:  # noqa: BLE001 - the reviewer sees why, and may retry
            log.warning("question %s: the agent's model could not answer: %s", question_id, exc)
            finished += _store(question_id, Answer("", 0, 0, ""), error=str(exc) or type(exc).__name__)
        else:
            finished += _store(question_id, answer, error=None)
    return finished


def _claim(limit: int) -> list:
    now = utcnow()
    until = now + timedelta(seconds=2 * get_settings().model_timeout_s + 30)
    claimed = []
    with transaction() as uow:
        session = uow.session
        due = session.exec(
            select(ReviewQuestion).where(
                (col(ReviewQuestion.status) == "open")
                | ((col(ReviewQuestion.status) == "answering") & (col(ReviewQuestion.claim_expires_at) < now)))
            .order_by(col(ReviewQuestion.id)).limit(limit)
        ).all()
        for q in due:
            if q.attempts >= MAX_ATTEMPTS:
                q.status, q.error, q.answered_at = "failed", "the answer was interrupted (runner restarts)", now
                session.add(q)
                continue
            won = session.exec(
                update(ReviewQuestion).where(col(ReviewQuestion.id) == q.id, col(ReviewQuestion.attempts) == q.attempts)
                .values(status="answering", attempts=q.attempts + 1, claim_expires_at=until)
            ).rowcount == 1
            if not won:
                continue
            conversation = get_existing(session, Conversation, q.conversation_id)
            team = pinned(conversation)
            spec = agent_model_specs(team, conversation.model_routing or {})[q.agent]
            refused = web_policy.run_problems(session, conversation.team_version_id, team)
            claimed.append((q.id, team, spec, _context(session, q, conversation), refused))
    return claimed


def _context(session: Session, q: ReviewQuestion, conversation: Conversation) -> QuestionContext:
    request = get_existing(session, ReviewRequest, q.review_request_id)
    files = []
    if request.subject_type == SubjectType.CODE_REVISION:
        files = [(r.key, r.content) for r in revisions_under_review(session, request)[0]]
    elif request.subject_type == SubjectType.MESSAGE:
        message = session.get(Message, request.subject_id)
        files = [("message", message.content)] if message else []
    reviewer = session.get(User, q.asker_id)
    # What was said before the question (its own transcript note is later than the row).
    said = session.exec(
        select(Message.source, Message.content)
        .where(Message.conversation_id == conversation.id, Message.created_at < q.created_at)
        .order_by(col(Message.seq).desc()).limit(TRANSCRIPT_MESSAGES)
    ).all()
    return QuestionContext(q.agent, conversation.task, files, q.question,
                           reviewer.username if reviewer else "a reviewer", q.key, q.line,
                           transcript=[(source, content) for source, content in reversed(said)])


def _store(question_id: int, answer: Answer, *, error: str | None) -> bool:
    with transaction() as uow:
        session = uow.session
        q = session.get(ReviewQuestion, question_id)
        if q is None or q.status != "answering":
            return False  # our claim ran out and another runner answered
        q.status, q.answered_at = ("failed" if error else "answered"), utcnow()
        q.answer = storable_text(answer.text) if error is None else None
        q.error = storable_text(error) if error else None
        q.model = fit_with_hash(answer.model, MODEL_CHARS) or None
        session.add(q)
        conversation = get_existing(session, Conversation, q.conversation_id)
        conversation.prompt_tokens += answer.prompt_tokens
        conversation.completion_tokens += answer.completion_tokens
        text = (f"ANSWER to question #{q.id}: {q.answer}" if error is None
                else f"NO ANSWER to question #{q.id}: the agent's model failed: {q.error}")
        note(session, conversation, q.agent, "answer", text, model=q.model)
        append_audit(session, actor=q.agent, action="review.question_answered", conversation_id=q.conversation_id,
                     review_request_id=q.review_request_id,
                     details={"question_id": q.id, "status": q.status, "answer": q.answer, "error": q.error,
                              "model": q.model})
        conversation_id = q.conversation_id
    live.publish_turn(conversation_id)
    return True


# For the runner loop, beside the webhook deliveries: never holds up the agents' turns (a hanging
# analyser or a slow model only holds up its own round, up to its timeout).
start_question_round = BackgroundRound("question", answer_open_questions).start
