"""Batch decisions (issue 42): approve or deny several reviews in one action.

A batch is only a way to send many decisions at once. Each review is decided on its own through
the one decision path (services/reviews/decide.py), with every check a single decision has
(version, content hash, role, four eyes, claims) and an idempotency key of its own, derived from
the batch's key: the same batch sent again is applied once. What a batch may hold is checked
here, before anything is decided: a bad batch is refused whole, with nothing lost."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

from hitl_dashboard.domain.decisions import MAX_TEXT, DecisionInput, check_idempotency_key
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.domain.errors import InvalidInput

MAX_BATCH = 100  # reviews in one batch: a page of the queue, and a bound on one request's work
MAX_REVIEW_ID = 2**31 - 1
_HASH = re.compile(r"^[0-9a-f]{64}$")


class BatchAction(StrEnum):
    APPROVE = "approve"
    # As Slack's Deny: a tool call is denied with the reason (an external caller gets a denial); any
    # other review goes back to its agents with the reason as their instruction (a revision).
    DENY = "deny"


@dataclass(frozen=True)
class BatchItem:
    """One review of the batch, with what the reviewer was shown of it (None: not checked)."""

    review_id: int
    expected_version: int | None = None
    expected_content_hash: str | None = None


@dataclass(frozen=True)
class BatchCommand:
    action: BatchAction
    items: tuple[BatchItem, ...]
    key: str  # the batch's idempotency key: each review's own key is derived from it
    reason: str | None = None


def batch_command(action: object, items: list[BatchItem] | tuple[BatchItem, ...], key: str | None,
                  reason: str | None = None) -> BatchCommand:
    """The batch, checked whole: an empty, oversized or repeated list, an unknown action, a missing
    or malformed key or an item of the wrong shape is refused (InvalidInput) before any decision."""
    try:
        batch_action = BatchAction(str(action))
    except ValueError:
        raise InvalidInput(f"unknown batch action {str(action)[:40]!r}: use approve or deny", "action") from None
    items = tuple(items)
    if not items:
        raise InvalidInput("the batch is empty: select at least one review", "reviews")
    if len(items) > MAX_BATCH:
        raise InvalidInput(f"a batch holds at most {MAX_BATCH} reviews; this one has {len(items)}", "reviews")
    for item in items:
        _check_item(item)
    repeated = sorted(r for r, n in Counter(i.review_id for i in items).items() if n > 1)
    if repeated:
        raise InvalidInput("each review may be in a batch once; repeated: "
                           + ", ".join(f"#{r}" for r in repeated[:10]), "reviews")
    if not key:
        raise InvalidInput("a batch needs an idempotency key, so that sending it again applies nothing twice",
                           "idempotency_key")
    check_idempotency_key(key)
    if reason is not None and len(reason) > MAX_TEXT:
        raise InvalidInput(f"reason is longer than {MAX_TEXT} characters", "reason")
    return BatchCommand(batch_action, items, key, (reason or "").strip() or None)


def _check_item(item: object) -> None:
    if not isinstance(item, BatchItem):
        raise InvalidInput("each batch item names a review", "reviews")
    if isinstance(item.review_id, bool) or not isinstance(item.review_id, int) \
            or not 0 < item.review_id <= MAX_REVIEW_ID:
        raise InvalidInput(f"review ids are whole numbers from 1 to {MAX_REVIEW_ID}", "reviews")
    version = item.expected_version
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)
                                or not 0 < version <= MAX_REVIEW_ID):
        raise InvalidInput("an expected version is a whole number from 1", "reviews")
    hashed = item.expected_content_hash
    if hashed is not None and (not isinstance(hashed, str) or not _HASH.match(hashed)):
        raise InvalidInput("an expected content hash is 64 lowercase hex digits", "reviews")


def item_key(batch_key: str, action: BatchAction, review_id: int) -> str:
    """Each review's own idempotency key: the same batch again finds each decision it made; another
    action on the same selection is a new decision (refused then as already decided)."""
    digest = hashlib.sha256(f"{batch_key}\n{action.value}\n{review_id}".encode()).hexdigest()[:40]
    return f"batch-{digest}"


def item_decision(command: BatchCommand, item: BatchItem, *, tool_call: bool, reviewer: str) -> DecisionInput:
    """The decision this batch asks for one review (tool_call: whether it is a tool call's review)."""
    key = item_key(command.key, command.action, item.review_id)
    if command.action == BatchAction.APPROVE:
        action, reason, instructions = Action.APPROVE, command.reason, None
    else:
        action = Action.REVISE
        reason = command.reason or f"denied in a batch by {reviewer}"
        instructions = None if tool_call else reason
    return DecisionInput(action, reason=reason, instructions=instructions, idempotency_key=key,
                         expected_version=item.expected_version, expected_content_hash=item.expected_content_hash)
