"""Coalescing of fast-changing values (the text streamed so far) into at most one send per interval.

Latest wins: a value replaced before it is sent is never sent. The first value goes out at once,
later ones at most once per `interval` per key, and the last one always goes out (a trailing send),
so the end of a stream is never held back. A send that takes longer than the interval delays the
next one instead of piling sends up: the browser never has a backlog to work through. The interval
may be a function of the key, asked after each send (the stream of a conversation many tabs watch
goes out less often: ui/live.py)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Coalescer(Generic[K, V]):
    def __init__(self, send: Callable[[K, V], Awaitable[None]], interval: float | Callable[[K], float], *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        self.send, self.interval, self.clock, self.sleep = send, interval, clock, sleep
        self._latest: dict[K, V] = {}
        self._tasks: dict[K, asyncio.Task] = {}

    def put(self, key: K, value: V) -> None:
        """From the event loop: `value` replaces whatever is waiting for `key`."""
        self._latest[key] = value
        if key not in self._tasks:
            self._tasks[key] = asyncio.get_running_loop().create_task(self._drain(key))

    def busy(self, key: K) -> bool:
        """Whether a value for `key` is waiting or being sent, or was sent less than an interval ago."""
        return key in self._tasks

    async def _drain(self, key: K) -> None:
        try:
            while key in self._latest:
                value = self._latest.pop(key)
                sent_at = self.clock()
                try:
                    await self.send(key, value)
                except Exception:  # noqa: BLE001 - a failed send must not stop the next ones
                    log.exception("coalesced send for %r failed", key)
                # Stay for the rest of the interval: what arrives meanwhile goes out at its end.
                interval = self.interval(key) if callable(self.interval) else self.interval
                wait = sent_at + interval - self.clock()
                if wait > 0:
                    await self.sleep(wait)
        finally:
            del self._tasks[key]
