"""Live updates between processes: runner processes push events onto a Redis list; each web
worker pops them (BLPOP: every event is handled by exactly one worker) and refreshes the
Reflex feeds, which Reflex's Redis state manager then pushes to every linked browser.

Streamed text travels as the whole text so far (latest wins, coalesced here before it is pushed),
so a lost or repeated event cannot garble it."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import Awaitable, Callable

import redis

from hitl_dashboard.services.live import live
from hitl_dashboard.services.live.coalesce import Coalescer
from hitl_dashboard.services.live.live_events import LiveHandlers, changed_event, dispatch, sessions_ended_event
from hitl_dashboard.services.live.streams import Stream, StreamTexts

log = logging.getLogger(__name__)
QUEUE_KEY = "hitl:live-events"
MAX_BACKLOG = 10_000  # a web tier that is down for long must not fill Redis
# At most one stream event per conversation this often; the last always. The same rate as a runner
# in the web process (ui/live.py STREAM_FLUSH_S, which says why).
STREAM_FLUSH_S = 0.25


class RedisPublisherSink:
    """Registered in processes that have no browsers (the CLI worker)."""

    def __init__(self, url: str):
        self.client = redis.Redis.from_url(url)
        self._streams = StreamTexts()
        self._stream_sends: Coalescer[int, Stream] | None = None

    def _push(self, event: dict) -> None:
        pipe = self.client.pipeline()
        pipe.rpush(QUEUE_KEY, json.dumps(event))
        pipe.ltrim(QUEUE_KEY, -MAX_BACKLOG, -1)
        pipe.execute()

    async def chunk(self, conversation_id: int, source: str, message_id: str, text: str) -> None:
        # Created here, on the runner's loop; the coalescer sends from its own task, so the runner
        # never waits on Redis between two chunks.
        if self._stream_sends is None:
            self._stream_sends = Coalescer(self._send_stream, STREAM_FLUSH_S)
        self._stream_sends.put(conversation_id, self._streams.add(conversation_id, source, message_id, text))

    async def _send_stream(self, conversation_id: int, stream: Stream) -> None:
        await asyncio.to_thread(self._push, {"type": "stream", "conversation_id": conversation_id,
                                             **dataclasses.asdict(stream)})

    def changed(self, conversation_id: int, roles: tuple[str, ...] | None = None) -> None:
        try:
            self._push(changed_event(conversation_id, roles))
        except redis.RedisError:
            log.warning("could not publish a live update for conversation %s", conversation_id)

    def sessions_ended(self, user_id: int) -> None:
        try:
            self._push(sessions_ended_event(user_id))
        except redis.RedisError:
            log.warning("could not tell the web tier that the sessions of user %s ended", user_id)


def install_publisher(url: str) -> None:
    """Once per process: the CLI's entry point may run several times in one process (tests, a
    script calling main()), and a second publisher would push every change twice."""
    if not live.has_sink(RedisPublisherSink):
        live.register_sink(RedisPublisherSink(url))


async def consume(url: str, on_changed: Callable[[int, tuple[str, ...] | None], None],
                  on_stream: Callable[[int, Stream], Awaitable[None]],
                  on_sessions_ended: Callable[[int], None] | None = None) -> None:
    """Runs in each web worker for as long as it lives."""
    handlers = LiveHandlers(on_changed, on_stream, on_sessions_ended)
    client = redis.asyncio.Redis.from_url(url)
    while True:
        try:
            # redis-py types each command for its sync and async clients at once (Awaitable[T] | T).
            popped = await client.blpop([QUEUE_KEY], timeout=5)  # type: ignore[misc]
            if popped is None:
                continue
            await dispatch(json.loads(popped[1]), handlers)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - keep listening through Redis restarts and bad events
            log.exception("live event consumer: retrying")
            await asyncio.sleep(1.0)
