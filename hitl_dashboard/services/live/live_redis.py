"""Live updates between processes: runner processes push events onto a Redis list; each web
worker pops them (BLPOP: every event is handled by exactly one worker) and refreshes the
Reflex feeds, which Reflex's Redis state manager then pushes to every linked browser.

Streamed text travels as the whole text so far, so a lost or repeated event cannot garble it."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable

import redis

from hitl_dashboard.services.live import live

log = logging.getLogger(__name__)
QUEUE_KEY = "hitl:live-events"
MAX_BACKLOG = 10_000  # a web tier that is down for long must not fill Redis
STREAM_FLUSH_S = 0.05


class RedisPublisherSink:
    """Registered in processes that have no browsers (the CLI worker)."""

    def __init__(self, url: str):
        self.client = redis.Redis.from_url(url)
        self._streams: dict[int, tuple[str, str, str]] = {}
        self._last: dict[int, float] = {}

    def _push(self, event: dict) -> None:
        pipe = self.client.pipeline()
        pipe.rpush(QUEUE_KEY, json.dumps(event))
        pipe.ltrim(QUEUE_KEY, -MAX_BACKLOG, -1)
        pipe.execute()

    async def chunk(self, conversation_id: int, source: str, message_id: str, text: str) -> None:
        _, previous_id, so_far = self._streams.get(conversation_id, (source, message_id, ""))
        so_far = (so_far if previous_id == message_id else "") + text
        self._streams[conversation_id] = (source, message_id, so_far)
        now = time.monotonic()
        if now - self._last.get(conversation_id, 0.0) >= STREAM_FLUSH_S:
            self._last[conversation_id] = now
            await asyncio.to_thread(self._push, {"type": "stream", "conversation_id": conversation_id,
                                                 "source": source, "text": so_far})

    def changed(self, conversation_id: int, roles: tuple[str, ...] | None = None) -> None:
        self._streams.pop(conversation_id, None)
        try:
            self._push({"type": "changed", "conversation_id": conversation_id,
                        "roles": list(roles) if roles is not None else None})
        except redis.RedisError:
            log.warning("could not publish a live update for conversation %s", conversation_id)


def install_publisher(url: str) -> None:
    live.register_sink(RedisPublisherSink(url))


async def consume(url: str, on_changed: Callable[[int, tuple[str, ...] | None], None],
                  on_stream: Callable[[int, str, str], Awaitable[None]]) -> None:
    """Runs in each web worker for as long as it lives."""
    client = redis.asyncio.Redis.from_url(url)
    while True:
        try:
            popped = await client.blpop([QUEUE_KEY], timeout=5)
            if popped is None:
                continue
            event = json.loads(popped[1])
            if event["type"] == "changed":
                roles = event.get("roles")  # absent in events of an older runner: every queue
                on_changed(int(event["conversation_id"]), tuple(roles) if roles is not None else None)
            elif event["type"] == "stream":
                await on_stream(int(event["conversation_id"]), event["source"], event["text"])
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - keep listening through Redis restarts and bad events
            log.exception("live event consumer: retrying")
            await asyncio.sleep(1.0)
