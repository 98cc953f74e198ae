"""Streamed text to the browsers watching a conversation, in small updates of its own.

Why a state of its own: a chunk written to ConversationFeed made each browser re-render the whole
conversation (transcript, diff viewer) 15 times a second. Here a stream update is a delta of
StreamFeed alone, sent straight to each tab watching the conversation (ui/fanout.py): the browser
re-renders the typing card and nothing else. The stream so far is kept in the streams store so that
a tab opening the conversation mid-stream starts from it."""

from __future__ import annotations

import dataclasses

import reflex as rx
from reflex.state import StateUpdate
from reflex_base.constants.state import FIELD_MARKER

from hitl_dashboard.services.live.streams import Stream
from hitl_dashboard.ui.fanout import conversation_token, send_to_tabs, watchers_store
from hitl_dashboard.ui.states.stream_feed import StreamFeed


def stream_delta(conversation_id: int, stream: Stream) -> dict[str, dict[str, object]]:
    """The update a tab receives: StreamFeed's vars, nothing else."""
    values = {"conversation_id": conversation_id, **dataclasses.asdict(stream)}
    return {StreamFeed.get_full_name(): {name + FIELD_MARKER: value for name, value in values.items()}}


async def push_stream(app: rx.App, conversation_id: int, stream: Stream) -> int:
    """Returns how many tabs it was sent to."""
    store = watchers_store()
    feed = conversation_token(conversation_id)
    tabs = await store.save(conversation_id, stream, feed)
    if not tabs:
        return 0

    async def forget(tab: str) -> None:
        await store.forget(feed, tab)

    await send_to_tabs(app, tabs, StateUpdate(delta=stream_delta(conversation_id, stream)), forget)
    return len(tabs)


# How many times a tab opening a conversation re-reads the stream after its own update went out
# (catch_up below). A paused stream settles in one round; a busy one is caught by its next push.
CATCH_UP_ROUNDS = 5


async def show_stream(state: rx.State, conversation_id: int) -> Stream | None:
    """From the tab's own event, once it watches the conversation: the text streamed so far (what
    it set, for catch_up)."""
    stream = await watchers_store().current(conversation_id)
    (await state.get_state(StreamFeed))._show(conversation_id, stream)
    return stream


async def catch_up(state: rx.State, conversation_id: int, shown: Stream | None) -> tuple[bool, Stream | None]:
    """Call after the event's update carrying `shown` went out (after a `yield`). Streamed updates
    reach the tab straight from push_stream, while the tab's own event sends the text it read at its
    end: a push saved after that read but sent before the event's update was overwritten by the
    older text, and a stream paused at a gate showed it until its next chunk (the typing card stuck at
    "Plan: "). So: read again; if the stream moved on, set it again (the caller yields again).
    Returns (False, shown) when the tab is up to date: a push saved after this read is sent after
    the update already sent, so it can only be newer. Returns (True, the stream set) otherwise."""
    latest = await watchers_store().current(conversation_id)
    if latest == shown:
        return False, shown
    (await state.get_state(StreamFeed))._show(conversation_id, latest)
    return True, latest
