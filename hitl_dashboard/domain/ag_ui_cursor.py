"""Where an AG-UI stream of a conversation stands, written into every event's id, so a client that
reconnects with Last-Event-ID gets exactly the events after that one: none twice, none missing.

Events come from stored rows only, along independent axes, each in an order that never changes
once written: messages by seq (then the piece within the message), approval-gated tool calls by id
(then start / args / end), waiting reviews by id, the state snapshot by the hash of what it shows,
and the run's start and end. Any worker can continue any stream."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hitl_dashboard.domain.errors import InvalidInput

VERSION = "1"
_FORMAT = re.compile(r"^1\.([01])\.(\d{1,10})\.(-1|\d{1,6})\.(\d{1,10})\.(-1|\d)\.(\d{1,10})"
                     r"\.([0-9a-f]{0,16})\.([01])$")


@dataclass(frozen=True)
class StreamCursor:
    started: bool = False
    # The message being sent, and the index of the last of its events sent (-1: none yet); once its
    # end is sent, the next seq and -1, so a quiet stream reads no message again.
    message_seq: int = 0
    message_part: int = -1
    tool_call_id: int = 0  # the same for approval-gated tool calls, by id
    tool_call_part: int = -1
    review_id: int = 0  # the newest waiting review announced
    state_hash: str = ""  # of the last state snapshot sent
    finished: bool = False

    def encode(self) -> str:
        return ".".join((VERSION, str(int(self.started)), str(self.message_seq), str(self.message_part),
                         str(self.tool_call_id), str(self.tool_call_part), str(self.review_id), self.state_hash,
                         str(int(self.finished))))

    @classmethod
    def decode(cls, text: str | None) -> StreamCursor:
        """The position after the event with this id; the start for None or an empty id."""
        if not text:
            return cls()
        found = _FORMAT.match(text.strip())
        if found is None:
            raise InvalidInput("Last-Event-ID is not an event id of this stream; reconnect without it "
                               "to start from the beginning", "Last-Event-ID")
        started, seq, part, tool, tool_part, review, state, finished = found.groups()
        return cls(started == "1", int(seq), int(part), int(tool), int(tool_part), int(review), state, finished == "1")
