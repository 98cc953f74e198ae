"""A reviewer's queues at a glance, on every page: open requests per role (the queue tabs' counts)
and the newest open requests (assets/queue_watch.js turns them into the unread count in the tab
title and into opt-in desktop notifications).

Per browser and polled (the page asks every POLL_MS while visible): it depends on the user's
roles, and it rides beside whichever feed the page watches (ui/fanout.py: a tab watches one).
Browsers holding the same roles share one read per CACHE_S, so polling costs one
grouped count per role set, not one per browser."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.domain.permissions import Actor, check_can_claim
from hitl_dashboard.services.reviews.queue_summary import newest_open, open_counts
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import epoch_ms, role_label

POLL_MS = 10_000  # read by assets/queue_watch.js through the element's data-poll-ms
CACHE_S = 2.0


@dataclass
class ArrivalRow:
    review_id: int = 0
    role: str = ""
    conversation_id: int = 0
    title: str = ""
    created_ms: int = 0


Summary = tuple[dict[str, int], list[ArrivalRow]]
_recent: dict[tuple[str, ...], tuple[float, Summary]] = {}


def summary_rows(actor: Actor, roles: tuple[str, ...]) -> Summary:
    counts = open_counts(actor, roles)  # checks that the actor holds every one of the roles
    arrivals = [ArrivalRow(a.review_id, role_label(a.role), a.conversation_id, a.title, epoch_ms(a.created_at))
                for a in newest_open(actor, roles)]
    return counts, arrivals


def cached_summary(actor: Actor, roles: tuple[str, ...], now: float | None = None) -> Summary:
    """summary_rows, shared for CACHE_S by every caller asking for the same roles. The rights are
    checked before the cache is read: only a holder of the roles gets their queues' summary."""
    for role in roles:
        check_can_claim(actor, role)
    now = time.monotonic() if now is None else now
    hit = _recent.get(roles)
    if hit is not None and now - hit[0] < CACHE_S:
        return hit[1]
    summary = summary_rows(actor, roles)
    _recent[roles] = (now, summary)
    return summary


class QueueSummary(rx.State):
    counts: dict[str, int] = {}
    arrivals: rx.Field[list[ArrivalRow]] = rx.field(default_factory=list)
    loaded: bool = False

    @rx.event
    async def refresh(self):
        """On every page, on mount and then polled: the signed-in user's own roles, from the
        server, never from the browser."""
        app_state = await self.get_state(AppState)
        try:
            actor = await app_state._signed_in_actor()
        except PermissionDenied:  # signed out: the page's own check redirects
            return
        roles = tuple(app_state.review_roles)
        if not roles:
            return
        counts, arrivals = await asyncio.to_thread(cached_summary, actor, roles)
        if self.counts != counts:
            self.counts = counts
        if self.arrivals != arrivals:
            self.arrivals = arrivals
        if not self.loaded:
            self.loaded = True
