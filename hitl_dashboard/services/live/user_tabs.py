"""Which browser tabs (Reflex client tokens) each signed-in user has open, so that ending a user's
sessions can tell those tabs to check again at once: in this process (one web worker), or in Redis
when several web workers share the browsers. A tab is added when a signed-in page mounts; closed
tabs drop out when a push finds them gone, and every set expires a day after its last tab came."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import cast

TABS_TTL_S = 24 * 3600
MAX_LOCAL_USERS = 10_000  # one web worker never holds this many signed-in users' tabs at once


class LocalUserTabs:
    def __init__(self) -> None:
        self._tabs: dict[int, set[str]] = {}

    async def add(self, user_id: int, token: str) -> None:
        self._tabs.setdefault(user_id, set()).add(token)
        if len(self._tabs) > MAX_LOCAL_USERS:
            del self._tabs[next(iter(self._tabs))]

    async def tabs(self, user_id: int) -> list[str]:
        return sorted(self._tabs.get(user_id, ()))

    async def forget(self, user_id: int, token: str) -> None:
        self._tabs.get(user_id, set()).discard(token)


class RedisUserTabs:
    def __init__(self, url: str) -> None:
        import redis.asyncio

        self.client = redis.asyncio.Redis.from_url(url)

    @staticmethod
    def _key(user_id: int) -> str:
        return f"hitl:user-tabs:{user_id}"

    async def add(self, user_id: int, token: str) -> None:
        pipe = self.client.pipeline(transaction=False)
        pipe.sadd(self._key(user_id), token)
        pipe.expire(self._key(user_id), TABS_TTL_S)
        await pipe.execute()

    async def tabs(self, user_id: int) -> list[str]:
        # redis-py types its commands for the sync and the asyncio client at once; this one awaits.
        members = await cast(Awaitable[set[bytes]], self.client.smembers(self._key(user_id)))
        return sorted(token.decode() for token in members)

    async def forget(self, user_id: int, token: str) -> None:
        await cast(Awaitable[int], self.client.srem(self._key(user_id), token))


_stores: dict[int, LocalUserTabs | RedisUserTabs] = {}


def user_tabs_store(redis_url: str | None) -> LocalUserTabs | RedisUserTabs:
    """The store of this process (per event loop: a Redis asyncio client belongs to one loop)."""
    key = id(asyncio.get_running_loop())
    if key not in _stores:
        _stores[key] = RedisUserTabs(redis_url) if redis_url else LocalUserTabs()
    return _stores[key]
