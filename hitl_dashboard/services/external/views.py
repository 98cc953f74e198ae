"""What the caller of an external request reads back: its review and the outcome so far."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, col, select

from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.models import Conversation, ReviewRequest, Webhook
from hitl_dashboard.domain.external import ExternalOutcome
from hitl_dashboard.services.external_outcomes.outcomes import outcome
from hitl_dashboard.settings import get_settings


@dataclass(frozen=True)
class ApprovalView:
    id: int
    request_id: str
    conversation_id: int
    review_id: int | None  # the review request waiting (or the last one)
    kind: str
    title: str
    outcome: ExternalOutcome
    created: bool  # False: the same request id was asked before; this is that review
    url: str  # the conversation's page, for people
    callback_secret: str | None  # the HMAC key of the callbacks (the caller's own request only)
    result_status: str | None  # what the caller reported: ok | error (None: nothing yet)


def approval_view(session: Session, row: ExternalRequest, conversation: Conversation, *,
                  created: bool = False) -> ApprovalView:
    assert row.id is not None and conversation.id is not None
    review_id = session.exec(select(ReviewRequest.id).where(ReviewRequest.conversation_id == conversation.id)
                             .order_by(col(ReviewRequest.id).desc()).limit(1)).first()
    hook = session.get(Webhook, row.callback_webhook_id) if row.callback_webhook_id is not None else None
    return ApprovalView(
        id=row.id, request_id=row.caller_request_id, conversation_id=conversation.id, review_id=review_id,
        kind=row.kind, title=conversation.title, outcome=outcome(session, row, conversation), created=created,
        url=f"{get_settings().public_url.rstrip('/')}/conversations/{conversation.id}",
        callback_secret=hook.secret if hook else None, result_status=row.result_status,
    )
