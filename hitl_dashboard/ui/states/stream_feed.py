"""The message being streamed in the conversation this browser shows ("is typing").

Kept apart from ConversationFeed so that a streamed chunk changes only this small state: the
browser then re-renders the typing card alone, not the transcript or the diff viewer. While a
message streams the server pushes it to each watching browser directly (ui/stream.py); the
values stored here are what the browser was given when it opened the conversation.
No public event: only the server fills it."""

from __future__ import annotations

import dataclasses

import reflex as rx

from hitl_dashboard.services.live.streams import Stream


class StreamFeed(rx.State):
    conversation_id: int = 0
    source: rx.Field[str] = rx.field("")
    text: rx.Field[str] = rx.field("")
    # When the stream began (ms since the epoch, on the clock of the process running the agent).
    # A stream that began before the newest stored message is that message: it is not shown.
    started: rx.Field[float] = rx.field(0.0)
    # The message streamed just before (services/live/streams.Stream): shown until it is stored.
    previous_source: rx.Field[str] = rx.field("")
    previous_text: rx.Field[str] = rx.field("")
    previous_started: rx.Field[float] = rx.field(0.0)

    def _show(self, conversation_id: int, stream: Stream | None) -> None:
        stream = stream or Stream("", "", 0.0)
        self.conversation_id = conversation_id
        for name, value in dataclasses.asdict(stream).items():
            setattr(self, name, value)
