"""The findings flag of code reviews: per review, the severity counts of its files' findings and
which files were not analysed and why (or are still pending). The queue page, the API's review and
conversation payloads and `queue --json` all read it here. Two queries for a whole page of reviews.

The files of a review are the revisions of the message its subject revision came from (one coder
message per turn). Only Python files count: the analysers never promised to read anything else."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import func
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from hitl_dashboard.db.findings_models import CodeAnalysis, CodeFinding
from hitl_dashboard.db.models import CodeRevision, ReviewRequest
from hitl_dashboard.domain.enums import SubjectType
from hitl_dashboard.domain.findings import ReviewFindings, is_python
from hitl_dashboard.services.transactions import reading


def review_findings(session: Session, review_ids: list[int]) -> dict[int, ReviewFindings]:
    """Code reviews only: a review of a message or a tool call has no entry."""
    if not review_ids:
        return {}
    subject, sibling = aliased(CodeRevision), aliased(CodeRevision)
    files_of_review = (
        select(col(ReviewRequest.id).label("review_id"), sibling.key, sibling.language, sibling.content_hash)
        .join(subject, col(subject.id) == ReviewRequest.subject_id)
        .join(sibling, (col(sibling.conversation_id) == subject.conversation_id)
              & (col(sibling.message_id) == subject.message_id))
        .where(col(ReviewRequest.id).in_(review_ids), ReviewRequest.subject_type == SubjectType.CODE_REVISION)
    ).subquery()
    files = session.exec(
        # sqlmodel's select() is typed for at most 4 columns; it takes any number.
        select(files_of_review.c.review_id, files_of_review.c.key, files_of_review.c.language,  # type: ignore[call-overload]
               CodeAnalysis.status, CodeAnalysis.reason)
        .outerjoin(CodeAnalysis, CodeAnalysis.content_hash == files_of_review.c.content_hash)
        .order_by(files_of_review.c.review_id, files_of_review.c.key)
    ).all()
    counts: dict[int, dict[str, int]] = defaultdict(dict)
    for review_id, severity, count in session.exec(
        select(files_of_review.c.review_id, CodeFinding.severity, func.count(col(CodeFinding.id)))
        .join(CodeFinding, col(CodeFinding.content_hash) == files_of_review.c.content_hash)
        .group_by(files_of_review.c.review_id, CodeFinding.severity)
    ).all():
        counts[review_id][severity] = count
    not_analysed, pending, python_reviews = defaultdict(list), defaultdict(list), set()
    for review_id, key, language, status, reason in files:
        if not is_python(key, language):
            continue
        python_reviews.add(review_id)
        if status == "not_analysed":
            not_analysed[review_id].append((key, reason or "no reason recorded"))
        elif status != "analysed":
            pending[review_id].append(key)
    return {r: ReviewFindings(dict(counts[r]), tuple(not_analysed[r]), tuple(pending[r])) for r in python_reviews}


def review_findings_reading(review_ids: list[int]) -> dict[int, ReviewFindings]:
    """review_findings in its own read transaction (the queue page, the API, the CLI)."""
    with reading() as uow:
        return review_findings(uow.session, review_ids)
