"""The message being streamed in the conversation this browser shows ("is typing").

Kept apart from ConversationFeed so that a streamed chunk changes only this small state: the
browser then re-renders the typing card alone, not the transcript or the diff viewer. While a
message streams the server pushes it to each watching browser directly (ui/stream.py); the
values stored here are what the browser was given when it opened the conversation.
No public event: only the server fills it."""

from __future__ import annotations

import reflex as rx


class StreamFeed(rx.State):
    conversation_id: int = 0
    source: str = ""
    text: str = ""
    # When the stream began (ms since the epoch, on the clock of the process running the agent).
    # A stream that began before the newest stored message is that message: it is not shown.
    started: float = 0.0

    def _show(self, conversation_id: int, source: str, text: str, started: float) -> None:
        self.conversation_id, self.source, self.text, self.started = conversation_id, source, text, started
