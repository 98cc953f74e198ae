"""Pushes changes to the browsers watching them: the services' live sink, implemented with Reflex.

Called from the runner (token chunks, committed turns) and after decisions and claims.
Refreshes are coalesced across conversations (one flusher per worker) and cover only the
conversation and the role queues that changed (and the queue summaries of the role sets holding
one of those roles), and only feeds some tab watches; each
refresh is one delta computed once and sent to every tab watching (ui/fanout.py). Streamed
text goes its own way (ui/stream.py), coalesced to one small update per STREAM_FLUSH_S (by the
runner's process: here, or services/live/live_redis for a runner elsewhere)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from functools import partial

import reflex as rx

from hitl_dashboard.domain.enums import QUEUE_ROLES
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.live import live
from hitl_dashboard.services.live.coalesce import Coalescer
from hitl_dashboard.services.live.streams import Stream, StreamTexts, remember
from hitl_dashboard.services.reviews.queue_summary import role_sets_touching
from hitl_dashboard.services.workspaces.workspaces import workspace_ids
from hitl_dashboard.ui.fanout import (
    SUMMARY,
    Outbox,
    conversation_token,
    fill_and_fan_out,
    queue_token,
    summary_token,
    watched,
)
from hitl_dashboard.ui.states.feeds import ConversationFeed, QueueFeed
from hitl_dashboard.ui.states.queue_summary import QueueSummary, forget_summaries, remember_summary, summary_rows
from hitl_dashboard.ui.states.session_watch import end_sessions
from hitl_dashboard.ui.stream import push_stream
from hitl_dashboard.ui.views.conversation_view import conversation_view
from hitl_dashboard.ui.views.queue_view import queue_rows

log = logging.getLogger(__name__)
# Only used to read whole queues for the feeds; never to decide anything.
QUEUE_READER = Actor(0, "live-feed", frozenset({"admin"}))
REFRESH_COALESCE_S = 0.05
# At most one streamed update per conversation this often (the last chunk always goes out).
# Every update is one websocket frame to each watching tab, about 0.14 ms of server CPU per tab
# (bench/tab_cost.py); at 0.1 s a decision cycle sent each tab about 100 frames (14 ms of CPU),
# nearly all of them the typing card. Four a second still reads as typing, and the stored
# message, pushed at once, ends the stream without waiting for the window.
STREAM_FLUSH_S = 0.25
# A conversation watched by more tabs than this streams at most every CROWD_STREAM_FLUSH_S: the
# stream is most of a watching tab's frames (36 of about 47 a decision cycle at 0.25 s, 50 tabs,
# bench/tab_cost.py), and each costs every tab its frame. Two a second still shows the reply coming;
# the stored message still goes out at once.
CROWD_TABS = 20
CROWD_STREAM_FLUSH_S = 0.5


class ReflexLiveSink:
    def __init__(self, app: rx.App, loop: asyncio.AbstractEventLoop, *,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        self.app, self.loop, self._sleep = app, loop, sleep
        self._pending: set[int] = set()
        self._pending_roles: set[str] = set()
        self._wake = asyncio.Event()
        self._flusher: asyncio.Task | None = None
        self._streams = StreamTexts()
        self._stream_sends: Coalescer[int, Stream] = Coalescer(self.stream, self._stream_interval)
        self._stream_tabs: dict[int, int] = {}  # per conversation: the tabs its last streamed update reached
        self._background: set[asyncio.Task] = set()

    # -- committed changes ------------------------------------------------------------------
    def changed(self, conversation_id: int, roles: tuple[str, ...] | None = None) -> None:
        live.call_on_loop(self.loop, self._schedule, conversation_id, roles)

    def _schedule(self, conversation_id: int, roles: tuple[str, ...] | None) -> None:
        self._pending.add(conversation_id)
        self._pending_roles.update(QUEUE_ROLES if roles is None else roles)
        self._wake.set()
        if self._flusher is None or self._flusher.done():
            self._flusher = self.loop.create_task(self._flush_forever())

    async def _flush_forever(self) -> None:
        """One flusher per worker: it takes everything that changed since its last pass, so a burst
        of decisions across many conversations costs one lookup of who watches what, then one read
        per watched conversation and queue; and passes never overlap (an older read can never
        overwrite a newer one)."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            conversations, roles = self._pending, self._pending_roles
            self._pending, self._pending_roles = set(), set()
            try:
                await refresh(self.app, sorted(conversations), tuple(r for r in QUEUE_ROLES if r in roles))
            except Exception:  # noqa: BLE001 - a viewer problem must never break the runner
                log.exception("live refresh of conversations %s and queues %s failed",
                              sorted(conversations), sorted(roles))
            # Leading edge: a change after a quiet spell goes out at once (a stored message is on
            # screen without waiting out a window); what arrives during a pass or within
            # REFRESH_COALESCE_S after it is taken together in the next pass, so a burst of
            # decisions still costs one read per conversation and per queue per pass.
            await self._sleep(REFRESH_COALESCE_S)

    # -- ended sessions ---------------------------------------------------------------------
    def sessions_ended(self, user_id: int) -> None:
        live.call_on_loop(self.loop, self._end_sessions, user_id)

    def _end_sessions(self, user_id: int) -> None:
        task = self.loop.create_task(end_sessions(self.app, user_id))
        self._background.add(task)  # held until done: the loop keeps only weak references
        task.add_done_callback(self._background.discard)

    # -- streaming tokens -------------------------------------------------------------------
    async def chunk(self, conversation_id: int, source: str, message_id: str, text: str) -> None:
        """From a runner in this process: one more piece of the message being streamed."""
        self._stream_sends.put(conversation_id, self._streams.add(conversation_id, source, message_id, text))

    async def stream(self, conversation_id: int, stream: Stream) -> None:
        """The whole text so far, to every tab watching: from the coalescer above, or from a runner
        in another process (services/live_redis), coalesced there at the same rate (there, in one
        place: events of one stream popped by several workers and held back by each could reach a
        tab out of order)."""
        remember(self._stream_tabs, conversation_id, await push_stream(self.app, conversation_id, stream))

    def _stream_interval(self, conversation_id: int) -> float:
        crowded = self._stream_tabs.get(conversation_id, 0) > CROWD_TABS
        return CROWD_STREAM_FLUSH_S if crowded else STREAM_FLUSH_S


