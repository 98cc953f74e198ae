"""Read what a user (or an auditor) would look at, straight from the database: rows, counts,
and a snapshot that proves a refused request changed nothing."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from argon2 import PasswordHasher
from sqlalchemy import func
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent, Conversation, Decision, Message, ReviewRequest, ToolCall
from hitl_dashboard.db.uow import UnitOfWork

# argon2 at its production cost takes ~0.1 s per user; the tests create many users and never
# test the hasher's strength, so they swap in the cheapest valid parameters.
CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


def use_cheap_passwords(monkeypatch) -> None:
    from hitl_dashboard.services.auth import users
    monkeypatch.setattr(users, "_hasher", CHEAP_HASHER)


def count(model, *where) -> int:
    with UnitOfWork() as uow:
        return uow.session.exec(select(func.count()).select_from(model).where(*where)).one()


def decisions(review_id: int | None = None) -> list[Decision]:
    with UnitOfWork() as uow:
        query = select(Decision).order_by(Decision.id)
        if review_id is not None:
            query = query.where(Decision.review_request_id == review_id)
        return list(uow.session.exec(query))


def audit_events(action: str | None = None, *, review_id: int | None = None,
                 conversation_id: int | None = None) -> list[AuditEvent]:
    with UnitOfWork() as uow:
        query = select(AuditEvent).order_by(AuditEvent.seq)
        if action is not None:
            query = query.where(AuditEvent.action == action)
        if review_id is not None:
            query = query.where(AuditEvent.review_request_id == review_id)
        if conversation_id is not None:
            query = query.where(AuditEvent.conversation_id == conversation_id)
        return list(uow.session.exec(query))


def review(review_id: int) -> ReviewRequest:
    with UnitOfWork() as uow:
        return uow.session.get(ReviewRequest, review_id)


def reviews_of(conversation_id: int) -> list[ReviewRequest]:
    with UnitOfWork() as uow:
        return list(uow.session.exec(
            select(ReviewRequest).where(ReviewRequest.conversation_id == conversation_id).order_by(ReviewRequest.id)
        ))


def tool_call(tool_call_id: int) -> ToolCall:
    with UnitOfWork() as uow:
        return uow.session.get(ToolCall, tool_call_id)


@dataclass(frozen=True)
class Snapshot:
    """Everything a refused request must leave untouched."""

    review: tuple
    conversation: tuple
    decisions: int
    messages: int
    audit_seq: int
    tool_calls: tuple


def snapshot(review_id: int) -> Snapshot:
    with UnitOfWork() as uow:
        s = uow.session
        r = s.get(ReviewRequest, review_id)
        c = s.get(Conversation, r.conversation_id)
        last = s.exec(select(func.max(AuditEvent.seq))).one() or 0
        calls = s.exec(select(ToolCall.id, ToolCall.status, ToolCall.approved_arguments)
                       .where(ToolCall.conversation_id == c.id).order_by(ToolCall.id)).all()
        return Snapshot(
            review=(r.status, r.version, r.assignee_id, r.closed_at),
            conversation=(c.status, c.status_reason, c.next_seq, c.checkpoint_version, repr(c.next_input)),
            decisions=s.exec(select(func.count()).select_from(Decision)).one(),
            messages=s.exec(select(func.count()).select_from(Message).where(Message.conversation_id == c.id)).one(),
            audit_seq=last,
            tool_calls=tuple(tuple(row[:2]) + (repr(row[2]),) for row in calls),
        )


def wait_for(predicate: Callable[[], Any], *, timeout: float, interval: float = 0.05, what: str = "condition"):
    """Poll until predicate() is truthy; returns its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)
