"""Live feeds: shared states that every browser watching the same thing is linked to.

The server refreshes a feed by its token (ui/live.py) and Reflex pushes the change to each
linked browser. Tokens may not contain '_' (Reflex rule), hence role names with dashes.
Opening a feed checks the signed-in user first; the data itself is loaded by the services."""

from __future__ import annotations

import asyncio
import dataclasses

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.ui.states.app_state import AppState, path_id
from hitl_dashboard.ui.stream import watch_stream
from hitl_dashboard.ui.views.conversation_view import (
    ConversationView,
    MessageRow,
    OutcomeRow,
    ReviewRow,
    RevisionRow,
    StepRow,
    conversation_view,
)
from hitl_dashboard.ui.views.queue_view import QueueRow, queue_rows


def queue_token(role: str) -> str:
    return "queue-" + role.replace("_", "-")


def conversation_token(conversation_id: int) -> str:
    return f"conv-{conversation_id}"


async def _actor(state: rx.State):
    app_state = await state.get_state(AppState)
    try:
        return await app_state._signed_in_actor()
    except PermissionDenied:
        return None


class FeedError(AppState):
    """Why a feed could not be opened, for this browser only: a shared feed must never carry
    one viewer's error to everybody else linked to it."""

    queue: str = ""
    conversation: str = ""


async def _link_alone(feed: rx.SharedState, token: str) -> rx.SharedState | None:
    """Links `feed` to `token` as this browser's only feed link and returns the linked feed; or
    drops the browser's other links and returns None: the caller then sends its open again.

    For every event of a browser, and for every update pushed to it, Reflex locks each feed the
    browser is linked to, in the order that browser linked them. Two browsers linked to the same
    two feeds in opposite orders (one went from the queue to conversation 5, the other from
    conversation 5 to the queue) can then each hold one feed lock and wait for the other's: with
    the embedded state manager, forever, and every page of both feeds stops updating. A browser
    linked to one feed at a time never holds two feed locks. So an event that finds another link
    only drops it, and the same open, sent again as a new event, links with no feed lock held."""
    root = feed._get_root_state()
    links = dict(root._reflex_internal_links or {})
    name = feed.get_full_name()
    if all(linked == name and linked_token == token for linked, linked_token in links.items()):
        return await feed._link_to(token)
    for linked in links:
        other = await feed.get_state(root.get_class_substate(linked))
        await other._unlink()
    return None


async def _report(state: rx.State, **errors: str) -> None:
    feed_error = await state.get_state(FeedError)
    for name, message in errors.items():
        setattr(feed_error, name, message)


class QueueFeed(rx.SharedState):
    role: str = ""
    rows: list[QueueRow] = []
    loaded: bool = False

    # Private (underscore): Reflex makes every public method an event any browser may send.
    # Only the server fills a shared feed; a browser filling it would rewrite what others see.
    def _fill(self, role: str, rows: list[QueueRow]) -> None:
        self.role, self.rows, self.loaded = role, rows, True

    @rx.event
    async def open_from_url(self):
        role = self.router.url.query_parameters.get("role", "")
        return QueueFeed.open(role)

    @rx.event
    async def open(self, role: str):
        actor = await _actor(self)
        if actor is None:
            return
        roles = (await self.get_state(AppState)).review_roles
        role = role if role in roles else (roles[0] if roles else "")
        if not role:
            await _report(self, queue="You hold no review role, so you have no review queue.")
            return
        try:
            rows = await asyncio.to_thread(queue_rows, actor, role)  # the service checks the role
        except DomainError as exc:
            await _report(self, queue=str(exc))
            return
        await _report(self, queue="")
        linked = await _link_alone(self, queue_token(role))
        if linked is None:
            return QueueFeed.open(role)
        linked._fill(role, rows)


class ConversationFeed(rx.SharedState):
    id: int = 0
    title: str = ""
    task: str = ""
    task_type: str = ""
    status: str = ""
    banner: str = ""
    banner_due: str = ""
    banner_due_ms: int = 0
    initiator_id: int = 0
    tokens: str = ""
    team: str = ""
    agents: list[str] = []
    messages: list[MessageRow] = []
    steps: list[StepRow] = []
    reviews: list[ReviewRow] = []
    revisions: list[RevisionRow] = []
    outcomes: list[OutcomeRow] = []
    found: bool = False
    last_message_ms: float = 0.0  # see ConversationView; the message streaming is in StreamFeed

    def _fill(self, view: ConversationView) -> None:  # server only: see QueueFeed._fill
        # Only what changed: an unchanged field is not sent again, and the parts of the page that
        # show it (the diff viewer when no revision came) are not rendered again.
        for item in dataclasses.fields(view):
            value = getattr(view, item.name)
            if self.get_value(item.name) != value:
                setattr(self, item.name, value)

    @rx.var
    def revision_keys(self) -> list[str]:
        seen: list[str] = []
        for revision in self.revisions:
            if revision.key not in seen:
                seen.append(revision.key)
        return seen

    @rx.event
    async def open_from_url(self):
        actor = await _actor(self)
        if actor is None:
            return
        conversation_id = path_id(self.router.url.path)
        if conversation_id is None:
            await _report(self, conversation="There is no such conversation.")
            return
        try:
            view = await asyncio.to_thread(conversation_view, actor, conversation_id)
        except DomainError as exc:
            await _report(self, conversation=str(exc))
            return
        await _report(self, conversation="")
        linked = await _link_alone(self, conversation_token(conversation_id))
        if linked is None:
            return ConversationFeed.open_from_url
        linked._fill(view)
        await watch_stream(self, conversation_id)
