"""Where the web tier keeps, per conversation, the message streaming right now, and per live feed
(a conversation, a role's queue) the browser tabs watching it: in this process (one web worker), or
in Redis when several web workers share the browsers (any worker may relay a stream or a refresh; a
browser opening mid-stream on another worker must still see the text so far). A tab watches one
feed at a time: the page it shows."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time

PREVIOUS_KEPT_MS = 2000
MAX_LOCAL_STREAMS = 1000  # one web worker never streams this many conversations at once
STREAM_TTL_S = 600  # a stream nobody finished (runner killed) does not linger
WATCH_TTL_S = 24 * 3600


@dataclasses.dataclass(frozen=True)
class Stream:
    source: str
    text: str
    # ms since the epoch when the stream began, on the clock of the process running the agent;
    # the browser hides a stream that began before the newest stored message (it is that message).
    started: float
    # The message streamed just before this one, for the first moments of this one: its stored
    # version may reach a browser a little after this stream starts, and until it does the browser
    # keeps showing it as streamed (no gap). Empty once PREVIOUS_KEPT_MS have passed.
    previous_source: str = ""
    previous_text: str = ""
    previous_started: float = 0.0

    @staticmethod
    def now_ms() -> float:
        return time.time() * 1000


def remember(mapping: dict, key, value, limit: int = MAX_LOCAL_STREAMS) -> None:
    """Set mapping[key] as its newest entry, dropping the oldest beyond `limit` (finished streams)."""
    mapping.pop(key, None)
    mapping[key] = value
    if len(mapping) > limit:
        del mapping[next(iter(mapping))]


class StreamTexts:
    """Per conversation: the id of the message streaming and its text so far, built from chunks."""

    def __init__(self) -> None:
        self._by_conversation: dict[int, tuple[str, Stream]] = {}

    def add(self, conversation_id: int, source: str, message_id: str, text: str) -> Stream:
        previous = self._by_conversation.get(conversation_id)
        now = Stream.now_ms()
        if previous is not None and previous[0] == message_id:
            stream = dataclasses.replace(previous[1], text=previous[1].text + text)
            if stream.previous_started and now - stream.started > PREVIOUS_KEPT_MS:
                stream = dataclasses.replace(stream, previous_source="", previous_text="", previous_started=0.0)
        elif previous is not None:
            before = previous[1]
            stream = Stream(source, text, now, before.source, before.text, before.started)
        else:
            stream = Stream(source, text, now)
        remember(self._by_conversation, conversation_id, (message_id, stream))
        return stream


class LocalStreams:
    """One web worker: plain dictionaries."""

    def __init__(self) -> None:
        self._streams: dict[int, Stream] = {}
        self._watchers: dict[str, set[str]] = {}
        self._watching: dict[str, str] = {}

    async def save(self, conversation_id: int, stream: Stream, feed: str) -> list[str]:
        """Keeps the stream so far; returns the tabs watching `feed` (the conversation's)."""
        remember(self._streams, conversation_id, stream)
        return await self.watchers(feed)

    async def current(self, conversation_id: int) -> Stream | None:
        return self._streams.get(conversation_id)

    async def watch(self, feed: str, token: str) -> None:
        """A browser tab (its Reflex client token) shows this feed now, and no other."""
        previous = self._watching.get(token)
        if previous is not None and previous != feed:
            self._watchers.get(previous, set()).discard(token)
        self._watching[token] = feed
        self._watchers.setdefault(feed, set()).add(token)

    async def watchers(self, feed: str) -> list[str]:
        return list(self._watchers.get(feed, ()))

    async def watched(self, feeds: list[str]) -> set[str]:
        """Of these feeds, the ones some tab watches."""
        return {feed for feed in feeds if self._watchers.get(feed)}

    async def forget(self, feed: str, token: str) -> None:
        self._watchers.get(feed, set()).discard(token)
        if self._watching.get(token) == feed:
            del self._watching[token]

    async def forget_tab(self, token: str) -> None:
        """The tab watches nothing more (of this store)."""
        feed = self._watching.pop(token, None)
        if feed is not None:
            self._watchers.get(feed, set()).discard(token)


class RedisStreams:
    """Several web workers: the same, in Redis (asyncio client of the worker's loop)."""

    def __init__(self, url: str, slot: str = "") -> None:
        import redis.asyncio

        self.client = redis.asyncio.Redis.from_url(url)
        self._watching_prefix = f"hitl:watching{'-' + slot if slot else ''}:"

    @staticmethod
    def _stream_key(conversation_id: int) -> str:
        return f"hitl:stream:{conversation_id}"

    @staticmethod
    def _watchers_key(feed: str) -> str:
        return f"hitl:watchers:{feed}"

    async def save(self, conversation_id: int, stream: Stream, feed: str) -> list[str]:
        # One round trip for both: this runs for every streamed update (10 a second per conversation).
        pipe = self.client.pipeline(transaction=False)
        pipe.set(self._stream_key(conversation_id), json.dumps(dataclasses.asdict(stream)), ex=STREAM_TTL_S)
        pipe.smembers(self._watchers_key(feed))
        _, tabs = await pipe.execute()
        return [token.decode() for token in tabs]

    async def current(self, conversation_id: int) -> Stream | None:
        raw = await self.client.get(self._stream_key(conversation_id))
        return Stream(**json.loads(raw)) if raw else None

    async def watch(self, feed: str, token: str) -> None:
        key = self._watching_prefix + token
        previous = await self.client.getset(key, feed)
        pipe = self.client.pipeline()
        if previous is not None and previous.decode() != feed:
            pipe.srem(self._watchers_key(previous.decode()), token)
        pipe.expire(key, WATCH_TTL_S)
        pipe.sadd(self._watchers_key(feed), token)
        pipe.expire(self._watchers_key(feed), WATCH_TTL_S)
        await pipe.execute()

    async def watchers(self, feed: str) -> list[str]:
        # redis-py types each command for its sync and async clients at once (Awaitable[T] | T).
        return [token.decode() for token in await self.client.smembers(self._watchers_key(feed))]  # type: ignore[misc]

    async def watched(self, feeds: list[str]) -> set[str]:
        """As LocalStreams.watched, in one round trip: a refresh pass after a burst of decisions asks
        about every conversation and queue it touched, and one request each was about a seventh of a
        web worker's CPU under 200 deciding clients (bench/decisions_api.py). Redis deletes a set
        when its last member goes, so a feed's key exists exactly while some tab watches it."""
        if not feeds:
            return set()
        pipe = self.client.pipeline(transaction=False)
        for feed in feeds:
            pipe.exists(self._watchers_key(feed))
        found = await pipe.execute()
        return {feed for feed, exists in zip(feeds, found, strict=True) if exists}

    async def forget(self, feed: str, token: str) -> None:
        await self.client.srem(self._watchers_key(feed), token)  # type: ignore[misc]  # as in watchers()

    async def forget_tab(self, token: str) -> None:
        feed = await self.client.getdel(self._watching_prefix + token)
        if feed is not None:
            await self.client.srem(self._watchers_key(feed.decode()), token)  # type: ignore[misc]


_stores: dict[tuple[int, str], LocalStreams | RedisStreams] = {}


def streams_store(redis_url: str | None, slot: str = "") -> LocalStreams | RedisStreams:
    """The store of this process (per event loop: a Redis asyncio client belongs to one loop). A tab
    watches one feed per slot: the page's feed in the default slot, and beside it the summary of its
    user's queues in the "summary" slot."""
    key = (id(asyncio.get_running_loop()), slot)
    if key not in _stores:
        _stores[key] = RedisStreams(redis_url, slot) if redis_url else LocalStreams()
    return _stores[key]
