"""What the header and the queue tabs show of a reviewer's queues: the number of open requests per
role (one grouped count, not one query per tab) and the newest open requests, from which the
browser counts the unread ones and raises desktop notifications."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import combinations

from sqlalchemy import func
from sqlmodel import col, select

from hitl_dashboard.db.models import Conversation, ReviewRequest, review_is_open
from hitl_dashboard.db.rows import holds_role_there
from hitl_dashboard.domain.permissions import Actor, check_can_claim
from hitl_dashboard.services.transactions import reading

NEWEST = 50  # enough for an unread count ("50+" past that) and the notifications of a burst


@dataclass(frozen=True)
class Arrival:
    review_id: int
    role: str
    conversation_id: int
    title: str
    created_at: datetime


def open_counts(actor: Actor, roles: tuple[str, ...]) -> dict[str, int]:
    """Open requests per role: the same predicate as the queue lists (review_is_open)."""
    for role in roles:
        check_can_claim(actor, role)  # the queues of the roles you hold (admins: all)
    if not roles:
        return {}
    query = (select(ReviewRequest.required_role, func.count())
             .where(review_is_open(), col(ReviewRequest.required_role).in_(roles), _claimable(actor))
             .group_by(ReviewRequest.required_role))
    with reading() as uow:
        found = dict(uow.session.exec(query).all())
    return {role: int(found.get(role, 0)) for role in roles}


def newest_open(actor: Actor, roles: tuple[str, ...], limit: int = NEWEST) -> list[Arrival]:
    for role in roles:
        check_can_claim(actor, role)
    if not roles:
        return []
    # sqlmodel's select() is typed for at most 4 columns; it takes any number.
    query = (select(ReviewRequest.id, ReviewRequest.required_role, ReviewRequest.conversation_id,  # type: ignore[call-overload]
                    Conversation.title, ReviewRequest.created_at)
             .join(Conversation, Conversation.id == ReviewRequest.conversation_id)
             .where(review_is_open(), col(ReviewRequest.required_role).in_(roles), _claimable(actor))
             .order_by(col(ReviewRequest.id).desc()).limit(limit))
    with reading() as uow:
        return [Arrival(*row) for row in uow.session.exec(query).all()]


def _claimable(actor: Actor):  # noqa: ANN202 - a SQL condition
    # review_queries.claimable_by's rule; that module is this group's too, but imports the live feed.
    return holds_role_there(actor, col(ReviewRequest.required_role), col(ReviewRequest.workspace_id))


def role_sets_touching(roles: tuple[str, ...], queue_roles: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every set of queue roles a user may hold (in `queue_roles` order) that shares a role with
    `roles`: the summaries a change of those queues may change. Four queue roles make 15 sets."""
    touched = set(roles)
    return [subset for size in range(1, len(queue_roles) + 1)
            for subset in combinations(queue_roles, size) if touched & set(subset)]