async def refresh(app: rx.App, conversation_ids: list[int], roles: tuple[str, ...]) -> None:
    """One pass: which of these feeds some tab watches (one lookup for all of them), then a refresh
    of each watched one. A feed nobody watches is not read; whoever opens it later reads it fresh."""
    conversations = {conversation_token(cid): cid for cid in conversation_ids}
    # Queues and summaries are one workspace's each (issue 41): every workspace's feed of a changed
    # role is looked up, and only the watched ones are read.
    workspaces = await asyncio.to_thread(workspace_ids) if roles else []
    queues = {queue_token(role, w): (role, w) for role in roles for w in workspaces}
    feeds = [*conversations, *queues]
    role_sets = role_sets_touching(roles, QUEUE_ROLES) if roles else []
    forget_summaries(role_sets)  # a tab opening next reads the change, not a summary cached before it
    summaries = {summary_token(role_set, w): (role_set, w) for role_set in role_sets for w in workspaces}
    watched_now = await watched(feeds)
    watched_summaries = await watched(list(summaries), SUMMARY) if summaries else set()
    # (feed, its refresh), in this order: conversations, queues, then the summaries.
    work: list[tuple[str, Callable[[Outbox], Awaitable[None]]]] = [
        *((feed, partial(refresh_conversation, app, cid)) for feed, cid in conversations.items()
          if feed in watched_now),
        *((feed, partial(refresh_queue, app, role, w)) for feed, (role, w) in queues.items() if feed in watched_now),
        *((feed, partial(refresh_summary, app, role_set, w)) for feed, (role_set, w) in summaries.items()
          if feed in watched_summaries),
    ]
    outbox = Outbox()  # one frame a tab for the whole pass: its page's feed and its summary together
    try:
        for feed, refresh_feed in work:
            try:
                await refresh_feed(outbox)
            except Exception:  # noqa: BLE001 - one feed's problem must not keep the others stale
                log.exception("live refresh of %s failed", feed)
    finally:
        await outbox.send(app)


async def refresh_conversation(app: rx.App, conversation_id: int, outbox: Outbox | None = None) -> None:
    # No actor: the server reads the conversation once for every tab watching it.
    view = await asyncio.to_thread(conversation_view, None, conversation_id)
    await fill_and_fan_out(app, conversation_token(conversation_id), ConversationFeed,
                           lambda baseline: baseline._fill(view), outbox=outbox)


async def refresh_queue(app: rx.App, role: str, workspace_id: int, outbox: Outbox | None = None) -> None:
    rows = await asyncio.to_thread(queue_rows, QUEUE_READER.within(workspace_id, ""), role)
    await fill_and_fan_out(app, queue_token(role, workspace_id), QueueFeed,
                           lambda baseline: baseline._fill(role, rows), outbox=outbox)


async def refresh_summary(app: rx.App, roles: tuple[str, ...], workspace_id: int,
                          outbox: Outbox | None = None) -> None:
    """One read of the role set's queue summary in one workspace, one delta, the same packet to every
    tab of a user holding exactly these roles there (ui/states/queue_summary.py)."""
    summary = await asyncio.to_thread(summary_rows, QUEUE_READER.within(workspace_id, ""), roles)
    remember_summary(workspace_id, roles, summary)
    await fill_and_fan_out(app, summary_token(roles, workspace_id), QueueSummary,
                           lambda baseline: baseline._fill(summary), SUMMARY, outbox)


async def install(app: rx.App) -> None:
    """Runs once per web worker as a lifespan task (it needs the running loop). It also relays the
    events of processes without browsers (runners, the CLI) for as long as the worker lives: from
    Redis when there is one, else from the database's live_changes."""
    from hitl_dashboard.settings import get_settings

    sink = ReflexLiveSink(app, asyncio.get_running_loop())
    live.register_sink(sink)
    url = get_settings().redis_url
    if url:
        from hitl_dashboard.services.live.live_redis import consume

        await consume(url, sink.changed, sink.stream, sink.sessions_ended)
    else:  # the CLI beside an embedded app writes its changes to the database instead
        from hitl_dashboard.services.live.live_database import follow
        from hitl_dashboard.services.live.live_events import LiveHandlers

        # Through every sink of this worker: the in-process runner starts a turn a CLI decision allows at once.
        await follow(LiveHandlers(live.publish_turn, sink.stream, sink.sessions_ended))
