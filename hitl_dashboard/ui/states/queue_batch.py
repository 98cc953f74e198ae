"""The queue's selection and its batch decision (issue 42), for this browser only.

The selection holds what this tab was shown of each review (its version and content hash, from the
tab's own server-side copy of the queue, never from the browser), so a review that changed since is
refused when the batch is sent. Every public method here is an event any browser can send with any
arguments: ids are checked (row_id), the selection is capped at MAX_BATCH, and the decisions go
through the one decision path (services/reviews/batch_decide.py) as the signed-in user, which makes
every check. The batch's idempotency key stays the same while the selection does: sending the same
batch again (a double click, a retry) applies nothing twice."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.domain.batch_decisions import MAX_BATCH, BatchAction, BatchItem, batch_command
from hitl_dashboard.domain.decisions import MAX_TEXT
from hitl_dashboard.domain.errors import DomainError
from hitl_dashboard.services.reviews.batch_decide import REFUSED, REPLAYED, BatchOutcome, decide_batch
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.browser_input import row_id
from hitl_dashboard.ui.states.feeds import QueueFeed
from hitl_dashboard.ui.states.queue import QueueState
from hitl_dashboard.ui.views.queue_view import QueueRow

VERB = {BatchAction.APPROVE: "approved", BatchAction.DENY: "denied"}


@dataclass
class BatchResultRow:
    review_id: int = 0
    title: str = ""
    reason: str = ""


class QueueBatch(AppState):
    selected: rx.Field[list[int]] = rx.field(default_factory=list)  # review ids, in the order picked
    reason: str = ""  # a denial's reason (what the agents read)
    sending: bool = False
    summary: str = ""  # "19 approved, 1 refused"
    refused: rx.Field[list[BatchResultRow]] = rx.field(default_factory=list)
    error: str = ""  # a batch refused whole
    # Backend only (underscore): what this tab showed of each selected review, and the batch's key.
    _picked: dict[int, tuple[int, str, str]] = {}  # id -> (version, content hash, title)
    _key: str = ""

    @rx.var
    def count(self) -> int:
        return len(self.selected)

    @rx.event
    async def toggle(self, review_id: int):
        """The row's checkbox (and the `x` key): in or out of the selection. Only a row this tab's
        queue shows can be picked."""
        rid = row_id(review_id)
        if rid is None or self.sending:
            return
        if rid in self.selected:
            self._set([r for r in self.selected if r != rid])
            return
        rows = {r.review_id: r for r in (await self.get_state(QueueFeed)).rows}
        if rid not in rows:
            return
        if len(self.selected) >= MAX_BATCH:
            self.error = f"A batch holds at most {MAX_BATCH} reviews."
            return
        self._pick([rows[rid]])
        self._set(self.selected + [rid])

    @rx.event
    async def toggle_shown(self):
        """The header's checkbox: every row the filter shows (type a tool's name to get all of its
        calls), up to MAX_BATCH; if they are all selected already, none of them."""
        feed = await self.get_state(QueueFeed)
        needle = (await self.get_state(QueueState)).search.lower()
        shown = [r for r in feed.rows if not needle or any(needle in t.lower() for t in (r.title, r.reason, r.subject))]
        ids = [r.review_id for r in shown]
        if ids and all(i in self.selected for i in ids):
            self._set([r for r in self.selected if r not in ids])
            return
        room = MAX_BATCH - len(self.selected)
        unpicked = [r for r in shown if r.review_id not in self.selected]
        new = unpicked[:max(room, 0)]
        self._pick(new)
        self._set(self.selected + [r.review_id for r in new])
        if len(new) < len(unpicked):
            self.error = f"A batch holds at most {MAX_BATCH} reviews: the first {MAX_BATCH} are selected."

    @rx.event
    def clear(self):
        if not self.sending:
            self._set([])
            self.summary, self.refused = "", []

    @rx.event
    def set_reason(self, value: str):
        self.reason = value[:MAX_TEXT] if isinstance(value, str) else ""

    @rx.event
    async def send(self, action: str):
        """The confirmation dialog's button: the selection, decided review by review."""
        if self.sending or action not in (BatchAction.APPROVE.value, BatchAction.DENY.value):
            return
        self.sending, self.error = True, ""
        yield
        try:
            actor = await self._acting_actor()
            items = [BatchItem(rid, self._picked[rid][0], self._picked[rid][1] or None)
                     for rid in self.selected if rid in self._picked]
            reason = self.reason if action == BatchAction.DENY else None
            command = batch_command(action, items, self._key, reason)
            outcome = await asyncio.to_thread(decide_batch, actor, command)
        except DomainError as exc:
            self.error = str(exc)
        else:
            self._show(outcome)
        finally:
            self.sending = False

    def _set(self, selected: list[int]) -> None:
        """A new selection is a new batch: a new key (the same selection keeps its key)."""
        self.selected = selected
        self._picked = {k: v for k, v in self._picked.items() if k in selected}
        self._key = "ui-batch-" + secrets.token_urlsafe(16) if selected else ""
        self.error = ""

    def _pick(self, rows: list[QueueRow]) -> None:
        self._picked = {**self._picked, **{r.review_id: (r.version, r.content_hash, r.title) for r in rows}}

    def _show(self, outcome: BatchOutcome) -> None:
        verb = VERB[BatchAction(outcome.action)]
        parts = [f"{outcome.count('decided')} {verb}"]
        if outcome.count(REPLAYED):
            parts.append(f"{outcome.count(REPLAYED)} already {verb} by this batch (nothing applied twice)")
        parts.append(f"{outcome.count(REFUSED)} refused")
        self.summary = ", ".join(parts)
        self.refused = [BatchResultRow(r.review_id, self._picked.get(r.review_id, (0, "", ""))[2], r.reason)
                        for r in outcome.results if r.status == REFUSED]
