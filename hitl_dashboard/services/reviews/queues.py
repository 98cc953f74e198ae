"""A role's review queue, as the dashboard and the CLI show it: the shared review query
(services/review_queries) for one role, due first, with an optional text filter."""

from __future__ import annotations

from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, ReviewStatus
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.permissions import Actor, check_can_claim
from hitl_dashboard.services.reviews.review_queries import ReviewListItem, claimable_by, query_reviews
from hitl_dashboard.services.transactions import reading


def role_queue(
    actor: Actor, role: str, *, search: str | None = None, unclaimed_only: bool = False,
    limit: int = 50, offset: int = 0,
) -> list[ReviewListItem]:
    check_can_claim(actor, role)  # you see the queues of the roles you hold (admins: all)
    if not 1 <= limit <= 500:
        raise InvalidInput("limit must be 1-500", "limit")
    statuses = [ReviewStatus.PENDING.value] if unclaimed_only else [s.value for s in OPEN_REVIEW_STATUSES]
    with reading() as uow:
        return query_reviews(uow, [role], statuses, None, limit, offset, search=search, scope=claimable_by(actor))
