"""Claim and release review requests (a claim is a soft lock: others see who works on it).

`claim` and `release` are use cases: each commits its own transaction and then tells the
browsers on the conversation and the queues."""

from __future__ import annotations

from sqlalchemy import ColumnElement, update
from sqlmodel import col

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.lookups import get_request
from hitl_dashboard.db.models import ReviewRequest, User, utcnow
from hitl_dashboard.db.rows import holds_role_there
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import ReviewStatus
from hitl_dashboard.domain.errors import Conflict, PermissionDenied
from hitl_dashboard.domain.permissions import Actor, check_can_claim
from hitl_dashboard.services.live import live
from hitl_dashboard.services.transactions import transaction


def claim(actor: Actor, review_id: int) -> ReviewRequest:
    """Take a review request; returns it (detached) as it is after the claim."""
    with transaction() as uow:
        request = claim_request(uow, actor, review_id)
    live.publish_turn(request.conversation_id, (request.required_role,))  # the queue shows the new assignee
    return request


def release(actor: Actor, review_id: int) -> ReviewRequest:
    """Give a claimed request back to its queue; returns it (detached) as it is after the release."""
    with transaction() as uow:
        request = release_request(uow, actor, review_id)
    live.publish_turn(request.conversation_id, (request.required_role,))
    return request


def claim_request(uow: UnitOfWork, actor: Actor, review_id: int) -> ReviewRequest:
    """The claim, inside the caller's transaction (tests use it to check what a rollback leaves).
    The usual claim (a pending request of a role the reviewer holds) is one statement; anything else
    (already theirs, taken, closed, not their role, unknown) is read and answered by the checks below."""
    claimed = _claim_if_pending(uow, actor, review_id)
    if claimed is not None:
        append_audit(uow.session, actor=actor.username, actor_role=claimed.required_role, action="review.claimed",
                     conversation_id=claimed.conversation_id, review_request_id=review_id,
                     content_hash=claimed.content_hash)
        return claimed
    request, actor = get_request(uow, review_id, actor)
    check_can_claim(actor, request.required_role)
    if request.status == ReviewStatus.CLAIMED and request.assignee_id == actor.user_id:
        return request  # claiming twice is harmless
    if request.status != ReviewStatus.PENDING:
        raise Conflict(_unavailable(uow, request))
    raise Conflict(f"review request {review_id} was just claimed or decided by someone else")


def _claim_if_pending(uow: UnitOfWork, actor: Actor, review_id: int) -> ReviewRequest | None:
    """The request as the claim left it (RETURNING: no read before or after the write), or None when
    it was not pending or not of the reviewer's roles. Two claims at once: PostgreSQL's UPDATE waits
    for the first and finds the row no longer pending; SQLite's writers already take turns."""
    conditions: list[ColumnElement[bool]] = [col(ReviewRequest.id) == review_id,
                                             col(ReviewRequest.status) == ReviewStatus.PENDING]
    # The rule of check_can_claim, in the statement: a role held in the request's own workspace.
    conditions.append(holds_role_there(actor, col(ReviewRequest.required_role), col(ReviewRequest.workspace_id)))
    return uow.session.execute(
        update(ReviewRequest).where(*conditions)
        .values(status=ReviewStatus.CLAIMED, assignee_id=actor.user_id, claimed_at=utcnow(),
                version=ReviewRequest.version + 1)
        .returning(ReviewRequest),
        execution_options={"populate_existing": True},
    ).scalars().first()


def release_request(uow: UnitOfWork, actor: Actor, review_id: int) -> ReviewRequest:
    request, actor = get_request(uow, review_id, actor)
    if request.status != ReviewStatus.CLAIMED:
        raise Conflict(f"review request {review_id} is {request.status}, not claimed")
    if request.assignee_id != actor.user_id and not actor.is_admin:
        raise PermissionDenied(f"{actor.username} did not claim review request {review_id}")
    result = uow.session.exec(
        update(ReviewRequest)
        .where(col(ReviewRequest.id) == review_id, col(ReviewRequest.version) == request.version)
        .values(status=ReviewStatus.PENDING, assignee_id=None, claimed_at=None, version=ReviewRequest.version + 1)
    )
    if result.rowcount != 1:
        raise Conflict(f"review request {review_id} changed while releasing it")
    append_audit(uow.session, actor=actor.username, action="review.released",
                 conversation_id=request.conversation_id, review_request_id=review_id)
    uow.session.refresh(request)
    return request


def _unavailable(uow: UnitOfWork, request: ReviewRequest) -> str:
    if request.status == ReviewStatus.CLAIMED:
        owner = uow.session.get(User, request.assignee_id)
        return f"review request {request.id} is already claimed by {owner.username if owner else 'someone'}"
    return f"review request {request.id} is {request.status}"
