"""Live feeds: what a tab shows of a role's queue or of one conversation, kept current by the server.

Each tab has its own copy, filled when it opens the page; the server then pushes each change to
every tab watching the feed (ui/fanout.py). Opening a feed checks the signed-in user first; the
data itself is loaded by the services. No public event writes a feed's data: only the server
fills it, from the database, for this tab.

Opening a feed: watch, read, show, read again. Watching first means no change is lost: one
committed before the watch is in the read, and every refresh after it pushes to this tab (read
first, a change committed between the read and the watch reached nobody here, and the tab showed
the older state until the feed's next change). The second read is for the order in which updates
arrive: a refresh pushed between the watch and the tab's own first view may carry a newer state
than that view and reach the browser before it; the second read, taken after the first view went
out, sends what changed since, so the newest state is the last one the tab gets."""

from __future__ import annotations

import asyncio
import dataclasses

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.services.conversations.transcript_window import TRANSCRIPT_BLOCK, newest_block_start, window_start
from hitl_dashboard.ui.fanout import conversation_token, queue_token, resync_on_next_refresh, unwatch, watch
from hitl_dashboard.ui.states.app_state import AppState, path_id
from hitl_dashboard.ui.stream import CATCH_UP_ROUNDS, catch_up, show_stream
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
from hitl_dashboard.ui.views.suggestion_rows import SuggestionRow


async def _actor(state: rx.State):
    app_state = await state.get_state(AppState)
    try:
        return await app_state._signed_in_actor()
    except PermissionDenied:
        return None


async def _acting(state: rx.State):
    """The signed-in user bound to the workspace the tab shows (a queue is one workspace's)."""
    app_state = await state.get_state(AppState)
    try:
        return await app_state._acting_actor()
    except PermissionDenied:
        return None


class FeedError(AppState):
    """Why a feed could not be opened, for this browser only."""

    queue: str = ""
    conversation: str = ""


async def _report(state: rx.State, **errors: str) -> None:
    feed_error = await state.get_state(FeedError)
    for name, message in errors.items():
        setattr(feed_error, name, message)


class QueueFeed(rx.State):
    role: str = ""
    rows: rx.Field[list[QueueRow]] = rx.field(default_factory=list)
    loaded: bool = False

    # Private (underscore): Reflex makes every public method an event any browser may send.
    # Only the server fills a feed, from the database.
    def _fill(self, role: str, rows: list[QueueRow]) -> None:
        self.role, self.rows, self.loaded = role, rows, True

    @rx.event
    async def open_from_url(self):
        role = self.router.url.query_parameters.get("role", "")
        return QueueFeed.open(role)

    @rx.event
    async def open(self, role: str):
        actor = await _acting(self)
        if actor is None:
            return
        roles = (await self.get_state(AppState)).review_roles
        role = role if role in roles else (roles[0] if roles else "")
        if not role:
            await _report(self, queue="You hold no review role, so you have no review queue.")
            return
        feed = queue_token(role, actor.workspace_id)
        await watch(self, feed, actor.user_id)  # before the read: see the module's docstring
        try:
            rows = await asyncio.to_thread(queue_rows, actor, role)  # the service checks the role
        except DomainError as exc:
            await unwatch(self, feed)
            await _report(self, queue=str(exc))
            return
        await _report(self, queue="")
        self._fill(role, rows)
        yield  # on screen now
        rows = await asyncio.to_thread(queue_rows, actor, role)
        if rows != self.rows:
            self._fill(role, rows)


SETTLED_EVERY = TRANSCRIPT_BLOCK


def split_transcript(rows: list[MessageRow]) -> tuple[list[MessageRow], list[MessageRow]]:
    """(settled, newest) of the window the view holds (services/conversations/transcript_window.py):
    the newest part holds the last 1 to SETTLED_EVERY messages, the settled part the WINDOW_BLOCKS
    whole blocks before it, so it changes once every SETTLED_EVERY messages and never grows."""
    if not rows:
        return [], []
    cut = newest_block_start(rows[-1].seq)
    start = window_start(rows[-1].seq)
    return [r for r in rows if start < r.seq <= cut], [r for r in rows if r.seq > cut]


class ConversationFeed(rx.State):
    id: int = 0
    title: str = ""
    task: str = ""
    task_type: str = ""
    status: rx.Field[str] = rx.field("")
    banner: str = ""
    banner_due: str = ""
    banner_due_ms: int = 0
    initiator_id: rx.Field[int] = rx.field(0)
    tokens: str = ""
    team: str = ""
    agents: list[str] = []
    # The transcript's newest window in two lists: a settled part, replaced only every SETTLED_EVERY
    # messages, and the newest messages. A stored message then changes `messages` alone, so each
    # refresh sends a few rows to every tab, and a move of the window one block: the same cost
    # whatever the length. Older messages are each tab's own (ui/states/transcript_history.py).
    settled_messages: list[MessageRow] = []
    messages: list[MessageRow] = []
    first_seq: int = 0  # of the window's first message (0: none yet)
    older_messages: int = 0  # how many come before it
    steps: list[StepRow] = []
    reviews: rx.Field[list[ReviewRow]] = rx.field(default_factory=list)
    revisions: rx.Field[list[RevisionRow]] = rx.field(default_factory=list)
    outcomes: rx.Field[list[OutcomeRow]] = rx.field(default_factory=list)
    suggestions: rx.Field[list[SuggestionRow]] = rx.field(default_factory=list)
    found: bool = False
    last_message_ms: rx.Field[float] = rx.field(0.0)  # see ConversationView; the message streaming is in StreamFeed

    # On the server's baseline (ui/fanout.py): the next refresh sends every field, not only the
    # changed ones (a new baseline, or a tab filled its copy from the database since).
    _resync: bool = True

    def _fill(self, view: ConversationView, *, everything: bool = False) -> None:  # server only
        # Only what changed: an unchanged field is not sent again, and the parts of the page that
        # show it (the diff viewer when no revision came) are not rendered again. A tab opening
        # the page takes everything: its own copy may be older than what it was last pushed.
        everything, self._resync = everything or self._resync, False
        values = {item.name: getattr(view, item.name) for item in dataclasses.fields(view)}
        rows = values["messages"]
        values["settled_messages"], values["messages"] = split_transcript(rows)
        shown = values["settled_messages"] or values["messages"]
        values["older_messages"] += len(rows) - len(values["settled_messages"]) - len(values["messages"])
        values["first_seq"] = shown[0].seq if shown else 0
        for name, value in values.items():
            if everything or self.get_value(name) != value:
                setattr(self, name, value)

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
        feed = conversation_token(conversation_id)
        await watch(self, feed, actor.user_id)  # before the read: see the module's docstring
        try:
            view = await asyncio.to_thread(conversation_view, actor, conversation_id)
        except DomainError as exc:
            await unwatch(self, feed)
            await _report(self, conversation=str(exc))
            return
        await _report(self, conversation="")
        self._fill(view, everything=True)
        yield  # on screen now
        self._fill(await asyncio.to_thread(conversation_view, actor, conversation_id))  # what changed since
        await resync_on_next_refresh(feed, ConversationFeed)
        shown = await show_stream(self, conversation_id)
        for _ in range(CATCH_UP_ROUNDS):
            yield  # this tab's stream goes out now; then catch up with a push sent meanwhile
            moved_on, shown = await catch_up(self, conversation_id, shown)
            if not moved_on:
                break
