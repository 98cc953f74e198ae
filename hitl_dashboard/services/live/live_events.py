"""The events of the live bus between processes, whichever carries them (Redis, or the database
when there is no Redis): what a process with no browsers tells the web tier."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from hitl_dashboard.services.live.streams import Stream


def changed_event(conversation_id: int, roles: tuple[str, ...] | None) -> dict:
    return {"type": "changed", "conversation_id": conversation_id,
            "roles": list(roles) if roles is not None else None}


def sessions_ended_event(user_id: int) -> dict:
    return {"type": "sessions_ended", "user_id": user_id}


@dataclass(frozen=True)
class LiveHandlers:
    """What the web worker does with each kind of event."""

    on_changed: Callable[[int, tuple[str, ...] | None], None]
    on_stream: Callable[[int, Stream], Awaitable[None]]
    on_sessions_ended: Callable[[int], None] | None = None


async def dispatch(event: dict, handlers: LiveHandlers) -> None:
    if event["type"] == "changed":
        roles = event.get("roles")  # absent in events of an older runner: every queue
        handlers.on_changed(int(event["conversation_id"]), tuple(roles) if roles is not None else None)
    elif event["type"] == "stream":
        await handlers.on_stream(int(event["conversation_id"]),
                                 Stream(event["source"], event["text"], float(event["started"])))
    elif event["type"] == "sessions_ended" and handlers.on_sessions_ended is not None:
        handlers.on_sessions_ended(int(event["user_id"]))
