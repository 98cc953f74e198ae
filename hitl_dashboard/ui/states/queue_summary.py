"""A reviewer's queues at a glance, on every page: open requests per role (the queue tabs' counts)
and the newest open requests (assets/queue_watch.js turns them into the unread count in the tab
title and into opt-in desktop notifications).

A shared feed per set of roles (the token names the set), so one refresh serves every reviewer
who holds the same roles, and nobody receives the counts of a queue they may not see."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.reviews.queue_summary import newest_open, open_counts
from hitl_dashboard.services.reviews.review_queries import QUEUE_ROLES
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import epoch_ms, role_label


@dataclass
class ArrivalRow:
    review_id: int = 0
    role: str = ""
    conversation_id: int = 0
    title: str = ""
    created_ms: int = 0


def summary_token(roles: tuple[str, ...]) -> str:
    """'queues-5': the set of roles as a bit mask over QUEUE_ROLES (tokens may not contain '_')."""
    return "queues-" + str(sum(1 << QUEUE_ROLES.index(r) for r in roles))


def roles_of(mask: int) -> tuple[str, ...]:
    return tuple(r for i, r in enumerate(QUEUE_ROLES) if mask & (1 << i))


def possible_masks() -> list[int]:
    """The role sets a browser can link to (AppState.review_roles): a subset of the review roles,
    or every queue for an admin; refreshes check only these."""
    everything = (1 << len(QUEUE_ROLES)) - 1
    admin_bit = 1 << QUEUE_ROLES.index("admin")
    return [m for m in range(1, everything) if not m & admin_bit] + [everything]


def summary_rows(actor: Actor, roles: tuple[str, ...],
                 counts: dict[str, int] | None = None) -> tuple[dict[str, int], list[ArrivalRow]]:
    """counts: already read for a wider set of roles (one grouped query per refresh)."""
    counts = counts if counts is not None else open_counts(actor, roles)
    arrivals = [ArrivalRow(a.review_id, role_label(a.role), a.conversation_id, a.title, epoch_ms(a.created_at))
                for a in newest_open(actor, roles)]
    return {r: counts.get(r, 0) for r in roles}, arrivals


class QueueSummaryFeed(rx.SharedState):
    counts: dict[str, int] = {}
    arrivals: list[ArrivalRow] = []
    loaded: bool = False

    def _fill(self, counts: dict[str, int], arrivals: list[ArrivalRow]) -> None:  # server only
        if self.counts != counts:
            self.counts = counts
        if self.arrivals != arrivals:
            self.arrivals = arrivals
        self.loaded = True

    @rx.event
    async def open(self):
        """On every page: the signed-in user's own roles, from the server, never from the browser."""
        app_state = await self.get_state(AppState)
        try:
            actor = await app_state._signed_in_actor()
        except PermissionDenied:  # signed out: the page's own check redirects
            return
        roles = tuple(app_state.review_roles)
        if not roles:
            return
        counts, arrivals = await asyncio.to_thread(summary_rows, actor, roles)
        linked = await self._link_to(summary_token(roles))
        linked._fill(counts, arrivals)
