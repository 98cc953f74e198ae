"""Review lists for the API: any status, one role or all the caller may see; and "next":
the unclaimed request due first. One query with joins each (no N+1), on ix_reviews_open_role_due
(open requests) or ix_reviews_queue."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement
from sqlalchemy.orm import aliased
from sqlmodel import col, or_, select

from hitl_dashboard.db.lookups import get_request
from hitl_dashboard.db.models import Conversation, ReviewRequest, User, review_is_open, utcnow
from hitl_dashboard.db.rows import holds_role_there, in_workspaces
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, QUEUE_ROLES, ReviewStatus, Role
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.permissions import READ_ALL_ROLES, Actor, check_can_claim
from hitl_dashboard.services.transactions import reading

STATUS_FILTERS = ("open", "all") + tuple(s.value for s in ReviewStatus)
OPEN_STATUS_VALUES = {s.value for s in OPEN_REVIEW_STATUSES}


@dataclass(frozen=True)
class ReviewListItem:
    id: int
    version: int
    role: str
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
    content_hash: str = ""  # what a decision names (expected_content_hash) to bind to this content
    origin: str | None = None  # the conversation's: fork, replay, external (an approval asked from outside)

    @property
    def overdue(self) -> bool:
        return self.status in OPEN_REVIEW_STATUSES and self.due_at < utcnow()


def visible_roles(actor: Actor, role: str | None) -> list[str]:
    """Reviewers see the queues of the roles they hold; managers and admins see every queue."""
    if role is not None:
        if not any(actor.has(r) for r in READ_ALL_ROLES):
            check_can_claim(actor, role)
        return [role]
    if any(actor.has(r) for r in READ_ALL_ROLES):
        return list(QUEUE_ROLES)
    return [r for r in QUEUE_ROLES if actor.has(r)]


def list_reviews(
    actor: Actor, *, role: str | None = None, status: str = "open",
    conversation_id: int | None = None, limit: int = 50, offset: int = 0,
) -> list[ReviewListItem]:
    if status not in STATUS_FILTERS:
        raise InvalidInput(f"status must be one of {', '.join(STATUS_FILTERS)}", "status")
    roles = visible_roles(actor, role)
    if not roles:
        return []
    statuses = {"open": list(OPEN_REVIEW_STATUSES), "all": None}.get(status, [status])
    with reading() as uow:
        return query_reviews(uow, roles, statuses, conversation_id, limit, offset, scope=readable_by(actor))


def readable_by(actor: Actor) -> ColumnElement[bool]:
    """The requests a list may show the actor: those of a role it holds in their workspace, and every
    one in the workspaces it manages (issue 41: never another workspace's)."""
    return or_(claimable_by(actor),
               in_workspaces(col(ReviewRequest.workspace_id), actor.workspaces_with(Role.MANAGER.value)))


def claimable_by(actor: Actor) -> ColumnElement[bool]:
    """The requests of a role the actor holds in their own workspace (a queue, "next")."""
    return holds_role_there(actor, col(ReviewRequest.required_role), col(ReviewRequest.workspace_id))


def next_review(actor: Actor, role: str, *, conversation_id: int | None = None) -> ReviewListItem | None:
    check_can_claim(actor, role)  # "next" is for claiming: only a role you hold (admins: any)
    with reading() as uow:
        found = query_reviews(uow, [role], [ReviewStatus.PENDING.value], conversation_id, 1, 0,
                              scope=claimable_by(actor))
    return found[0] if found else None


def conversation_of_review(actor: Actor, review_id: int) -> int:
    """The conversation a review request belongs to (links to /reviews/<id> open it); NotFound if
    none, or in a workspace the actor is not in."""
    with reading() as uow:
        return get_request(uow, review_id, actor)[0].conversation_id


def query_reviews(uow: UnitOfWork, roles, statuses, conversation_id, limit, offset, *,
                  scope: ColumnElement[bool], search: str | None = None) -> list[ReviewListItem]:
    """The step behind every review list: the caller has checked which roles the actor may see, and
    gives the workspace filter (scope: readable_by or claimable_by). One role and the open statuses
    (the queue) read ix_reviews_open_role_due or ix_reviews_open_workspace_role_due in order."""
    assignee = aliased(User)
    role_term = (ReviewRequest.required_role == roles[0] if len(roles) == 1
                 else col(ReviewRequest.required_role).in_(roles))
    query = (
        # sqlmodel's select() is typed for at most 4 columns; it takes any number.
        select(ReviewRequest, Conversation.title, Conversation.task_type,  # type: ignore[call-overload]
               Conversation.prompt_tokens + Conversation.completion_tokens, assignee.username, Conversation.origin)
        .join(Conversation, Conversation.id == ReviewRequest.conversation_id)
        .outerjoin(assignee, assignee.id == ReviewRequest.assignee_id)
        .where(role_term, scope)
        .order_by(ReviewRequest.due_at, ReviewRequest.id)
        .limit(limit).offset(offset)
    )
    if statuses is not None and set(statuses) == OPEN_STATUS_VALUES:
        query = query.where(review_is_open())
    elif statuses is not None:
        query = query.where(col(ReviewRequest.status).in_(statuses))
    if conversation_id is not None:
        query = query.where(ReviewRequest.conversation_id == conversation_id)
    if search:
        pattern = f"%{search.strip()[:100]}%"
        query = query.where(or_(col(Conversation.title).ilike(pattern), col(ReviewRequest.reason).ilike(pattern)))
    return [
        ReviewListItem(r.id, r.version, r.required_role, r.conversation_id, title, task_type, r.kind,
                       r.subject_type, r.subject_label, r.rule, r.reason, list(r.risk_flags), tokens, r.status,
                       who, r.created_at, r.due_at, r.content_hash, origin)
        for r, title, task_type, tokens, who, origin in uow.session.exec(query)
    ]
