"""Batch decisions over HTTP (issue 42): several reviews approved or denied in one request."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from hitl_dashboard.api.schemas.common import MAX_ID, text_rules
from hitl_dashboard.domain.batch_decisions import MAX_BATCH, BatchAction


class BatchReviewCreate(BaseModel):
    """One review of the batch, with the version and content hash you were shown (each refused with
    `conflict` if the review changed since)."""

    model_config = ConfigDict(extra="forbid")
    review_id: int = Field(ge=1, le=MAX_ID, strict=True)
    expected_version: int | None = Field(default=None, ge=1, le=MAX_ID, strict=True)
    expected_content_hash: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")


class BatchDecisionCreate(BaseModel):
    """approve, or deny (a tool call is denied with the reason; any other review goes back to its
    agents with the reason as their instruction). Each review is decided on its own, with every
    check a single decision has. An empty list or a review named twice is refused (422) whole."""

    model_config = ConfigDict(extra="forbid")
    action: BatchAction
    reason: Annotated[str, *text_rules(20_000)] | None = Field(
        default=None, description="recorded on every decision; deny: what the agents read "
                                  "(default: 'denied in a batch by <you>')")
    reviews: list[BatchReviewCreate] = Field(max_length=MAX_BATCH, description=f"1 to {MAX_BATCH} reviews")


class BatchItemOutcomePublic(BaseModel):
    review_id: int
    status: Literal["decided", "replayed", "refused"] = Field(
        description="replayed: decided by an earlier sending of this batch (the same Idempotency-Key); "
                    "nothing was applied twice")
    refusal: Literal["not_found", "not_allowed", "conflict", "invalid", "refused"] | None = Field(
        default=None, description="refused: why, as the status a single decision would get (404, 403, 409, 422)")
    reason: str | None = Field(default=None, description="refused: the reason, for people")
    decision_id: int | None = None
    conversation_id: int | None = None
    conversation_status: str | None = None


class BatchDecisionOutcomePublic(BaseModel):
    action: str
    decided: int
    replayed: int
    refused: int
    results: list[BatchItemOutcomePublic] = Field(description="one per review, in the order sent")
