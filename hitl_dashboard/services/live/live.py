"""Live updates out of the runner: token chunks while a turn streams, and "something changed".

Sinks are registered by whoever can reach browsers (the web app in-process; a Redis
publisher when runners are separate processes). No sink: nothing is sent, nothing breaks."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

log = logging.getLogger(__name__)


class LiveSink(Protocol):
    async def chunk(self, conversation_id: int, source: str, message_id: str, text: str) -> None: ...

    def changed(self, conversation_id: int, roles: tuple[str, ...] | None = None) -> None:
        """Something committed changed the conversation and the queues of `roles` (None: maybe any queue)."""


@runtime_checkable
class SessionsSink(Protocol):
    """A sink that can also reach a user's open browser tabs (the web tier, or Redis towards it).
    Apart from LiveSink so that sinks with no browsers (the runner's wake-up) need not care."""

    def sessions_ended(self, user_id: int) -> None: ...


_sinks: list[LiveSink] = []


def register_sink(sink: LiveSink) -> None:
    _sinks.append(sink)


def has_sink(kind: type) -> bool:
    return any(isinstance(sink, kind) for sink in _sinks)


def clear_sinks() -> None:
    _sinks.clear()


def chunk_publisher(conversation_id: int) -> Callable[[str, str, str], Awaitable[None]] | None:
    if not _sinks:
        return None

    async def publish(source: str, message_id: str, text: str) -> None:
        for sink in list(_sinks):
            try:
                await sink.chunk(conversation_id, source, message_id, text)
            except Exception:  # noqa: BLE001 - a slow or broken viewer must never stop a run
                log.exception("live sink failed on a chunk")

    return publish


def publish_turn(conversation_id: int, roles: tuple[str, ...] | None = None) -> None:
    """After the commit: the conversation changed, and the review queues of `roles` (the roles of the
    requests opened, claimed or closed; None when the caller cannot tell: every queue)."""
    for sink in list(_sinks):
        try:
            sink.changed(conversation_id, roles)
        except Exception:  # noqa: BLE001
            log.exception("live sink failed on a change")


def publish_sessions_ended(user_id: int) -> None:
    """After the commit: every session of this user ended (deactivated); their open tabs check their
    session again now, instead of at their next event."""
    for sink in list(_sinks):
        if isinstance(sink, SessionsSink):
            try:
                sink.sessions_ended(user_id)
            except Exception:  # noqa: BLE001 - the revocation is committed; tabs re-check on their next event
                log.exception("live sink failed to end the sessions of user %s", user_id)


def call_on_loop(loop: asyncio.AbstractEventLoop, callback: Callable[..., object], *args: object) -> None:
    """Sinks are told of changes from the event loop or from worker threads (sync API routes,
    asyncio.to_thread); either way the callback runs on the sink's own loop."""
    try:
        same_loop = asyncio.get_running_loop() is loop
    except RuntimeError:
        same_loop = False
    if same_loop:
        callback(*args)
    else:
        loop.call_soon_threadsafe(callback, *args)
