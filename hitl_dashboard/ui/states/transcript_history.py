"""The older part of a transcript, read by this tab as its reader scrolls up.

The conversation feed (ui/states/feeds.py) holds the newest window, the same for every watching
tab. What lies before it is each tab's own: a contiguous run of messages that grows a page at a
time at its start (`load_older`, when the "older messages" button at the top of the transcript
comes into view: assets/transcript_pages.js clicks it) and, if the window moved on while the tab
was open, at its end up to the window (`fill_gap`). A message is never in both: the history only
holds messages before the window's first seq as the browser shows it, and that seq only grows.

The server keeps only where the history starts and ends; each read sends the browser that page
alone (`page`), which the browser adds to the pages it holds (ui/components/transcript.py): a long
history is not sent again with every page. A page mounting the transcript starts a new history
(`restart`), as the pages it held went with the old page.

Any browser may send these events with any arguments: they read messages of the conversation in
the page's own path, which every signed-in user may read, and an argument only says where."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.services.conversations.transcript_window import messages_before, messages_between
from hitl_dashboard.ui.states.app_state import AppState, path_id
from hitl_dashboard.ui.views.conversation_view import MessageRow, message_row

MAX_SEQ = 2**31 - 1


def _seq(value) -> int | None:
    try:
        seq = int(value)
    except (TypeError, ValueError):
        return None
    return seq if 0 < seq <= MAX_SEQ else None


class TranscriptHistory(AppState):
    conversation_id: rx.Field[int] = rx.field(0)
    page: rx.Field[list[MessageRow]] = rx.field(default_factory=list)  # the page read last
    pages: rx.Field[int] = rx.field(0)  # how many were read: a new page is a new number, even if alike
    first_seq: rx.Field[int] = rx.field(0)  # of the history (0: empty)
    last_seq: rx.Field[int] = rx.field(0)
    reached_start: rx.Field[bool] = rx.field(False)  # nothing before `older`
    # The window's first seq up to which fill_gap found everything (seqs with holes stop asking).
    filled_to: rx.Field[int] = rx.field(0)

    def _start(self, conversation_id: int) -> None:
        self.conversation_id, self.page, self.first_seq, self.last_seq = conversation_id, [], 0, 0
        self.reached_start, self.filled_to = False, 0

    def _add(self, rows: list[MessageRow]) -> None:
        """A page read before or after the history's messages."""
        self.page, self.pages = rows, self.pages + 1
        if rows:
            self.first_seq = min(self.first_seq or rows[0].seq, rows[0].seq)
            self.last_seq = max(self.last_seq, rows[-1].seq)

    @rx.event
    def restart(self):
        """The transcript mounted: it holds no page yet."""
        self._start(0)

    async def _conversation(self) -> int | None:
        """The page's conversation for a signed-in user; a history of another one is dropped."""
        try:
            await self._signed_in_actor()
        except PermissionDenied:
            return None
        conversation_id = path_id(self.router.url.path)
        if conversation_id is not None and conversation_id != self.conversation_id:
            self._start(conversation_id)
        return conversation_id

    @rx.event
    async def load_older(self, window_first_seq: int):
        """The page before the oldest message shown: before `older`, or before the window."""
        conversation_id = await self._conversation()
        before = self.first_seq or _seq(window_first_seq)
        if conversation_id is None or before is None:
            return
        try:
            found = await asyncio.to_thread(messages_before, None, conversation_id, before_seq=before)
        except DomainError:
            return
        if not self.first_seq:
            self.filled_to = before  # the history ends just before the window as the browser had it
        self._add([message_row(m) for m in found])
        self.reached_start = not found or found[0].seq <= 1

    @rx.event
    async def fill_gap(self, window_first_seq: int):
        """The messages between the history and the window, which moved on since the history was read."""
        conversation_id = await self._conversation()
        window = _seq(window_first_seq)
        if conversation_id is None or window is None or not self.first_seq or window <= self.filled_to:
            return
        try:
            found = await asyncio.to_thread(messages_between, None, conversation_id,
                                            after_seq=self.last_seq, before_seq=window)
        except DomainError:
            return
        self._add([message_row(m) for m in found])
        if not found or found[-1].seq + 1 >= window:
            self.filled_to = window
