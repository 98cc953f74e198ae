"""Questions to the agent without deciding (issue 14): the review stays open and claimed by the
same reviewer, the producer answers in a thread, both are in the transcript and the audit trail,
and the decision's audit details list them."""

from __future__ import annotations

import asyncio

import pytest
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent, CodeRevision
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import Conflict, InvalidInput, PermissionDenied
from hitl_dashboard.services.questions.answering import answer_open_questions
from hitl_dashboard.services.questions.questions import ask_question, review_questions
from hitl_dashboard.services.reviews.claims import claim
from tests.support.flow import actor, conversation, decide_as, make_people, messages, only_open_review, start, work

SHELL_TASK = "Write a helper to run a shell command"


def test_a_question_and_its_answer_leave_the_review_open_and_claimed(db_url):
    make_people()
    cid = start(SHELL_TASK)
    work()
    review = only_open_review(cid)
    claim(actor("alice"), review.id)
    question = ask_question(actor("alice"), review.id, "Why shell=True?", key="app/shell_runner.py", line=7)
    assert asyncio.run(answer_open_questions()) == 1
    [thread] = review_questions(actor("bob"), review.id)
    assert thread.id == question.id and thread.status == "answered"
    assert "subprocess.call(cmd, shell=True)" in thread.answer and "shell=True lets the caller" in thread.answer
    still = only_open_review(cid)
    assert (still.id, still.status, still.assignee_id) == (review.id, "claimed", actor("alice").user_id)
    assert conversation(cid).status == "awaiting_review"
    with UnitOfWork() as uow:
        assert len(uow.session.exec(select(CodeRevision).where(CodeRevision.conversation_id == cid)).all()) == 1
    kinds = [(m.kind, m.source) for m in messages(cid)][-2:]
    assert kinds == [("question", "alice"), ("answer", "coder")]
    assert messages(cid)[-2].content.startswith(f"QUESTION #{question.id} to @coder about app/shell_runner.py line 7")

    decide_as("alice", review.id, "approve")
    with UnitOfWork() as uow:
        actions = [e.action for e in uow.session.exec(select(AuditEvent).order_by(AuditEvent.seq))]
        decided = uow.session.exec(select(AuditEvent).where(AuditEvent.action == "decision.recorded")).one()
    assert actions.index("review.question_asked") < actions.index("review.question_answered")
    [listed] = decided.details["questions"]
    assert listed["question"] == "Why shell=True?" and listed["answer"] == thread.answer


def test_who_may_ask(db_url):
    make_people()
    cid = start(SHELL_TASK)
    work()
    review = only_open_review(cid)
    with pytest.raises(PermissionDenied):
        ask_question(actor("bob"), review.id, "why?")  # product reviewer on a security review
    with pytest.raises(InvalidInput):
        ask_question(actor("alice"), review.id, "   ")
    claim(actor("frank"), review.id)
    with pytest.raises(Conflict, match="claimed by another reviewer"):
        ask_question(actor("alice"), review.id, "why?")
