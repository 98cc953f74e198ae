"""A role's review queue: one query with a join (no N+1), served by ix_reviews_queue."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import aliased
from sqlmodel import or_, select

from hitl_dashboard.db.models import Conversation, ReviewRequest, User, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.permissions import Actor, check_can_claim


@dataclass(frozen=True)
class QueueItem:
    review_id: int
    version: int
    conversation_id: int
    title: str
    task_type: str
    kind: str
    subject_type: str
    subject_label: str
    rule: str
    reason: str
    risk_flags: list[str]
    tokens: int
    status: str
    assignee: str | None
    created_at: datetime
    due_at: datetime

    @property
    def overdue(self) -> bool:
        return self.due_at < utcnow()


def role_queue(
    uow: UnitOfWork, actor: Actor, role: str, *, search: str | None = None, unclaimed_only: bool = False,
    limit: int = 50, offset: int = 0,
) -> list[QueueItem]:
    check_can_claim(actor, role)  # you see the queues of the roles you hold (admins: all)
    if not 1 <= limit <= 500:
        raise InvalidInput("limit must be 1-500", "limit")
    assignee = aliased(User)
    statuses = ["pending"] if unclaimed_only else list(OPEN_REVIEW_STATUSES)
    query = (
        select(ReviewRequest, Conversation.title, Conversation.task_type,
               Conversation.prompt_tokens + Conversation.completion_tokens, assignee.username)
        .join(Conversation, Conversation.id == ReviewRequest.conversation_id)
        .outerjoin(assignee, assignee.id == ReviewRequest.assignee_id)
        .where(ReviewRequest.required_role == role, ReviewRequest.status.in_(statuses))
        .order_by(ReviewRequest.due_at, ReviewRequest.id)
        .limit(limit).offset(offset)
    )
    if search:
        pattern = f"%{search.strip()[:100]}%"
        query = query.where(or_(Conversation.title.ilike(pattern), ReviewRequest.reason.ilike(pattern)))
    return [
        QueueItem(r.id, r.version, r.conversation_id, title, task_type, r.kind, r.subject_type, r.subject_label,
                  r.rule, r.reason, list(r.risk_flags), tokens, r.status, who, r.created_at, r.due_at)
        for r, title, task_type, tokens, who in uow.session.exec(query)
    ]
