"""Claim and release review requests (a claim is a soft lock: others see who works on it)."""

from __future__ import annotations

from sqlalchemy import update

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import ReviewRequest, User, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import ReviewStatus
from hitl_dashboard.domain.errors import Conflict, NotFound, PermissionDenied
from hitl_dashboard.domain.permissions import Actor, check_can_claim


def get_request(uow: UnitOfWork, review_id: int) -> ReviewRequest:
    request = uow.session.get(ReviewRequest, review_id)
    if request is None:
        raise NotFound(f"review request {review_id} does not exist")
    return request


def claim(uow: UnitOfWork, actor: Actor, review_id: int) -> ReviewRequest:
    request = get_request(uow, review_id)
    check_can_claim(actor, request.required_role)
    if request.status == ReviewStatus.CLAIMED and request.assignee_id == actor.user_id:
        return request  # claiming twice is harmless
    if request.status != ReviewStatus.PENDING:
        raise Conflict(_unavailable(uow, request))
    result = uow.session.exec(
        update(ReviewRequest)
        .where(ReviewRequest.id == review_id, ReviewRequest.status == ReviewStatus.PENDING,
               ReviewRequest.version == request.version)
        .values(status=ReviewStatus.CLAIMED, assignee_id=actor.user_id, claimed_at=utcnow(),
                version=ReviewRequest.version + 1)
    )
    if result.rowcount != 1:
        raise Conflict(f"review request {review_id} was just claimed or decided by someone else")
    append_audit(uow.session, actor=actor.username, actor_role=request.required_role, action="review.claimed",
                 conversation_id=request.conversation_id, review_request_id=review_id,
                 content_hash=request.content_hash)
    uow.session.refresh(request)
    return request


def release(uow: UnitOfWork, actor: Actor, review_id: int) -> ReviewRequest:
    request = get_request(uow, review_id)
    if request.status != ReviewStatus.CLAIMED:
        raise Conflict(f"review request {review_id} is {request.status}, not claimed")
    if request.assignee_id != actor.user_id and not actor.is_admin:
        raise PermissionDenied(f"{actor.username} did not claim review request {review_id}")
    result = uow.session.exec(
        update(ReviewRequest)
        .where(ReviewRequest.id == review_id, ReviewRequest.version == request.version)
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
