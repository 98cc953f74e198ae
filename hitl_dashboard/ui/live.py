"""Pushes changes to linked browsers: the services' live sink, implemented with Reflex.

Called from the runner (token chunks, committed turns) and after decisions and claims.
Refreshes are coalesced per conversation so a burst of changes costs one reload. Streamed text
goes its own way (ui/stream.py), coalesced to one small update per STREAM_FLUSH_S."""

from __future__ import annotations

import asyncio
import logging

import reflex as rx

from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.live import live
from hitl_dashboard.services.live.coalesce import Coalescer
from hitl_dashboard.services.live.streams import Stream, StreamTexts
from hitl_dashboard.services.reviews.review_queries import QUEUE_ROLES
from hitl_dashboard.ui.states.feeds import ConversationFeed, QueueFeed, conversation_token, queue_token
from hitl_dashboard.ui.stream import push_stream
from hitl_dashboard.ui.views.conversation_view import conversation_view
from hitl_dashboard.ui.views.queue_view import queue_rows

log = logging.getLogger(__name__)
# Only used to read whole queues for the shared feeds; never to decide anything.
QUEUE_READER = Actor(0, "live-feed", frozenset({"admin"}))
# At most one streamed update per conversation this often (the last chunk always goes out).
STREAM_FLUSH_S = 0.08


class ReflexLiveSink:
    def __init__(self, app: rx.App, loop: asyncio.AbstractEventLoop):
        self.app, self.loop = app, loop
        self._pending: set[int] = set()
        self._streams = StreamTexts()
        self._stream_sends: Coalescer[int, Stream] = Coalescer(self.stream, STREAM_FLUSH_S)

    # -- committed changes ------------------------------------------------------------------
    def changed(self, conversation_id: int) -> None:
        live.call_on_loop(self.loop, self._schedule, conversation_id)

    def _schedule(self, conversation_id: int) -> None:
        if conversation_id in self._pending:
            return
        self._pending.add(conversation_id)
        self.loop.create_task(self._refresh(conversation_id))

    async def _refresh(self, conversation_id: int) -> None:
        await asyncio.sleep(0.02)  # coalesce a burst (decision + dismissals + new request)
        self._pending.discard(conversation_id)
        try:
            import time as _t
            _a = _t.time()
            await refresh_conversation(self.app, conversation_id)
            _b = _t.time()
            await refresh_queues(self.app)
            log.warning("TIMING refresh conv %.1f ms queues %.1f ms at %.3f", (_b-_a)*1000, (_t.time()-_b)*1000, _a)
        except Exception:  # noqa: BLE001 - a viewer problem must never break the runner
            log.exception("live refresh of conversation %s failed", conversation_id)

    # -- streaming tokens -------------------------------------------------------------------
    async def chunk(self, conversation_id: int, source: str, message_id: str, text: str) -> None:
        """From a runner in this process: one more piece of the message being streamed."""
        self._stream_sends.put(conversation_id, self._streams.add(conversation_id, source, message_id, text))

    async def stream(self, conversation_id: int, stream: Stream) -> None:
        """The whole text so far, to every tab watching: from the coalescer above, or from a runner
        in another process (services/live_redis), coalesced there."""
        await push_stream(self.app, conversation_id, stream)


async def refresh_conversation(app: rx.App, conversation_id: int) -> None:
    # No actor: the server reads the conversation once for every viewer linked to the feed.
    view = await asyncio.to_thread(conversation_view, None, conversation_id)
    async with app.modify_state(
        rx.BaseStateToken(ident=conversation_token(conversation_id), cls=ConversationFeed)
    ) as root:
        feed = await root.get_state(ConversationFeed)
        feed._fill(view)


async def refresh_queues(app: rx.App, roles: tuple[str, ...] = QUEUE_ROLES) -> None:
    for role in roles:
        rows = await asyncio.to_thread(queue_rows, QUEUE_READER, role)
        async with app.modify_state(rx.BaseStateToken(ident=queue_token(role), cls=QueueFeed)) as root:
            feed = await root.get_state(QueueFeed)
            feed._fill(role, rows)


async def install(app: rx.App) -> None:
    """Runs once per web worker as a lifespan task (it needs the running loop). With Redis it
    also relays the events of runner processes for as long as the worker lives."""
    from hitl_dashboard.settings import get_settings

    sink = ReflexLiveSink(app, asyncio.get_running_loop())
    live.register_sink(sink)
    url = get_settings().redis_url
    if url:
        from hitl_dashboard.services.live.live_redis import consume

        await consume(url, sink.changed, sink.stream)
