"""Batch decisions (issue 42): several reviews approved or denied in one action, each one decided on
its own through the one decision path (`decide`), in its own transaction, with its own idempotency
key (domain/batch_decisions.py). A review the caller may not decide (another workspace's, one that
does not exist, another role's, their own work, claimed by someone else, changed since they saw
it) is refused with the reason; the others still go through. The same batch sent again (the same
key) applies nothing twice: its reviews answer as replayed.

A failure that is no refusal (the database gone) ends the batch there: what was decided stays
decided, and the batch can be sent again with the same key."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, select

from hitl_dashboard.db.models import ReviewRequest
from hitl_dashboard.db.rows import in_workspaces
from hitl_dashboard.domain.batch_decisions import BatchCommand, item_decision
from hitl_dashboard.domain.enums import ReviewKind
from hitl_dashboard.domain.errors import Conflict, DomainError, InvalidInput, NotFound, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.reviews.decide import decide
from hitl_dashboard.services.transactions import reading

DECIDED, REPLAYED, REFUSED = "decided", "replayed", "refused"
# Why a review was refused, as a word a client can branch on (the HTTP status a single decision gets).
_REFUSALS: tuple[tuple[type[DomainError], str], ...] = (
    (NotFound, "not_found"), (PermissionDenied, "not_allowed"), (Conflict, "conflict"), (InvalidInput, "invalid"))


@dataclass(frozen=True)
class BatchItemResult:
    review_id: int
    status: str  # decided | replayed (by an earlier sending of this batch) | refused
    refusal: str = ""  # not_found | not_allowed | conflict | invalid | refused
    reason: str = ""  # why it was refused, for people
    decision_id: int | None = None
    conversation_id: int | None = None
    conversation_status: str | None = None


@dataclass(frozen=True)
class BatchOutcome:
    action: str
    results: tuple[BatchItemResult, ...]

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)


def decide_batch(actor: Actor, command: BatchCommand) -> BatchOutcome:
    """Every review of the (already checked) batch, in the order given."""
    tool_calls = _tool_call_reviews(actor, [i.review_id for i in command.items])
    results = []
    for item in command.items:
        decision = item_decision(command, item, tool_call=item.review_id in tool_calls, reviewer=actor.username)
        try:
            outcome = decide(actor, item.review_id, decision)
        except DomainError as exc:
            refusal = next((word for kind, word in _REFUSALS if isinstance(exc, kind)), "refused")
            results.append(BatchItemResult(item.review_id, REFUSED, refusal, str(exc)))
            continue
        results.append(BatchItemResult(item.review_id, REPLAYED if outcome.replayed else DECIDED,
                                       decision_id=outcome.decision_id, conversation_id=outcome.conversation_id,
                                       conversation_status=outcome.conversation_status))
    return BatchOutcome(command.action.value, tuple(results))


def _tool_call_reviews(actor: Actor, review_ids: list[int]) -> frozenset[int]:
    """Which of the reviews, in the caller's workspaces, are tool calls' (how a denial is recorded).
    Everything else is decided as any review; decide() makes every check, and refuses the rest."""
    with reading() as uow:
        found = uow.session.exec(select(ReviewRequest.id).where(
            col(ReviewRequest.id).in_(review_ids), ReviewRequest.kind == ReviewKind.TOOL_CALL,
            in_workspaces(ReviewRequest.workspace_id, actor.workspaces_with()))).all()
    return frozenset(i for i in found if i is not None)
