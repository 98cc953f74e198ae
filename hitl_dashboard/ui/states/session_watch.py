"""Ending a user's open pages at once: every signed-in page registers its tab under its user
(SessionWatch.register, on mount), and when that user's sessions end (deactivated) each of their
tabs is sent AppState.require_login, which checks the session in the database again and, refused,
forgets it and shows the sign-in page. The push only asks the tab to check: what it may see is still
decided on the server, so a push that reached the wrong tab would change nothing."""

from __future__ import annotations

import logging

import reflex as rx
from reflex.event import Event
from reflex.state import StateUpdate

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.services.live.user_tabs import user_tabs_store
from hitl_dashboard.ui.fanout import forget_every_watch, forget_summary_watches, send_to_tabs
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.queue_summary import QueueSummary

log = logging.getLogger(__name__)
# What the browser is told to send back: the same check as every protected page's on_load.
RECHECK = Event(name=f"{AppState.get_full_name()}.require_login")
# Then the queue summary asks again: it watches the role set the user holds now, or nothing.
SUMMARY_AGAIN = Event(name=f"{QueueSummary.get_full_name()}.refresh")
# And the page opens its feeds again, through their checks: a conversation or queue of a workspace the
# user has just left is then refused, where its feed would have gone on pushing (issue 41).
REOPEN = Event(name=f"{AppState.get_full_name()}.reopen")


def _store():
    from hitl_dashboard.settings import get_settings

    return user_tabs_store(get_settings().redis_url)


class SessionWatch(rx.State):
    @rx.event
    async def register(self):
        """On mount of every signed-in page: this tab belongs to the user the server signed in."""
        app_state = await self.get_state(AppState)
        try:
            actor = await app_state._signed_in_actor()
        except PermissionDenied:
            return
        await _store().add(actor.user_id, self.router.session.client_token)


async def end_sessions(app: rx.App, user_id: int) -> None:
    """Every open tab of the user checks its session now (from any worker: send_to_tabs reaches the
    tabs of the other workers through Redis). Deactivated, or their roles changed: their tabs get no
    pushed queue summary from here on until they ask again, which checks their rights first."""
    store = _store()

    async def forget(tab: str) -> None:
        await store.forget(user_id, tab)

    try:
        tabs = await store.tabs(user_id)
        await forget_summary_watches(tabs)
        for tab in tabs:  # no feed pushes to them until the page has opened it again, checked
            await forget_every_watch(tab)
        if tabs:
            await send_to_tabs(app, tabs, StateUpdate(events=[RECHECK, SUMMARY_AGAIN, REOPEN]), forget)
    except Exception:  # noqa: BLE001 - the sessions are revoked already; the tabs re-check at their next event
        log.exception("could not ask the open tabs of user %s to check their session", user_id)
        return
    log.info("asked %d open tab(s) of user %s to check their session", len(tabs), user_id)
