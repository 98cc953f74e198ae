"""A reviewer's queues at a glance, on every page: open requests per role (the queue tabs' counts)
and the newest open requests (assets/queue_watch.js turns them into the unread count in the tab
title and into opt-in desktop notifications).

Pushed per role set, like the queue feed: a tab asks once on mount (and when it becomes visible
again), which checks the signed-in user, reads the summary of the roles the server says they hold
and watches that role set's summary feed (ui/fanout.py, slot SUMMARY, beside the page's own feed).
After each change of a queue, ui/live.py reads the summary once per watched role set and sends the
same encoded packet to every tab watching it. Until issue 33 every tab polled every 10 s: an event,
a sign-in check in the database and a frame per tab, whether anything changed or not. A change of
a user's rights (deactivated, roles changed) drops their tabs' summary watches and asks each tab to
check again (ui/states/session_watch.py), so no tab keeps the summary of queues its user lost."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.domain.permissions import Actor, check_can_claim
from hitl_dashboard.services.reviews.queue_summary import newest_open, open_counts
from hitl_dashboard.ui.fanout import resync_on_next_refresh, summary_token, unwatch_summary, watch_summary
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import epoch_ms, role_label

CACHE_S = 2.0


@dataclass
class ArrivalRow:
    review_id: int = 0
    role: str = ""
    conversation_id: int = 0
    title: str = ""
    created_ms: int = 0


Summary = tuple[dict[str, int], list[ArrivalRow]]
# By (workspace, role set): an actor bound to the workspace reads it (issue 41).
_recent: dict[tuple[int | None, tuple[str, ...]], tuple[float, Summary]] = {}


def summary_rows(actor: Actor, roles: tuple[str, ...]) -> Summary:
    counts = open_counts(actor, roles)  # checks that the actor holds every one of the roles
    arrivals = [ArrivalRow(a.review_id, role_label(a.role), a.conversation_id, a.title, epoch_ms(a.created_at))
                for a in newest_open(actor, roles)]
    return counts, arrivals


def remember_summary(workspace_id: int, roles: tuple[str, ...], summary: Summary, now: float | None = None) -> None:
    """From the live refresh, which has just read it: what the next tab to open reads."""
    _recent[(workspace_id, roles)] = (time.monotonic() if now is None else now, summary)


def forget_summaries(role_sets: list[tuple[str, ...]]) -> None:
    for key in [key for key in _recent if key[1] in role_sets]:
        _recent.pop(key, None)


def cached_summary(actor: Actor, roles: tuple[str, ...], now: float | None = None) -> Summary:
    """summary_rows, shared for CACHE_S by every caller asking for the same roles. The rights are
    checked before the cache is read: only a holder of the roles gets their queues' summary."""
    for role in roles:
        check_can_claim(actor, role)
    now = time.monotonic() if now is None else now
    hit = _recent.get((actor.workspace_id, roles))
    if hit is not None and now - hit[0] < CACHE_S:
        return hit[1]
    summary = summary_rows(actor, roles)
    _recent[(actor.workspace_id, roles)] = (now, summary)
    return summary


class QueueSummary(rx.State):
    counts: dict[str, int] = {}
    arrivals: rx.Field[list[ArrivalRow]] = rx.field(default_factory=list)
    loaded: bool = False

    # On the server's baseline of a role set's feed: the next refresh sends every field (a tab filled
    # its own copy from the database since, maybe newer than the baseline).
    _resync: bool = True

    # Private (underscore): every public method is an event any browser may send.
    def _fill(self, summary: Summary) -> None:
        counts, arrivals = summary
        everything, self._resync = self._resync, False
        # Assigned only when they changed (Reflex sends every assigned field, equal or not).
        if everything or self.counts != counts:
            self.counts = counts
        if everything or self.arrivals != arrivals:
            self.arrivals = arrivals
        if everything or not self.loaded:
            self.loaded = True

    @rx.event
    async def refresh(self):
        """On mount of every page, and when the tab becomes visible again: the signed-in user's own
        roles, from the server, never from the browser; then their role set's pushes."""
        app_state = await self.get_state(AppState)
        try:
            actor = await app_state._acting_actor()
        except PermissionDenied:  # signed out: the page's own check redirects
            await unwatch_summary(self)
            return
        roles = tuple(app_state.review_roles)
        if not roles:
            await unwatch_summary(self)
            return
        assert actor.workspace_id is not None  # _acting_actor binds it
        feed = summary_token(roles, actor.workspace_id)
        await watch_summary(self, feed, actor.user_id)  # before the read: a change after it is pushed here
        summary = await asyncio.to_thread(cached_summary, actor, roles)
        self._resync = False
        self._fill(summary)
        await resync_on_next_refresh(feed, QueueSummary)
