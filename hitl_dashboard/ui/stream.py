"""Streamed text to the browsers watching a conversation, in small updates of its own.

Why not through a shared state: every update Reflex fans out to the tabs linked to a shared
state re-sends the root state's router data (about 2 KB) along with the change, and a chunk
written to ConversationFeed made each browser re-render the whole conversation (transcript, diff
viewer) 15 times a second. Here a stream update is a delta of StreamFeed alone, sent straight to
each watching tab's socket (through Redis to the worker holding it when there are several):
the browser re-renders the typing card and nothing else. The stream so far is kept in the
streams store so that a tab opening the conversation mid-stream starts from it."""

from __future__ import annotations

import dataclasses

import reflex as rx
from reflex.state import StateUpdate
from reflex_base.constants.state import FIELD_MARKER

from hitl_dashboard.services.live.streams import Stream, streams_store
from hitl_dashboard.ui.fanout import send_to_tabs
from hitl_dashboard.ui.states.stream_feed import StreamFeed


def _store():
    from hitl_dashboard.settings import get_settings

    return streams_store(get_settings().redis_url)


def stream_delta(conversation_id: int, stream: Stream) -> dict[str, dict[str, object]]:
    """The update a tab receives: StreamFeed's vars, nothing else."""
    values = {"conversation_id": conversation_id, **dataclasses.asdict(stream)}
    return {StreamFeed.get_full_name(): {name + FIELD_MARKER: value for name, value in values.items()}}


async def push_stream(app: rx.App, conversation_id: int, stream: Stream) -> None:
    store = _store()
    await store.save(conversation_id, stream)
    tokens = await store.watchers(conversation_id)
    if not tokens:
        return

    async def forget(tab: str) -> None:
        await store.forget(conversation_id, tab)

    await send_to_tabs(app, tokens, StateUpdate(delta=stream_delta(conversation_id, stream)), forget)


async def watch_stream(state: rx.State, conversation_id: int) -> None:
    """From the tab's own event (it may see the conversation): stream to it from now on, starting
    with the text streamed so far."""
    store = _store()
    await store.watch(conversation_id, state.router.session.client_token)
    feed = await state.get_state(StreamFeed)
    feed._show(conversation_id, await store.current(conversation_id))
