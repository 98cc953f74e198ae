"""Standing rules on a content sign-off gate (issue 42), where the team file allows them
(task_types.<type>.rules_may_sign_off): where a sign-off request is opened (the runner's turn, an
external request, the chain's next step after an approval), in that transaction, an active rule of
that gate whose conditions hold for the content (services/rules/gate_scope.py) approves the step
through services/reviews/rule_decisions.py, bound to the request's content hash as a person's
approval is; the chain's next step then opens, and waits for a person unless its gate allows a rule
too. People's decisions on such sign-offs are the rules' evidence: services/rules/evidence.py."""

from __future__ import annotations

from sqlalchemy import select
from sqlmodel import Session, col

from hitl_dashboard.db.models import Conversation, ReviewRequest
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, ReviewKind
from hitl_dashboard.domain.standing_rules import RuleState
from hitl_dashboard.services.rules.gate import decide_with
from hitl_dashboard.services.rules.gate_scope import matching_gate_rules


def decide_sign_off_by_rules(session: Session, conversation: Conversation,
                             request: ReviewRequest) -> ReviewRequest | None:
    """The sign-off request that waits for a person once the allowed rules had their say: this one
    (no rule decided it), the chain's next step's, or None (a rule took the last step: the
    conversation is approved)."""
    waiting: ReviewRequest | None = request
    while waiting is not None and waiting.kind == ReviewKind.SIGNOFF:
        rules = matching_gate_rules(session, conversation, waiting, (RuleState.ACTIVE.value,))
        if not any(decide_with(session, conversation, waiting, row.id, None) for row in rules):  # the first that can
            return waiting
        waiting = _next_open_sign_off(session, conversation.id, waiting.id)
    return waiting


def _next_open_sign_off(session: Session, conversation_id: int, after_id: int) -> ReviewRequest | None:
    return session.scalars(select(ReviewRequest).where(
        col(ReviewRequest.conversation_id) == conversation_id, col(ReviewRequest.kind) == ReviewKind.SIGNOFF,
        col(ReviewRequest.status).in_(OPEN_REVIEW_STATUSES), col(ReviewRequest.id) > after_id)
        .order_by(col(ReviewRequest.id)).limit(1)).first()
